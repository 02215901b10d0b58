"""Where analyses sample a table: its cells, viewer spots over a deployment zone, and where a base fits.

A probe trooper stands on every cell of the table where its base fits (resting on what is below, as `z: auto`: roofs
and walkways count), and viewers stand over a zone on a coarser grid, resting on what is below.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely

from lofkit.errors import LofkitError
from lofkit.geometry.support import base_fit, rest_height
from lofkit.geometry.world import World
from lofkit.rules.deployment import side_zone
from lofkit.rules.measure import base_gap
from lofkit.scene.model import Scene
from lofkit.scene.silhouettes import SILHOUETTES
from lofkit.units import lengths

CELL_ROUNDING = 1e-9
"""Cells: a table within this of a whole number of cells has that many (float division can fall short, e.g.
1219.2 / (1219.2 / 37) = 36.99999999999999 counts 37 cells)."""
MAX_SPOTS = 1_000_000
"""Most cells, or viewer spots over a zone, an analysis lays out (a typo like `--cell-size 0.01mm` stops here)."""


@dataclass(frozen=True)
class Placements:
    """Bases of one size placed on the table: centres (n, 2), undersides z (n,) and whether each fits there."""

    centres: np.ndarray
    z: np.ndarray
    fits: np.ndarray
    diameter: float
    height: float

    def take(self, rows: np.ndarray) -> Placements:
        return Placements(self.centres[rows], self.z[rows], self.fits[rows], self.diameter, self.height)


def terrain_only(world: World) -> World:
    """The same table without its troopers, in its scene too: analyses judge the layout, not a game in progress (and
    a worker that builds the World from the scene settles and checks no trooper: on table-c, 0.6 s each)."""
    return world.with_scene(world.scene.model_copy(update={"troopers": ()}))


def _grid_size(count: int, what: str, option: str, source) -> None:
    if count > MAX_SPOTS:
        raise LofkitError(f"{source or 'the scene'}: {count:,} {what} is more than {MAX_SPOTS:,}; give a larger "
                          f"{option}")


def cell_centres(scene: Scene, cell: float) -> tuple[np.ndarray, tuple[int, int]]:
    """Centres (ny * nx, 2) of the table's cells, row by row from y = 0, and the grid's shape (ny, nx)."""
    nx = int(np.floor(scene.table.width / cell + CELL_ROUNDING))
    ny = int(np.floor(scene.table.depth / cell + CELL_ROUNDING))
    if nx == 0 or ny == 0:
        raise LofkitError(f"{scene.source or 'the scene'}: a cell of {cell:g} mm is larger than the table; give a "
                          f"smaller --cell-size")
    _grid_size(nx * ny, "cells", "--cell-size", scene.source)
    x = (np.arange(nx) + 0.5) * scene.table.width / nx
    y = (np.arange(ny) + 0.5) * scene.table.depth / ny
    gx, gy = np.meshgrid(x, y)
    return np.stack([gx.ravel(), gy.ravel()], axis=1), (ny, nx)


def zone_points(world: World, side: str, spacing: float) -> tuple[np.ndarray, tuple[float, float]]:
    """Viewer spots over `side`'s deployment zone: centres of a grid close to `spacing` laid evenly over the zone's
    bounding box (so a zone's grid is symmetric within it), kept where they fall inside the zone; and the grid's
    spacing (x, y) as laid."""
    zone = side_zone(world, side)
    if zone is None:
        sides = sorted({z.side for z in world.scene.deployment_zones})
        known = ", ".join(sides) if sides else "none: add deployment_zones to the scene"
        raise LofkitError(f"{world.scene.source or 'the scene'}: no deployment zone for side '{side}' (zones: {known})")
    x0, y0, x1, y1 = zone.bounds
    nx, ny = max(1, int(round((x1 - x0) / spacing))), max(1, int(round((y1 - y0) / spacing)))
    _grid_size(nx * ny, f"viewer spots over {side}'s zone", "--viewer-spacing", world.scene.source)
    gx, gy = np.meshgrid(x0 + (np.arange(nx) + 0.5) * (x1 - x0) / nx, y0 + (np.arange(ny) + 0.5) * (y1 - y0) / ny)
    points = np.stack([gx.ravel(), gy.ravel()], axis=1)
    return points[shapely.contains_xy(zone, points[:, 0], points[:, 1])], ((x1 - x0) / nx, (y1 - y0) / ny)


def place(world: World, centres: np.ndarray, silhouette: int) -> Placements:
    """Stand a base of `silhouette` at each centre, resting on what is below; it fits where it lies wholly on the
    table, rests flat (docs/rules.md, Deployment: "rests flat on a supporting surface at least as large as the base")
    and its volume meets no scenery (geometry.support.base_fit)."""
    diameter, height = SILHOUETTES[silhouette]
    centres = np.reshape(np.asarray(centres, dtype=float), (-1, 2))
    r = diameter / 2
    z = rest_height(world, centres, np.full(len(centres), r))
    return Placements(centres, z, base_fit(world, centres, z, r, height).fits, diameter, height)


def base_distances(a: Placements, b: Placements, rows: np.ndarray | None = None,
                   cols: np.ndarray | None = None) -> np.ndarray:
    """(a, b) distances between bases (`measure.base_gap`: docs/rules.md, Distances, with elevation); with `rows`
    and `cols` (n,), only those between a[rows[k]] and b[cols[k]] (n,)."""
    if rows is None or cols is None:
        rows, cols = np.arange(len(a.z))[:, None], np.arange(len(b.z))[None, :]
    d_xy = lengths(a.centres[rows] - b.centres[cols])
    return base_gap(d_xy, a.diameter / 2, b.diameter / 2, a.z[rows] - b.z[cols])


def within_range(a: Placements, b: Placements, pairs: np.ndarray, max_range: float | None) -> np.ndarray:
    """The pairs of `pairs` (an (a, b) mask) whose bases stand at most `max_range` apart (all, when None), measured
    for those pairs only."""
    if max_range is None:
        return pairs
    rows, cols = np.nonzero(pairs)
    far = ~(base_distances(a, b, rows, cols) <= max_range)
    kept = pairs.copy()
    kept[rows[far], cols[far]] = False
    return kept
