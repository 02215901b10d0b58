"""The fine pass's bookkeeping (`fine_pass`), compiled: which blocks of a template's lattice hold no blocked point,
and which points lie in candidate blocks. The fine pass of the search asks the first question again after every
block it casts, so `clear_blocks_near` answers it for the blocks around the one cast only. `lattice_segments` writes
the segments the passes cast, each lattice point once."""

from __future__ import annotations

import math

import numba
import numpy as np

from lofkit.sight.kernel_args import Templates
from lofkit.sight.kernels import NONZERO


@numba.njit(cache=True, nogil=True)
def _clear_region(known_blocked, r, c_lo, c_hi, l_lo, l_hi, wide, high, summed, out) -> None:
    """out[r, c, l] for blocks c_lo <= c < c_hi, l_lo <= l < l_hi: whether no point of lattice block (c..c + wide, l..l
    + high) of row r is known blocked (`known_blocked`), by a summed-area table of the points they span."""
    for c in range(c_hi + wide - c_lo):
        run = 0
        for line in range(l_hi + high - l_lo):
            run += known_blocked[r, c_lo + c, l_lo + line]
            summed[c + 1, line + 1] = summed[c, line + 1] + run
    for c in range(c_hi - c_lo):
        for line in range(l_hi - l_lo):
            out[r, c_lo + c, l_lo + line] = (summed[c + wide + 1, line + high + 1] - summed[c, line + high + 1]
                                             - summed[c + wide + 1, line] + summed[c, line]) == 0


@numba.njit(cache=True, nogil=True)
def _marked_box(marks, r) -> tuple[int, int, int, int]:
    """The box of blocks around those `marks` (n, c, l) holds for row r: c_lo, c_hi, l_lo, l_hi (stops exclusive;
    c_lo >= c_hi when there is none)."""
    c_lo, c_hi, l_lo, l_hi = marks.shape[1], 0, marks.shape[2], 0
    for c in range(marks.shape[1]):
        for line in range(marks.shape[2]):
            if marks[r, c, line]:
                c_lo, c_hi = min(c_lo, c), c + 1
                l_lo, l_hi = min(l_lo, line), max(l_hi, line + 1)
    return c_lo, c_hi, l_lo, l_hi


@numba.njit(cache=True, nogil=True)
def clear_blocks(known_blocked, wide, high, at_cols, at_lines, out) -> None:
    """out[r, c, l] = whether no point of lattice block (c..c + wide, l..l + high) of row r is `known_blocked` (n, c, l)
    blocked. Every block holds a point of columns `at_cols` x lines `at_lines` (`lattice.strided_indices`), so
    only the blocks around such points not known blocked are worked out (most rows have a few)."""
    n, cols, lines = known_blocked.shape
    blocks_c, blocks_l = cols - wide, lines - high
    summed = np.zeros((cols + 1, lines + 1), dtype=np.int32)
    for r in range(n):
        c_lo, c_hi, l_lo, l_hi = blocks_c, 0, blocks_l, 0
        for c in at_cols:
            for line in at_lines:
                if not known_blocked[r, c, line]:  # the blocks holding it have lower-left points up to a block back
                    c_lo, c_hi = min(c_lo, max(c - wide, 0)), max(c_hi, min(c + 1, blocks_c))
                    l_lo, l_hi = min(l_lo, max(line - high, 0)), max(l_hi, min(line + 1, blocks_l))
        out[r] = False
        if c_lo < c_hi and l_lo < l_hi:
            _clear_region(known_blocked, r, c_lo, c_hi, l_lo, l_hi, wide, high, summed, out)


@numba.njit(cache=True, nogil=True)
def clear_blocks_near(known_blocked, wide, high, rows, c0, l0, out) -> None:
    """`clear_blocks` again for rows `rows[k]` after the points of block (c0[k], l0[k]) were cast: only the blocks
    that share a point with it can change, so only they are recomputed (out is left as it is elsewhere)."""
    blocks_c, blocks_l = out.shape[1], out.shape[2]
    summed = np.zeros((3 * wide + 2, 3 * high + 2), dtype=np.int32)
    for k in range(len(rows)):
        c_lo, c_hi = max(0, c0[k] - wide), min(blocks_c, c0[k] + wide + 1)
        l_lo, l_hi = max(0, l0[k] - high), min(blocks_l, l0[k] + high + 1)
        _clear_region(known_blocked, rows[k], c_lo, c_hi, l_lo, l_hi, wide, high, summed, out)


@numba.njit(cache=True, nogil=True)
def clear_blocks_again(known_blocked, wide, high, rows, out) -> None:
    """`clear_blocks` again for rows `rows` after more of their points became known: blocks only stop being clear,
    so only those within the bounding box of the clear ones are recomputed."""
    summed = np.zeros((known_blocked.shape[1] + 1, known_blocked.shape[2] + 1), dtype=np.int32)
    for r in rows:
        c_lo, c_hi, l_lo, l_hi = _marked_box(out, r)
        if c_lo < c_hi:
            _clear_region(known_blocked, r, c_lo, c_hi, l_lo, l_hi, wide, high, summed, out)


@numba.njit(cache=True, nogil=True)
def block_points(candidates, wide, high, rows, cols, lines, out) -> None:
    """out[k, i, j] = whether lattice point (cols[i], lines[j]) of row rows[k] lies in a block (wide x high cells,
    by lower-left point) that `candidates` (n, c, l) marks, by a summed-area table of the blocks around the
    candidates (a row's candidates lie close together: those of a few clear coarse points)."""
    blocks_c, blocks_l = candidates.shape[1], candidates.shape[2]
    summed = np.zeros((blocks_c + 1, blocks_l + 1), dtype=np.int32)
    for k in range(rows.shape[0]):
        c_lo, c_hi, l_lo, l_hi = _marked_box(candidates, rows[k])
        out[k] = False
        if c_lo >= c_hi:
            continue
        for c in range(c_hi - c_lo):  # summed[c, l]: candidates among blocks c_lo.. c_lo + c - 1, l_lo.. l_lo + l - 1
            run = 0
            for line in range(l_hi - l_lo):
                run += candidates[rows[k], c_lo + c, l_lo + line]
                summed[c + 1, line + 1] = summed[c, line + 1] + run
        for i in range(cols.shape[0]):
            lo_c, hi_c = max(cols[i] - wide, c_lo), min(cols[i] + 1, c_hi)
            for j in range(lines.shape[0]):
                lo_l, hi_l = max(lines[j] - high, l_lo), min(lines[j] + 1, l_hi)
                out[k, i, j] = lo_c < hi_c and lo_l < hi_l and (
                    summed[hi_c - c_lo, hi_l - l_lo] - summed[lo_c - c_lo, hi_l - l_lo]
                    - summed[hi_c - c_lo, lo_l - l_lo] + summed[lo_c - c_lo, lo_l - l_lo]) > 0


@numba.njit(cache=True, nogil=True)
def pick_blocks(candidates, cursor, order, pair, has_witness, most, taken, picked, cols, lines) -> int:
    """Rows with a candidate block whose pair has no witness yet, at most `most` per pair (the first ones), and each
    one's candidate first in `order` (flat block indices, e.g. nearest the template's middle first): picked[k], at
    cols[k], lines[k]; returns how many. Blocks only stop being candidates, so each row's search starts where its
    last one ended, at order[cursor[r]] (len(order): it has none left). When no more than `most` rows are picked
    in all (a batch's last open rows), they also take their next candidates in order, up to `most` blocks a pair
    (see `fine_pass.pick_blocks`). `taken` (pairs,) is zeros, and left so; `candidates` is C-contiguous."""
    blocks_l = candidates.shape[2]
    flat = candidates.reshape((candidates.shape[0], candidates.shape[1] * blocks_l))  # C-contiguous: no copy
    found = 0
    for r in range(candidates.shape[0]):
        if has_witness[pair[r]] or taken[pair[r]] >= most:
            continue
        while cursor[r] < order.shape[0]:
            at = order[cursor[r]]
            if flat[r, at]:  # most blocks are not: no division until one is
                taken[pair[r]] += 1
                picked[found], cols[found], lines[found] = r, at // blocks_l, at % blocks_l
                found += 1
                break
            cursor[r] += 1
    for k in range(found if found <= most else 0):  # the batch's last rows: more blocks each, up to `most` a pair
        r = picked[k]
        at_next = cursor[r] + 1
        while taken[pair[r]] < most and at_next < order.shape[0]:
            at = order[at_next]
            if flat[r, at]:
                taken[pair[r]] += 1
                picked[found], cols[found], lines[found] = r, at // blocks_l, at % blocks_l
                found += 1
            at_next += 1
    for k in range(found):
        taken[pair[picked[k]]] = 0
    return found


@numba.njit(cache=True, nogil=True)
def _lattice_segments(eyes, centres, z, axis, half_width, pitch, which, cols, lines, wanted, settled, trim, origins,
                      directions, lengths, flat, nonzero) -> int:
    """For each k, the segments from eye k (`eyes` (n, 3)) to the lattice points cols[k] x lines[k] ((n, c) and
    (n, r)) of its template (placed by centres[k], z[k], axis[k]) that `wanted[k]` (n, c, r) marks and row which[k]
    has not `settled` (rows, C, L), which they are marked: written trimmed by `trim`, as `segments.Segments`
    makes them, with each one's point as a flat index into `settled`. Returns how many."""
    size = settled.shape[1] * settled.shape[2]
    point = np.empty(3)
    written = 0
    for k in range(which.shape[0]):
        for i in range(cols.shape[1]):
            for j in range(lines.shape[1]):
                col, line = cols[k, i], lines[k, j]
                if not wanted[k, i, j] or settled[which[k], col, line]:
                    continue
                settled[which[k], col, line] = True
                across = -half_width + col * pitch[0]  # as `lattice.Lattice.offsets` places the point
                point[0] = centres[k, 0] + across * axis[k, 0] - eyes[k, 0]
                point[1] = centres[k, 1] + across * axis[k, 1] - eyes[k, 1]
                point[2] = z[k] + max(line * pitch[1], trim) - eyes[k, 2]
                length = math.sqrt(point[0] * point[0] + point[1] * point[1] + point[2] * point[2])
                for d in range(3):
                    directions[written, d] = point[d] / max(length, nonzero)
                    origins[written, d] = eyes[k, d] + directions[written, d] * trim
                lengths[written] = max(length - 2 * trim, 0.0)
                flat[written] = which[k] * size + col * settled.shape[2] + line
                written += 1
    return written


def lattice_segments(eyes: np.ndarray, templates: Templates, which: np.ndarray, cols: np.ndarray, lines: np.ndarray,
                     wanted: np.ndarray, settled: np.ndarray, trim: float,
                     out: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[int, np.ndarray]:
    """The segments from eyes (n, 3) to the lattice points cols x lines ((n, c), (n, r)) of their templates that
    `wanted` (n, c, r) marks and rows `which` have not `settled` yet, which they now are (see `_lattice_segments`):
    written to `out` (origins, directions, lengths). Returns how many, and each one's point as a flat index into
    `settled`."""
    flat = np.empty(len(out[2]), dtype=np.int64)
    count = _lattice_segments(eyes=eyes, centres=templates.centres, z=templates.z, axis=templates.axis,
                              half_width=templates.half_width, pitch=templates.pitch, which=which, cols=cols,
                              lines=lines, wanted=wanted, settled=settled, trim=trim, origins=out[0],
                              directions=out[1], lengths=out[2], flat=flat, nonzero=NONZERO)
    return count, flat[:count]
