"""Shapes seen from above (footprints, zones) that survive real meshes.

A real terrain mesh seen from above is thousands of small, overlapping, nearly touching triangles; GEOS's exact
overlay can give up on such a soup with a TopologyException ("found non-noded intersection"). `overlay` then
snap-rounds to `GRID`, which never fails and moves no edge by more than that. Uniting them takes a tenth of a second
or more for a real kit's piece, so `outline` keeps each mesh's outline in the disk cache (`cache`), as inner parts are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import shapely
from scipy.spatial import ConvexHull, QhullError

from lofkit.geometry import cache

GRID = 1e-3
"""Grid (mm) an overlay snaps to when the exact one fails: far below any tolerance of the rules."""
SLIVER_AREA = 1e-9
"""mm^2: triangles of a mesh seen from above with less area than this (its upright faces) leave its footprint out."""
CACHED_TRIANGLES = 500
"""Meshes with at least this many triangles have their outline kept on disk; smaller ones are united faster than
an entry is read."""


def overlay(operation: Callable[..., shapely.Geometry], *shapes) -> shapely.Geometry:
    """`operation` (a shapely overlay taking `grid_size`: union_all, union, intersection, difference) of `shapes`,
    exact when GEOS can node them, else snapped to `GRID`."""
    try:
        return operation(*shapes)
    except shapely.errors.GEOSException:
        return operation(*shapes, grid_size=GRID)


def convex_hull(xy: np.ndarray) -> shapely.Geometry:
    """The convex hull of points (n, 2), as `shapely.MultiPoint(xy).convex_hull` gives it: GEOS takes the hull of
    the extreme points Qhull finds (a shapely point for each of a scan's hundred thousand points costs ten times
    more); points on one line, or fewer than three, go to GEOS whole."""
    xy = np.asarray(xy, dtype=float)
    try:
        xy = xy[ConvexHull(xy).vertices]
    except (QhullError, ValueError):
        pass
    return shapely.MultiPoint(xy).convex_hull


@dataclass(frozen=True)
class SavedOutline:
    """An outline as the disk cache keeps it: its well-known binary, which gives back every coordinate exactly."""

    wkb: np.ndarray


def outline(mesh) -> shapely.Geometry:
    """A mesh's outline seen from above: the union of its triangles projected on the xy plane (slivers left out),
    read from the disk cache when it holds it."""
    if len(mesh.faces) < CACHED_TRIANGLES:
        return _united_triangles(mesh)
    saved = cache.kept(cache.mesh_key("outline", mesh, _code_digest()), SavedOutline,
                       lambda: SavedOutline(np.frombuffer(shapely.to_wkb(_united_triangles(mesh)), dtype=np.uint8)))
    return shapely.from_wkb(saved.wkb.tobytes())


def _united_triangles(mesh) -> shapely.Geometry:
    triangles = np.asarray(mesh.triangles)[:, :, :2]
    flat = shapely.polygons(triangles)
    return overlay(shapely.union_all, flat[shapely.area(flat) > SLIVER_AREA])


@functools.cache
def _code_digest() -> str:
    """This module's source and GEOS's version: changed code never reads outlines the old code saved."""
    return cache.code_digest(shapely.geos_version_string, (__file__,))
