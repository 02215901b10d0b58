"""What obstructs a segment: blocking terrain (the world's ray back-end), Zero Visibility zones, and other troopers'
volumes (exact cylinders).

docs/rules.md (LoF 3): "Segments are obstructed by: every terrain piece that blocks (solid scenery, and Zero
Visibility zones ...), and the volume of every other trooper, friendly, enemy or neutral. Never by: A and B
themselves, markers, troopers that declared a movement in this order (`moving`), terrain marked
`blocks_lof: false`." Touching is not obstructing: a segment must pass through a volume's inside. Which troopers
a pair's segments are tested against is `corridor`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lofkit.sight.tolerances import END_TRIM, INSIDE, NONZERO, PARALLEL
from lofkit.units import lengths


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
        length = lengths(span)
        unit = span / np.maximum(length, NONZERO)[:, None]
        return cls(starts + unit * trim, unit, np.maximum(length - 2 * trim, 0.0))

    def take(self, keep: np.ndarray) -> Segments:
        return Segments(self.origins[keep], self.directions[keep], self.lengths[keep])


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


def blocked(world, segments: Segments, cylinders: np.ndarray,
            in_zero_visibility: np.ndarray | None = None) -> np.ndarray:
    """Whether each segment is obstructed by blocking terrain or by one of its `cylinders` (n, k).

    Zero Visibility zones "block into, through and out of themselves": a segment crossing a zone's surface is blocked by
    the ray back-end, and one starting inside a zone is blocked too, even when it never leaves it. `in_zero_visibility`
    (n,) may give that per segment when the caller knows it (all segments of one eye share it)."""
    hit = world.blocking_rays.occluded(segments.origins, segments.directions, segments.lengths)
    return _or_zero_visibility_and_troopers(world, segments, cylinders, in_zero_visibility, hit)


def blocked_first_parts(world, segments: Segments, cylinders: np.ndarray,
                        in_zero_visibility: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`blocked`, and the convex part (index into `world.convex_parts`) each segment's first hit leads to (-1: none;
    `ConvexParts.part_at`); an intersection query instead of an occlusion query."""
    distance, mesh, face = world.blocking_rays.first_face(segments.origins, segments.directions, segments.lengths)
    hit = _or_zero_visibility_and_troopers(world, segments, cylinders, in_zero_visibility, mesh >= 0)
    points = segments.origins + segments.directions * np.where(mesh >= 0, distance, 0)[:, None]
    return hit, world.convex_parts.part_at(mesh, face, points, segments.directions)


def _or_zero_visibility_and_troopers(world, segments: Segments, cylinders: np.ndarray,
                                     in_zero_visibility: np.ndarray | None, hit: np.ndarray) -> np.ndarray:
    """`hit` (segments obstructed by terrain), or starting in a Zero Visibility zone, or through a cylinder."""
    if world.zero_visibility:
        hit |= inside_zero_visibility(world, segments.origins) if in_zero_visibility is None else in_zero_visibility
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
