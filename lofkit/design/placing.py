"""Layouts as `lofkit generate` builds them: catalogue pieces on a fine grid, the placement rules, and symmetry.

A layout is plain integers, so that it is exact, hashable and cheap to send to another process: each piece is
(kind, ix, iy, turn), its centre at (ix, iy) steps of `POSITION_STEP` (1/20 inch, so that positions are round in
inches, the unit of the scene files and of Tabletop Simulator) and turned by `turn` steps of 15 degrees. With
symmetry, a layout holds the *primary* pieces and each one's image is derived (`placed`): a layout is symmetric
after every step because it can hold nothing else.

- `180`: the image is the piece turned half a turn about the table's centre: (W - x, D - y, turn + 180).
- `mirror`: the image is the piece reflected across the line midway between the two zones (y = D / 2). A mesh's
  mirror image is another mesh, so only pieces whose footprint has a mirror line through its centre take part
  (`Kind.mirror_offset`): reflecting a footprint symmetric about its own x axis gives it turned by -turn, about
  its y axis by 180 - turn. Their 3D shapes need not be mirror images (a door may be on the other side).

The rules (`rule_breaks`, `allowed`), all on footprints seen from above, with `EPS` (1e-6 mm) as the tolerance:
every piece lies on the table at least `edge_gap` from each edge; no two footprints overlap (touching is allowed:
less than `OVERLAP_AREA` in common); two tall pieces (`height >= tall`) stand at least `tall_gap` apart, so a base
walks between them; each deployment zone keeps at least `playable` of its sample spots (a grid every
`PLAYABLE_SPACING`) where a base of `playable_silhouette` stands on the table top clear of every footprint (roofs
are not counted as ground to deploy on).
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import shapely
import shapely.affinity

from lofkit.errors import LofkitError
from lofkit.geometry.flat import outline, overlay
from lofkit.geometry.terrain import MeshFileError, load_mesh_file
from lofkit.ray import backend as ray_backend
from lofkit.scene.catalog import load_catalog
from lofkit.scene.silhouettes import SILHOUETTES
from lofkit.scene.table import base_on_table
from lofkit.units import EPS, INCH

POSITION_STEP = INCH / 20
"""Grid of piece centres, mm: 1/20 inch, so positions stay round in inches (scene files, Tabletop Simulator)."""
TURN_STEP = 15
"""Degrees: pieces turn in steps of 15 degrees."""
TURNS = 360 // TURN_STEP
OVERLAP_AREA = 1e-6
"""mm^2: two footprints sharing less area than this touch but do not overlap."""
PLAYABLE_SPACING = INCH
"""Sample spots of a deployment zone for the playable rule: a grid this fine over the zone."""
SYMMETRIES = ("none", "180", "mirror")
SCREEN_HEIGHT = SILHOUETTES[2][1]
"""mm: sight lines a screen is judged on run up to this height (a silhouette 2 trooper, the common size)."""
SCREEN_RAYS = (48, 12)
"""Sight lines a screen is judged on: this many along the piece, times this many heights."""
MIRROR_TOLERANCE = 1e-6
"""Share of a footprint's area its mirror image may differ by and still count as the same footprint."""


@dataclass(frozen=True)
class Kind:
    """A catalogue piece as the generator places it: its mesh (absolute path), its footprint in its own frame, its
    height, and how its mirror image is turned (`mirror_offset`: image turn = (offset - turn), in 15 degree steps;
    None when the footprint has no mirror line through its centre)."""

    name: str
    mesh: Path
    footprint: shapely.Geometry
    height: float
    mirror_offset: int | None
    screen: float = 0.0
    """How well the piece screens when set as a wall across sight lines (`screen_share`)."""


def snap_turn(degrees: float) -> int:
    """A rotation in degrees to the nearest 15 degree step, as a step count 0..23.

    >>> snap_turn(37), snap_turn(-15), snap_turn(352.6)
    (2, 23, 0)
    """
    return int(round(degrees / TURN_STEP)) % TURNS


def screen_share(mesh, footprint: shapely.Geometry) -> float:
    """How well a piece screens, as a wall across sight lines: the share of level lines crossing it along y (in
    its own frame, at `SCREEN_RAYS` spots along its x extent and heights up to `SCREEN_HEIGHT`) that its mesh stops.
    A container stops them all; a fence, a walkway's open underside or a low barrier few (`moves.walled_layout`
    builds walls of good screens)."""
    x0, y0, x1, y1 = footprint.bounds
    along, heights = SCREEN_RAYS
    xs = x0 + (np.arange(along) + 0.5) * (x1 - x0) / along
    zs = (np.arange(heights) + 0.5) * SCREEN_HEIGHT / heights
    gx, gz = np.meshgrid(xs, zs)
    starts = np.stack([gx.ravel(), np.full(gx.size, y0 - 1.0), gz.ravel()], axis=1)
    directions = np.tile([0.0, 1.0, 0.0], (len(starts), 1))
    stopped = ray_backend()([mesh]).occluded(starts, directions, np.full(len(starts), y1 - y0 + 2.0))
    return float(np.count_nonzero(stopped)) / len(starts)


def _mirror_offset(shape: shapely.Geometry) -> int | None:
    """How a footprint's mirror image across the table's x axis is turned (see `Kind`), or None."""
    area = shape.area
    for offset, (fx, fy) in ((0, (1, -1)), (TURNS // 2, (-1, 1))):
        image = shapely.affinity.scale(shape, fx, fy, origin=(0, 0))
        if overlay(shapely.symmetric_difference, shape, image).area <= MIRROR_TOLERANCE * area:
            return offset
    return None


@functools.lru_cache(maxsize=8)
def catalogue_kinds(path: str) -> tuple[Kind, ...]:
    """Every piece of the catalogue at `path` (a string, so the result is cached per process), in file order."""
    kinds = []
    for piece in load_catalog(path).values():
        try:
            mesh = load_mesh_file(piece.mesh)
        except MeshFileError as exc:
            raise LofkitError(f"{path}: piece '{piece.name}': {exc}") from None
        shape = outline(mesh)  # in its own frame, as the rules see a placed piece
        kinds.append(Kind(piece.name, piece.mesh, shape, piece.height, _mirror_offset(shape),
                          screen_share(mesh, shape)))
    if not kinds:
        raise LofkitError(f"{path}: the terrain catalogue lists no pieces")
    return tuple(kinds)


@dataclass(frozen=True)
class Rules:
    """The placement rules of a generated layout (all lengths mm; `zones`: (side, (x0, y0, x1, y1)) rectangles)."""

    table: tuple[float, float]
    zones: tuple[tuple[str, tuple[float, float, float, float]], ...]
    pieces: tuple[int, int] = (18, 30)
    edge_gap: float = INCH / 2
    tall_gap: float = INCH
    tall: float = 40.0
    playable: float = 0.6
    playable_silhouette: int = 2
    symmetry: str = "none"

    @property
    def grid(self) -> tuple[int, int]:
        """Steps of `POSITION_STEP` across and along the table (the table divided evenly)."""
        return tuple(max(1, int(round(side / POSITION_STEP))) for side in self.table)

    @property
    def step(self) -> tuple[float, float]:
        nx, ny = self.grid
        return self.table[0] / nx, self.table[1] / ny

    @property
    def per_unit(self) -> int:
        """Pieces a primary piece stands for: 2 with symmetry (itself and its image), else 1."""
        return 1 if self.symmetry == "none" else 2


Piece = tuple[int, int, int, int]
"""(kind, ix, iy, turn)."""


@dataclass(frozen=True)
class Layout:
    """The primary pieces of a layout (see the module docstring); `placed` gives every piece on the table."""

    primaries: tuple[Piece, ...]


def image(piece: Piece, rules: Rules, kinds: tuple[Kind, ...]) -> Piece:
    """The symmetric image of a primary piece."""
    kind, ix, iy, turn = piece
    nx, ny = rules.grid
    if rules.symmetry == "180":
        return kind, nx - ix, ny - iy, (turn + TURNS // 2) % TURNS
    return kind, ix, ny - iy, (kinds[kind].mirror_offset - turn) % TURNS


def placed(layout: Layout, rules: Rules, kinds: tuple[Kind, ...]) -> tuple[Piece, ...]:
    """Every piece on the table: each primary, followed by its image when there is symmetry."""
    if rules.symmetry == "none":
        return layout.primaries
    return tuple(p for primary in layout.primaries for p in (primary, image(primary, rules, kinds)))


def snap_centre(x: float, y: float, rules: Rules) -> tuple[int, int]:
    """A centre on the table (mm) to the nearest point of the layout grid, kept on the grid."""
    (sx, sy), (nx, ny) = rules.step, rules.grid
    return int(np.clip(round(x / sx), 0, nx)), int(np.clip(round(y / sy), 0, ny))


def centre_mm(piece: Piece, rules: Rules) -> tuple[float, float]:
    """A piece's centre on the table, mm, exactly as the scene loader reads it back from the scene file (inches to
    1e-6, times 25.4)."""
    sx, sy = rules.step
    return round(piece[1] * sx / INCH, 6) * INCH, round(piece[2] * sy / INCH, 6) * INCH


@functools.lru_cache(maxsize=65536)
def _turned(shape_wkb: bytes, turn: int) -> shapely.Geometry:
    return shapely.affinity.rotate(shapely.from_wkb(shape_wkb), turn * TURN_STEP, origin=(0, 0))


def turned_footprint(kind: Kind, turn: int) -> shapely.Geometry:
    """A kind's footprint turned by `turn` steps about its centre (cached)."""
    return _turned(shapely.to_wkb(kind.footprint), turn)


def footprint_of(piece: Piece, rules: Rules, kinds: tuple[Kind, ...]) -> shapely.Geometry:
    """A placed piece's footprint on the table."""
    kind, _, _, turn = piece
    x, y = centre_mm(piece, rules)
    return shapely.affinity.translate(turned_footprint(kinds[kind], turn), x, y)


def footprints(pieces, rules: Rules, kinds: tuple[Kind, ...]) -> np.ndarray:
    return np.array([footprint_of(p, rules, kinds) for p in pieces], dtype=object)


def zone_spots(rules: Rules) -> list[np.ndarray]:
    """Each zone's sample spots for the playable rule: a `PLAYABLE_SPACING` grid laid evenly over the zone, where a
    base lies wholly on the table."""
    r = SILHOUETTES[rules.playable_silhouette][0] / 2
    found = []
    for _, (x0, y0, x1, y1) in rules.zones:
        nx, ny = max(1, int(round((x1 - x0) / PLAYABLE_SPACING))), max(1, int(round((y1 - y0) / PLAYABLE_SPACING)))
        gx, gy = np.meshgrid(x0 + (np.arange(nx) + 0.5) * (x1 - x0) / nx, y0 + (np.arange(ny) + 0.5) * (y1 - y0) / ny)
        points = np.stack([gx.ravel(), gy.ravel()], axis=1)
        found.append(points[base_on_table(points, r, *rules.table)])
    return found


def playable_shares(shapes: np.ndarray, rules: Rules, spots: list[np.ndarray] | None = None) -> list[float]:
    """Each zone's share of sample spots where a base stands clear of every footprint (touching is clear)."""
    r = SILHOUETTES[rules.playable_silhouette][0] / 2
    covered = overlay(shapely.union_all, list(shapes)) if len(shapes) else shapely.Polygon()
    shares = []
    for points in spots if spots is not None else zone_spots(rules):
        if len(points) == 0:
            shares.append(0.0)
            continue
        clear = shapely.distance(covered, shapely.points(points)) >= r - EPS if not covered.is_empty else \
            np.ones(len(points), dtype=bool)
        shares.append(float(np.count_nonzero(clear)) / len(points))
    return shares


def _edge_breaks(shapes: np.ndarray, rules: Rules) -> np.ndarray:
    """How far (mm) each footprint comes closer to a table edge than `edge_gap` (<= EPS: not at all)."""
    bounds = shapely.bounds(shapes).reshape(-1, 4)
    w, d = rules.table
    return np.max([rules.edge_gap - bounds[:, 0], rules.edge_gap - bounds[:, 1], bounds[:, 2] - (w - rules.edge_gap),
                   bounds[:, 3] - (d - rules.edge_gap)], axis=0)


def _pair_breaks(shapes: np.ndarray, tall: np.ndarray, mine: np.ndarray, others: np.ndarray) -> list[tuple]:
    """(i, j, what, number) for each pair (mine[k], others[k]) that overlaps or stands too close."""
    if len(mine) == 0:
        return []
    a, b = shapes[mine], shapes[others]
    distance = shapely.distance(a, b)
    found = []
    touching = np.flatnonzero(distance <= EPS)
    if len(touching):
        common = shapely.area(shapely.intersection(a[touching], b[touching]))
        found += [(int(mine[k]), int(others[k]), "overlap", float(area))
                  for k, area in zip(touching, common) if area > OVERLAP_AREA]
    both_tall = tall[mine] & tall[others]
    found += [(int(mine[k]), int(others[k]), "tall_gap", float(distance[k])) for k in np.flatnonzero(both_tall)]
    return found


def rule_breaks(layout: Layout, rules: Rules, kinds: tuple[Kind, ...], changed: list[int] | None = None,
                spots: list[np.ndarray] | None = None) -> list[str]:
    """Every placement rule the layout breaks, as sentences (none: it is allowed). With `changed` (indices into
    `placed`), only the rules those pieces take part in are checked, besides the count and the zones."""
    pieces = placed(layout, rules, kinds)
    found = []
    low, high = rules.pieces
    if not low <= len(pieces) <= high:
        found.append(f"{len(pieces)} pieces, not {low}..{high}")
    if not pieces:
        return found
    shapes = footprints(pieces, rules, kinds)
    tall = np.array([kinds[p[0]].height >= rules.tall for p in pieces])
    chosen = np.arange(len(pieces)) if changed is None else np.asarray(sorted(set(changed)), dtype=np.int64)
    edge = _edge_breaks(shapes[chosen], rules)
    found += [f"{kinds[pieces[i][0]].name} #{i} is {rules.edge_gap - e:.3f} mm from a table edge (at least "
              f"{rules.edge_gap:g} mm)" for i, e in zip(chosen.tolist(), edge.tolist()) if e > EPS]
    a, b = np.triu_indices(len(pieces), k=1)
    wanted = np.isin(a, chosen) | np.isin(b, chosen)
    for i, j, what, number in _pair_breaks(shapes, tall, a[wanted], b[wanted]):
        names = f"{kinds[pieces[i][0]].name} #{i} and {kinds[pieces[j][0]].name} #{j}"
        if what == "overlap":
            found.append(f"{names} overlap ({number:.3f} mm^2 in common)")
        elif number < rules.tall_gap - EPS:
            found.append(f"{names} are tall and {number:.3f} mm apart (at least {rules.tall_gap:g} mm)")
    for (side, _), share in zip(rules.zones, playable_shares(shapes, rules, spots)):
        if share < rules.playable - EPS:
            found.append(f"{side}'s zone keeps {share:.3f} of its spots for a base (at least {rules.playable:g})")
    return found


def allowed(layout: Layout, rules: Rules, kinds: tuple[Kind, ...], changed: list[int],
            spots: list[np.ndarray] | None = None) -> bool:
    """Whether a step that changed the pieces `changed` (indices into `placed`) keeps every rule."""
    return not rule_breaks(layout, rules, kinds, changed, spots)


@dataclass(frozen=True)
class Change:
    """What a step changed: the pieces gone and the pieces added (as multisets, so a piece that stayed is in
    neither), and the indices in `placed(after)` of the added ones."""

    gone: tuple[Piece, ...]
    added: tuple[Piece, ...]
    fresh: tuple[int, ...]

    def __bool__(self) -> bool:
        return bool(self.gone or self.added)


def changed_pieces(before: Layout, after: Layout, rules: Rules, kinds: tuple[Kind, ...]) -> Change:
    """The `Change` from layout `before` to layout `after`."""
    old, new = placed(before, rules, kinds), placed(after, rules, kinds)
    left = Counter(new) - Counter(old)
    fresh = []
    for k, p in enumerate(new):
        if left[p] > 0:
            left[p] -= 1
            fresh.append(k)
    return Change(tuple((Counter(old) - Counter(new)).elements()), tuple(new[k] for k in fresh), tuple(fresh))


def layout_data(layout: Layout, rules: Rules, kinds: tuple[Kind, ...], folder: Path | None = None) -> dict:
    """The layout as scene data (inches, as `lofkit validate` reads it): the table, the zones, every piece as a
    `mesh` piece; mesh paths relative to `folder` when given (where the scene file goes), else absolute."""
    terrain, counts = [], {}
    for piece in placed(layout, rules, kinds):
        kind = kinds[piece[0]]
        counts[kind.name] = counts.get(kind.name, 0) + 1
        mesh = str(kind.mesh)
        if folder is not None:
            try:
                mesh = Path(os.path.relpath(kind.mesh, Path(folder).resolve())).as_posix()
            except ValueError:  # another drive on Windows
                pass
        x, y = centre_mm(piece, rules)
        terrain.append({"id": f"{kind.name}-{counts[kind.name]}", "mesh": mesh,
                        "position": [round(x / INCH, 6), round(y / INCH, 6), 0.0],
                        "rotation": piece[3] * TURN_STEP})
    zones = [{"side": side, "polygon": [[round(x / INCH, 6), round(y / INCH, 6)] for x, y in
                                        ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]}
             for side, (x0, y0, x1, y1) in rules.zones]
    return {"lofkit": 1, "units": "in",
            "table": {"width": round(rules.table[0] / INCH, 6), "depth": round(rules.table[1] / INCH, 6)},
            "deployment_zones": zones, "terrain": terrain}
