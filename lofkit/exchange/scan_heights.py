"""What a scanned table looks like from straight above: the heights of its upward-facing surfaces on a grid.

A ray goes down through the centre of every grid cell; the first surface it meets is layer 0 (what a camera
overhead sees), the next surface that faces up and lies at least `GAP` lower is layer 1 (the floor under a roof, a
walkway or an overhang), and so on. A scan's faces are small and noisy, so which way a surface faces is read from
its vertices' normals (each an average over the faces around it), and a roof's own underside, a few millimetres
under its top, is passed through by the gap. A cell where nothing faces up is the table top
(z = 0): the importer has removed the table top, and a scan leaves it open where a base hides it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import trimesh

from lofkit.ray.embree import EmbreeRays

UP_FACING = 0.3
"""A surface whose smoothed normal's z exceeds this faces up (a roof's underside is near -1, a wall near 0)."""
GAP = 10.0
"""The least drop (mm) from one layer to the next: thicker than a roof or a walkway, lower than any trooper."""
PASS_THROUGH = 0.01
"""How far (mm) below a surface the next ray starts."""
MAX_CROSSINGS = 12
"""Surfaces a ray may pass through before it stops (walls, floors and roofs of a tall building)."""


@dataclass(frozen=True)
class HeightLayers:
    """Heights (mm) of upward-facing surfaces: `z[k, i, j]` is layer k at cell (i, j); below the last surface a
    ray met comes the table (0.0), and below the table nothing (NaN). Cell (i, j) is centred at (`origin` +
    (i + 0.5, j + 0.5) * `step`)."""

    z: np.ndarray
    step: float
    origin: tuple[float, float] = (0.0, 0.0)
    met: np.ndarray | None = None
    """Like `z`: whether a ray met a surface there (False where the table's 0.0 is only assumed, a hole in the
    scan's table top); None: everywhere."""

    def centres(self) -> tuple[np.ndarray, np.ndarray]:
        """x (nx,) and y (ny,) of the cells' centres."""
        nx, ny = self.z.shape[1:]
        return (self.origin[0] + (np.arange(nx) + 0.5) * self.step,
                self.origin[1] + (np.arange(ny) + 0.5) * self.step)


def height_layers(mesh: trimesh.Trimesh, width: float, depth: float, step: float, layers: int) -> HeightLayers:
    """The first `layers` upward-facing surfaces under each cell of a `step` mm grid over the table."""
    rays = EmbreeRays([mesh])
    nx, ny = int(np.ceil(width / step)), int(np.ceil(depth / step))
    xs = (np.arange(nx) + 0.5) * step
    ys = (np.arange(ny) + 0.5) * step
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    top = float(mesh.bounds[1, 2]) + 1.0 if len(mesh.faces) else 1.0
    origins = np.column_stack([gx.ravel(), gy.ravel(), np.full(gx.size, top)])
    down = np.broadcast_to(np.array([0.0, 0.0, -1.0]), origins.shape)
    found = np.full((layers + 1, gx.size), np.nan)
    count = np.zeros(gx.size, dtype=np.int64)
    live = np.arange(gx.size)
    normal_z = mesh.vertex_normals[mesh.faces].mean(axis=1)[:, 2] if len(mesh.faces) else np.zeros(0)
    last = np.full(gx.size, np.inf)
    for _ in range(MAX_CROSSINGS + layers):
        if len(live) == 0:
            break
        start = origins[live]
        distance, _, face = rays.first_face(start, down[live], np.full(len(live), top + 1.0))
        hit = face >= 0
        live, start, distance, face = live[hit], start[hit], distance[hit], face[hit]
        z = start[:, 2] - distance
        up = (count[live] == 0) | ((normal_z[face] > UP_FACING) & (z < last[live] - GAP))
        found[count[live[up]], live[up]] = z[up]
        last[live[up]] = z[up]
        count[live[up]] += 1
        origins[live, 2] = z - PASS_THROUGH
        live = live[count[live] < layers]
    met = (np.arange(layers)[:, None] < count[None, :]).reshape(layers, nx, ny)
    found[count, np.arange(gx.size)] = 0.0
    return HeightLayers(found[:layers].reshape(layers, nx, ny), step, met=met)
