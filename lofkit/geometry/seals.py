"""Holes of an open mesh that the mesh itself closes: a cap lying on faces of the mesh, in their plane, or on the
cap of another hole, facing the other way.

Kits made for games and CAD leave faces out where another body of the same piece covers them: a house's walls are
open at the top where the roof's underside lies, and at the foot where its base plate's top lies. Such a hole's cap
(`inner.caps_over_holes`) lies on faces of the mesh, so a segment that crosses the cap crosses those faces at the
same point: it meets the mesh there, as it would a wall. And where two bodies meet with no face between them (a
storey's walls open at the top standing on the next storey's, open at the bottom), the two holes have the same rim
and their caps, turned opposite ways, cancel: the capped solid goes on through them (the winding number does not
change across two caps over one place facing opposite ways), and a segment crossing them does not leave it there.
A cap buried inside a closed body of the mesh (the open end of a peg set into a beam) seals its hole too: a segment
that leaves through it is inside that body, and leaves it through the body's faces, since segments end outside the
solid; and so does one with the capped solid on both of its sides wherever no face lies on it (`enclosed`: a post's
open foot inside an open floor, its cap cut by the floor's faces). Such rims need not be kept out of the boxes
(`passages.through_holes`). Coordinates a few single-precision steps apart are one, and vertices that then coincide
one vertex (`welded`): an export in single precision may write a rim and the face it lies on, or the two ends of one
seam, a step apart, which leaves a crack no wider than that (Embree, which casts in single precision, hardly resolves
it) and a rim in no plane. The test is then exact: the rim lies in a plane x, y or z = c (every vertex exactly there)
and so does every vertex of the faces that cover its cap, which shapely checks in that plane; caps that cancel may
lie a rounding apart (`OVERLAP`), each inside the other's solid, with no vertex of the mesh between them.
"""

from __future__ import annotations

import numpy as np
import shapely
import trimesh

from lofkit.geometry.voxels import winding_numbers

APART = 1e-6
"""mm by which a cap must stay clear of a closed body's faces to count as buried in it (`_buried`)."""
UNCOVERED = 1e-9
"""Share of a cap's area that may be left uncovered by rounding in shapely's overlay (never a real gap)."""
OVERLAP = 1e-3
"""mm two caps turned opposite ways may lie apart and still cancel, when each lies inside the other's solid (a kit
exported in single precision puts the top of one storey's walls and the foot of the next a rounding apart)."""


WELD_STEPS = 4
"""Coordinates at most this many single-precision steps apart (at the mesh's largest coordinate) are one (`welded`)."""


def welded(mesh: trimesh.Trimesh) -> trimesh.Trimesh:
    """`mesh` with the values each coordinate takes snapped together where they lie at most `WELD_STEPS`
    single-precision steps apart (`snapped_values`), and vertices that then coincide made one (the first), faces kept in
    their order (a face two of whose vertices become one keeps its place, flat). An export in single precision
    writes one seam's two ends, or a cap's rim and the face it lies on, a step or two apart.

    >>> seam = trimesh.Trimesh([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1 + 1e-7, 0, 0], [1, 1, 0]], [[0, 1, 2], [3, 4, 2]])
    >>> welded(seam).faces.tolist()
    [[0, 1, 2], [1, 4, 2]]
    """
    vertices = np.asarray(mesh.vertices, dtype=float)
    reach = WELD_STEPS * float(np.finfo(np.float32).eps) * max(1.0, float(np.abs(vertices).max(initial=0.0)))
    snapped = np.column_stack([snapped_values(vertices[:, axis], reach) for axis in range(3)])
    if (snapped == vertices).all() and len(np.unique(vertices, axis=0)) == len(vertices):
        return mesh
    _, first, which = np.unique(snapped, axis=0, return_index=True, return_inverse=True)
    return trimesh.Trimesh(snapped, first[which.reshape(-1)][mesh.faces], process=False)


def snapped_values(values: np.ndarray, reach: float) -> np.ndarray:
    """`values` with each run of them that spans at most `reach` (from its least, in increasing order) set to its
    least: no value moves by more than `reach`. Values more than `reach` from their neighbours stay as they are; only
    the rare chains of close values are walked one by one.

    >>> snapped_values(np.array([3.0, 1.0, 1.0 + 1e-9, 2.0, 1.0 + 2e-6, 1.0 + 2.5e-6]), 1e-6).tolist()
    [3.0, 1.0, 1.0, 2.0, 1.000002, 1.000002]
    """
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    chains = np.r_[0, np.flatnonzero(np.diff(ordered) > reach) + 1, len(ordered)]
    first, stop = chains[:-1], chains[1:]
    starts, long = [first], ordered[stop - 1] - ordered[first] > reach
    for k, end in zip(first[long].tolist(), stop[long].tolist()):
        while (k := int(np.searchsorted(ordered, ordered[k] + reach, side="right"))) < end:  # runs from the least on
            starts.append(np.array([k]))
    start = np.zeros(len(values), dtype=bool)
    start[np.concatenate(starts)] = True
    out = np.empty_like(values)
    out[order] = ordered[np.flatnonzero(start)][np.cumsum(start) - 1]
    return out


def sealed_rims(triangles: np.ndarray, caps: np.ndarray, rims: tuple[np.ndarray, ...],
                solids: list[np.ndarray] | None = None, out: list[int] | None = None,
                surface: np.ndarray | None = None) -> np.ndarray:
    """Whether each hole is sealed: its cap lies on the mesh's faces `triangles` (t, 3, 3), on caps of other holes
    turned the other way and on faces of closed components of it (`solids`, each (s, 3, 3), faces turned out) that
    hold it, or inside one of those components, clear of its faces (`_buried`), or, given the faces of the `surface`
    that the caps close (s, 3, 3), with that closed surface's solid on both of its sides (`enclosed`). `caps` are the
    caps of every rim in `rims`' order, one triangle per rim vertex, as `inner.caps_over_holes` makes them; `rims`
    each hole's vertices; `out` says of each whether its capped part's faces are turned out (1, the default) or in
    (-1).

    Examples
    --------
    >>> import trimesh
    >>> walls = trimesh.creation.box([10, 10, 10])  # a box without its top, and a plate covering the top
    >>> walls.update_faces(walls.face_normals[:, 2] < 0.5)
    >>> plate = trimesh.creation.box([12, 12, 1]).apply_translation([0, 0, 5.5])
    >>> from lofkit.geometry.inner import caps_over_holes
    >>> caps, rims = caps_over_holes(walls.vertices, walls.faces)
    >>> sealed_rims(np.concatenate([walls.triangles, plate.triangles]), caps, rims).tolist()
    [True]
    >>> sealed_rims(walls.triangles, caps, rims).tolist()
    [False]
    """
    ends = np.cumsum([len(rim) for rim in rims])
    cap_of = [caps[end - len(rim) : end] for rim, end in zip(rims, ends)]
    planes = [_plane(rim, cap, turned) for rim, cap, turned in zip(rims, cap_of, out or [1] * len(rims))]
    in_plane = _faces_by_plane(triangles, {plane[:2] for plane in planes if plane is not None})
    bodies = solids or []
    every = np.concatenate(bodies) if bodies else None
    boxes = np.array([[body.min(axis=(0, 1)), body.max(axis=(0, 1))] for body in bodies]).reshape(-1, 2, 3)
    capped = None if surface is None else np.concatenate([surface, caps])
    sealed = np.zeros(len(rims), dtype=bool)
    for k, plane in enumerate(planes):
        if _buried(cap_of[k], bodies, boxes):
            sealed[k] = True
            continue
        if plane is None:
            continue
        others = [cap_of[j] for j, other in enumerate(planes) if j != k and other is not None
                  and _cancel(plane, other, triangles, cap_of[k])]
        cover = np.concatenate([in_plane[plane[:2]], *others, _holding(plane, every, triangles, cap_of[k])])
        mine = slice(ends[k] - len(rims[k]), ends[k])
        sealed[k] = _covered(cover, cap_of[k], plane[0]) or (
            capped is not None and enclosed(capped, len(surface), mine, plane[0], plane[1]))
    return sealed


def _buried(cap: np.ndarray, bodies: list[np.ndarray], boxes: np.ndarray) -> bool:
    """Whether the cap (c, 3, 3) lies inside one of the closed components `bodies` (faces turned out; `boxes` (b, 2,
    3) their bounding boxes), clear of its faces: no face of it meets the cap (`_meeting`), so the whole cap lies on
    the side of its middle (its triangles' shared corner), around which the component winds once. Only components
    whose box holds the cap's are tried: around a point outside its box, a surface winds no times."""
    low, high = cap.reshape(-1, 3).min(axis=0), cap.reshape(-1, 3).max(axis=0)
    for body in (bodies[i] for i in np.flatnonzero(((boxes[:, 0] < low) & (boxes[:, 1] > high)).all(axis=1))):
        near = body[((body.max(axis=1) >= low - APART) & (body.min(axis=1) <= high + APART)).all(axis=1)]
        if len(near) and _meeting(np.repeat(cap, len(near), axis=0), np.tile(near, (len(cap), 1, 1))).any():
            continue
        winding = winding_numbers(np.require(body, float, "CW"), np.require(cap[:1, 2], float, "CW"))[0]
        if abs(winding - 1) < 0.25:
            return True
    return False


def _meeting(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Whether triangles first[k] and second[k] ((n, 3, 3) each) may meet: no axis among their normals and the cross
    products of their edges (the separating axes of two triangles; triangles in one plane are never told apart)
    keeps their projections more than `APART` apart, so rounding only makes more of them meet."""
    edges = [np.roll(t, -1, axis=1) - t for t in (first, second)]
    axes = np.concatenate([np.cross(edges[0][:, :1], edges[0][:, 1:2]), np.cross(edges[1][:, :1], edges[1][:, 1:2]),
                           np.cross(edges[0][:, :, None], edges[1][:, None]).reshape(-1, 9, 3)], axis=1)
    axes /= np.maximum(np.linalg.norm(axes, axis=2, keepdims=True), 1e-300)
    on_first, on_second = (np.einsum("nad,nvd->nav", axes, t) for t in (first, second))
    gap = np.maximum(on_first.min(axis=2) - on_second.max(axis=2), on_second.min(axis=2) - on_first.max(axis=2))
    return ~(gap > APART).any(axis=1)


def flat_planes(rim: np.ndarray) -> set[tuple[int, float]]:
    """The planes x, y or z = level (as (axis, level)) in which every vertex of `rim` (k, 3) lies exactly."""
    return {(a, float(rim[0, a])) for a in range(3) if (rim[:, a] == rim[0, a]).all()}


def _faces_by_plane(triangles: np.ndarray, planes: set[tuple[int, float]]) -> dict[tuple[int, float], np.ndarray]:
    """For each of `planes`, the triangles (t, 3, 3) with every vertex exactly in it: one pass over the faces."""
    found = {}
    for axis in {axis for axis, _ in planes}:
        flat = np.flatnonzero((triangles[:, :, axis] == triangles[:, :1, axis]).all(axis=1))
        levels = triangles[flat, 0, axis]
        for a, level in planes:
            if a == axis:
                found[a, level] = triangles[flat[levels == level]]
    return found


def _holding(plane: tuple[int, float, int], solids: np.ndarray | None, triangles: np.ndarray,
             cap: np.ndarray) -> np.ndarray:
    """The faces of closed components (`solids`) that hold a cap in `plane` where they lie over it: each flat at one
    level on the plane's axis, at most `OVERLAP` behind the cap, turned towards the cap's solid, with no vertex of
    the mesh between (`_cancel`)."""
    if solids is None or len(solids) == 0 or plane[2] == 0:
        return np.zeros((0, 3, 3))
    axis, level, facing = plane
    levels = solids[:, 0, axis]
    turned = np.sign(np.cross(solids[:, 1] - solids[:, 0], solids[:, 2] - solids[:, 0])[:, axis])
    near = (solids[:, :, axis] == levels[:, None]).all(axis=1) & (turned == -facing)
    near &= ((levels - level) * facing <= 0) & ((levels - level) * facing >= -OVERLAP)
    held = [k for other in np.unique(levels[near]).tolist()
            if _cancel(plane, (axis, other, -facing), triangles, cap) for k in np.flatnonzero(near & (levels == other))]
    return solids[held]


def _cancel(mine: tuple[int, float, int], other: tuple[int, float, int], triangles: np.ndarray,
            cap: np.ndarray) -> bool:
    """Whether a cap in plane `other` cancels one in plane `mine` where they overlap: the same axis, turned opposite
    ways, in one plane or each at most `OVERLAP` inside the other's solid (a cap faces out of its solid), and no
    vertex of the mesh between them over the cap."""
    (axis, level, facing), (other_axis, other_level, other_facing) = mine, other
    if other_axis != axis or facing == 0 or other_facing != -facing:
        return False
    inside = (other_level - level) * facing  # <= 0: the other solid begins at or before this one ends
    if inside > 0 or inside < -OVERLAP:
        return False
    low, high = sorted((level, other_level))
    points = triangles.reshape(-1, 3)
    kept = [a for a in range(3) if a != axis]
    flat = cap[:, :, kept].reshape(-1, 2)
    over = ((points[:, kept] >= flat.min(axis=0)) & (points[:, kept] <= flat.max(axis=0))).all(axis=1)
    return not (over & (points[:, axis] > low) & (points[:, axis] < high)).any()


def _plane(rim: np.ndarray, cap: np.ndarray, out: int) -> tuple[int, float, int] | None:
    """(axis, level, facing) when every vertex of `rim` lies exactly at `level` on `axis` (x, y or z = level); facing
    is the side every triangle of its `cap` faces along that axis (+1 or -1; turned round when its part's faces are
    turned in, `out` = -1), 0 when they do not all face one way. None for a rim in no such plane."""
    planes = sorted(flat_planes(rim))
    if not planes:
        return None
    axis, level = planes[0]
    normal = np.cross(cap[:, 1] - cap[:, 0], cap[:, 2] - cap[:, 0])[:, axis]
    facing = 1 if (normal > 0).all() else -1 if (normal < 0).all() else 0
    return axis, level, facing * out


def _covered(cover: np.ndarray, cap: np.ndarray, axis: int) -> bool:
    """Whether the triangles `cover` (t, 3, 3) cover those of `cap`, seen along `axis`."""
    if len(cover) == 0:
        return False
    kept = [a for a in range(3) if a != axis]
    faces, hole = _shadow(cover, kept), _shadow(cap, kept)
    return hole.area > 0 and hole.difference(faces).area <= UNCOVERED * hole.area


def _area(corners: np.ndarray) -> float:
    (x0, y0), (x1, y1), (x2, y2) = corners
    return abs((x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)) / 2


def enclosed(capped: np.ndarray, faces: int, which: slice, axis: int, level: float) -> bool:
    """Whether a cap in the plane x, y or z (`axis`) = `level` (the triangles `which` of the caps, which follow the
    mesh's first `faces` triangles in `capped`) has the solid of the closed surface `capped` on both of its sides
    wherever a segment may cross it without meeting a face: a pillar's open foot inside the floor it stands in. A
    segment that leaves the capped solid through a cap passes from a point inside to one outside (winding number 0),
    so it never leaves through this one. Where faces of the mesh lie on the cap, in its plane, a segment crossing
    there meets them; the rest of the cap is cut along the lines where other faces and caps meet its plane into
    cells, and off those lines nothing meets the cap, so on each side of a cell the winding number is the same all
    over it: it is taken just beside a point of each cell (`APART` / 2 away, every triangle further than `APART` from
    the point). A cap of another hole in the same plane is no cover (a segment crossing it meets nothing): its
    triangles' sides cut cells too, and the points beside a cell lie on either side of it as well."""
    kept = [a for a in range(3) if a != axis]
    mine = slice(faces + which.start, faces + which.stop)
    cap = capped[mine]
    low, high = cap.reshape(-1, 3).min(axis=0) - APART, cap.reshape(-1, 3).max(axis=0) + APART
    near = ((capped.max(axis=1) >= low) & (capped.min(axis=1) <= high)).all(axis=1)
    near[mine] = False
    others = capped[near]
    flat = (others[:, :, axis] == level).all(axis=1)
    lying = flat & (np.flatnonzero(near) >= faces)  # other caps in the plane: no cover, but they change the sides
    hole = _shadow(cap, kept)
    uncovered = hole.difference(_shadow(others[flat & ~lying], kept))
    if uncovered.area <= UNCOVERED * hole.area:
        return True
    meeting = others[~flat & (others[:, :, axis].min(axis=1) <= level) & (others[:, :, axis].max(axis=1) >= level)]
    traces = [_trace(t, axis, level, kept) for t in meeting]
    traces += [shapely.LineString(t[[0, 1, 2, 0]][:, kept]) for t in others[lying]]
    lines = shapely.union_all([uncovered.boundary, *(trace for trace in traces if trace is not None)])
    cells = [cell for cell in shapely.get_parts(shapely.polygonize(shapely.get_parts(lines)))
             if uncovered.contains(cell.representative_point())]
    if abs(sum(cell.area for cell in cells) - uncovered.area) > UNCOVERED * hole.area:
        return False  # the cells do not make up the cap: rounding in the overlay
    points = np.zeros((len(cells), 3))
    points[:, kept] = [cell.representative_point().coords[0] for cell in cells]
    points[:, axis] = level
    others = others[~lying]  # exactly in the plane: the points beside it lie off it, on either side
    if len(others):
        pairs = np.repeat(others, len(points), axis=0), np.tile(points, (len(others), 1))
        if (np.linalg.norm(trimesh.triangles.closest_point(*pairs) - pairs[1], axis=1) <= APART).any():
            return False
    beside = np.concatenate([points, points])
    beside[:, axis] += np.repeat([APART / 2, -APART / 2], len(points))
    winding = winding_numbers(np.require(capped, float, "CW"), beside)
    return bool(((np.abs(winding - np.round(winding)) < 0.25) & (np.round(winding) != 0)).all())


def _shadow(triangles: np.ndarray, kept: list[int]) -> shapely.Geometry:
    """The union of `triangles` (t, 3, 3) seen along the axis not in `kept`."""
    return shapely.union_all([shapely.Polygon(t) for t in triangles[:, :, kept] if _area(t) > 0])


def _trace(triangle: np.ndarray, axis: int, level: float, kept: list[int]) -> shapely.LineString | None:
    """Where a triangle (3, 3) that is not flat in the plane `axis` = `level` meets it: a segment (None: a point)."""
    height = triangle[:, axis] - level
    points = [triangle[i] for i in range(3) if height[i] == 0]
    points += [triangle[i] + (triangle[j] - triangle[i]) * (height[i] / (height[i] - height[j]))
               for i, j in ((0, 1), (1, 2), (2, 0)) if height[i] * height[j] < 0]
    ends = np.unique(np.array(points)[:, kept], axis=0)
    return shapely.LineString(ends[[0, -1]]) if len(ends) > 1 else None
