"""What obstructs a segment: blocking terrain (the world's ray back-end) and other troopers' volumes (exact cylinders).

docs/rules.md (LoF 3): "Segments are obstructed by: every terrain piece that blocks (solid scenery, and Zero
Visibility zones ...), and the volume of every other trooper, friendly, enemy or neutral. Never by: A and B
themselves, markers, troopers that declared a movement in this order (`moving`), terrain marked
`blocks_lof: false`." Touching is not obstructing: a segment must pass through a volume's inside.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lofkit.sight.kernels import INSIDE, NONZERO, PARALLEL, all_cross
from lofkit.sight.lattice import END_TRIM

PRISM_SIDES = 12
"""Sides of the prisms drawn around volumes for proofs of "hidden" (they must contain the cylinders)."""


@dataclass(frozen=True)
class Segments:
    """Segments as ray back-ends take them: origins, unit directions and lengths, trimmed by `END_TRIM` at both ends."""

    origins: np.ndarray
    directions: np.ndarray
    lengths: np.ndarray

    @classmethod
    def between(cls, starts: np.ndarray, ends: np.ndarray, trim: float = END_TRIM) -> Segments:
        starts, ends = np.reshape(starts, (-1, 3)), np.reshape(ends, (-1, 3))
        span = ends - starts
        length = np.linalg.norm(span, axis=1)
        unit = span / np.maximum(length, NONZERO)[:, None]
        return cls(starts + unit * trim, unit, np.maximum(length - 2 * trim, 0.0))

    def take(self, keep: np.ndarray) -> Segments:
        return Segments(self.origins[keep], self.directions[keep], self.lengths[keep])


def blocking_troopers(world, a: int, b: int) -> np.ndarray:
    """Troopers whose volumes may block sight between `a` and `b` (`in_corridor`; the rtree finds those near it)."""
    v = world.troopers
    box = np.concatenate([np.minimum(v.boxes[a, :3], v.boxes[b, :3]), np.maximum(v.boxes[a, 3:], v.boxes[b, 3:])])
    near = np.fromiter(world.trooper_index.intersection(tuple(box)), dtype=np.int64)
    return np.sort(near[in_corridor(v, np.full(len(near), a), np.full(len(near), b), near)])


def in_corridor(v, a: np.ndarray, b: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Whether trooper other[k] may block sight between a[k] and b[k]: not a marker, not `moving`, not one of the
    pair, and its volume meeting the convex hull of the pair's two volumes, which holds every segment between them
    (eyes are in A's volume, templates in B's). That hull is the union, over t in [0, 1], of the cylinders whose
    centre, radius, bottom and top are (1 - t) A's + t B's; `CORRIDOR_SLACK` keeps float rounding from dropping a
    trooper that touches it."""
    start, end, heights_meet = _heights_meet(v.z[a], v.z[b] - v.z[a], v.top[a], v.top[b] - v.top[a],
                                             v.z[other], v.top[other])
    gap = _least_gap(v.centre[a] - v.centre[other], v.centre[b] - v.centre[a], v.radius[b] - v.radius[a], start, end)
    discs_meet = gap < v.radius[a] + v.radius[other] + CORRIDOR_SLACK
    return v.blocks_lof[other] & (other != a) & (other != b) & heights_meet & discs_meet


def comes_near(v, starts: np.ndarray, ends: np.ndarray, other: np.ndarray, reach: float) -> np.ndarray:
    """Whether the segment from starts[k] to ends[k] (k, 3) may come within `reach` of trooper other[k]'s volume:
    whether it meets that cylinder widened by `reach` all round and heightened by it at both ends (which holds every
    point within `reach` of the cylinder)."""
    rise = ends[:, 2] - starts[:, 2]
    start, end, heights_meet = _heights_meet(starts[:, 2], rise, starts[:, 2], rise, v.z[other] - reach,
                                             v.top[other] + reach)
    gap = _least_gap(starts[:, :2] - v.centre[other], ends[:, :2] - starts[:, :2], np.zeros(len(starts)), start, end)
    return heights_meet & (gap < v.radius[other] + reach + CORRIDOR_SLACK)


CORRIDOR_SLACK = 1e-6
"""mm by which `in_corridor` and `comes_near` err on the side of "may block"."""


def _heights_meet(bottom: np.ndarray, bottom_rise: np.ndarray, top: np.ndarray, top_rise: np.ndarray,
                  low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The t in [0, 1] where the span from bottom + t bottom_rise to top + t top_rise meets the span from `low` to
    `high` (within `CORRIDOR_SLACK`), row by row: (start, end, whether any); start = end = 0 where none."""
    under_from, under_to = _where_at_most(bottom, bottom_rise, high + CORRIDOR_SLACK)  # the bottom under `high`
    over_from, over_to = _where_at_most(-top, -top_rise, CORRIDOR_SLACK - low)  # the top over `low`
    start = np.maximum(np.maximum(under_from, over_from), 0.0)
    end = np.minimum(np.minimum(under_to, over_to), 1.0)
    meet = start <= end
    return np.where(meet, start, 0.0), np.where(meet, end, 0.0), meet


def _where_at_most(start: np.ndarray, slope: np.ndarray, bound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The interval (low, high) of t where start + slope * t <= bound (empty where low > high)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        cut = (bound - start) / slope
    anywhere = start <= bound
    low = np.where(slope < 0, cut, np.where((slope > 0) | anywhere, -np.inf, np.inf))
    high = np.where(slope > 0, cut, np.where((slope < 0) | anywhere, np.inf, -np.inf))
    return low, high


def _least_gap(offset: np.ndarray, span: np.ndarray, grow: np.ndarray, start: np.ndarray,
               end: np.ndarray) -> np.ndarray:
    """The least of |offset + t span| - t grow over t in [start, end], row by row. It is convex in t, so the least
    is at an end or where its slope, |span| s / sqrt(h^2 + s^2) with s = |span| (t - foot) (foot: where the line
    comes nearest, h away), equals `grow`: at s = grow h / sqrt(|span|^2 - grow^2), when |span| > |grow|."""
    length2 = np.einsum("ij,ij->i", span, span)
    foot = -np.einsum("ij,ij->i", offset, span) / np.maximum(length2, NONZERO)
    h = np.linalg.norm(offset + foot[:, None] * span, axis=1)
    steep = length2 > grow**2
    turn = foot + np.where(steep, grow * h / np.sqrt(np.maximum(length2 * (length2 - grow**2), NONZERO)), 0.0)
    tried = np.stack([start, end, np.clip(turn, start, end)])
    return np.min(np.linalg.norm(offset + tried[..., None] * span, axis=2) - tried * grow, axis=0)


def cylinder_entry(volumes, segments: Segments, cylinders: np.ndarray) -> np.ndarray:
    """Distance along each segment at which it enters the inside of each of its cylinders (inf: it does not).

    `cylinders` (n, k) holds trooper indices per segment, -1 for none; returns (n, k). Work is done only for the
    (segment, cylinder) pairs that exist.
    """
    entry = np.full(cylinders.shape, np.inf)
    for slot in range(cylinders.shape[1]):
        rows = np.flatnonzero(cylinders[:, slot] >= 0)
        if len(rows):
            entry[rows, slot] = _enter_cylinder(volumes, segments, rows, cylinders[rows, slot])
    return entry


def _enter_cylinder(volumes, segments: Segments, rows: np.ndarray, troopers: np.ndarray) -> np.ndarray:
    o, d, length = segments.origins[rows], segments.directions[rows], segments.lengths[rows]
    rel = o[:, :2] - volumes.centre[troopers]
    a = d[:, 0] ** 2 + d[:, 1] ** 2
    b = 2 * (rel[:, 0] * d[:, 0] + rel[:, 1] * d[:, 1])
    c = rel[:, 0] ** 2 + rel[:, 1] ** 2 - volumes.radius[troopers] ** 2
    disc = b * b - 4 * a * c
    level = a > PARALLEL  # a: the direction's squared horizontal share; at or below, it runs along the axis
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.sqrt(np.maximum(disc, 0.0))
        t0 = np.where(level, np.where(disc > 0, (-b - root) / (2 * a), np.inf), np.where(c < 0, -np.inf, np.inf))
        t1 = np.where(level, (-b + root) / (2 * a), np.where(c < 0, np.inf, -np.inf))
        bottom, top = volumes.z[troopers], volumes.top[troopers]
        flat = np.abs(d[:, 2]) < PARALLEL  # level with the caps
        inside_z = (o[:, 2] > bottom) & (o[:, 2] < top)
        za, zb = (bottom - o[:, 2]) / d[:, 2], (top - o[:, 2]) / d[:, 2]
        zlo = np.where(flat, np.where(inside_z, -np.inf, np.inf), np.minimum(za, zb))
        zhi = np.where(flat, np.where(inside_z, np.inf, -np.inf), np.maximum(za, zb))
    enter = np.maximum(np.maximum(t0, zlo), 0.0)
    leave = np.minimum(np.minimum(t1, zhi), length)
    return np.where(leave - enter > INSIDE, enter, np.inf)


def inside_zero_visibility(world, points: np.ndarray) -> np.ndarray:
    """Whether each point lies inside a Zero Visibility zone (a closed mesh)."""
    inside = np.zeros(len(points), dtype=bool)
    if len(points) == 0 or not world.zero_visibility:
        return inside
    lowest, highest = points.min(axis=0), points.max(axis=0)
    for index in world.zero_visibility:
        piece = world.pieces[index]
        low, high = piece.bounds
        if np.any(highest < low) or np.any(lowest > high):
            continue  # the whole batch is clear of this zone's box
        near = np.flatnonzero(np.all((points >= low) & (points <= high), axis=1))
        if len(near) and piece.closed:
            inside[near[piece.mesh.contains(points[near])]] = True
    return inside


def blocked(world, segments: Segments, cylinders: np.ndarray, in_smoke: np.ndarray | None = None) -> np.ndarray:
    """Whether each segment is obstructed by blocking terrain or by one of its `cylinders` (n, k).

    Zero Visibility zones "block into, through and out of themselves": a segment crossing a zone's surface is
    blocked by the ray back-end, and one starting inside a zone is blocked too, even when it never leaves it. `in_smoke`
    (n,) may give that per segment when the caller knows it (all segments of one eye share it)."""
    hit = world.blocking_rays.occluded(segments.origins, segments.directions, segments.lengths)
    return _or_smoke_and_troopers(world, segments, cylinders, in_smoke, hit)


def blocked_first_parts(world, segments: Segments, cylinders: np.ndarray,
                        in_smoke: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`blocked`, and the convex part (index into `world.convex_parts`) each segment's first hit leads to (-1: none;
    `ConvexParts.part_at`); an intersection query instead of an occlusion query."""
    distance, mesh, face = world.blocking_rays.first_face(segments.origins, segments.directions, segments.lengths)
    hit = _or_smoke_and_troopers(world, segments, cylinders, in_smoke, mesh >= 0)
    points = segments.origins + segments.directions * np.where(mesh >= 0, distance, 0)[:, None]
    return hit, world.convex_parts.part_at(mesh, face, points, segments.directions)


def _or_smoke_and_troopers(world, segments: Segments, cylinders: np.ndarray, in_smoke: np.ndarray | None,
                           hit: np.ndarray) -> np.ndarray:
    """`hit` (segments obstructed by terrain), or starting in a Zero Visibility zone, or through a cylinder."""
    if world.zero_visibility:
        hit |= inside_zero_visibility(world, segments.origins) if in_smoke is None else in_smoke
    if cylinders.shape[1] == 0:  # no trooper in any corridor (a heatmap's probes block nothing)
        return hit
    free = np.flatnonzero(~hit & (cylinders >= 0).any(axis=1))
    if len(free):
        clear = Segments(segments.origins[free], segments.directions[free], segments.lengths[free])
        hit[free] = np.isfinite(cylinder_entry(world.troopers, clear, cylinders[free])).any(axis=1)
    return hit


def first_obstruction(world, segments: Segments, cylinders: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distance to the first obstruction along each segment (inf: clear) and what it is, as a code: a piece
    index, or the number of pieces plus a trooper index (-1: clear). `blocker_names` turns codes into ids."""
    distance, mesh = world.blocking_rays.first_hit(segments.origins, segments.directions, segments.lengths)
    entry = cylinder_entry(world.troopers, segments, cylinders)
    rows = np.arange(len(distance))
    nearest = np.argmin(entry, axis=1) if entry.shape[1] else np.zeros(len(distance), dtype=int)
    trooper_t = entry[rows, nearest] if entry.shape[1] else np.full(len(distance), np.inf)
    by_trooper = trooper_t < distance
    codes = np.full(len(distance), -1, dtype=np.int64)
    hit_piece = ~by_trooper & np.isfinite(distance)
    codes[hit_piece] = world.blocking_pieces[mesh[hit_piece]]
    codes[by_trooper] = len(world.pieces) + cylinders[rows[by_trooper], nearest[by_trooper]]
    return np.minimum(distance, trooper_t), codes


def blocker_names(world) -> np.ndarray:
    """Ids indexed by obstruction code (see `first_obstruction`)."""
    return np.array([p.id for p in world.pieces] + list(world.troopers.ids), dtype=object)


def blocker_counts(world, segments: Segments, cylinders: np.ndarray) -> list[tuple[str, int]]:
    """How many segments each blocker stops first (a terrain piece or a trooper), most first."""
    _, codes = first_obstruction(world, segments, cylinders)
    found, counts = np.unique(codes[codes >= 0], return_counts=True)
    names = blocker_names(world)[found].tolist()
    return sorted(zip(names, counts.tolist()), key=lambda item: (-item[1], item[0]))


def prisms(volumes, indices: np.ndarray, heading: np.ndarray | float = 0.0) -> np.ndarray:
    """Vertices (n, 2 * PRISM_SIDES, 3) of prisms containing the volume cylinders of troopers `indices`, from
    `END_TRIM` above their undersides (where the lowest eyes and lattice points are) to their tops; each ring's first
    vertex lies at angle `heading` (radians, per trooper or for all) from the x axis."""
    indices = np.asarray(indices, dtype=np.int64).reshape(-1)
    angle = np.reshape(heading, (-1, 1)) + np.arange(PRISM_SIDES) * 2 * np.pi / PRISM_SIDES
    reach = volumes.radius[indices] / np.cos(np.pi / PRISM_SIDES)
    ring = volumes.centre[indices][:, None, :] + reach[:, None, None] * np.stack([np.cos(angle), np.sin(angle)], -1)
    levels = [np.broadcast_to(z[:, None, None], ring.shape[:2] + (1,)) for z in (volumes.z[indices] + END_TRIM,
                                                                                 volumes.top[indices])]
    return np.concatenate([np.concatenate([ring, level], axis=-1) for level in levels], axis=1)


def prism_vertices(volumes, i: int) -> np.ndarray:
    """Vertices (2 * PRISM_SIDES, 3) of the prism around trooper i's volume (see `prisms`)."""
    return prisms(volumes, [i])[0]


PROOF_PAIRS = 2048
"""Rows whose candidate parts are gathered at once by `covering_parts`."""


def _all_through(starts: np.ndarray, ends: np.ndarray, rows: np.ndarray, parts, which: np.ndarray) -> np.ndarray:
    """For each candidate c, whether every segment from a point of `starts[rows[c]]` to a point of
    `ends[rows[c]]` passes through the inside of convex part `which[c]` (touching is not crossing)."""
    result = np.zeros(len(which), dtype=bool)
    if len(which):
        all_cross(np.ascontiguousarray(starts, dtype=float), np.ascontiguousarray(ends, dtype=float),
                  np.asarray(rows, dtype=np.int64), np.asarray(which, dtype=np.int64), parts.normals, parts.offsets,
                  parts.faces, result)
    return result


Candidates = tuple[np.ndarray, np.ndarray]
"""(row, part) pairs, ordered by row, then part: convex parts that proofs for each row may use."""


def line_candidates(world, pairs: np.ndarray) -> Candidates:
    """Every (pair, part) such that the segment between the middles of the pair's two volumes (`pairs` (n, 2)) meets
    the part's box (`ConvexParts.along`). A part that every segment between two hulls crosses is among them when
    each hull holds its volume's middle, as the prisms around the volumes and their halves do (`covering_parts`)."""
    v = world.troopers
    if len(world.convex_parts.piece) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    middles = [np.column_stack([v.centre[k], v.z[k] + v.height[k] / 2]) for k in (pairs[:, 0], pairs[:, 1])]
    return world.convex_parts.along(*middles)


def candidates_of(candidates: Candidates, rows: np.ndarray) -> Candidates:
    """The candidates of rows `rows` (ascending), renumbered 0, 1, ... in that order."""
    keep = np.isin(candidates[0], rows)
    return np.searchsorted(rows, candidates[0][keep]), candidates[1][keep]


def covering_parts(world, starts: np.ndarray, ends: np.ndarray, candidates: Candidates | None = None) -> np.ndarray:
    """For each row n, one convex part of blocking terrain (an index into `world.convex_parts`) that every segment
    between the convex hulls of `starts[n]` (n, a, 3) and `ends[n]` (n, b, 3) crosses, or -1. If every segment
    between the vertices of two convex polytopes crosses one convex body, every segment between any of their
    points does (the body holds a cross-section of each cone of segments). Candidates must cross any one segment
    between the hulls, so they are the row's `candidates` when given (`line_candidates`), else the parts whose boxes
    the segment between the two hulls' middles meets (`ConvexParts.along`); a few vertex-to-vertex segments rule
    most of them out before all are tried; the lowest-numbered covering part is returned."""
    parts = world.convex_parts
    found = np.full(len(starts), -1, dtype=np.int64)
    if len(parts.piece) == 0:
        return found
    few_a = np.unique(np.linspace(0, starts.shape[1] - 1, 4).round().astype(int))
    few_b = np.unique(np.linspace(0, ends.shape[1] - 1, 4).round().astype(int))
    for first in range(0, len(starts), PROOF_PAIRS):
        a, b = starts[first : first + PROOF_PAIRS], ends[first : first + PROOF_PAIRS]
        middles = (a.mean(1, keepdims=True), b.mean(1, keepdims=True))
        if candidates is None:
            row, part = parts.along(middles[0][:, 0], middles[1][:, 0])
        else:
            low, high = np.searchsorted(candidates[0], [first, first + PROOF_PAIRS])
            row, part = candidates[0][low:high] - first, candidates[1][low:high]
        for tried_a, tried_b in (middles, (a[:, few_a], b[:, few_b]), (a, b)):
            covering = _all_through(tried_a, tried_b, row, parts, part)
            row, part = row[covering], part[covering]
        keep = np.unique(row, return_index=True)[1]
        found[first + row[keep]] = part[keep]
    return found


def hiding_parts(world, pairs: np.ndarray, candidates: Candidates | None = None) -> np.ndarray:
    """For each pair (n, 2) of trooper indices, a convex part of blocking terrain crossed by every segment between
    prisms around both volumes (`covering_parts`, with the pairs' `line_candidates` when known), or -1: a proof that
    they cannot see each other."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return covering_parts(world, prisms(world.troopers, pairs[:, 0]), prisms(world.troopers, pairs[:, 1]),
                          candidates)


def hidden_by_halves(world, pairs: np.ndarray, candidates: Candidates | None = None) -> np.ndarray:
    """Whether each pair (n, 2) is proved hidden half by half: the prism around each volume is cut in two along the
    line between the volumes' axes, and each half of one and each half of the other have a convex part of blocking
    terrain crossed by every segment between them (`covering_parts`). Every segment between the volumes joins a half
    of each, so it crosses one of those four parts: a proof for pairs whose blocker is wide but not one convex part
    (the inner parts of a real mesh, a corner of two walls), with no single piece to name. Each half holds its
    volume's middle, so the pairs' `line_candidates`, when known, serve every combination."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    v = world.troopers
    towards = v.centre[pairs[:, 1]] - v.centre[pairs[:, 0]]
    heading = np.arctan2(towards[:, 1], towards[:, 0])
    cut = PRISM_SIDES // 2  # ring vertices 0 and `cut` lie on the line between the axes
    halves = [np.r_[0 : cut + 1], np.r_[cut:PRISM_SIDES, 0]]
    ends = [prisms(v, pairs[:, k], heading + k * np.pi) for k in (0, 1)]
    covered = np.arange(len(pairs))  # the pairs each combination so far has a part for (and their candidates)
    for first in halves:
        for second in halves:
            starts = ends[0][covered][:, np.r_[first, PRISM_SIDES + first]]
            stops = ends[1][covered][:, np.r_[second, PRISM_SIDES + second]]
            still = np.flatnonzero(covering_parts(world, starts, stops, candidates) >= 0)
            covered = covered[still]
            candidates = None if candidates is None else candidates_of(candidates, still)
    proved = np.zeros(len(pairs), dtype=bool)
    proved[covered] = True
    return proved


def hiding_blocker(world, a: int, b: int, cylinders: np.ndarray) -> str | None:
    """A proof that a and b cannot see each other: the id of one convex blocker that every segment between them
    crosses, or None. Prisms around both volumes are used, so the proof holds for every eye in one and every point
    of the other's template, both ways."""
    v = world.troopers
    return covering_blocker(world, prism_vertices(v, a), prism_vertices(v, b), cylinders)


def covering_blocker(world, starts: np.ndarray, ends: np.ndarray, cylinders: np.ndarray) -> str | None:
    """The id of one convex blocker (one of the troopers `cylinders`, or a convex part of a blocking piece, see
    `covering_parts`) that every segment between the convex hulls of the points `starts` and `ends` crosses, or
    None."""
    v = world.troopers
    segments = Segments.between(np.repeat(starts, len(ends), axis=0), np.tile(ends, (len(starts), 1)), trim=0.0)
    for trooper in cylinders:
        if np.isfinite(cylinder_entry(v, segments, np.full((len(segments.lengths), 1), trooper))).all():
            return v.ids[trooper]
    part = covering_parts(world, np.asarray(starts, dtype=float)[None], np.asarray(ends, dtype=float)[None])[0]
    return world.pieces[world.convex_parts.piece[part]].id if part >= 0 else None
