"""A pair's corridor: the troopers whose volumes may block sight between two others.

docs/rules.md (LoF 3): segments are obstructed by "the volume of every other trooper, friendly, enemy or neutral.
Never by: A and B themselves, markers, troopers that declared a movement in this order (`moving`)". Every segment
between two troopers lies in the convex hull of their two volumes (eyes are in A's volume, templates in B's), so
only the troopers whose volumes meet that hull (`in_corridor`) are tested against a pair's segments. Seen from
above, that hull lies within the segment between the two centres widened by the larger radius: a footprint that
keeps clear of it cannot block the pair (`corridors_meet`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import shapely

from lofkit.sight.tolerances import CORRIDOR_SLACK, NONZERO
from lofkit.units import lengths

QUAD_SEGMENTS = 2
"""Segments a quarter circle of a widened hull is drawn with (few corners: a fast test). Its corners lie on the
circle, so its chords cut inside by reach * (1 - cos(pi / 8)); widening by reach / cos(pi / 8) instead keeps the
whole round buffer inside the polygon."""


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
    h = lengths(offset + foot[:, None] * span)
    steep = length2 > grow**2
    turn = foot + np.where(steep, grow * h / np.sqrt(np.maximum(length2 * (length2 - grow**2), NONZERO)), 0.0)
    tried = np.stack([start, end, np.clip(turn, start, end)])
    return np.min(lengths(offset + tried[..., None] * span) - tried * grow, axis=0)


def corridor_troopers(world, pairs: Sequence) -> np.ndarray:
    """For each pair (n, 2), the troopers whose volumes may block its segments (`corridor.blocking_troopers`),
    padded with -1: (n, k)."""
    v = world.troopers
    can_block = bool(v.blocks_lof.any())
    near = [blocking_troopers(world, a, b) for a, b in pairs.tolist()] if can_block else []
    width = max((len(n) for n in near), default=0)
    cylinders = np.full((len(pairs), width), -1, dtype=np.int64)
    for k, n in enumerate(near):
        cylinders[k, : len(n)] = n
    return cylinders


def corridors_meet(starts: np.ndarray, ends: np.ndarray, shapes, reach: float) -> np.ndarray:
    """Whether each segment (starts[k], ends[k]) may come within `reach` of one of `shapes`: it meets the convex
    hull of the shape widened by `reach` (a polygon around the round buffer: `QUAD_SEGMENTS`), by the separating axis
    test in numpy (one convex polygon against every segment at once). Conservative: a shape's hull covers more
    than the shape, which only recomputes more pairs."""
    hit = np.zeros(len(starts), dtype=bool)
    lo, hi = np.minimum(starts, ends), np.maximum(starts, ends)
    for shape in shapes:
        hull = shapely.convex_hull(shape).buffer(reach / math.cos(math.pi / (4 * QUAD_SEGMENTS)),
                                                 quad_segs=QUAD_SEGMENTS)
        corners = np.asarray(hull.exterior.coords)[:-1]
        if not shapely.is_ccw(hull.exterior):
            corners = corners[::-1]  # counter-clockwise: the outward normal of edge (p, q) is (dy, -dx)
        x0, y0, x1, y1 = hull.bounds
        maybe = np.flatnonzero(~hit & (lo[:, 0] <= x1) & (hi[:, 0] >= x0) & (lo[:, 1] <= y1) & (hi[:, 1] >= y0))
        if len(maybe) == 0:
            continue
        a, b = starts[maybe], ends[maybe]
        edges = np.roll(corners, -1, axis=0) - corners
        normals = np.stack([edges[:, 1], -edges[:, 0]], axis=1)
        offsets = np.einsum("ij,ij->i", normals, corners)
        outside = ((a @ normals.T > offsets) & (b @ normals.T > offsets)).any(axis=1)
        across = np.stack([-(b - a)[:, 1], (b - a)[:, 0]], axis=1)
        sides = corners @ across.T - np.einsum("ij,ij->i", across, a)
        apart = (sides > 0).all(axis=0) | (sides < 0).all(axis=0)
        hit[maybe] = ~(outside | apart)
    return hit
