"""Where a segment may pass through a capped mesh from one of its holes to another without meeting a face: `inner`
keeps its boxes out of those places.

A segment through a point x inside the capped solid leaves it on both sides of x, each time through a face of the
mesh or through a cap. When both are caps, of holes a and b (or twice one), the piece of the segment between them
lies in the convex hull of the two rims, so the voxels that may meet such a hull are kept out (`through_holes`). A
rim in one plane has a flat hull, whose facets bound it only across that plane: each point is first taken a hair
along every axis both ways (`THICKNESS`), which makes the hull a thin solid bounded along the plane too.
"""

from __future__ import annotations

import numba
import numpy as np
from scipy.spatial import ConvexHull

HULL_SLACK = 1e-6
"""Each plane of a hull of holes is moved out by this (mm), so that joggling the points never shrinks it."""
THICKNESS = 1e-3
"""Each point of a hull of holes is also taken this far (mm) along each axis both ways: rims in one plane have a
flat hull, whose facets bound it only across that plane, never along it (it would take in the whole rectangle)."""
_GROW = 1e-6
"""A voxel's half side is grown by this share when testing whether it may meet a hull."""


@numba.njit(cache=True)
def hull_voxels(planes: np.ndarray, origin: np.ndarray, pitch: float, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Which voxels with indices in [lo, hi] (an array of that block) may meet the convex set {x: planes[:, :3] . x
    <= planes[:, 3]} (one that meets it is in every plane's half-space grown by the cube's reach along the plane's
    normal)."""
    e = 0.5 * pitch * (1.0 + _GROW)
    marked = np.zeros((hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1), dtype=np.bool_)
    for i in range(lo[0], hi[0] + 1):
        x = origin[0] + (i + 0.5) * pitch
        for j in range(lo[1], hi[1] + 1):
            y = origin[1] + (j + 0.5) * pitch
            for k in range(lo[2], hi[2] + 1):
                z = origin[2] + (k + 0.5) * pitch
                meets = True
                for f in range(len(planes)):
                    n = planes[f]
                    if n[0] * x + n[1] * y + n[2] * z - e * (abs(n[0]) + abs(n[1]) + abs(n[2])) > n[3]:
                        meets = False
                        break
                if meets:
                    marked[i - lo[0], j - lo[1], k - lo[2]] = True
    return marked


def hull_block(points: np.ndarray, origin: np.ndarray, pitch: float,
               shape: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The lowest voxel index of the block around `points` (n, 3) and which of its voxels may meet their hull."""
    around = points[:, None] + np.vstack([np.zeros(3), THICKNESS * np.eye(3), -THICKNESS * np.eye(3)])
    hull = ConvexHull(around.reshape(-1, 3), qhull_options="QJ")
    planes = np.column_stack([hull.equations[:, :3], -hull.equations[:, 3] + HULL_SLACK])
    lo = np.clip(np.floor((points.min(axis=0) - origin) / pitch).astype(np.int64) - 1, 0, None)
    hi = np.minimum(np.floor((points.max(axis=0) - origin) / pitch).astype(np.int64) + 1, np.array(shape) - 1)
    return lo, hull_voxels(np.ascontiguousarray(planes), origin, pitch, lo, hi)


def through_holes(rims: tuple[np.ndarray, ...], reach: tuple[int, ...], origin: np.ndarray, pitch: float,
                  shape: tuple[int, int, int]) -> np.ndarray:
    """Voxels that may meet the convex hull of two holes' rims (or of one's), on a grid of `shape` voxels of `pitch`
    from `origin`. Holes the mesh itself closes (`seals`) are no way through and are not given; two holes are taken
    together only when their open parts may reach each other inside (the same `reach`: `inner.reaches`).

    >>> square = lambda x, y: np.array([[x, y, 0], [x + 2, y, 0], [x + 2, y + 2, 0], [x, y + 2, 0]], float)
    >>> marked = through_holes((square(0, 0), square(10, 10)), (0, 0), np.full(3, -0.5), 1.0, (13, 13, 1))
    >>> int(marked.sum())  # a strip along the diagonal of the 13 x 13 voxels around both holes
    79
    """
    marked = np.zeros(shape, dtype=bool)
    for i in range(len(rims)):
        for j in range(i, len(rims)):
            if reach[i] != reach[j]:
                continue
            lo, hull = hull_block(rims[i] if i == j else np.vstack([rims[i], rims[j]]), origin, pitch, shape)
            marked[tuple(slice(a, a + n) for a, n in zip(lo, hull.shape))] |= hull
    return marked
