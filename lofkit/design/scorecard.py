"""Designer's questions about a layout, as frozen results: exposure heatmaps, firing lanes and scorecards.

A query layer over `layout` (what is placed where) and `exposure` (sight between placements): no printing, no
pictures.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np
import shapely
import shapely.affinity

from lofkit.design.exposure import SightOptions, sight_table
from lofkit.design.layout import Placements, base_distances, cell_centres, place, terrain_only, zone_points
from lofkit.errors import LofkitError
from lofkit.geometry.flat import overlay
from lofkit.geometry.world import World
from lofkit.units import to_inches

Progress = Callable[[str, int, int], None]
"""progress(task, done, total): what is being computed and how far it is."""

LONGEST_LANES = 10
"""Lanes listed (and drawn) from the longest down."""


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


@dataclass(frozen=True)
class Heatmap:
    """How many of `side`'s viewers see a probe on each cell: `counts` (ny, nx), -1 where the probe does not fit."""

    side: str
    options: SightOptions
    counts: np.ndarray
    centres: np.ndarray
    z: np.ndarray
    viewers: Placements
    seen: np.ndarray
    """(viewers, cells) sight matrix behind the counts."""
    segments: int
    """Segments cast (Embree) to settle it."""
    tested: int
    """Segments settled one by one by compiled tests against convex parts instead of Embree."""
    cell: tuple[float, float]
    """A cell's width and depth, mm (the table divided evenly, so close to the asked size)."""
    viewer_spacing: tuple[float, float]
    """The viewer grid's spacing along x and y, mm (the zone divided evenly)."""

    @property
    def cells(self) -> int:
        return int((self.counts >= 0).sum())

    @property
    def exposed_cells(self) -> int:
        return int((self.counts > 0).sum())

    @property
    def exposed_share(self) -> float:
        return _share(self.exposed_cells, self.cells)

    def to_dict(self) -> dict:
        o = self.options
        return {
            "zone": self.side,
            "cells": self.cells,
            "exposed_cells": self.exposed_cells,
            "exposed_share": self.exposed_share,
            "grid": list(self.counts.shape),
            "cell_mm": [round(c, 4) for c in self.cell],
            "viewers": int(self.viewers.fits.sum()),
            "viewer_spacing_mm": [round(c, 4) for c in self.viewer_spacing],
            "probe_silhouette": o.probe_silhouette,
            "viewer_silhouette": o.viewer_silhouette,
            "max_range_mm": None if o.max_range is None else round(o.max_range, 4),
            "quick": o.quick,
            "max_count": int(self.counts.max(initial=0)),
            "mean_count": round(float(self.counts[self.counts >= 0].mean()), 3) if self.cells else 0.0,
            "segments": self.segments,
            "segments_tested": self.tested,
        }


def heatmap(world: World, side: str, options: SightOptions = SightOptions(), executor: Executor | None = None,
            progress: Progress | None = None) -> Heatmap:
    """The exposure heatmap of the table to `side`'s deployment zone (the viewshed of the whole zone)."""
    world = terrain_only(world)
    centres, shape = cell_centres(world.scene, options.cell_size)
    probes = place(world, centres, options.probe_silhouette)
    viewers, spacing = _viewers(world, side, options)
    report = None if progress is None else (lambda done, total: progress(f"cells seen from {side}", done, total))
    table = sight_table(world, viewers, probes, options, executor, report)
    counts = np.where(probes.fits, table.seen.sum(axis=0), -1).reshape(shape)
    cell = (world.scene.table.width / shape[1], world.scene.table.depth / shape[0])
    return Heatmap(side, options, counts, centres, probes.z, viewers, table.seen, table.segments, table.tested, cell,
                   spacing)


def _viewers(world: World, side: str, options: SightOptions) -> tuple[Placements, tuple[float, float]]:
    """Viewers over `side`'s zone and the grid's spacing; a zone where none fits is bad input."""
    points, spacing = zone_points(world, side, options.viewer_spacing)
    viewers = place(world, points, options.viewer_silhouette)
    if not viewers.fits.any():
        raise LofkitError(f"{world.scene.source or 'the scene'}: no S{options.viewer_silhouette} viewer fits over "
                          f"{side}'s deployment zone ({len(points)} spots every {options.viewer_spacing:g} mm); "
                          f"give a smaller --viewer-spacing, or check the zone and the terrain in it")
    return viewers, spacing


@dataclass(frozen=True)
class Lanes:
    """Firing lanes between two deployment zones: spots of one with sight of spots of the other."""

    sides: tuple[str, str]
    first: Placements
    second: Placements
    seen: np.ndarray
    """(first, second) sight matrix."""
    lengths: np.ndarray
    """(first, second) base-to-base distances, mm."""

    @property
    def count(self) -> int:
        return int(self.seen.sum())

    def longest(self, n: int = LONGEST_LANES) -> list[tuple[int, int, float]]:
        rows, cols = np.nonzero(self.seen)
        order = np.argsort(-self.lengths[rows, cols], kind="stable")[:n]
        return [(int(rows[k]), int(cols[k]), float(self.lengths[rows[k], cols[k]])) for k in order]

    @property
    def longest_mm(self) -> float:
        lanes = self.longest(1)
        return round(lanes[0][2], 3) if lanes else 0.0

    def visible_share(self) -> dict[str, float]:
        """Share of each zone's spots seen from at least one spot of the other zone."""
        a, b = self.sides
        return {a: _share(int(self.seen.any(axis=1).sum()), int(self.first.fits.sum())),
                b: _share(int(self.seen.any(axis=0).sum()), int(self.second.fits.sum()))}

    def to_dict(self) -> dict:
        a, b = self.sides
        return {
            "zones": [a, b],
            "lanes": self.count,
            "longest_lane_mm": self.longest_mm,
            "longest_lane_in": round(to_inches(self.longest_mm), 3),
            "visible_share": self.visible_share(),
            "longest": [
                {a: [round(float(c), 3) for c in self.first.centres[i]],
                 b: [round(float(c), 3) for c in self.second.centres[j]],
                 "distance_mm": round(d, 3)}
                for i, j, d in self.longest()
            ],
        }


def lanes(world: World, sides: tuple[str, str], options: SightOptions = SightOptions(),
          executor: Executor | None = None, progress: Progress | None = None) -> Lanes:
    """Firing lanes across two deployment zones, spots on the viewer grid of each (viewer silhouette)."""
    if sides[0] == sides[1]:
        raise LofkitError(f"lanes run between two different zones, not '{sides[0]}' and itself")
    world = terrain_only(world)
    (a, _), (b, _) = (_viewers(world, side, options) for side in sides)
    return _lanes_between(world, (sides[0], sides[1]), a, b, options, executor, progress)


def _lanes_between(world: World, sides: tuple[str, str], a: Placements, b: Placements, options: SightOptions,
                   executor: Executor | None, progress: Progress | None) -> Lanes:
    report = None if progress is None else (lambda done, total: progress("lanes", done, total))
    seen = sight_table(world, a, b, options, executor, report).seen
    return Lanes(sides, a, b, seen, base_distances(a, b))


def footprint_measures(shapes, table: tuple[float, float]) -> dict:
    """`terrain_density` and `symmetry` (unrounded) of terrain whose footprints seen from above are `shapes`, on a
    table of `table` (width, depth) mm."""
    if len(shapes) == 0:
        return {"terrain_density": 0.0, "symmetry": 1.0}
    box = shapely.box(0, 0, *table)
    covered = overlay(shapely.union_all, list(shapes))
    density = overlay(shapely.intersection, covered, box).area / box.area
    turned = shapely.affinity.rotate(covered, 180, origin=(table[0] / 2, table[1] / 2))
    union = overlay(shapely.union, covered, turned).area
    return {"terrain_density": density,
            "symmetry": overlay(shapely.intersection, covered, turned).area / union if union else 1.0}


def _measures(world: World) -> dict:
    shapes = [world.pieces[i].outline for i in world.blocking_pieces]
    return footprint_measures(shapes, (world.scene.table.width, world.scene.table.depth))


def terrain_density(world: World) -> float:
    """Share of the table's area under blocking terrain, seen from above."""
    return round(_measures(world)["terrain_density"], 4)


def symmetry(world: World) -> float:
    """How alike the two halves are: the overlap (intersection over union) of the terrain seen from above with
    itself turned half a turn about the table's centre (1: a point-symmetric layout)."""
    return round(_measures(world)["symmetry"], 4)


@dataclass(frozen=True)
class Scorecard:
    """One layout's metrics: exposure to each zone, safe cells, lanes, terrain density and symmetry."""

    scene: str
    heatmaps: tuple[Heatmap, ...]
    lanes: Lanes | None
    density: float
    symmetry: float

    @property
    def safe_share(self) -> float:
        """Share of cells where a probe fits and no viewer of any zone sees it."""
        counts = np.stack([h.counts for h in self.heatmaps])
        fits = counts[0] >= 0
        return _share(int((fits & (counts.max(axis=0) == 0)).sum()), int(fits.sum()))

    def to_dict(self) -> dict:
        exposed = {h.side: h.exposed_share for h in self.heatmaps}
        return {
            "scene": self.scene,
            "exposed_share": exposed,
            "safe_share": self.safe_share,
            "lanes": self.lanes.count if self.lanes else 0,
            "longest_lane_mm": self.lanes.longest_mm if self.lanes else 0.0,
            "terrain_density": self.density,
            "symmetry": self.symmetry,
            "exposure_balance": round(1 - (max(exposed.values()) - min(exposed.values())), 4) if exposed else 1.0,
            "zone_visible_share": self.lanes.visible_share() if self.lanes else {},
            "cells": self.heatmaps[0].cells if self.heatmaps else 0,
            "quick": self.heatmaps[0].options.quick if self.heatmaps else False,
        }


def scored_sides(world: World, name: str) -> list[str]:
    """The sides a scorecard of layout `name` covers: each deployment zone's, in scene order; none is bad input."""
    sides = list(dict.fromkeys(z.side for z in world.scene.deployment_zones))
    if not sides:
        raise LofkitError(f"{name}: the scene has no deployment_zones; a scorecard needs at least one")
    return sides


def scorecard(world: World, name: str, options: SightOptions = SightOptions(), executor: Executor | None = None,
              progress: Progress | None = None) -> Scorecard:
    """Every metric of one layout; heatmaps for each deployment zone, lanes between the first two."""
    sides = scored_sides(world, name)
    maps = tuple(heatmap(world, side, options, executor, progress) for side in sides)
    between = None
    if len(sides) >= 2:  # the heatmaps' viewers are the lanes' spots: placed once
        between = _lanes_between(terrain_only(world), (sides[0], sides[1]), maps[0].viewers, maps[1].viewers,
                                 options, executor, progress)
    measures = _measures(world)
    return Scorecard(name, maps, between, round(measures["terrain_density"], 4), round(measures["symmetry"], 4))
