"""Measurements between trooper volumes, vectorised over arrays of trooper indices.

Each function takes a `Volumes` (``world.troopers``) and index arrays `a`, `b` of equal shape (or scalars) and
returns an array of that shape. Tolerance: lengths and angles compare within `EPS` (1e-6 mm / degrees).
"""

from __future__ import annotations

import numpy as np

from lofkit.geometry.volumes import Volumes
from lofkit.units import EPS, INCH, lengths

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


def base_distance(volumes: Volumes, a, b) -> np.ndarray:
    """Distance between troopers: "the shortest distance between their two bases (horizontal discs at their z)".

    Parameters
    ----------
    volumes : Volumes
        The troopers' volumes (``world.troopers``).
    a, b : int or array_like of int
        Trooper indices (``volumes.index(id)``); arrays broadcast.

    Returns
    -------
    numpy.ndarray
        ``sqrt(max(0, d_xy - r_a - r_b)^2 + dz^2)`` in mm, of the broadcast shape: 0 when bases touch or overlap
        seen from above at the same height.

    Examples
    --------
    >>> import lofkit
    >>> v = lofkit.load("examples/rulebook_lof.yaml").troopers
    >>> lofkit.base_distance(v, v.index("fusilier"), [v.index("alguacil"), v.index("iguana")]).tolist()
    [225.0, 410.0]
    """
    a, b = np.asarray(a), np.asarray(b)
    d_xy = lengths(volumes.centre[a] - volumes.centre[b])
    return base_gap(d_xy, volumes.radius[a], volumes.radius[b], volumes.z[a] - volumes.z[b])


def base_contact(volumes: Volumes, a, b, tolerance: float) -> np.ndarray:
    """Base contact: "distance <= 0.5 mm", the tolerance being the scene's `base_contact_tolerance`.

    Parameters
    ----------
    volumes : Volumes
        The troopers' volumes (``world.troopers``).
    a, b : int or array_like of int
        Trooper indices; arrays broadcast.
    tolerance : float
        mm; exactly at it is contact (``world.scene.base_contact_tolerance``).

    Returns
    -------
    numpy.ndarray of bool
        Whether `base_distance` is at most `tolerance`.

    Examples
    --------
    >>> import lofkit
    >>> from lofkit.geometry.volumes import base_volumes
    >>> bases = base_volumes([[0, 0], [25.5, 0], [25.6, 0]], 0, 12.5, 40)  # 25 mm bases 0.5 and 0.6 mm apart
    >>> lofkit.base_contact(bases, 0, [1, 2], tolerance=0.5).tolist()
    [True, False]
    """
    return base_distance(volumes, a, b) <= tolerance + EPS


def range_band(distance_mm) -> tuple[np.ndarray, np.ndarray]:
    """Range bands: "8-inch bands (0-8", 8-16", ... 96"); a distance exactly on a boundary belongs to the shorter band".

    Parameters
    ----------
    distance_mm : float or array_like of float
        Distances in mm.

    Returns
    -------
    band : numpy.ndarray of int
        The band's number, from 1 (0-8").
    label : numpy.ndarray of str
        ``"0-8in"``, ``"8-16in"``, ... ``"88-96in"``; past 96" ``"over 96in"``.

    Examples
    --------
    >>> import lofkit
    >>> band, label = lofkit.range_band([0, 203.2, 203.21, 2500])
    >>> band.tolist(), label.tolist()
    ([1, 1, 2, 13], ['0-8in', '0-8in', '8-16in', 'over 96in'])
    """
    d = np.asarray(distance_mm, dtype=float)
    band = np.maximum(1, np.ceil((d - EPS) / RANGE_BAND)).astype(int)
    labels = np.where(
        d > MAX_RANGE + EPS,
        "over 96in",
        np.char.add(np.char.add((8 * (band - 1)).astype(str), "-"), np.char.add((8 * band).astype(str), "in")),
    )
    return band, labels


def in_front_arc(volumes: Volumes, a, b) -> np.ndarray:
    """LoF 1: "B's volume is totally or partially inside A's front 180 degree arc", whatever A's state.

    The arc is the closed half-space in front of the vertical plane through A's base centre perpendicular to A's
    facing; a cylinder reaches it when its centre's signed distance along the facing is >= -radius.

    Parameters
    ----------
    volumes : Volumes
        The troopers' volumes (``world.troopers``).
    a, b : int or array_like of int
        Indices of the troopers A (whose arc) and B; arrays broadcast.

    Returns
    -------
    numpy.ndarray of bool
        Whether any part of B's volume is in A's front arc.

    Examples
    --------
    >>> import lofkit
    >>> v = lofkit.load("examples/rulebook_lof.yaml").troopers  # the alguacil's back is to the iguana
    >>> lofkit.in_front_arc(v, v.index("alguacil"), [v.index("fusilier"), v.index("iguana")]).tolist()
    [True, False]
    """
    a, b = np.asarray(a), np.asarray(b)
    along = np.einsum("...k,...k->...", volumes.centre[b] - volumes.centre[a], volumes.facing_vector[a])
    return along >= -volumes.radius[b] - EPS


def in_arc(volumes: Volumes, a, b) -> np.ndarray:
    """Arc with state: "A trooper that has declared a movement (`moving`) has a 360 degree arc. An `engaged` trooper
    ... has a 360 degree arc"; otherwise `in_front_arc`.

    What an engaged trooper may trace LoF to (troopers in base contact only) is `check`'s rule, not this one's.

    Parameters
    ----------
    volumes : Volumes
        The troopers' volumes (``world.troopers``).
    a, b : int or array_like of int
        Indices of the troopers A (whose arc) and B; arrays broadcast.

    Returns
    -------
    numpy.ndarray of bool
        Whether B is in A's arc.

    Examples
    --------
    >>> import dataclasses, lofkit, numpy as np
    >>> v = lofkit.load("examples/rulebook_lof.yaml").troopers
    >>> alguacil, iguana = v.index("alguacil"), v.index("iguana")
    >>> moving = dataclasses.replace(v, moving=np.ones(len(v), dtype=bool))  # as if all declared a movement
    >>> bool(lofkit.in_arc(v, alguacil, iguana)), bool(lofkit.in_arc(moving, alguacil, iguana))
    (False, True)
    """
    a = np.asarray(a)
    return volumes.moving[a] | volumes.engaged[a] | in_front_arc(volumes, a, b)


def may_trace(volumes, a, b, tolerance: float) -> np.ndarray:
    """The arc half of LoF (docs/rules.md LoF 1): B is in A's arc, and an `engaged` A "may trace LoF only to troopers in
    base contact with it" (`tolerance`: the scene's base contact tolerance)."""
    a = np.asarray(a)
    return in_arc(volumes, a, b) & (~volumes.engaged[a] | base_contact(volumes, a, b, tolerance))


def in_zoc(volumes: Volumes, owner, other) -> np.ndarray:
    """Zone of Control: it "starts at the base edge, 8 inches, drawn horizontally and vertically".

    lofkit's reading: a cylinder of radius base radius + 8" around the base centre, from 8" below the underside of
    the base to 8" above it, whatever the silhouette's height. Another trooper "is inside A's ZoC when any part of
    its base disc is inside that cylinder (boundary included)"; a trooper is not inside its own.

    Parameters
    ----------
    volumes : Volumes
        The troopers' volumes (``world.troopers``).
    owner, other : int or array_like of int
        Indices of the trooper whose ZoC it is, and of the other; arrays broadcast.

    Returns
    -------
    numpy.ndarray of bool
        Whether `other` is inside `owner`'s ZoC.

    Examples
    --------
    >>> import lofkit
    >>> v = lofkit.load("examples/rulebook_lof.yaml").troopers
    >>> lofkit.in_zoc(v, v.index("alguacil"), [v.index("grenzer"), v.index("fusilier")]).tolist()
    [True, False]
    >>> from lofkit.geometry.volumes import base_volumes
    >>> bases = base_volumes(np.zeros((3, 2)), np.array([0.0, 203.2, 203.4]), np.full(3, 35.0), np.full(3, 70.0))
    >>> in_zoc(bases, 0, [1, 2]).tolist()  # an S8 below: a base 8" up is inside, 8" and 0.2 mm up is not
    [True, False]
    """
    owner, other = np.asarray(owner), np.asarray(other)
    d_xy = lengths(volumes.centre[other] - volumes.centre[owner])
    reach = volumes.radius[owner] + ZOC_RADIUS + volumes.radius[other]
    rise = np.abs(volumes.z[other] - volumes.z[owner])
    return (d_xy <= reach + EPS) & (rise <= ZOC_RADIUS + EPS) & (owner != other)


def neighbours(world, trooper: int, reach: float) -> np.ndarray:
    """Indices of troopers whose volume's bounding box comes within `reach` mm of `trooper`'s (rtree broad phase)."""
    reach = reach + EPS  # the rules compare within EPS: the broad phase must not cut that off
    box = world.troopers.boxes[trooper] + np.array([-reach] * 3 + [reach] * 3)
    found = np.fromiter(world.trooper_index.intersection(tuple(box)), dtype=np.int64)
    return np.sort(found[found != trooper])
