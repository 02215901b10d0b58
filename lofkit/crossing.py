"""The inner loop of the proofs of "hidden", compiled: do all segments between two point sets cross a convex part?

Proofs (`blockers.hiding_parts`, `blockers.blind`) test millions of (row, candidate part) pairs, most of them
failing on their first segment; a compiled loop stops there, where whole-array numpy would finish every segment.
"""

from __future__ import annotations

import math

import numba
import numpy as np

PARALLEL = 1e-12
"""|rate| at or below which a segment runs parallel to a plane."""
INSIDE = 1e-9
"""Length (mm) a segment must run inside a part to cross it (touching is not crossing)."""


@numba.njit(cache=True, nogil=True)
def _room(points: np.ndarray, normals: np.ndarray, offsets: np.ndarray, planes: int, margin: float) -> bool:
    """Whether one plane of the part keeps every point farther than `margin` outside it."""
    for f in range(planes):
        clear = True
        for i in range(points.shape[0]):
            side = normals[f, 0] * points[i, 0] + normals[f, 1] * points[i, 1] + normals[f, 2] * points[i, 2]
            if side - offsets[f] <= margin:
                clear = False
                break
        if clear:
            return True
    return False


@numba.njit(cache=True, nogil=True)
def _crosses(start: np.ndarray, end: np.ndarray, normals: np.ndarray, offsets: np.ndarray, planes: int) -> bool:
    """Whether the segment from `start` to `end` runs through the inside of {x: normals @ x <= offsets}."""
    enter, leave = 0.0, 1.0
    for f in range(planes):
        at_start = normals[f, 0] * start[0] + normals[f, 1] * start[1] + normals[f, 2] * start[2]
        at_end = normals[f, 0] * end[0] + normals[f, 1] * end[1] + normals[f, 2] * end[2]
        gap, rate = offsets[f] - at_start, at_end - at_start
        if rate < -PARALLEL:
            enter = max(enter, gap / rate)
        elif rate > PARALLEL:
            leave = min(leave, gap / rate)
        elif gap <= 0:
            return False
    length = math.sqrt((end[0] - start[0]) ** 2 + (end[1] - start[1]) ** 2 + (end[2] - start[2]) ** 2)
    return (leave - enter) * length > INSIDE


@numba.njit(cache=True, nogil=True)
def all_cross(starts, ends, rows, which, normals, offsets, faces, margin, out) -> None:
    """out[c] = whether every segment from a point of starts[rows[c]] (a, 3) to a point of ends[rows[c]] (b, 3)
    crosses convex part which[c] (`normals` (p, f, 3), `offsets` (p, f), `faces` (p,) planes in use); with
    `margin` > 0, one plane must also keep all the starts, and one all the ends, farther than `margin` outside."""
    for c in range(which.shape[0]):
        r, p = rows[c], which[c]
        planes = faces[p]
        ok = margin <= 0 or (_room(starts[r], normals[p], offsets[p], planes, margin)
                             and _room(ends[r], normals[p], offsets[p], planes, margin))
        i = 0
        while ok and i < starts.shape[1]:
            for j in range(ends.shape[1]):
                if not _crosses(starts[r, i], ends[r, j], normals[p], offsets[p], planes):
                    ok = False
                    break
            i += 1
        out[c] = ok
