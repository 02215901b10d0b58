"""Round bases in a scanned table's height layers (`scan_heights`): where a miniature stands.

A base is a flat disc about 3 mm high with a figure on it. Seen from above, its outline is a circle where the
surface drops by about the base's thickness to what it stands on, and inside the circle something stands far
above the disc. So, on each height layer:
1. **Rim cells**: cells whose surface drops by a base's thickness (`THICKNESS`) to a neighbour two cells away;
   each knows which way is down (the slope's direction).
2. **Circle votes** (a gradient Hough transform): each rim cell votes, for every radius the bases may have, for the
   centre that lies that radius behind it, against the downhill direction. Centres with votes enough for a good
   share of a rim are candidates.
3. **Fit and test**: each candidate is refitted by least squares to the rim cells near it that point away from
   its centre; it must be round (small residual), seen around most of its rim, drop by a base's thickness to its
   support, and carry a figure (something at least `FIGURE_HEIGHT` tall over a part of the disc). A barrel or a
   crate top does not drop by a base's thickness; a token or a coin carries no figure; a head is not on a rim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lofkit.exchange.scan_heights import HeightLayers

RADII = (10.0, 60.0)
"""Base radii (mm) looked for: bases of 20 to 120 mm."""
THICKNESS = (1.5, 6.0)
"""How far (mm) a base's top may stand above what it stands on: "a flat disc about 3 mm high", with room for
a scan's noise and a base set on a textured surface."""
FIGURE_HEIGHT = 8.0
"""The least height (mm) over the base's underside the figure must reach (an S1 is 25 mm)."""
FIGURE_SHARE = 0.03
"""The least share of the disc the figure covers seen from above (a slim figure on a 25 mm base covers ~10%)."""
RIM_SHARE = 0.6
"""The least share of the rim (in 10-degree sectors) seen: the rest may touch another base or a wall."""
ROUNDNESS = 0.8
"""The largest RMS distance (mm) of rim cells from the fitted circle (a cell is 1 mm; a scan's noise 0.3 mm)."""
TOP_FLAT = 0.75
"""The least share of the disc's top ring within 1 mm of its level: a base is flat, the figure's feet stand on a
part of it."""
SUPPORT_FLAT = 0.4
"""The least share of a ring just outside the disc that is one flat surface about a base's thickness below its top:
what the base stands on (the rest may be another base, a wall or an edge)."""
FOOT_BIN = 0.5
"""Width (mm) of the rings in which a base's foot is looked for: half a cell."""
FOOT_HEIGHT = 0.75
"""A ring whose median lies this close (mm) to the support is past the base's foot: three times a scan's noise."""
STANDARD_BASES = (25.0, 40.0, 55.0, 70.0)
SNAP = 2.0
"""A diameter within this (mm) of a standard base is that base."""
FACING_OFFSET = 1.5
"""A figure seen from above whose centre lies at least this far (mm) off the base's centre has a front (its
weapon, its stride); five times a scan's noise. Closer, the figure is taken as symmetric: no facing."""
SECTORS = 36


@dataclass(frozen=True)
class FoundBase:
    """A base found in a scan: centre (x, y), diameter, `z` of its underside, the height of its figure over that
    underside, the facing its figure suggests (degrees, None if symmetric), and how well it fitted: the share of its
    rim seen (`RIM_SHARE`), the rim cells' RMS distance from the circle (`ROUNDNESS`), how many rim cells the circle
    holds (the larger wins where two overlap), and the shares of its top and of its support that are flat
    (`TOP_FLAT`, `SUPPORT_FLAT`)."""

    centre: tuple[float, float]
    diameter: float
    z: float
    figure_height: float
    facing: float | None
    rim_share: float
    roundness: float
    rim_cells: int
    top_flat: float
    support_flat: float


def _drops(z: np.ndarray, cells: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every cell: the largest drop to a neighbour `cells` away (8 directions), and the downhill direction."""
    padded = np.pad(z, cells, mode="edge")
    nx, ny = z.shape
    best = np.full(z.shape, -np.inf)
    gx, gy = np.zeros(z.shape), np.zeros(z.shape)
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            if dx == dy == 0:
                continue
            neighbour = padded[cells + dx * cells: cells + dx * cells + nx, cells + dy * cells: cells + dy * cells + ny]
            drop = z - neighbour
            norm = math.hypot(dx, dy)
            gx += np.clip(drop, 0, THICKNESS[1] * 2) * dx / norm
            gy += np.clip(drop, 0, THICKNESS[1] * 2) * dy / norm
            best = np.maximum(best, drop)
    return best, gx, gy


def _candidates(px, py, ux, uy, step: float) -> np.ndarray:
    """Circle candidates (cx, cy, r), most votes first, from rim cells at (px, py) with downhill unit vectors
    (ux, uy): centres on a 2 mm grid and radii to 1 mm, each a local maximum of the votes with enough of them."""
    radii = np.arange(RADII[0], RADII[1] + 0.5, 1.0)
    ci = np.round((px[:, None] - radii[None] * ux[:, None]) / 2.0).astype(np.int64) + 1
    cj = np.round((py[:, None] - radii[None] * uy[:, None]) / 2.0).astype(np.int64) + 1
    span_j, span_r = int(cj.max()) + 2, len(radii) + 2
    ci, cj = np.clip(ci, 0, None), np.clip(cj, 0, None)
    keys = ((ci * span_j + cj) * span_r + np.arange(1, len(radii) + 1)[None]).ravel()
    cells, votes = np.unique(keys, return_counts=True)
    radius = radii[cells % span_r - 1]
    enough = votes >= 0.25 * RIM_SHARE * 2 * np.pi * radius / step
    cells, votes, radius = cells[enough], votes[enough], radius[enough]
    peak = np.ones(len(cells), dtype=bool)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            for dr in (-1, 0, 1):
                if di == dj == dr == 0:
                    continue
                other = cells + (di * span_j + dj) * span_r + dr
                at = np.clip(np.searchsorted(cells, other), 0, len(cells) - 1)
                peak &= ~((cells[at] == other) & (votes[at] > votes))
    cells, votes, radius = cells[peak], votes[peak], radius[peak]
    order = np.argsort(-votes, kind="stable")
    centre_i = (cells // span_r) // span_j - 1
    centre_j = (cells // span_r) % span_j - 1
    return np.column_stack([centre_i * 2.0, centre_j * 2.0, radius])[order]


def _fit_circle(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle (Kasa): centre and radius."""
    a = np.column_stack([x, y, np.ones_like(x)])
    b = x * x + y * y
    (c0, c1, c2), *_ = np.linalg.lstsq(a, b, rcond=None)
    cx, cy = c0 / 2, c1 / 2
    return float(cx), float(cy), float(math.sqrt(max(c2 + cx * cx + cy * cy, 0.0)))


def bases_in_layer(z: np.ndarray, step: float, origin=(0.0, 0.0), met: np.ndarray | None = None) -> list[FoundBase]:
    """Every base standing on the surfaces of one height layer `z` (NaN: nothing there; `met`: where a surface was
    met, as `HeightLayers.met`)."""
    surface = np.nan_to_num(z, nan=-1e3)
    drop, gx, gy = _drops(surface, 2)
    rim = (drop >= THICKNESS[0]) & (drop <= THICKNESS[1] * 1.5) & ~np.isnan(z)
    i, j = np.nonzero(rim)
    if len(i) == 0:
        return []
    norm = np.hypot(gx[i, j], gy[i, j])
    ok = norm > 0
    i, j = i[ok], j[ok]
    ux, uy = gx[i, j] / norm[ok], gy[i, j] / norm[ok]
    px, py = origin[0] + (i + 0.5) * step, origin[1] + (j + 0.5) * step
    tested: dict[tuple, FoundBase] = {}
    for cx, cy, r in _candidates(px, py, ux, uy, step):
        base = _test(surface, met, step, origin, px, py, ux, uy, (cx, cy, r))
        if base is not None:
            tested[(round(base.centre[0], 1), round(base.centre[1], 1), base.diameter)] = base
    found: list[FoundBase] = []
    for base in sorted(tested.values(), key=lambda b: -b.rim_cells):
        if not any(_overlap(base, b) for b in found):
            found.append(base)
    return found


def _overlap(a: FoundBase, b: FoundBase) -> bool:
    """Whether two bases overlap by more than a scan's slack (two models cannot stand there)."""
    return math.hypot(a.centre[0] - b.centre[0], a.centre[1] - b.centre[1]) < (a.diameter + b.diameter) / 2 - 2.0


def _near(px, py, ux, uy, cx, cy, r, band: float) -> np.ndarray:
    """Rim cells within `band` of the circle whose downhill direction points away from its centre."""
    dx, dy = px - cx, py - cy
    d = np.hypot(dx, dy)
    return (np.abs(d - r) < band) & ((dx * ux + dy * uy) > 0.7 * np.maximum(d, 1e-9))


def _test(surface, met, step, origin, px, py, ux, uy, circle) -> FoundBase | None:
    """The base at `circle` (cx, cy, r), refitted and tested, or None when it is not one (module docstring). Its
    foot is sized on cells where the scan has a surface (`met`): a hole in the table top beside it says nothing."""
    cx, cy, r = circle
    for band in (2.5, 1.5):
        near = _near(px, py, ux, uy, cx, cy, r, band)
        if near.sum() < 8:
            return None
        cx, cy, r = _fit_circle(px[near], py[near])
        if not RADII[0] - 1 <= r <= RADII[1] + 1:
            return None
    dx, dy = px[near] - cx, py[near] - cy
    residual = float(np.sqrt(np.mean((np.hypot(dx, dy) - r) ** 2)))
    sectors = np.unique(((np.arctan2(dy, dx) + np.pi) / (2 * np.pi) * SECTORS).astype(int) % SECTORS)
    rim_share = len(sectors) / SECTORS
    if residual > ROUNDNESS or rim_share < RIM_SHARE:
        return None
    # a rim cell drops to a cell two away: rim cells lie on the disc's top within two cells of its edge along the
    # axes, 2 * sqrt(2) along the diagonals, so their circle lies (1 + sqrt(2)) / 2 cells inside the edge
    radius = r + (1 + math.sqrt(2)) / 2 * step
    ring = _ring(surface, met, step, origin, cx, cy, radius)
    top = ring(radius - 3.0, radius - 1.0)
    if top.size == 0:
        return None
    level = float(np.percentile(top, 30))
    outside = ring(radius + 1.0, radius + 6.0)
    lower = outside[(outside < level - THICKNESS[0]) & (outside > level - THICKNESS[1])]
    if lower.size < 0.3 * outside.size or lower.size == 0:
        return None
    support = float(np.median(lower))
    top_flat = float(np.mean(np.abs(top - level) <= 1.0))
    support_flat = float(np.mean(np.abs(lower - support) <= 1.0)) * lower.size / outside.size
    if top_flat < TOP_FLAT or support_flat < SUPPORT_FLAT:
        return None
    disc = ring(0.0, radius - 1.5, with_xy=True)
    figure = disc[disc[:, 2] > level + 5.0]
    if len(figure) < FIGURE_SHARE * len(disc):
        return None
    height = float(np.percentile(figure[:, 2], 99)) - support
    if height < FIGURE_HEIGHT:
        return None
    offset = figure[:, :2].mean(axis=0) - (cx, cy)
    facing = math.degrees(math.atan2(offset[1], offset[0])) % 360 if np.hypot(*offset) >= FACING_OFFSET else None
    foot = _footprint(ring(radius - 3.0, radius + 6.0, with_xy=True, met_only=True), (cx, cy), radius - 3.0, support)
    return FoundBase((cx, cy), _diameter(2 * (foot if foot is not None else radius)), support, height, facing,
                     rim_share, residual, int(near.sum()), top_flat, support_flat)


def _footprint(cells: np.ndarray, centre, start: float, support: float) -> float | None:
    """The base's radius where it meets what it stands on: going out from `start` in `FOOT_BIN` rings, the first
    ring whose median height is within `FOOT_HEIGHT` of the support (a bevelled base is narrower on top than at its
    foot, and players name a base by its foot). None when no ring comes down."""
    distance = np.hypot(cells[:, 0] - centre[0], cells[:, 1] - centre[1])
    bins = ((distance - start) / FOOT_BIN).astype(int)
    for k in range(int(bins.max()) + 1 if len(bins) else 0):
        heights = cells[bins == k, 2]
        if len(heights) and np.median(heights) <= support + FOOT_HEIGHT:
            return start + k * FOOT_BIN
    return None


def _ring(surface, met, step, origin, cx, cy, radius):
    """A function giving the heights (or x, y, z rows) of the cells between two distances from (cx, cy) (only
    where a surface was `met`, when asked and known)."""
    reach = int(math.ceil((radius + 7.0) / step))
    ci, cj = int((cx - origin[0]) / step), int((cy - origin[1]) / step)
    i0, j0 = max(ci - reach, 0), max(cj - reach, 0)
    cells = np.s_[i0: ci + reach + 1, j0: cj + reach + 1]
    window = surface[cells]
    x = origin[0] + (np.arange(i0, i0 + window.shape[0]) + 0.5) * step
    y = origin[1] + (np.arange(j0, j0 + window.shape[1]) + 0.5) * step
    gx, gy = np.meshgrid(x, y, indexing="ij")
    distance = np.hypot(gx - cx, gy - cy)
    known = None if met is None else met[cells]

    def between(low: float, high: float, with_xy: bool = False, met_only: bool = False) -> np.ndarray:
        inside = (distance >= low) & (distance < high) & (window > -1e2)
        if met_only and known is not None:
            inside &= known
        if with_xy:
            return np.column_stack([gx[inside], gy[inside], window[inside]])
        return window[inside]

    return between


def _diameter(found: float) -> float:
    """The diameter found, or the standard base within `SNAP` of it."""
    nearest = min(STANDARD_BASES, key=lambda d: abs(d - found))
    return nearest if abs(nearest - found) <= SNAP else round(found * 2) / 2


def find_bases(layers: HeightLayers) -> list[FoundBase]:
    """Every base on every height layer, each once (a base seen in two layers is kept where it fits best)."""
    found: list[FoundBase] = []
    for k, z in enumerate(layers.z):
        for base in bases_in_layer(z, layers.step, layers.origin, None if layers.met is None else layers.met[k]):
            same = [b for b in found if math.hypot(base.centre[0] - b.centre[0], base.centre[1] - b.centre[1])
                    < 0.5 * max(base.diameter, b.diameter) and abs(base.z - b.z) < 2 * THICKNESS[1]]
            if not same:
                found.append(base)
    return found
