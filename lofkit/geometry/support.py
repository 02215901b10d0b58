"""Where bases rest, and whether a base fits where it stands.

README "Scene files": "`z: auto` = rest on what is below". The base rests on the highest solid surface under any part
of it (the table top, z = 0, when nothing is there), so a trooper given `z: auto` over a building stands on its
roof; give `z` explicitly for an inner floor. Two lower bounds of that height are combined: rays cast straight down
on a grid of `SPACING` mm over the base and its rim, and the highest point of the mesh edges inside the base's
column (which catches posts and fence rails thinner than the grid, whether or not a vertex stands over the base).
Together they are exact for flat tops: a flat face over part of the base either has an edge entering the column
or covers the whole disc, where every ray hits it. Embree works in float32, so heights are rounded to `RESOLUTION`
mm.

docs/rules.md (Deployment): "The whole base must fit: it rests flat on a supporting surface at least as large as the
base, and the volume intersects no scenery" (`base_fit`, which deployment, dispersion and analyses all use; a
base that fits also lies on the table, `scene.table.base_on_table`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from lofkit.geometry.clearance import CLEARANCE, volume_overlaps
from lofkit.geometry.volumes import base_volumes
from lofkit.scene.table import base_on_table
from lofkit.units import EPS

DOWN = np.array([0.0, 0.0, -1.0])
SPACING = 2.0
RESOLUTION = 1e-4
"""mm: Embree's float32 heights are rounded to this."""
SUPPORT_TOLERANCE = 0.01
"""mm: a surface this close below (or above) the base's underside supports it."""


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


def highest_edge_point(edges: np.ndarray, centre, radius: float) -> float:
    """The highest point of the mesh edges `edges` (m, 2, 3) inside the vertical column over the disc (`centre`,
    `radius`), or 0 when none enters it. Along an edge height is linear, so the highest point of the part of it over
    the disc is one end of that part: where the edge enters or leaves the column, or a vertex inside it."""
    start, along = edges[:, 0], edges[:, 1] - edges[:, 0]
    offset = start[:, :2] - centre
    a = np.einsum("ij,ij->i", along[:, :2], along[:, :2])
    b = np.einsum("ij,ij->i", along[:, :2], offset)
    c = np.einsum("ij,ij->i", offset, offset) - (radius + EPS) ** 2
    root = np.sqrt(np.maximum(b * b - a * c, 0.0))
    flat = a <= EPS * EPS  # a vertical edge: over the disc all along, or nowhere
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(flat, np.where(c <= 0, 0.0, np.inf), (-b - root) / a)
        high = np.where(flat, np.where(c <= 0, 1.0, -np.inf), (-b + root) / a)
    low, high = np.maximum(low, 0.0), np.minimum(high, 1.0)
    meets = (b * b - a * c >= 0) & (low <= high)
    if not meets.any():
        return 0.0
    z, rise = start[meets, 2], along[meets, 2]
    return float(max(np.maximum(z + low[meets] * rise, z + high[meets] * rise).max(), 0.0))


def _highest_edges(world, centres: np.ndarray, radii: np.ndarray, top: float) -> np.ndarray:
    """Highest point of a solid mesh's edges inside each base's vertical column (0 where there is none)."""
    solid = set(world.solid_pieces.tolist())
    heights = np.zeros(len(centres))
    for i, ((x, y), r) in enumerate(zip(centres, radii)):
        for piece in set(world.piece_index.intersection((x - r, y - r, 0.0, x + r, y + r, top))) & solid:
            edges, boxes = world.pieces[piece].edges
            near = np.flatnonzero((boxes[:, 0] <= x + r + EPS) & (boxes[:, 2] >= x - r - EPS) &
                                  (boxes[:, 1] <= y + r + EPS) & (boxes[:, 3] >= y - r - EPS))
            if len(near):
                heights[i] = max(heights[i], highest_edge_point(edges[near], (x, y), r))
    return heights


def rest_height(world, centres: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Height of the highest solid surface under each base (discs given by centre (n, 2) and radius (n,)). A base
    touching a piece's side from outside does not stand on it: the disc is shrunk by `CLEARANCE` first."""
    centres, radii = np.reshape(centres, (-1, 2)), np.asarray(radii, dtype=float).reshape(-1)
    radii = np.maximum(radii - CLEARANCE, 0.0)
    if len(world.solid_pieces) == 0 or len(centres) == 0:
        return np.zeros(len(centres))
    heights = np.maximum(_highest_hits(world, centres, radii), _highest_edges(world, centres, radii, _top(world)))
    return np.maximum(np.round(heights / RESOLUTION) * RESOLUTION, 0.0)


def support_gaps(world, centres: np.ndarray, z, radii) -> tuple[np.ndarray, np.ndarray]:
    """docs/rules.md (Deployment): "it rests flat on a supporting surface at least as large as the base".

    Returns, per base, the largest drop (mm) from its underside to the solid surface under any sample point of the
    base (0 when it rests flat) and the share of sample points with a drop over `SUPPORT_TOLERANCE`.
    """
    centres = np.reshape(np.asarray(centres, dtype=float), (-1, 2))
    z = np.broadcast_to(np.asarray(z, dtype=float), (len(centres),))
    radii = np.broadcast_to(np.asarray(radii, dtype=float), (len(centres),))
    drop, share = np.zeros(len(centres)), np.zeros(len(centres))
    for radius in np.unique(radii):  # one sample pattern per base size
        chosen = np.flatnonzero(radii == radius)
        grid = disc_grid(max(radius - CLEARANCE, 0.0), SPACING)
        points = centres[chosen][:, None, :] + grid[None]
        start = np.broadcast_to((z[chosen] + SUPPORT_TOLERANCE)[:, None], points.shape[:2])
        origins = np.concatenate([points, start[..., None]], axis=-1).reshape(-1, 3)
        length = np.maximum(start.reshape(-1), 0.0)
        distance, _ = world.solid_rays.first_hit(origins, np.broadcast_to(DOWN, origins.shape), length)
        surface = np.where(np.isfinite(distance), start.reshape(-1) - distance, 0.0).reshape(points.shape[:2])
        gap = z[chosen][:, None] - surface
        drop[chosen] = np.maximum(gap.max(axis=1), 0.0)
        share[chosen] = (gap > SUPPORT_TOLERANCE).mean(axis=1)
    return drop, share


@dataclass(frozen=True)
class BaseFit:
    """Whether bases fit where they stand, rule by rule, as arrays over the bases."""

    on_table: np.ndarray  # (n,) bool: the base lies wholly on the table
    drop: np.ndarray  # (n,) largest drop (mm) from the base's underside to the surface under it (0: rests flat)
    unsupported_share: np.ndarray  # (n,) share of the base's sample points over a drop of more than SUPPORT_TOLERANCE
    scenery: tuple[tuple[str, ...], ...]  # ids of the solid pieces each volume intersects

    @property
    def supported(self) -> np.ndarray:
        """docs/rules.md: "it rests flat on a supporting surface at least as large as the base"."""
        return self.drop <= SUPPORT_TOLERANCE

    @cached_property
    def clear(self) -> np.ndarray:
        """docs/rules.md: "the volume intersects no scenery"."""
        return np.array([not pieces for pieces in self.scenery], dtype=bool)

    @property
    def fits(self) -> np.ndarray:
        """On the table, supported and clear of scenery."""
        return self.on_table & self.supported & self.clear


def base_fit(world, centres, z, radii, heights) -> BaseFit:
    """docs/rules.md (Deployment): "The whole base must fit: it rests flat on a supporting surface at least as large as
    the base, and the volume intersects no scenery", for bases (centre (n, 2), underside z, radius, height; scalars
    or (n,)) standing on `world`'s terrain (its troopers are not part of the test)."""
    centres = np.reshape(np.asarray(centres, dtype=float), (-1, 2))
    table = world.scene.table
    drop, share = support_gaps(world, centres, z, radii)
    scenery = volume_overlaps(world, base_volumes(centres, z, radii, heights))
    return BaseFit(base_on_table(centres, radii, table.width, table.depth), drop, share,
                   tuple(tuple(pieces) for pieces in scenery))
