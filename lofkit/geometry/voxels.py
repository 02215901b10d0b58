"""Compiled kernels of the inner parts (`geometry.inner`): which voxels a surface touches, how deep each voxel of a
set lies and boxes grown in it, whether boxes are clear of a surface, which boxes segments pass through
(`terrain.ConvexParts.along`), and a closed surface's winding number around points (inside or out).

A voxel is a closed cube; `surface_voxels` marks every voxel a triangle meets (the separating-axis test of
Akenine-Moller, on the cube grown by a hair so that rounding can only mark more); `grow_boxes` grows boxes of voxels
inside a set, thickest seeds first.
"""

from __future__ import annotations

import math

import numba
import numpy as np

_GROW = 1e-6
"""The tested cube's half side is h / 2 x (1 + _GROW): a triangle within a hair of a voxel marks it."""
_REACH = 0.01
"""Voxels tested around a triangle: those its bounding box, grown by this share of a voxel, touches."""
BOX_REACH = 16
"""Lookup cells past a hit that `boxes_next` looks along for the largest box a segment goes on into: a longer march
finds larger boxes, and past about 16 cells they spare few segments more."""


@numba.njit(cache=True, inline="always")
def _apart(p0: float, p1: float, p2: float, reach: float) -> bool:
    """Whether the projections p0..p2 of a triangle miss [-reach, reach]."""
    return min(p0, p1, p2) > reach or max(p0, p1, p2) < -reach


@numba.njit(cache=True, inline="always")
def _edge_axes_apart(g0: float, g1: float, g2: float, a: np.ndarray, b: np.ndarray, c: np.ndarray,
                     e: np.ndarray) -> bool:
    """Whether one of the axes x, y, z cross edge g separates triangle abc from the box of half sides e (3,)."""
    if _apart(g1 * a[2] - g2 * a[1], g1 * b[2] - g2 * b[1], g1 * c[2] - g2 * c[1], e[1] * abs(g2) + e[2] * abs(g1)):
        return True
    if _apart(g2 * a[0] - g0 * a[2], g2 * b[0] - g0 * b[2], g2 * c[0] - g0 * c[2], e[0] * abs(g2) + e[2] * abs(g0)):
        return True
    return _apart(g0 * a[1] - g1 * a[0], g0 * b[1] - g1 * b[0], g0 * c[1] - g1 * c[0], e[0] * abs(g1) + e[1] * abs(g0))


@numba.njit(cache=True)
def _meets(a: np.ndarray, b: np.ndarray, c: np.ndarray, e: np.ndarray) -> bool:
    """Whether triangle abc (relative to a box's centre, in scratch arrays) meets the box of half sides e (3,)
    (the 13 separating axes: the box's 3, the triangle's normal, and 9 cross products of edges)."""
    for k in range(3):
        if _apart(a[k], b[k], c[k], e[k]):
            return False
    u0, u1, u2 = b[0] - a[0], b[1] - a[1], b[2] - a[2]
    v0, v1, v2 = c[0] - b[0], c[1] - b[1], c[2] - b[2]
    n0, n1, n2 = u1 * v2 - u2 * v1, u2 * v0 - u0 * v2, u0 * v1 - u1 * v0
    if abs(n0 * a[0] + n1 * a[1] + n2 * a[2]) > e[0] * abs(n0) + e[1] * abs(n1) + e[2] * abs(n2):
        return False
    return not (_edge_axes_apart(u0, u1, u2, a, b, c, e) or _edge_axes_apart(v0, v1, v2, a, b, c, e)
                or _edge_axes_apart(a[0] - c[0], a[1] - c[1], a[2] - c[2], a, b, c, e))


@numba.njit(cache=True)
def boxes_clear(triangles: np.ndarray, boxes: np.ndarray, clear: np.ndarray) -> None:
    """clear[k] = whether no triangle (t, 3, 3) meets box k (k, 6: lowest and highest corners), grown by a hair."""
    e = np.empty(3)
    centre = np.empty(3)
    a, b, c = np.empty(3), np.empty(3), np.empty(3)
    for k in range(len(boxes)):
        clear[k] = True
        for m in range(3):
            e[m] = 0.5 * (boxes[k, 3 + m] - boxes[k, m]) * (1.0 + _GROW)
            centre[m] = 0.5 * (boxes[k, 3 + m] + boxes[k, m])
        for t in range(len(triangles)):
            for m in range(3):
                a[m] = triangles[t, 0, m] - centre[m]
                b[m] = triangles[t, 1, m] - centre[m]
                c[m] = triangles[t, 2, m] - centre[m]
            if _meets(a, b, c, e):
                clear[k] = False
                break


@numba.njit(cache=True, inline="always")
def _plane_span(tri: np.ndarray, centre: np.ndarray, e: np.ndarray, bottom: float, pitch: float, first: int,
                last: int) -> tuple[int, int]:
    """The voxels first..last of the column at centre[:2] (its lowest voxel's floor at `bottom`) narrowed to those
    that may pass `_meets`'s test on the triangle's normal, with one voxel to spare each way for rounding: a voxel
    whose centre lies farther from the plane than the box's reach along the normal is apart from the triangle."""
    u0, u1, u2 = tri[1, 0] - tri[0, 0], tri[1, 1] - tri[0, 1], tri[1, 2] - tri[0, 2]
    v0, v1, v2 = tri[2, 0] - tri[1, 0], tri[2, 1] - tri[1, 1], tri[2, 2] - tri[1, 2]
    n0, n1, n2 = u1 * v2 - u2 * v1, u2 * v0 - u0 * v2, u0 * v1 - u1 * v0
    if abs(n2) <= 1e-6 * (abs(n0) + abs(n1) + abs(n2)):  # a steep plane: every voxel of the column may meet it
        return first, last
    reach = e[0] * abs(n0) + e[1] * abs(n1) + e[2] * abs(n2)
    level = n0 * (tri[0, 0] - centre[0]) + n1 * (tri[0, 1] - centre[1]) + n2 * tri[0, 2]  # n . x = level at the plane
    z0, z1 = (level - reach) / n2, (level + reach) / n2
    low = (min(z0, z1) - bottom) / pitch - 0.5  # centres (k + 0.5) pitch above `bottom` within [z0, z1]
    high = (max(z0, z1) - bottom) / pitch - 0.5
    return int(max(first, math.floor(max(low, first - 2.0)) - 1)), int(min(last, math.floor(min(high, last + 2.0)) + 1))


@numba.njit(cache=True)
def surface_voxels(triangles: np.ndarray, origin: np.ndarray, pitch: float, surface: np.ndarray) -> None:
    """Mark in `surface` (nx, ny, nz) every voxel [origin + i * pitch, origin + (i + 1) * pitch] that one of
    `triangles` (t, 3, 3) meets. Along each column of its bounding box, only the voxels near the triangle's plane
    (`_plane_span`) are tested."""
    e = np.full(3, 0.5 * pitch * (1.0 + _GROW))
    shape = surface.shape
    lo = np.empty(3, dtype=np.int64)
    hi = np.empty(3, dtype=np.int64)
    centre = np.empty(3)
    a, b, c = np.empty(3), np.empty(3), np.empty(3)
    for t in range(len(triangles)):
        tri = triangles[t]
        for k in range(3):
            low = min(tri[0, k], tri[1, k], tri[2, k])
            high = max(tri[0, k], tri[1, k], tri[2, k])
            lo[k] = max(int(math.floor((low - origin[k]) / pitch - _REACH)), 0)
            hi[k] = min(int(math.floor((high - origin[k]) / pitch + _REACH)), shape[k] - 1)
        for i in range(lo[0], hi[0] + 1):
            centre[0] = origin[0] + (i + 0.5) * pitch
            for j in range(lo[1], hi[1] + 1):
                centre[1] = origin[1] + (j + 0.5) * pitch
                first, last = _plane_span(tri, centre, e, origin[2], pitch, lo[2], hi[2])
                for k in range(first, last + 1):
                    if surface[i, j, k]:
                        continue
                    centre[2] = origin[2] + (k + 0.5) * pitch
                    for m in range(3):
                        a[m], b[m], c[m] = tri[0, m] - centre[m], tri[1, m] - centre[m], tri[2, m] - centre[m]
                    if _meets(a, b, c, e):
                        surface[i, j, k] = True


@numba.njit(cache=True)
def summed_volume(inside: np.ndarray, table: np.ndarray) -> None:
    """table[i + 1, j + 1, k + 1] = how many voxels of `inside` (nx, ny, nz) lie in [0, i] x [0, j] x [0, k]; the
    table's (nx + 1, ny + 1, nz + 1) first planes hold zeros. One pass: each voxel's count along its row, plus the
    counts of the three boxes behind it, less their overlaps."""
    nx, ny, nz = inside.shape
    for i in range(nx):
        for j in range(ny):
            row = 0
            for k in range(nz):
                row += inside[i, j, k]
                table[i + 1, j + 1, k + 1] = row + table[i, j + 1, k + 1] + table[i + 1, j, k + 1] - table[i, j, k + 1]


@numba.njit(cache=True)
def chessboard_depth(inside: np.ndarray, depth: np.ndarray) -> None:
    """depth[i, j, k] = the chessboard distance (the most of |di|, |dj|, |dk|) from each voxel of `inside` to the
    nearest voxel that is not (voxels past the grid's faces are not): 0 outside. Two passes of the 26-neighbour
    chamfer, which is exact for this metric (Rosenfeld and Pfaltz, 1966); a voxel outside costs nothing."""
    n0, n1, n2 = inside.shape
    for i in range(n0):
        for j in range(n1):
            for k in range(n2):
                if not inside[i, j, k]:
                    depth[i, j, k] = 0
                    continue
                edge = i == 0 or j == 0 or k == 0 or i == n0 - 1 or j == n1 - 1 or k == n2 - 1
                best = 1 if edge else np.iinfo(depth.dtype).max
                if not edge:  # the 13 neighbours the raster order has passed
                    for dj in range(-1, 2):
                        for dk in range(-1, 2):
                            best = min(best, depth[i - 1, j + dj, k + dk] + 1)
                    for dk in range(-1, 2):
                        best = min(best, depth[i, j - 1, k + dk] + 1)
                    best = min(best, depth[i, j, k - 1] + 1)
                depth[i, j, k] = best
    for i in range(n0 - 2, 0, -1):
        for j in range(n1 - 2, 0, -1):
            for k in range(n2 - 2, 0, -1):
                best = depth[i, j, k]
                if best <= 1:
                    continue
                for dj in range(-1, 2):  # the 13 neighbours still to come
                    for dk in range(-1, 2):
                        best = min(best, depth[i + 1, j + dj, k + dk] + 1)
                for dk in range(-1, 2):
                    best = min(best, depth[i, j + 1, k + dk] + 1)
                depth[i, j, k] = min(best, depth[i, j, k + 1] + 1)


@numba.njit(cache=True)
def deepest_first(depth: np.ndarray) -> np.ndarray:
    """The flat indices of the voxels of positive `depth`, deepest first and in index order among equals (a
    counting sort: one pass to count each depth, one to place)."""
    flat = depth.ravel()
    counts = np.zeros(int(flat.max()) + 2, dtype=np.int64)
    for v in flat:
        counts[v] += 1
    start = np.empty_like(counts)
    placed = 0
    for d in range(len(counts) - 1, 0, -1):
        start[d] = placed
        placed += counts[d]
    order = np.empty(placed, dtype=np.int64)
    for i in range(len(flat)):
        d = flat[i]
        if d > 0:
            order[start[d]] = i
            start[d] += 1
    return order


@numba.njit(cache=True, inline="always")
def _count(table: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> int:
    """Voxels of the set in the box [lo, hi) from its summed-volume `table`."""
    return (table[hi[0], hi[1], hi[2]] - table[lo[0], hi[1], hi[2]] - table[hi[0], lo[1], hi[2]]
            - table[hi[0], hi[1], lo[2]] + table[lo[0], lo[1], hi[2]] + table[lo[0], hi[1], lo[2]]
            + table[hi[0], lo[1], lo[2]] - table[lo[0], lo[1], lo[2]])


@numba.njit(cache=True)
def grow_boxes(table: np.ndarray, seeds: np.ndarray, claimed: np.ndarray, max_boxes: int,
               min_voxels: int) -> np.ndarray:
    """Boxes [lo, hi) of voxels all in a set (its summed-volume `table`, shape + 1): from each seed (k,), a flat
    index into `claimed`, in order, that no earlier box holds, grow a box one layer at a time on each of its six
    sides in turn while the layer lies in the set. Boxes may overlap; those under `min_voxels` are dropped (their
    voxels stay claimed). Marks `claimed`; returns (b, 6) int64: lo, hi."""
    shape = np.array(claimed.shape)
    plane = shape[1] * shape[2]
    boxes = np.empty((max_boxes, 6), dtype=np.int64)
    found = 0
    lo = np.empty(3, dtype=np.int64)
    hi = np.empty(3, dtype=np.int64)
    layer_lo = np.empty(3, dtype=np.int64)
    layer_hi = np.empty(3, dtype=np.int64)
    for s in range(len(seeds)):
        if found == max_boxes:
            break
        i, j, k = seeds[s] // plane, seeds[s] % plane // shape[2], seeds[s] % shape[2]
        if claimed[i, j, k]:
            continue
        lo[0], lo[1], lo[2] = i, j, k
        hi[0], hi[1], hi[2] = i + 1, j + 1, k + 1
        grew = True
        while grew:
            grew = False
            for axis in range(3):
                for side in range(2):
                    layer_lo[:] = lo
                    layer_hi[:] = hi
                    if side == 0:
                        if lo[axis] == 0:
                            continue
                        layer_lo[axis] = lo[axis] - 1
                        layer_hi[axis] = lo[axis]
                    else:
                        if hi[axis] == shape[axis]:
                            continue
                        layer_lo[axis] = hi[axis]
                        layer_hi[axis] = hi[axis] + 1
                    size = (layer_hi[0] - layer_lo[0]) * (layer_hi[1] - layer_lo[1]) * (layer_hi[2] - layer_lo[2])
                    if _count(table, layer_lo, layer_hi) == size:
                        lo[axis] = min(lo[axis], layer_lo[axis])
                        hi[axis] = max(hi[axis], layer_hi[axis])
                        grew = True
        claimed[lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]] = True
        if (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]) >= min_voxels:
            boxes[found, :3] = lo
            boxes[found, 3:] = hi
            found += 1
    return boxes[:found].copy()


@numba.njit(cache=True)
def first_voxels(labels: np.ndarray, count: int) -> np.ndarray:
    """For labels 0..count of a labelled grid (flattened), the flat index of the first voxel of each (-1: none)."""
    first = np.full(count + 1, -1, dtype=np.int64)
    for i in range(len(labels)):
        if first[labels[i]] < 0:
            first[labels[i]] = i
    return first


@numba.njit(cache=True, inline="always")
def _segment_meets_box(start: np.ndarray, end: np.ndarray, box: np.ndarray) -> bool:
    """Whether the segment from `start` to `end` meets the closed box (6: lowest and highest corners)."""
    enter, leave = 0.0, 1.0
    for k in range(3):
        step = end[k] - start[k]
        if step == 0.0:
            if start[k] < box[k] or start[k] > box[3 + k]:
                return False
            continue
        t0, t1 = (box[k] - start[k]) / step, (box[3 + k] - start[k]) / step
        enter, leave = max(enter, min(t0, t1)), min(leave, max(t0, t1))
        if enter > leave:
            return False
    return True


@numba.njit(cache=True)
def boxes_along(starts: np.ndarray, ends: np.ndarray, bounds: np.ndarray, order: np.ndarray, chunks: np.ndarray,
                groups: np.ndarray, rows: np.ndarray, found: np.ndarray) -> int:
    """For each segment r (`starts`, `ends` (n, 3)), the boxes `bounds` (p, 6) it meets, as pairs (rows[i],
    found[i]) in order of r; boxes come in chunks (c, 8: first, stop in `order`, then the box around the chunk's
    boxes) and chunks in groups (g, 8: first, stop chunk, then the box around the group's boxes), each passed over
    whole when the segment misses its box. Returns how many pairs, or -1 when the output arrays are too short."""
    count = 0
    for r in range(len(starts)):
        for g in range(len(groups)):
            if not _segment_meets_box(starts[r], ends[r], groups[g, 2:]):
                continue
            for c in range(int(groups[g, 0]), int(groups[g, 1])):
                if not _segment_meets_box(starts[r], ends[r], chunks[c, 2:]):
                    continue
                for k in range(int(chunks[c, 0]), int(chunks[c, 1])):
                    if _segment_meets_box(starts[r], ends[r], bounds[order[k]]):
                        if count == len(rows):
                            return -1
                        rows[count] = r
                        found[count] = order[k]
                        count += 1
    return count


@numba.njit(cache=True)
def boxes_next(points: np.ndarray, directions: np.ndarray, mesh: np.ndarray, k: int, to_mesh: np.ndarray,
               lookup: np.ndarray, origin: np.ndarray, pitch: float, boxes: np.ndarray, first_box: int,
               part: np.ndarray) -> None:
    """For each segment s that hit mesh k (mesh[s] == k) at points[s] going along directions[s] (n, 3 each) and has
    no part yet (part[s] < 0): an inner box it is likely to cross, first_box + a box of `boxes` (b, 6) that the mesh's
    `lookup` grid (first cell at `origin`, cells `pitch` a side, in the frame that `to_mesh` (4, 4) takes table
    points to) holds at a cell the segment passes within `BOX_REACH` cells of the hit: the largest the ray meets,
    else the first held within 3 cells. A larger box is crossed by more of a pair's segments, so it is the better
    candidate; a guess, never a proof. Left -1 where there is none."""
    local, along, far = np.empty(3), np.empty(3), np.empty(3)
    for s in range(len(mesh)):
        if mesh[s] != k or part[s] >= 0:
            continue
        for i in range(3):
            local[i] = (to_mesh[i, 0] * points[s, 0] + to_mesh[i, 1] * points[s, 1] + to_mesh[i, 2] * points[s, 2]
                        + to_mesh[i, 3])
            along[i] = (to_mesh[i, 0] * directions[s, 0] + to_mesh[i, 1] * directions[s, 1]
                        + to_mesh[i, 2] * directions[s, 2])
        step = pitch / math.sqrt(along[0] ** 2 + along[1] ** 2 + along[2] ** 2)
        for i in range(3):
            far[i] = local[i] + (BOX_REACH + 1) * step * along[i]
        best, largest, last = -1, -1.0, -1
        for depth in range(BOX_REACH + 1):
            c0 = math.floor((local[0] + depth * step * along[0] - origin[0]) / pitch)
            c1 = math.floor((local[1] + depth * step * along[1] - origin[1]) / pitch)
            c2 = math.floor((local[2] + depth * step * along[2] - origin[2]) / pitch)
            if not (0 <= c0 < lookup.shape[0] and 0 <= c1 < lookup.shape[1] and 0 <= c2 < lookup.shape[2]):
                continue
            box = lookup[c0, c1, c2]
            if box < 0 or box == last:
                continue
            last = box
            if best < 0 and depth <= 2:
                best = box
            size = (boxes[box, 3] - boxes[box, 0]) * (boxes[box, 4] - boxes[box, 1]) * (boxes[box, 5] - boxes[box, 2])
            if size > largest and _segment_meets_box(local, far, boxes[box]):
                best, largest = box, size
        if best >= 0:
            part[s] = first_box + best


@numba.njit(cache=True)
def winding_numbers(triangles: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The winding number of a closed triangle surface (t, 3, 3) around each point (n, 3): the sum of the signed
    solid angles of its triangles over 4 pi (van Oosterom and Strackee). Compiled: a point costs one pass over the
    triangles, with no (points x triangles) arrays."""
    result = np.zeros(points.shape[0])
    corner = np.empty((3, 3))  # the triangle's corners relative to the point, a row each
    length = np.empty(3)
    for i in range(points.shape[0]):
        total = 0.0
        for t in range(triangles.shape[0]):
            for k in range(3):
                for d in range(3):
                    corner[k, d] = triangles[t, k, d] - points[i, d]
                length[k] = math.sqrt(corner[k, 0] ** 2 + corner[k, 1] ** 2 + corner[k, 2] ** 2)
            a, b, c = corner[0], corner[1], corner[2]
            numerator = (a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2])
                         + a[2] * (b[0] * c[1] - b[1] * c[0]))
            denominator = (length[0] * length[1] * length[2]
                           + (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) * length[2]
                           + (a[0] * c[0] + a[1] * c[1] + a[2] * c[2]) * length[1]
                           + (b[0] * c[0] + b[1] * c[1] + b[2] * c[2]) * length[0])
            total += 2 * math.atan2(numerator, denominator)
        result[i] = total / (4 * np.pi)
    return result
