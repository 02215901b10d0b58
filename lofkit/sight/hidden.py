"""Proofs of "hidden", before any segment is cast: for whole pairs, and for tiles of a pair's dense eyes.

docs/rules.md (LoF 2): sight needs "a point E anywhere in A's volume and a 3 mm x 3 mm square Q on B's silhouette
template such that every segment from E to Q is unobstructed". One convex blocker crossed by every segment between
prisms around both volumes (`parts_hiding_pairs`, `blocker_hiding_pair`), or one for each half of one prism and each
half of the other (`hidden_half_by_half`), rules out every E and Q at once: the convexity lemma of
`parts_crossing_every_segment`. The same lemma hides a whole tile of eyes from every template it may look at
(`hidden_eye_tiles`, compiled in `kernels.hidden_tiles`), by one part or by several together, each hiding pieces of
the templates that hold the lattice points sampled (occluder fusion).
"""

from __future__ import annotations

import numpy as np

from lofkit.sight.kernels import all_cross, first_crossing, hidden_tiles
from lofkit.sight.lattice import COARSE_STRIDES, Lattice
from lofkit.sight.segments import Segments, cylinder_entry
from lofkit.sight.tolerances import END_TRIM

PRISM_SIDES = 12
"""Sides of the prisms drawn around volumes for proofs of "hidden" (they must contain the cylinders)."""


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
"""Rows whose candidate parts are gathered at once by `parts_crossing_every_segment`."""


def _all_through(starts: np.ndarray, ends: np.ndarray, rows: np.ndarray, parts, which: np.ndarray) -> np.ndarray:
    """For each candidate c, whether every segment from a point of `starts[rows[c]]` to a point of
    `ends[rows[c]]` passes through the inside of convex part `which[c]` (touching is not crossing)."""
    result = np.zeros(len(which), dtype=bool)
    if len(which):
        all_cross(starts=np.ascontiguousarray(starts, dtype=float), ends=np.ascontiguousarray(ends, dtype=float),
                  rows=np.asarray(rows, dtype=np.int64), which=np.asarray(which, dtype=np.int64),
                  normals=parts.normals, offsets=parts.offsets, faces=parts.faces, out=result)
    return result


Candidates = tuple[np.ndarray, np.ndarray]
"""(row, part) pairs, ordered by row, then part: convex parts that proofs for each row may use."""


def line_candidates(world, pairs: np.ndarray) -> Candidates:
    """Every (pair, part) such that the segment between the middles of the pair's two volumes (`pairs` (n, 2)) meets the
    part's box (`ConvexParts.along`). A part that every segment between two hulls crosses is among them when each hull
    holds its volume's middle, as the prisms around the volumes and their halves do (`parts_crossing_every_segment`)."""
    v = world.troopers
    if len(world.convex_parts.piece) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    middles = [np.column_stack([v.centre[k], v.z[k] + v.height[k] / 2]) for k in (pairs[:, 0], pairs[:, 1])]
    return world.convex_parts.along(*middles)


def candidates_of(candidates: Candidates, rows: np.ndarray) -> Candidates:
    """The candidates of rows `rows` (ascending), renumbered 0, 1, ... in that order."""
    keep = np.isin(candidates[0], rows)
    return np.searchsorted(rows, candidates[0][keep]), candidates[1][keep]


def parts_crossing_every_segment(world, starts: np.ndarray, ends: np.ndarray,
                                 candidates: Candidates | None = None) -> np.ndarray:
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
        for tried_a, tried_b in (middles, (a[:, few_a], b[:, few_b])):
            covering = _all_through(tried_a, tried_b, row, parts, part)
            row, part = row[covering], part[covering]
        first_crossing(starts=np.ascontiguousarray(a, dtype=float), ends=np.ascontiguousarray(b, dtype=float),
                       rows=row, which=part, normals=parts.normals, offsets=parts.offsets, faces=parts.faces,
                       found=found[first : first + PROOF_PAIRS])
    return found


def parts_hiding_pairs(world, pairs: np.ndarray, candidates: Candidates | None = None) -> np.ndarray:
    """For each pair (n, 2) of trooper indices, a convex part of blocking terrain crossed by every segment between
    prisms around both volumes (`parts_crossing_every_segment`, with the pairs' `line_candidates` when known), or -1: a
    proof that they cannot see each other."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    troopers, which = np.unique(pairs, return_inverse=True)
    around = prisms(world.troopers, troopers)  # one prism a trooper, however many pairs it is in
    which = which.reshape(-1, 2)
    return parts_crossing_every_segment(world, around[which[:, 0]], around[which[:, 1]], candidates)


def hidden_half_by_half(world, pairs: np.ndarray, candidates: Candidates | None = None) -> np.ndarray:
    """Whether each pair (n, 2) is proved hidden half by half: the prism around each volume is cut in two along the line
    between the volumes' axes, and each half of one and each half of the other have a convex part of blocking terrain
    crossed by every segment between them (`parts_crossing_every_segment`). Every segment between the volumes joins a
    half of each, so it crosses one of those four parts: a proof for pairs whose blocker is wide but not one convex part
    (the inner parts of a real mesh, a corner of two walls), with no single piece to name. Each half holds its volume's
    middle, so the pairs' `line_candidates`, when known, serve every combination."""
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
            still = np.flatnonzero(parts_crossing_every_segment(world, starts, stops, candidates) >= 0)
            covered = covered[still]
            candidates = None if candidates is None else candidates_of(candidates, still)
    proved = np.zeros(len(pairs), dtype=bool)
    proved[covered] = True
    return proved


def blocker_hiding_pair(world, a: int, b: int, cylinders: np.ndarray) -> str | None:
    """A proof that a and b cannot see each other: the id of one convex blocker that every segment between them
    crosses, or None. Prisms around both volumes are used, so the proof holds for every eye in one and every point
    of the other's template, both ways."""
    v = world.troopers
    return blocker_crossing_every_segment(world, prism_vertices(v, a), prism_vertices(v, b), cylinders)


def blocker_crossing_every_segment(world, starts: np.ndarray, ends: np.ndarray, cylinders: np.ndarray) -> str | None:
    """The id of one convex blocker (one of the troopers `cylinders`, or a convex part of a blocking piece, see
    `parts_crossing_every_segment`) that every segment between the convex hulls of the points `starts` and `ends`
    crosses, or None."""
    v = world.troopers
    segments = Segments.between(np.repeat(starts, len(ends), axis=0), np.tile(ends, (len(starts), 1)), trim=0.0)
    for trooper in cylinders:
        if np.isfinite(cylinder_entry(v, segments, np.full((len(segments.lengths), 1), trooper))).all():
            return v.ids[trooper]
    part = parts_crossing_every_segment(world, np.asarray(starts, dtype=float)[None],
                                        np.asarray(ends, dtype=float)[None])[0]
    return world.pieces[world.convex_parts.piece[part]].id if part >= 0 else None


def sampled_points(volumes, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The lattice points of each target's template that the coarse pass samples, every `COARSE_STRIDES[0]`-th column
    and line (every block holds one of each, `lattice.strided_indices`): their places across as fractions of the
    half-width (n, i), their heights above the base (n, j), and how many of each there are (n, 2); rows with fewer
    repeat their last."""
    sizes = np.stack([2 * volumes.radius[targets], volumes.height[targets]], axis=1)
    kinds, kind = np.unique(sizes, axis=0, return_inverse=True)
    places = []
    for width, height in kinds.tolist():
        lattice = Lattice(width, height)
        across, up = lattice.offsets(*lattice.strided(COARSE_STRIDES[0]))
        places.append((across / (width / 2), up))
    sampled = np.array([[len(u), len(h)] for u, h in places], dtype=np.int64).reshape(-1, 2)
    across, heights = (np.array([np.pad(p[k], (0, sampled[:, k].max() - len(p[k])), mode="edge") for p in places])
                       for k in (0, 1))
    kind = kind.reshape(-1)
    return across[kind], heights[kind], sampled[kind]


def hidden_eye_tiles(world, grouped: np.ndarray, counts: np.ndarray, same: np.ndarray, shooters: np.ndarray,
                     targets: np.ndarray, towards: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """For shooters `same` (indices into `shooters`, `targets`, `towards`, `candidates`) of one size, which tiles
    of their eye pattern (`grouped`, `counts`: see `lattice.dense_tiles`) see no point the coarse pass samples on their
    target's template, by one candidate part or by several together (`kernels.hidden_tiles`): (len(same), tiles).
    Every block of the lattice holds such a point, so no eye of those tiles sees a block."""
    v = world.troopers
    parts = world.convex_parts
    shooter, target = shooters[same], targets[same]
    across, heights, sampled = sampled_points(v, target)
    hidden = np.zeros((len(same), len(counts)), dtype=bool)
    hidden_tiles(local=grouped, counts=counts, centres=v.centre[shooter], z=v.z[shooter],
                 towards=np.ascontiguousarray(towards[same]), target_centres=v.centre[target],
                 target_z=v.z[target], highs=v.top[target], half_widths=v.radius[target], across=across,
                 heights=heights, sampled=sampled, candidates=np.ascontiguousarray(candidates[same]),
                 normals=parts.normals, offsets=parts.offsets, faces=parts.faces, bounds=parts.bounds, trim=END_TRIM,
                 out=hidden)
    return hidden
