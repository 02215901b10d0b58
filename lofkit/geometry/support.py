"""Where bases rest: the highest solid surface under a base.

SCENE_FORMAT.md: "`z: auto` = rest on what is below". The base rests on the highest solid surface under any part
of it (the table top, z = 0, when nothing is there), so a trooper given `z: auto` over a building stands on its
roof; give `z` explicitly for an inner floor. Two lower bounds of that height are combined, both exact for the
flat-topped, straight-sided pieces tables are made of: rays cast straight down on a grid of `SPACING` mm over the
base and its rim, and the mesh vertices standing inside the base's column (which catches posts and fence rails
thinner than the grid). Embree works in float32, so heights are rounded to `RESOLUTION` mm.
"""

from __future__ import annotations

import numpy as np

from lofkit.units import EPS

DOWN = np.array([0.0, 0.0, -1.0])
SPACING = 2.0
RESOLUTION = 1e-4
CLEARANCE = 0.01
"""Touching is not overlapping: a base touching a piece's side neither stands on it nor cuts into it (mm)."""


def disc_pattern(rings: int = 3, per_ring: int = 12) -> np.ndarray:
    """Points of the unit disc: its centre and `rings` concentric rings, the last one on the rim; shape (k, 2)."""
    radii = np.repeat(np.arange(1, rings + 1) / rings, per_ring)
    angles = np.tile(np.arange(per_ring) * 2 * np.pi / per_ring, rings)
    ring = np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=-1)
    return np.vstack([[0.0, 0.0], ring])


def disc_grid(radius: float, spacing: float = SPACING) -> np.ndarray:
    """A square grid of `spacing` mm clipped to a disc of `radius`, plus its rim at the same spacing; shape (k, 2)."""
    steps = np.arange(-radius, radius + spacing / 2, spacing)
    x, y = (a.ravel() for a in np.meshgrid(steps, steps))
    inside = np.hypot(x, y) <= radius
    angles = np.linspace(0, 2 * np.pi, max(8, int(np.ceil(2 * np.pi * radius / spacing))), endpoint=False)
    rim = radius * np.stack([np.cos(angles), np.sin(angles)], axis=-1)
    return np.vstack([np.stack([x[inside], y[inside]], axis=-1), rim])


def _top(world) -> float:
    """A height above every solid piece, where downward casts start."""
    return max(world.pieces[i].bounds[1, 2] for i in world.solid_pieces) + 1.0


def surface_under(world, points) -> np.ndarray:
    """Height of the highest solid surface straight under each point (x, y) (0, the table top, where there is none),
    rounded to `RESOLUTION`."""
    points = np.reshape(np.asarray(points, dtype=float), (-1, 2))
    if len(world.solid_pieces) == 0 or len(points) == 0:
        return np.zeros(len(points))
    top = _top(world)
    origins = np.column_stack([points, np.full(len(points), top)])
    distance, _ = world.solid_rays.first_hit(origins, np.broadcast_to(DOWN, origins.shape), top)
    height = np.where(np.isfinite(distance), np.maximum(top - distance, 0.0), 0.0)
    return np.round(height / RESOLUTION) * RESOLUTION


def _highest_hits(world, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Highest surface hit by rays cast down over each base (0 where nothing is hit)."""
    heights = np.zeros(len(centres))
    for radius in np.unique(radii):  # one grid per base size: a handful of sizes per table
        chosen = np.flatnonzero(radii == radius)
        points = centres[chosen][:, None, :] + disc_grid(radius)[None]
        heights[chosen] = surface_under(world, points.reshape(-1, 2)).reshape(points.shape[:2]).max(axis=1)
    return heights


def _highest_vertices(world, centres: np.ndarray, radii: np.ndarray, top: float) -> np.ndarray:
    """Highest solid-mesh vertex inside each base's vertical column (0 where there is none)."""
    solid = set(world.solid_pieces.tolist())
    heights = np.zeros(len(centres))
    for i, ((x, y), r) in enumerate(zip(centres, radii)):
        for piece in set(world.piece_index.intersection((x - r, y - r, 0.0, x + r, y + r, top))) & solid:
            vertices = world.pieces[piece].mesh.vertices
            inside = np.hypot(vertices[:, 0] - x, vertices[:, 1] - y) <= r + EPS
            if inside.any():
                heights[i] = max(heights[i], vertices[inside, 2].max())
    return heights


def rest_height(world, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Height of the highest solid surface under each base (discs given by centre (n, 2) and radius (n,)). A base
    touching a piece's side from outside does not stand on it: the disc is shrunk by `CLEARANCE` first."""
    centres, radii = np.reshape(centres, (-1, 2)), np.asarray(radii, dtype=float).reshape(-1)
    radii = np.maximum(radii - CLEARANCE, 0.0)
    if len(world.solid_pieces) == 0 or len(centres) == 0:
        return np.zeros(len(centres))
    heights = np.maximum(_highest_hits(world, centres, radii), _highest_vertices(world, centres, radii, _top(world)))
    return np.maximum(np.round(heights / RESOLUTION) * RESOLUTION, 0.0)
