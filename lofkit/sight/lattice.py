"""Where sight is sampled: eye points in the shooter's volume and a lattice on the target's silhouette template.

docs/rules.md (LoF 2): "There is a point E anywhere in A's volume and a 3 mm x 3 mm square Q on B's silhouette template
such that every segment from E to Q is unobstructed. B's silhouette template is the flat rectangle (base width x
silhouette height) standing on B's base, through B's base centre, facing E horizontally."

Sampling, and what it guarantees:
- The template is covered by a lattice of points at most `PITCH` (0.35 mm) apart, fitted to its width and
  height. A square counts as seen when all (k + 1)^2 lattice segments of a k x k block of cells whose sides are at
  least 3 mm are unobstructed. A window one cell wider than the block always holds one, wherever it lies against
  the lattice: at most 3.5 mm on the standard silhouettes (`WINDOW_FOUND`), so the 3.5 mm windows of the precision
  contract are found from the eyes sampled; a window of 2.5 mm never holds one. Obstacles thinner than
  the lattice spacing (0.35 mm at the template, less nearer the eye) could slip between segments.
- Eyes: a handful of key points first (the top front, top centre and side extremes, where sight over and around
  cover is best), then a dense set every `EYE_SPACING` mm over the half of the volume that faces the target (its
  front half-cylinder surface and the front half of its top); points further back see nothing these do not.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from lofkit.sight.tolerances import END_TRIM, NONZERO, ROUNDING, SAME_SPOT
from lofkit.units import lengths

SQUARE = 3.0
"""Side of the square that must be seen, mm."""
PITCH = 0.35
"""Largest spacing of the template lattice, mm."""
EYE_SPACING = 2.5
"""Spacing of the dense eye points over the volume, mm."""
TILE = 3
"""Neighbouring dense eyes per side of a tile (see `dense_tiles`)."""
WINDOW_FOUND = 3.5
"""mm: the precision contract's window, which a template of any standard silhouette finds wherever it lies (a block
and one more cell: 3.47-3.50 mm; tests/test_lof.py)."""
COARSE_STRIDES = (10, 5)
"""Lattice strides sampled before the fine checks (`Lattice.strided`): a block spans at least 9 cells, so 10 lattice
points, and holds a point of every 10th column and line, and 2 x 2 points of every 5th: the fewest points that
still test every block."""


@dataclass(frozen=True)
class Lattice:
    """The lattice on a template of `width` x `height`: `cells` intervals per axis, square blocks `block` cells."""

    width: float
    height: float

    @property
    def cells(self) -> tuple[int, int]:
        return max(1, int(np.ceil(self.width / PITCH - ROUNDING))), max(1, int(np.ceil(self.height / PITCH - ROUNDING)))

    @property
    def pitch(self) -> tuple[float, float]:
        cw, ch = self.cells
        return self.width / cw, self.height / ch

    @property
    def block(self) -> tuple[int, int]:
        """Cells per side of the smallest block at least `SQUARE` mm wide and tall."""
        pw, ph = self.pitch
        return int(np.ceil(SQUARE / pw - ROUNDING)), int(np.ceil(SQUARE / ph - ROUNDING))

    def strided(self, stride: int) -> tuple[np.ndarray, np.ndarray]:
        """The lattice's columns and lines sampled at `stride` (`strided_indices`)."""
        (cw, ch), (bw, bh) = self.cells, self.block
        return strided_indices(cw, bw, stride), strided_indices(ch, bh, stride)

    def offsets(self, cols: np.ndarray, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where lattice columns `cols` lie across the template from its middle, and lines `lines` above its foot
        (mm): the bottom line just above the supporting surface (`END_TRIM`)."""
        pw, ph = self.pitch
        return -self.width / 2 + cols * pw, np.maximum(lines * ph, END_TRIM)

    @property
    def fits(self) -> bool:
        """Whether the template holds a 3 x 3 mm square at all."""
        return self.width >= SQUARE - ROUNDING and self.height >= SQUARE - ROUNDING


def strided_indices(cells: int, block: int, stride: int) -> np.ndarray:
    """Lattice indices 0..cells along one axis, every `stride`-th from `block` modulo `stride`. A block of w cells
    spans indices c..c + w, c from 0 to cells - w; with `stride` at most w + 1, the first index sampled is at most w
    and the rest follow at most w + 1 apart up past cells - w, so every block holds one. At `stride` = w + 1 the
    first is w, the first block's last, so the fewest are needed. The `COARSE_STRIDES` nest: each one's indices are
    among the next one's."""
    return np.arange(block % stride, cells + 1, stride)


def template_axis(eyes: np.ndarray, centres: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Horizontal unit vector along each template's width: perpendicular to the horizontal line from the target's
    centre to the eye (`fallback` directions, from shooter to target, where the eye is straight above)."""
    towards_eye = eyes[..., :2] - centres
    length = lengths(towards_eye, keepdims=True)
    towards_eye = np.where(length > SAME_SPOT, towards_eye / np.maximum(length, NONZERO), -fallback)
    return np.stack([-towards_eye[..., 1], towards_eye[..., 0]], axis=-1)


def headings(volumes, shooters, targets) -> np.ndarray:
    """Unit vectors, seen from above, from each shooter's base centre to its target's (+x for a target straight
    above or below); one (2,) or (n, 2)."""
    towards = volumes.centre[targets] - volumes.centre[shooters]
    norm = lengths(towards, keepdims=True)
    return np.where(norm > SAME_SPOT, towards / np.maximum(norm, NONZERO), [1.0, 0.0])


def template_points(
    lattice: Lattice, axis: np.ndarray, centre: np.ndarray, z: np.ndarray, cols: np.ndarray, rows: np.ndarray
) -> np.ndarray:
    """World points of lattice columns `cols` x rows `rows` on n templates of one size: shape (n, c, r, 3).

    `axis` (n, 2), `centre` (n, 2) and `z` (n,) place the templates; `cols` and `rows` are lattice indices, the
    same for every template ((c,) and (r,)) or one set per template ((n, c) and (n, r))."""
    n = len(centre)
    cols, rows = np.broadcast_to(cols, (n, np.shape(cols)[-1])), np.broadcast_to(rows, (n, np.shape(rows)[-1]))
    across, up = lattice.offsets(cols, rows)  # (n, c), (n, r)
    xy = centre[:, None, :] + across[:, :, None] * axis[:, None, :]  # (n, c, 2)
    up = z[:, None] + up
    c, r = cols.shape[1], rows.shape[1]
    return np.concatenate(
        [np.broadcast_to(xy[:, :, None, :], (n, c, r, 2)), np.broadcast_to(up[:, None, :, None], (n, c, r, 1))],
        axis=-1,
    )


def square_corners(
    lattice: Lattice, axis: np.ndarray, centre: np.ndarray, z: float, col: int, row: int
) -> tuple[np.ndarray, np.ndarray]:
    """The 3 x 3 mm square centred in the block whose lower-left lattice point is (col, row): (centre, 4 corners)."""
    pw, ph = lattice.pitch
    bw, bh = lattice.block
    across = -lattice.width / 2 + (col + bw / 2) * pw
    up = z + (row + bh / 2) * ph
    mid = np.array([*(centre + across * axis), up])
    half = SQUARE / 2
    offsets = [(-half, -half), (half, -half), (half, half), (-half, half)]
    corners = np.array([mid + np.array([*(du * axis), dz]) for du, dz in offsets])
    return mid, corners


@lru_cache(maxsize=64)
def key_eyes(radius: float, height: float) -> np.ndarray:
    """Key eye points in the shooter's frame (along the line to the target, to its left, above the base): (8, 3)."""
    r, h = radius, height
    return np.array(
        [[r, 0, h], [0, 0, h], [0, r, h], [0, -r, h], [0, r, h / 2], [0, -r, h / 2], [r, 0, h / 2], [r, 0, 0]],
        dtype=float,
    )


def lead_eye(radius: float, height: float) -> np.ndarray:
    """The first key eye alone (the top of the volume's front edge): the one that settles most clear views."""
    return key_eyes(radius, height)[:1]


def other_key_eyes(radius: float, height: float) -> np.ndarray:
    """The key eyes after the lead eye."""
    return key_eyes(radius, height)[1:]


@lru_cache(maxsize=64)
def dense_eyes(radius: float, height: float, spacing: float = EYE_SPACING) -> np.ndarray:
    """Eye points every `spacing` mm over the front half of a volume (shooter's frame, as `key_eyes`): (k, 3)."""
    return _dense(radius, height, spacing)[0]


@lru_cache(maxsize=64)
def dense_tiles(radius: float, height: float, spacing: float = EYE_SPACING) -> tuple[np.ndarray, np.ndarray,
                                                                                   np.ndarray]:
    """`dense_eyes` in tiles, so that a proof can cover a tile at once: `TILE` x `TILE` neighbours on the side (by
    arc and level) or on the top (by steps across and along) share one. Returns the tile of each eye (k,), the
    corners of each tile (t, e, 3; a tile with fewer than e repeats its first) and how many each has (t,). A proof
    for every segment from a tile's corners is one for its whole convex hull (the lemma of
    `hidden.parts_crossing_every_segment`), so the eyes between two others of a tile are left out of its corners: on the
    side, those between the lowest and the highest of their arc; on top, those between two neighbours across or
    along (fewer corners, fewer segments to prove)."""
    eyes, tile, corner = _dense(radius, height, spacing)
    kept = np.flatnonzero(corner)
    order = kept[np.argsort(tile[kept], kind="stable")]
    counts = np.bincount(tile[kept], minlength=int(tile.max()) + 1)
    slot = np.arange(len(order)) - np.repeat(np.cumsum(counts) - counts, counts)
    grouped = np.repeat(eyes[order[np.cumsum(counts) - counts]][:, None], counts.max(), axis=1)
    grouped[tile[order], slot] = eyes[order]
    return tile, grouped, counts


@lru_cache(maxsize=64)
def _dense(radius: float, height: float, spacing: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The dense eyes (k, 3), the tile of each (k,), and whether each is a corner of its tile (see `dense_tiles`)."""
    arcs = int(np.ceil(np.pi * radius / spacing)) + 1
    levels = int(np.ceil(height / spacing)) + 1
    angle = np.linspace(-np.pi / 2, np.pi / 2, arcs)
    up = np.linspace(0.0, height, levels)
    a, z = np.meshgrid(angle, up, indexing="ij")
    side = np.stack([radius * np.cos(a).ravel(), radius * np.sin(a).ravel(), z.ravel()], axis=-1)
    arc, level = np.meshgrid(np.arange(arcs), np.arange(levels), indexing="ij")
    side_tiles = (arc.ravel() // TILE) * levels + level.ravel() // TILE
    side_corners = ~(_inside_tile(level.ravel()) & (level.ravel() < levels - 1))  # no eye above the last level
    steps = np.arange(-radius, radius + spacing / 2, spacing)
    grid = np.meshgrid(np.arange(np.sum(steps >= 0)), np.arange(len(steps)))
    x, y = steps[steps >= 0][grid[0]], steps[grid[1]]
    inside = np.hypot(x, y) < radius  # the rim is on the side surface already
    top = np.stack([x[inside], y[inside], np.full(inside.sum(), height)], axis=-1)
    along, across = grid[0][inside], grid[1][inside]
    top_tiles = arcs * levels + (along // TILE) * len(steps) + across // TILE
    padded = np.pad(inside, 1)  # padded[across + 1, along + 1]: whether that step holds an eye
    between = [_inside_tile(k) & padded[across + 1 - dc, along + 1 - da] & padded[across + 1 + dc, along + 1 + da]
               for k, da, dc in ((along, 1, 0), (across, 0, 1))]
    top_corners = ~(between[0] | between[1])
    tiles = np.unique(np.concatenate([side_tiles, top_tiles]), return_inverse=True)[1]
    eyes = np.vstack([side, top])
    order = _farthest_first(eyes)
    return eyes[order], tiles[order], np.concatenate([side_corners, top_corners])[order]


def _farthest_first(eyes: np.ndarray) -> np.ndarray:
    """An order of `eyes` (k, 3) in which each comes as far as it can from all before it, from the top of the front
    edge on: a view through an opening is open to a patch of neighbouring eyes, which this order reaches early
    wherever it lies, so a pair that sees is settled before most of its eyes are searched."""
    order = [int(np.argmax(eyes[:, 0] + eyes[:, 2]))]
    gap = lengths(eyes - eyes[order[0]])
    for _ in range(len(eyes) - 1):
        order.append(int(np.argmax(gap)))
        gap = np.minimum(gap, lengths(eyes - eyes[order[-1]]))
    return np.array(order)


def _inside_tile(index: np.ndarray) -> np.ndarray:
    """Whether grid indices (arcs, levels or steps) have both neighbours in their own tile: an eye there lies
    between two eyes of its tile when both neighbours exist, so it is no corner of it."""
    return ~np.isin(index % TILE, (0, TILE - 1))


def to_world(local: np.ndarray, centre: np.ndarray, z, towards: np.ndarray) -> np.ndarray:
    """Local eye points (k, 3) (along `towards`, to its left, up) of a volume standing at `centre`, `z`: world
    points (k, 3), or (n, k, 3) for n volumes (`centre` (n, 2), `z` (n,), `towards` (n, 2)); `local` may also
    be (n, k, 3), eyes of each volume's own."""
    centre, towards = np.asarray(centre, dtype=float)[..., None, :], np.asarray(towards, dtype=float)[..., None, :]
    left = np.stack([-towards[..., 1], towards[..., 0]], axis=-1)
    xy = centre + local[..., :1] * towards + local[..., 1:2] * left
    up = np.asarray(z, dtype=float)[..., None, None] + np.maximum(local[..., 2:3], END_TRIM)
    return np.concatenate([xy, np.broadcast_to(up, xy.shape[:-1] + (1,))], axis=-1)
