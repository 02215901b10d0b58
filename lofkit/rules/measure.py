"""Measurements between trooper volumes, vectorised over arrays of trooper indices.

Each function takes a `Volumes` (``world.troopers``) and index arrays `a`, `b` of equal shape (or scalars) and
returns an array of that shape. Tolerance: lengths and angles compare within `EPS` (1e-6 mm / degrees).
"""

from __future__ import annotations

import numpy as np

from lofkit.units import EPS, INCH

ZOC_RADIUS = 8 * INCH
"""docs/rules.md (Zone of Control): the ZoC "starts at the base edge, 8 inches, drawn horizontally and vertically":
radius base radius + 8", from 8" below the underside of the base to 8" above it."""

RANGE_BAND = 8 * INCH
MAX_RANGE = 96 * INCH


def base_gap(d_xy, r_a, r_b, dz) -> np.ndarray:
    """docs/rules.md (Distances): "the shortest distance between their two bases (horizontal discs at their z):
    sqrt(max(0, d_xy - r_a - r_b)^2 + dz^2); 0 when bases touch or overlap", from the centres' horizontal
    distance `d_xy`, the radii and the difference of heights `dz` (arrays broadcast)."""
    return np.hypot(np.maximum(0.0, d_xy - r_a - r_b), dz)


def base_distance(volumes, a, b) -> np.ndarray:
    """`base_gap` between troopers a and b (indices, arrays broadcast)."""
    a, b = np.asarray(a), np.asarray(b)
    d_xy = np.linalg.norm(volumes.centre[a] - volumes.centre[b], axis=-1)
    return base_gap(d_xy, volumes.radius[a], volumes.radius[b], volumes.z[a] - volumes.z[b])


def base_contact(volumes, a, b, tolerance: float) -> np.ndarray:
    """docs/rules.md: "Base contact: distance <= 0.5 mm" (the tolerance is the scene's `base_contact_tolerance`)."""
    return base_distance(volumes, a, b) <= tolerance + EPS


def range_band(distance_mm) -> tuple[np.ndarray, np.ndarray]:
    """docs/rules.md: "8-inch bands (0-8", 8-16", ... 96"); a distance exactly on a boundary belongs to the
    shorter band".

    Returns (band number from 1, label like ``"8-16in"``); past 96" the label is ``"over 96in"``.

    >>> range_band([0, 203.2, 203.21])[1].tolist()
    ['0-8in', '0-8in', '8-16in']
    """
    d = np.asarray(distance_mm, dtype=float)
    band = np.maximum(1, np.ceil((d - EPS) / RANGE_BAND)).astype(int)
    labels = np.where(
        d > MAX_RANGE + EPS,
        "over 96in",
        np.char.add(np.char.add((8 * (band - 1)).astype(str), "-"), np.char.add((8 * band).astype(str), "in")),
    )
    return band, labels


def in_front_arc(volumes, a, b) -> np.ndarray:
    """docs/rules.md (LoF 1): "B's volume is totally or partially inside A's front 180 degree arc: the closed
    half-space in front of the vertical plane through A's base centre perpendicular to A's facing".

    A cylinder reaches that half-space when its centre's signed distance along the facing is >= -radius.
    """
    a, b = np.asarray(a), np.asarray(b)
    along = np.einsum("...k,...k->...", volumes.centre[b] - volumes.centre[a], volumes.facing_vector[a])
    return along >= -volumes.radius[b] - EPS


def in_arc(volumes, a, b) -> np.ndarray:
    """Arc membership with state: "A trooper that has declared a movement (`moving`) has a 360 degree arc. An
    `engaged` trooper ... has a 360 degree arc" (what it may trace LoF to is the LoF engine's rule)."""
    a = np.asarray(a)
    return volumes.moving[a] | volumes.engaged[a] | in_front_arc(volumes, a, b)


def may_trace(volumes, a, b, tolerance: float) -> np.ndarray:
    """The arc half of LoF (docs/rules.md LoF 1): B is in A's arc, and an `engaged` A "may trace LoF only to troopers in
    base contact with it" (`tolerance`: the scene's base contact tolerance)."""
    a = np.asarray(a)
    return in_arc(volumes, a, b) & (~volumes.engaged[a] | base_contact(volumes, a, b, tolerance))


def in_zoc(volumes, owner, other) -> np.ndarray:
    """docs/rules.md (Zone of Control): the ZoC "starts at the base edge, 8 inches, drawn horizontally and vertically:
    an 8-inch-high cylinder": radius base radius + 8" around the base centre, from 8" below the underside of the
    base to 8" above it, whatever the silhouette's height. Another trooper "is inside A's ZoC when any part of its
    base disc is inside that cylinder (boundary included)".

    >>> from lofkit.geometry.volumes import base_volumes
    >>> bases = base_volumes(np.zeros((3, 2)), np.array([0.0, 203.2, 203.4]), np.full(3, 35.0), np.full(3, 70.0))
    >>> in_zoc(bases, 0, [1, 2]).tolist()  # an S8 below: a base 8" up is inside, 8" and 0.2 mm up is not
    [True, False]
    """
    owner, other = np.asarray(owner), np.asarray(other)
    d_xy = np.linalg.norm(volumes.centre[other] - volumes.centre[owner], axis=-1)
    reach = volumes.radius[owner] + ZOC_RADIUS + volumes.radius[other]
    rise = np.abs(volumes.z[other] - volumes.z[owner])
    return (d_xy <= reach + EPS) & (rise <= ZOC_RADIUS + EPS) & (owner != other)


def neighbours(world, trooper: int, reach: float) -> np.ndarray:
    """Indices of troopers whose volume's bounding box comes within `reach` mm of `trooper`'s (rtree broad phase)."""
    reach = reach + EPS  # the rules compare within EPS: the broad phase must not cut that off
    box = world.troopers.boxes[trooper] + np.array([-reach] * 3 + [reach] * 3)
    found = np.fromiter(world.trooper_index.intersection(tuple(box)), dtype=np.int64)
    return np.sort(found[found != trooper])
