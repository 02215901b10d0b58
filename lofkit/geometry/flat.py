"""Overlays of 2D shapes (footprints, zones) that survive real meshes.

A real terrain mesh seen from above is thousands of small, overlapping, nearly touching triangles; GEOS's exact
overlay can give up on such a soup with a TopologyException ("found non-noded intersection"). `overlay` then
snap-rounds to `GRID`, which never fails and moves no edge by more than that.
"""

from __future__ import annotations

from collections.abc import Callable

import shapely

GRID = 1e-3
"""Grid (mm) an overlay snaps to when the exact one fails: far below any tolerance of the rules."""


def overlay(operation: Callable[..., shapely.Geometry], *shapes) -> shapely.Geometry:
    """`operation` (a shapely overlay taking `grid_size`: union_all, union, intersection, difference) of `shapes`,
    exact when GEOS can node them, else snapped to `GRID`."""
    try:
        return operation(*shapes)
    except shapely.errors.GEOSException:
        return operation(*shapes, grid_size=GRID)
