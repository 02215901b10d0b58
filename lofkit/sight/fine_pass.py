"""The fine pass's scheduling: which blocks of a template's lattice are still candidates for a seen square, which
points lie in them, and in what order the fine pass checks them.

docs/rules.md (LoF 2): a square counts as seen when every segment to it is unobstructed; the sampling rule
(`lattice`) says which lattice blocks stand for squares. A block is a candidate while no point of it is known
blocked (`clear_blocks`); the coarse strides narrow the candidates (`block_points`), and the fine pass then casts
the candidates' points block by block (`pick_blocks`, in `central_order` or `spread_order`), each block's
`block_cross` first. The compiled bookkeeping is in `fine_pass_kernels`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from lofkit.sight import fine_pass_kernels
from lofkit.sight.kernel_args import kernel_array
from lofkit.sight.lattice import COARSE_STRIDES, strided_indices


def clear_blocks(known_blocked: np.ndarray, block: tuple[int, int]) -> np.ndarray:
    """For each row of `known_blocked` (n, c, r), which blocks of `block` cells (by lower-left lattice point) hold
    no point known to be blocked: the candidates for a seen square."""
    n, cols, lines = known_blocked.shape
    clear = np.empty((n, cols - block[0], lines - block[1]), dtype=bool)
    stride = min(COARSE_STRIDES[0], block[0] + 1, block[1] + 1)  # a block's points per side at most
    fine_pass_kernels.clear_blocks(known_blocked=known_blocked, wide=block[0], high=block[1],
                                   at_cols=strided_indices(cols - 1, block[0], stride),
                                   at_lines=strided_indices(lines - 1, block[1], stride), out=clear)
    return clear


def clear_blocks_again(known_blocked: np.ndarray, candidates: np.ndarray, rows: np.ndarray,
                       block: tuple[int, int]) -> None:
    """`candidates[rows] = clear_blocks(known_blocked[rows], block)` when `candidates` was that before more points
    became known, in place."""
    fine_pass_kernels.clear_blocks_again(known_blocked=known_blocked, wide=block[0], high=block[1], rows=rows,
                                         out=candidates)


def clear_blocks_near(known_blocked: np.ndarray, candidates: np.ndarray, rows: np.ndarray, c0: np.ndarray,
                      r0: np.ndarray, block: tuple[int, int]) -> None:
    """`candidates[rows] = clear_blocks(known_blocked[rows], block)` when only the points of each row's block
    (c0, r0) changed since `candidates` was that: the blocks sharing a point with it are recomputed, in place."""
    fine_pass_kernels.clear_blocks_near(known_blocked=known_blocked, wide=block[0], high=block[1], rows=rows, c0=c0,
                                        l0=r0, out=candidates)


def block_points(candidates: np.ndarray, block: tuple[int, int], rows: np.ndarray, cols: np.ndarray,
                 lines: np.ndarray) -> np.ndarray:
    """Which lattice points cols x lines of rows `rows` lie in at least one candidate block of `candidates`
    (n, c, r; by lower-left lattice point, as `clear_blocks` gives them): (len(rows), len(cols), len(lines)). Only
    such points' segments can still change which blocks are candidates."""
    inside = np.empty((len(rows), len(cols), len(lines)), dtype=bool)
    fine_pass_kernels.block_points(candidates=candidates, wide=block[0], high=block[1], rows=kernel_array(rows),
                                   cols=kernel_array(cols), lines=kernel_array(lines), out=inside)
    return inside


def block_cross(block: tuple[int, int]) -> np.ndarray:
    """The lattice points of a block's middle column and middle line ((block[0] + 1, block[1] + 1)), cast before the
    rest: an obstacle that blocks a point of a block mostly crosses them too (on table-c's heatmap, they held a
    blocked point in 92% of the blocks the fine pass found blocked), so the rest of those is not cast."""
    cross = np.zeros((block[0] + 1, block[1] + 1), dtype=bool)
    cross[block[0] // 2, :] = cross[:, block[1] // 2] = True
    return cross


def central_blocks(candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the candidate block nearest the middle of the template (the witness players expect to see): its
    lower-left lattice column and line."""
    order = central_order(*candidates.shape[1:])
    best = order[np.argmax(candidates.reshape(len(candidates), len(order))[:, order], axis=1)]
    return np.unravel_index(best, candidates.shape[1:])


@lru_cache(maxsize=64)
def central_order(cols: int, lines: int) -> np.ndarray:
    """Flat indices of the blocks of a template with cols x lines of them, nearest its middle first (ties in flat
    order)."""
    offset = np.add.outer((np.arange(cols) - (cols - 1) / 2) ** 2, (np.arange(lines) - (lines - 1) / 2) ** 2)
    return np.argsort(offset.ravel(), kind="stable")


@lru_cache(maxsize=64)
def spread_order(cols: int, lines: int) -> np.ndarray:
    """Flat indices of the blocks of a template with cols x lines of them: the middle one first (as `central_order`),
    then in Morton order of their bit-reversed column and line, so that blocks in turn lie far apart and one
    obstacle (a bar, a window's edge) does not block one after another: when only whether a pair sees matters, a
    clear block is found sooner so than centre-most first."""
    bits = max(cols, lines, 2).bit_length()
    across, up = np.meshgrid(np.arange(cols), np.arange(lines), indexing="ij")
    key = np.zeros(across.shape, dtype=np.int64)
    for bit in range(bits):  # reversed, interleaved: bit b of the column goes to bit 2 (bits - 1 - b), the line's next
        place = 2 * (bits - 1 - bit)
        key |= ((across >> bit) & 1) << place | ((up >> bit) & 1) << (place + 1)
    middle = central_order(cols, lines)[0]
    order = np.argsort(key.ravel(), kind="stable")
    return np.concatenate([[middle], order[order != middle]])


def search_start(candidates: np.ndarray) -> np.ndarray:
    """Where each row's `pick_blocks` search starts (n,): at the first block of its order, or past its last block
    when it has no candidate (else the search would run through every block of it once to find none)."""
    return np.where(candidates.any(axis=(1, 2)), 0, candidates.shape[1] * candidates.shape[2])


def pick_blocks(candidates: np.ndarray, cursor: np.ndarray, pair: np.ndarray, has_witness: np.ndarray,
                most: int, order: np.ndarray) -> tuple[np.ndarray, ...]:
    """Rows with a candidate block (`candidates` (n, c, r)) whose pair has no witness yet (`has_witness`), at most
    `most` per pair (the first ones), and each one's first candidate in `order` (flat block indices:
    `central_order` picks the `central_blocks`): (rows, their columns, their lines). `cursor` (n,), from
    `search_start` at first, keeps where each row's search got to: blocks may only stop being candidates between
    calls. A batch's last open rows, no more than `most` in all, take their next candidates too, up to `most` blocks
    a pair (a row may come more than once): each round costs about as much in Python whatever it casts, so a batch's
    tail should not spend a round on a few blocks."""
    n = max(len(candidates), most * most)  # a block a row; or, in a batch's tail, up to `most` for each of `most` pairs
    picked, cols, lines = (np.empty(n, dtype=np.int64) for _ in range(3))
    found = fine_pass_kernels.pick_blocks(candidates=candidates, cursor=cursor, order=order, pair=pair,
                                          has_witness=has_witness, most=most,
                                          taken=np.zeros(len(has_witness), dtype=np.int64), picked=picked,
                                          cols=cols, lines=lines)
    return picked[:found], cols[:found], lines[:found]
