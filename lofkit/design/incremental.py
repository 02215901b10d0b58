"""The search's evaluation of a layout: the sight matrices a scorecard is made of, on a coarse grid, kept from step
to step and updated by recomputing only what the changed pieces can touch.

What is kept (`Sight`): where each spot's base rests and whether it fits (cells for the probe, viewer spots over
each zone), and the sight matrices behind a scorecard: each zone's viewers x cells (its heatmap), and the first
zone's viewers x the second's (the lanes, on the final scorecard's viewer grid, so that `zone_visible_share` is
counted on the very spots the exact scorecard counts). A scorecard is read off them (`card`), as
`scorecard.Scorecard` does. Sight is the search's own (`survey.survey`, the glimpse widened), or the options' for
tests that compare with the scorecard.

What a step can change (`update`), for pieces gone (their footprints, F_old) and added (F_new):
- a spot's rest height and fit depend only on the scenery under and in its base (`support.base_fit`), so only
  spots whose base disc comes within `MARGIN` of F_old or F_new are placed again; a spot whose height or fit
  changed has its whole row or column recomputed;
- sight between two bases runs between their two cylinders (eyes and template points lie within the bases seen
  from above), so every segment it casts lies over the convex hull of the two base discs; a piece that does not
  meet that hull seen from above cannot block it. The hull lies within the segment between the centres widened by
  the larger radius, so a pair can change only if that widened segment meets F_old or F_new (`corridors_meet`,
  one vectorised separating-axis test of every segment of the grid against a footprint's widened hull);
- sight is monotone in the terrain (a segment is clear unless something blocks it, and sight is one clear segment
  or none): taking a piece away can only make hidden pairs seen, adding one can only hide seen pairs. So of those
  pairs only the hidden ones near F_old and the seen ones near F_new are recomputed; and of the hidden ones, not
  those a piece that stays proves hidden alone (`Sight.proof`: the survey's proofs are kept with the matrices).
Everything else is kept. The same sight function computes the pairs in both cases, so an update equals a full
evaluation exactly (tests/test_generate_incremental.py). With symmetry, half is computed (`mirrored`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import shapely
import shapely.affinity
import trimesh
from scipy.spatial import cKDTree

from lofkit.design.exposure import SightOptions
from lofkit.design.layout import Placements, base_distances, cell_centres, place, within_range, zone_points
from lofkit.design.placing import (
    TURN_STEP,
    Change,
    Kind,
    Layout,
    Piece,
    Rules,
    centre_mm,
    footprints,
    layout_data,
    placed,
)
from lofkit.design.scorecard import footprint_measures
from lofkit.design.survey import survey
from lofkit.geometry.flat import overlay
from lofkit.geometry.terrain import Piece as WorldPiece
from lofkit.geometry.terrain import load_mesh_file, placement
from lofkit.geometry.volumes import base_volumes
from lofkit.geometry.world import World
from lofkit.scene.loading import scene_from_data
from lofkit.scene.model import Terrain
from lofkit.scene.silhouettes import SILHOUETTES
from lofkit.sight.corridor import corridors_meet
from lofkit.units import EPS

MARGIN = 1.0
"""mm added to every "may touch" distance: more pairs recomputed, never one missed."""
PIECE_CACHE = 4096
"""Placed pieces (meshes) kept per process, so a step builds only the pieces it moved."""


@dataclass(frozen=True)
class Spots:
    """Base centres of one size sampled over the table: the cells, or one zone's viewer spots."""

    centres: np.ndarray
    silhouette: int

    @property
    def radius(self) -> float:
        return SILHOUETTES[self.silhouette][0] / 2


@dataclass
class Sight:
    """What the search keeps of a layout (picklable): per spot set, rest heights and fits; per block, the sight
    matrix."""

    z: tuple[np.ndarray, ...]
    fits: tuple[np.ndarray, ...]
    seen: tuple[np.ndarray, ...]
    recomputed: int = 0
    """Pairs computed to reach this state from the last one (all of them for a full evaluation)."""
    proof: tuple[np.ndarray, ...] = ()
    """Per block, for each pair computed and hidden, the piece (index into `pieces`) that alone proves it hidden,
    or -1: while that piece stays, the pair stays hidden whatever else moves."""
    pieces: tuple = ()
    """The layout's pieces (`placing.placed`), which `proof` points into."""


@dataclass
class Evaluator:
    """Everything the evaluation of a brief's layouts needs in one process: the grid, the spot sets and their
    blocks, the catalogue meshes. Built once per process (`tempering.context`); not sent between processes."""

    rules: Rules
    kinds: tuple[Kind, ...]
    options: SightOptions
    sides: tuple[str, ...]
    base: World
    spots: tuple[Spots, ...]
    """Index 0: the cells (probe silhouette); 1 + k: zone k's viewer spots (viewer silhouette); then, when the lanes
    are laid at the final scorecard's spacing (`build`'s `final_spacing`), the first two zones' spots for them."""
    blocks: tuple[tuple[int, int], ...]
    """(viewer spots, targets) index pairs into `spots`: each zone's heatmap, then the lanes between the first two."""
    lane_sets: tuple[int, int] = (1, 2)
    """The two spot sets of the lanes (`zone_visible_share`, `lanes`, `longest_lane_mm`)."""
    sight: str = "survey"
    """The sight function: "survey" (`survey.survey`, the search's) or "options" (the options' own, as the
    scorecard's, for comparing with it)."""
    images: dict = field(default_factory=dict)
    """With symmetry (`mirrored`): spot set k -> (the set it is the image of, each spot's image there); "cells":
    each cell's image cell; "lanes": (each second-zone lane spot's image among the first's, and the reverse)."""
    _segments: dict = field(default_factory=dict, repr=False)
    _locals: dict = field(default_factory=dict, repr=False)
    _pieces: dict = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, rules: Rules, kinds: tuple[Kind, ...], options: SightOptions,
              final_spacing: float | None = None, sight: str = "survey") -> Evaluator:
        base = World.from_scene(scene_from_data(layout_data(Layout(()), rules, kinds)))
        sides = tuple(side for side, _ in rules.zones)
        cells, _ = cell_centres(base.scene, options.cell_size)
        spots = [Spots(cells, options.probe_silhouette)]
        spots += [Spots(zone_points(base, side, options.viewer_spacing)[0], options.viewer_silhouette)
                  for side in sides]
        blocks = [(1 + k, 0) for k in range(len(sides))]
        lane_sets = (1, 2)
        if len(sides) >= 2 and final_spacing is not None and final_spacing != options.viewer_spacing:
            lane_sets = (len(spots), len(spots) + 1)
            spots += [Spots(zone_points(base, side, final_spacing)[0], options.viewer_silhouette)
                      for side in sides[:2]]
        if len(sides) >= 2:
            blocks.append(lane_sets)
        evaluator = cls(rules, kinds, options, sides, base, tuple(spots), tuple(blocks), lane_sets, sight)
        evaluator.images = mirrored(evaluator)
        return evaluator

    # --- the table ---------------------------------------------------------------------------------------------

    def _local(self, kind: int) -> trimesh.Trimesh:
        if kind not in self._locals:
            self._locals[kind] = load_mesh_file(self.kinds[kind].mesh)
        return self._locals[kind]

    def _piece(self, piece: Piece) -> WorldPiece:
        """A placed mesh piece, built as the scene loader builds it (`terrain.placement`), so a World of these is
        the World of the layout's scene file."""
        found = self._pieces.get(piece)
        if found is None:
            if len(self._pieces) >= PIECE_CACHE:
                self._pieces.clear()
            x, y = centre_mm(piece, self.rules)
            kind = self.kinds[piece[0]]
            transform = placement(Terrain(id=kind.name, mesh=str(kind.mesh), position=(x, y, 0.0),
                                          rotation=piece[3] * TURN_STEP))
            local = self._local(piece[0])
            found = WorldPiece(self.kinds[piece[0]].name, "solid", True, local.copy().apply_transform(transform),
                               local, transform)
            self._pieces[piece] = found
        return found

    def world(self, layout: Layout) -> World:
        """The layout's terrain as a World (no troopers)."""
        pieces = [self._piece(p) for p in placed(layout, self.rules, self.kinds)]
        return World(self.base.scene, pieces, self.base.troopers, self.base.backend)

    # --- sight ---------------------------------------------------------------------------------------------------

    def _placements(self, k: int, z: np.ndarray, fits: np.ndarray) -> Placements:
        s = self.spots[k]
        diameter, height = SILHOUETTES[s.silhouette]
        return Placements(s.centres, z, fits, diameter, height)

    def volumes(self, state: Sight):
        """Every spot of every set as one base volume each (they block nothing), cells first, then each set in
        `spots` order."""
        sizes = [SILHOUETTES[s.silhouette] for s in self.spots]
        counts = [len(s.centres) for s in self.spots]
        return base_volumes(np.vstack([s.centres for s in self.spots]), np.concatenate(state.z),
                            np.concatenate([np.full(n, d / 2) for n, (d, _) in zip(counts, sizes)]),
                            np.concatenate([np.full(n, h) for n, (_, h) in zip(counts, sizes)]))

    def pair_sight(self, world: World, state: Sight, wanted: list[tuple[np.ndarray, np.ndarray]],
                   likely_seen: list[np.ndarray] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
        """Sight for the pairs (rows[k], cols[k]) of each block (`wanted[block]`), by `run_sight_job`'s rule: the
        sight function (`sight`) on the world with every spot as a base volume; with each pair's proving piece
        (index into the world's pieces, -1: none). Pairs `likely_seen` (a mask per block) are cast before they are
        proved."""
        offsets = np.cumsum([0] + [len(s.centres) for s in self.spots])
        pairs = np.concatenate([np.stack([offsets[a] + rows, offsets[b] + cols], axis=1)
                                for (a, b), (rows, cols) in zip(self.blocks, wanted)]).reshape(-1, 2)
        sizes = np.cumsum([0] + [len(rows) for rows, _ in wanted])
        seen, proof = np.zeros(len(pairs), dtype=bool), np.full(len(pairs), -1, dtype=np.int64)
        if len(pairs):
            with_spots = world.with_troopers(self.volumes(state))
            if self.sight != "survey":
                seen = self.options.seen(with_spots, pairs)
            else:
                first = np.zeros(len(pairs), dtype=bool) if likely_seen is None else np.concatenate(likely_seen)
                for cast_first in (False, True):
                    rows = np.flatnonzero(first == cast_first)
                    if len(rows):
                        seen[rows], proof[rows] = survey(with_spots, pairs[rows], cast_first)
        return [(seen[sizes[k] : sizes[k + 1]], proof[sizes[k] : sizes[k + 1]]) for k in range(len(wanted))]

    def full(self, layout: Layout, world: World | None = None) -> Sight:
        """Every spot placed and every pair computed."""
        world = world or self.world(layout)
        z, fits = [], []
        for k, s in enumerate(self.spots):
            if k in self.images:
                source, image = self.images[k]
                z.append(z[source][image])
                fits.append(fits[source][image])
            else:
                found = place(world, s.centres, s.silhouette)
                z.append(found.z)
                fits.append(found.fits)
        state = Sight(tuple(z), tuple(fits), (), pieces=placed(layout, self.rules, self.kinds))
        wanted = [self._canonical(block, self._standing(block, z, fits)) for block in range(len(self.blocks))]
        shapes = [(len(z[a]), len(z[b])) for a, b in self.blocks]
        self._matrices(world, state, wanted, [np.zeros(shape, dtype=bool) for shape in shapes],
                       [np.full(shape, -1, dtype=np.int64) for shape in shapes])
        return state

    def _derived(self, block: int) -> bool:
        """Whether a block is the image of another (the second zone's heatmap, with symmetry)."""
        return self.blocks[block][0] in self.images

    def _kept(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Which lane pairs are computed with symmetry: of a pair and its image, the first (by row, then column)."""
        to_a, to_b = self.images["lanes"]
        return (rows < to_a[cols]) | ((rows == to_a[cols]) & (cols <= to_b[rows]))

    def _standing(self, block: int, z, fits, among: np.ndarray | None = None) -> np.ndarray:
        """The block's pairs (of `among`, when given) whose bases both fit and, with `max_range`, stand within it
        base to base (the others see nothing: `exposure.run_sight_job`)."""
        a, b = self.blocks[block]
        pairs = fits[a][:, None] & fits[b][None, :]
        if among is not None:
            pairs &= among
        return within_range(*(self._placements(k, z[k], fits[k]) for k in (a, b)), pairs, self.options.max_range)

    def _canonical(self, block: int, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The pairs of `mask` (a block's shape) that are computed: with symmetry, none of the second zone's
        heatmap (the image of the first's), and in the lanes one pair of each pair and its image."""
        if self._derived(block):
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        rows, cols = np.nonzero(mask)
        if self.blocks[block] == self.lane_sets and "lanes" in self.images:
            keep = self._kept(rows, cols)
            return rows[keep], cols[keep]
        return rows, cols

    def _matrices(self, world: World, state: Sight, wanted, matrices: list[np.ndarray], proofs: list[np.ndarray],
                  likely_seen: list[np.ndarray] | None = None) -> None:
        """Fill the wanted pairs of each block (their sight and proofs), then the blocks (or halves) that are images
        of others; into `state`."""
        found = self.pair_sight(world, state, wanted, likely_seen)
        for matrix, proof, (rows, cols), (seen, by) in zip(matrices, proofs, wanted, found):
            matrix[rows, cols] = seen
            proof[rows, cols] = by
        for block, (a, b) in enumerate(self.blocks):
            if self._derived(block):  # the second zone's heatmap: the first's, turned
                source, rows = self.images[a]
                matrices[block] = matrices[self.blocks.index((source, b))][rows][:, self.images["cells"]]
            elif (a, b) == self.lane_sets and "lanes" in self.images:
                to_a, to_b = self.images["lanes"]
                m = matrices[block]
                rows, cols = np.indices(m.shape)
                matrices[block] = np.where(self._kept(rows, cols), m, m[to_a][:, to_b].T)
        state.recomputed = sum(len(rows) for rows, _ in wanted)
        state.seen, state.proof = tuple(matrices), tuple(proofs)

    def _ends(self, block: int) -> tuple[np.ndarray, np.ndarray]:
        """The block's centre-to-centre segments, row by row: starts and ends (n, 2) each."""
        if block not in self._segments:
            a, b = (self.spots[k].centres for k in self.blocks[block])
            self._segments[block] = (np.repeat(a, len(b), axis=0), np.tile(b, (len(a), 1)))
        return self._segments[block]

    def update(self, state: Sight, after: Layout, change: Change, world: World | None = None) -> Sight:
        """The state of layout `after`, from `state` (that of the layout before `change`), recomputing only what the
        change can touch (module docstring)."""
        world = world or self.world(after)
        gone, added = (footprints(pieces, self.rules, self.kinds) for pieces in (change.gone, change.added))
        if len(gone) + len(added) == 0:
            return Sight(state.z, state.fits, state.seen, 0, state.proof, state.pieces)
        region = overlay(shapely.union_all, [*gone, *added])
        z, fits, moved = list(state.z), list(state.fits), []
        for k, s in enumerate(self.spots):
            if k in self.images:
                source, image = self.images[k]
                z[k], fits[k] = z[source][image], fits[source][image]
                moved.append(np.flatnonzero((z[k] != state.z[k]) | (fits[k] != state.fits[k])))
                continue
            near = np.flatnonzero(shapely.dwithin(region, shapely.points(s.centres), s.radius + MARGIN))
            again = place(world, s.centres[near], s.silhouette)
            changed_here = near[(again.z != state.z[k][near]) | (again.fits != state.fits[k][near])]
            if len(changed_here):
                z[k], fits[k] = state.z[k].copy(), state.fits[k].copy()
                z[k][near], fits[k][near] = again.z, again.fits
            moved.append(changed_here)
        pieces = placed(after, self.rules, self.kinds)
        new = Sight(tuple(z), tuple(fits), (), 0, pieces=pieces)
        now = {piece: k for k, piece in enumerate(pieces)}
        remap = np.array([now.get(piece, -1) for piece in state.pieces] + [-1], dtype=np.int64)
        wanted, matrices, proofs, likely = [], [], [], []
        for block, (a, b) in enumerate(self.blocks):
            reach = max(self.spots[a].radius, self.spots[b].radius) + MARGIN
            shape = (len(z[a]), len(z[b]))
            before = state.seen[block]
            proof = remap[state.proof[block]]  # -1 stays -1 (the last entry); a gone piece's proofs are lost
            mask = corridors_meet(*self._ends(block), gone, reach).reshape(shape) & ~before & (proof < 0)
            mask |= corridors_meet(*self._ends(block), added, reach).reshape(shape) & before
            mask[moved[a], :] = True
            mask[:, moved[b]] = True
            matrix = before.copy()
            matrix[mask] = False
            proof[mask] = -1
            rows, cols = self._canonical(block, self._standing(block, z, fits, mask))
            wanted.append((rows, cols))
            likely.append(before[rows, cols])
            matrices.append(matrix)
            proofs.append(proof)
        self._matrices(world, new, wanted, matrices, proofs, likely)
        return new

    # --- the scorecard -------------------------------------------------------------------------------------------

    def card(self, layout: Layout, state: Sight) -> dict:
        """The scorecard's measures (`Scorecard.to_dict`'s keys) of the coarse grid, unrounded (the lanes are
        counted on the final grid's spots). `_watchers` adds, for the measures that count spots, the
        share of the viewers that see each spot (`targets.search_energy` guides the search with them)."""
        cells = state.fits[0]
        n_cells = int(cells.sum())
        exposed, by_zone, watchers = {}, {}, np.zeros(len(cells))
        for k, side in enumerate(self.sides):
            counts = state.seen[k].sum(axis=0)
            watchers += counts
            exposed[side] = _share(int((cells & (counts > 0)).sum()), n_cells)
            by_zone[side] = counts[cells] / max(1, int(state.fits[1 + k].sum()))
        doc = {"exposed_share": exposed, "safe_share": _share(int((cells & (watchers == 0)).sum()), n_cells),
               "lanes": 0.0, "longest_lane_mm": 0.0, "zone_visible_share": {}}
        viewers = sum(max(1, int(state.fits[1 + k].sum())) for k in range(len(self.sides)))
        doc["_watchers"] = {"exposed_share": by_zone, "safe_share": watchers[cells] / viewers}
        if len(self.sides) >= 2:
            lanes = state.seen[len(self.sides)]
            a, b = (self._placements(k, state.z[k], state.fits[k]) for k in self.lane_sets)
            rows, cols = np.nonzero(lanes)
            doc["lanes"] = float(len(rows))
            if len(rows):
                doc["longest_lane_mm"] = float(base_distances(a, b)[rows, cols].max())
            doc["zone_visible_share"] = {self.sides[0]: _share(int(lanes.any(axis=1).sum()), int(a.fits.sum())),
                                         self.sides[1]: _share(int(lanes.any(axis=0).sum()), int(b.fits.sum()))}
            doc["_watchers"]["zone_visible_share"] = {
                self.sides[0]: lanes.sum(axis=1)[a.fits] / max(1, int(b.fits.sum())),
                self.sides[1]: lanes.sum(axis=0)[b.fits] / max(1, int(a.fits.sum()))}
        values = list(exposed.values())
        doc["exposure_balance"] = 1 - (max(values) - min(values)) if values else 1.0
        doc.update(footprint_measures(footprints(placed(layout, self.rules, self.kinds), self.rules, self.kinds),
                                      self.rules.table))
        return doc


def mirrored(evaluator: Evaluator) -> dict:
    """With symmetry, which spot sets are images of which (`Evaluator.images`): the second zone's viewers of the
    first's (and its lane spots of the first's), each spot's image found on the grid (the grids are laid evenly,
    so they are symmetric); and "cells", the cells onto themselves. Empty when a spot has no image within EPS
    (zones that are not each other's image), so nothing is derived. A symmetric layout's sight is symmetric, so the
    second zone's heatmap is the first's turned (or reflected), and the lanes the transpose of their own image:
    the search computes half of them. (A symmetric table's sight is symmetric but for the rare segment that grazes
    an edge, which Embree's float32 may settle differently on the two sides: the search's coarse numbers may differ
    from a full evaluation's there; the exact scorecards at the end compute every pair.)"""
    rules = evaluator.rules
    if rules.symmetry == "none" or len(evaluator.sides) != 2:
        return {}
    w, d = evaluator.base.scene.table.width, evaluator.base.scene.table.depth

    def image(points: np.ndarray) -> np.ndarray:
        return np.column_stack([w - points[:, 0] if rules.symmetry == "180" else points[:, 0], d - points[:, 1]])

    def match(points: np.ndarray, onto: np.ndarray) -> np.ndarray | None:
        """For each point, the index of the spot of `onto` at its image."""
        if len(points) != len(onto):
            return None
        distance, found = cKDTree(onto).query(image(points))  # the nearest spot (not every pair: memory)
        ok = bool((distance <= EPS).all()) and len(np.unique(found)) == len(found)
        return found if ok else None

    images = {}
    for k, source in [(2, 1)] + ([evaluator.lane_sets[::-1]] if evaluator.lane_sets != (1, 2) else []):
        found = match(evaluator.spots[k].centres, evaluator.spots[source].centres)
        if found is None:
            return {}
        images[k] = (source, found)
    a, b = evaluator.lane_sets
    images["cells"] = match(evaluator.spots[0].centres, evaluator.spots[0].centres)
    images["lanes"] = (images[b][1], match(evaluator.spots[a].centres, evaluator.spots[b].centres))
    if images["cells"] is None or images["lanes"][1] is None:
        return {}
    return images


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0
