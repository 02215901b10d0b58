"""The LoF matrix of a table that changes a trooper or a terrain piece at a time (the workbench keeps one): only what
can change is recomputed.

A verdict between A and B depends on A, B, the terrain and, through sight alone, the troopers in their corridor
(`corridor.in_corridor`: those meeting the convex hull of the two volumes, which holds every segment between
them). Sight reads only volume cylinders and whether they block (LoF 2-3: "every segment from E to Q is
unobstructed"), and the arc only the shooter's facing (LoF 1). So when troopers change (the one moved, and any whose
`facing_towards` follows it), sight is searched again only for the pairs that include a moved trooper
(`moved_troopers`) and the pairs whose corridor holds one before or after, except where the rules of
`sight_may_change` keep it; the verdicts of those pairs and of the pairs that include a changed trooper are rebuilt
from their sight, of a trooper that only turned only its own shots (`affected_verdicts`). Every other verdict stands
as it was.

Terrain changes the same way (`changed_pieces`: pieces taken away, and pieces put down, as a moved piece is both).
A piece that does not meet a pair's corridor cannot block a segment between the two; and sight is monotone in the
terrain (LoF 2: sight is one unobstructed segment, or none), so taking a piece away can only make hidden pairs see,
and putting one down can only hide pairs that saw. So sight is searched again for the hidden pairs whose corridor
meets a piece taken away (unless a blocker left in place proves them hidden alone) and the pairs that saw whose
corridor meets a piece put down (`sight_may_change_with`; a
trooper standing on a piece rises or falls with it, and the pairs of a trooper that moved are searched anyway), and
every verdict is rebuilt from its sight (base contact and cover read the terrain).

`LiveMatrix.result.to_dict()` is then exactly `lof.matrix`'s on the changed table (tests check it after random moves
and terrain changes). A matrix's answer shows no evidence, so none is gathered for it (no blocker counts; a kept
sight keeps its earlier witness or proof): ask `check` for the evidence of a pair.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from lofkit.geometry.flat import convex_hull
from lofkit.rules.lof import every_ordered_pair, verdicts_given_sight
from lofkit.rules.results import LofVerdict, MatrixResult
from lofkit.sight.corridor import comes_near, corridors_meet, in_corridor
from lofkit.sight.evidence import Sight
from lofkit.sight.lattice import PITCH, SQUARE
from lofkit.sight.search import sight

SIGHT_FIELDS = ("centre", "z", "radius", "height", "blocks_lof")
"""What sight reads of a trooper: its volume cylinder, and whether it obstructs LoF (LoF 2-3)."""
PIECE_SLACK = 1.0
"""mm added to every "may meet a piece" distance (`corridors_meeting`): more pairs searched, never one missed."""
WITNESS_REACH = (SQUARE + PITCH) / np.sqrt(2)
"""mm from the centre of a witness's square within which every lattice point the search saw it by lies: a block of
cells at most SQUARE + PITCH wide and tall, centred on the square (`lattice.Lattice.block`, `square_corners`)."""


def changed_troopers(before, after, fields: Sequence[str] | None = None) -> np.ndarray:
    """Troopers whose volumes differ in any field (or any of `fields`) between `before` and `after` (two `Volumes`
    of the same troopers, in the same order)."""
    differ = np.zeros(len(after), dtype=bool)
    for field in dataclasses.fields(after):
        if field.compare and (fields is None or field.name in fields):
            old, new = (np.asarray(getattr(v, field.name), dtype=object) for v in (before, after))
            differ |= (old != new).reshape(len(after), -1).any(axis=1)
    return np.flatnonzero(differ)


def moved_troopers(before, after) -> np.ndarray:
    """Troopers whose volume cylinder, or whether it blocks LoF, differs (`SIGHT_FIELDS`): the changes sight sees."""
    return changed_troopers(before, after, SIGHT_FIELDS)


def pairs_including(count: int, troopers: np.ndarray) -> np.ndarray:
    """Whether each unordered pair of `count` troopers, in `np.triu_indices` order, includes one of `troopers`."""
    a, b = np.triu_indices(count, k=1)
    return np.isin(a, troopers) | np.isin(b, troopers)


def witness_stands(after, sights: Sequence[Sight], pairs: np.ndarray, trooper: int) -> np.ndarray:
    """For each pair number in `pairs` (each seen, with a witness), whether `trooper`'s volume in `after` keeps
    clear of every segment from the witness's eye to the block of lattice points around its square: each such
    segment lies within `WITNESS_REACH` of the segment from the eye to the square's centre."""
    eyes = np.array([sights[k].witness.eye for k in pairs.tolist()], dtype=float).reshape(-1, 3)
    centres = np.array([sights[k].witness.centre for k in pairs.tolist()], dtype=float).reshape(-1, 3)
    return ~comes_near(after, eyes, centres, np.full(len(pairs), trooper), WITNESS_REACH)


def sight_may_change(before, after, sights: Sequence[Sight] | None = None) -> np.ndarray:
    """Unordered pairs (k, 2) of troopers, in `np.triu_indices` order, whose sight may differ from `before` to
    `after` (two `Volumes` of the same troopers): those that include a moved trooper (`moved_troopers`), and those
    whose corridor holds one before or after. Given `sights` (each pair's `Sight` before, in the same order), a
    pair of troopers that stayed keeps its sight ("every segment from E to Q is unobstructed", LoF 2) when
    - it saw, and no moved trooper now in its corridor comes near its witness: that E and Q still qualify, the
      troopers that stayed obstructing none of its segments before;
    - it did not see, and no moved trooper was in its corridor before: obstructions were only added;
    - it did not see, proved by a blocker that did not move (terrain, or a trooper that stayed) that every segment
      between the two volumes crosses: the proof still holds."""
    a, b = np.triu_indices(len(after), k=1)
    moved = moved_troopers(before, after)
    search = pairs_including(len(after), moved)
    seen = np.array([s.seen for s in sights], dtype=bool) if sights is not None else None
    was_in = np.zeros(len(a), dtype=bool)
    for trooper in moved.tolist():
        them = np.full(len(a), trooper)
        was, now = in_corridor(before, a, b, them), in_corridor(after, a, b, them)
        if seen is None:
            search |= was | now
            continue
        seen_and_now_in = np.flatnonzero(seen & now & ~search)
        search[seen_and_now_in[~witness_stands(after, sights, seen_and_now_in, trooper)]] = True
        was_in |= was
    if seen is not None:
        moved_ids = {after.ids[trooper] for trooper in moved.tolist()}
        proved = np.array([s.proof is not None and s.proof not in moved_ids for s in sights], dtype=bool)
        search |= was_in & ~seen & ~proved
    return np.column_stack([a[search], b[search]])


def changed_pieces(before, after) -> tuple[list, list]:
    """The terrain pieces of World `before` that World `after` has not (taken away) and those of `after` that
    `before` has not (put down): a piece is kept when the other World has one of the same id, kind, blocking,
    placement and mesh."""
    left = list(before.pieces)
    added = []
    for piece in after.pieces:
        same = next((k for k, old in enumerate(left) if _same_piece(old, piece)), None)
        if same is None:
            added.append(piece)
        else:
            del left[same]
    return left, added


def _same_piece(a, b) -> bool:
    return (a.id, a.kind, a.blocks_lof) == (b.id, b.kind, b.blocks_lof) and np.array_equal(a.transform, b.transform) \
        and np.array_equal(a.local.vertices, b.local.vertices) and np.array_equal(a.local.faces, b.local.faces)


def corridors_meeting(volumes, pieces) -> np.ndarray:
    """Whether the corridor of each unordered pair of `volumes`, in `np.triu_indices` order, may meet any of
    `pieces`: seen from above (`corridor.corridors_meet`: the segment between the centres widened by the larger
    radius, against the hull of the piece's vertices), and in height (between the lower underside and the higher
    top, against the piece's bounds)."""
    a, b = np.triu_indices(len(volumes), k=1)
    starts, ends = volumes.centre[a], volumes.centre[b]
    reach = np.maximum(volumes.radius[a], volumes.radius[b]) + PIECE_SLACK
    low = np.minimum(volumes.z[a], volumes.z[b]) - PIECE_SLACK
    high = np.maximum(volumes.top[a], volumes.top[b]) + PIECE_SLACK
    meets = np.zeros(len(a), dtype=bool)
    for piece in pieces:
        footprint = convex_hull(piece.mesh.vertices[:, :2])
        (_, _, bottom), (_, _, top) = piece.bounds
        for size in np.unique(reach):  # one widened hull per base size
            these = np.flatnonzero((reach == size) & (bottom <= high) & (top >= low) & ~meets)
            meets[these] = corridors_meet(starts[these], ends[these], [footprint], float(size))
    return meets


def sight_may_change_with(before, after, sights: Sequence[Sight], taken: Sequence, put: Sequence) -> np.ndarray:
    """`sight_may_change` (troopers' `Volumes` before and after, each pair's sight before) when the terrain pieces
    `taken` were taken away and `put` put down too: with the unordered pairs (in `np.triu_indices` order) that did
    not see, whose corridor meets a piece taken away and that no blocker left in place proves hidden alone, and
    those that saw and whose corridor meets a piece put down (see the module docstring)."""
    search = sight_may_change(before, after, sights)
    if not taken and not put:
        return search
    seen = np.array([s.seen for s in sights], dtype=bool)
    gone = {piece.id for piece in taken}
    proved = np.array([s.proof is not None and s.proof not in gone for s in sights], dtype=bool)
    a, b = np.triu_indices(len(after), k=1)  # the pairs of troopers that moved are in `search` already: the others
    more = (corridors_meeting(after, taken) & ~seen & ~proved) | (corridors_meeting(after, put) & seen)  # one corridor
    return np.unique(np.vstack([search, np.column_stack([a[more], b[more]])]), axis=0).reshape(-1, 2)


def affected_verdicts(before, after, searched: np.ndarray) -> np.ndarray:
    """Ordered (shooter, target) pairs (k, 2), shooter by shooter, whose verdicts may differ from `before` to
    `after`: both ways, the `searched` pairs (unordered, whose sight may differ) and the pairs that include a trooper
    changed in more than its facing; of a trooper that only turned, its own shots (LoF 1: "B's volume is ... inside
    A's front 180 degree arc": A's facing, never B's)."""
    count = len(after)
    changed = changed_troopers(before, after)
    reshaped = changed_troopers(before, after, [f.name for f in dataclasses.fields(after) if f.name != "facing"])
    affected = np.zeros((count, count), dtype=bool)
    affected[searched[:, 0], searched[:, 1]] = True
    affected[reshaped, :] = True
    affected |= affected.T
    affected[np.setdiff1d(changed, reshaped), :] = True
    np.fill_diagonal(affected, False)
    return np.argwhere(affected)


def affected_pairs(before, after, sights: Sequence[Sight] | None = None) -> np.ndarray:
    """Unordered pairs (k, 2), in `np.triu_indices` order, with a verdict that may differ from `before` to `after`
    (`affected_verdicts` of the pairs whose sight may: `sight_may_change`)."""
    verdicts = affected_verdicts(before, after, sight_may_change(before, after, sights))
    return np.unique(np.sort(verdicts, axis=1), axis=0).reshape(-1, 2)


@dataclasses.dataclass(frozen=True)
class Recomputed:
    """What one `LiveMatrix.update` recomputed: ordered verdicts rebuilt, and unordered pairs whose sight was searched
    again."""

    verdicts: int
    searched: int


class LiveMatrix:
    """The LoF matrix of `world`, kept up to date as its troopers and terrain change (`update`), with each pair's
    sight and the scenery in base contact with each target (kept while the target and the terrain stay)."""

    def __init__(self, world):
        self.world = world
        count = len(world.troopers)
        self._sights: dict[tuple[int, int], Sight] = sight(world, every_ordered_pair(count), evidence=False)
        self._touching: dict[int, list[int]] = {}  # scenery in base contact, per target (`lof.verdicts_given_sight`)
        self._verdicts: dict[tuple[int, int], LofVerdict] = {}
        self._rebuild(every_ordered_pair(count))

    def update(self, world) -> Recomputed:
        """`world` is this one with troopers moved, turned or otherwise changed (the same troopers, in the same
        order, with the same base contact tolerance) and terrain pieces taken away, put down or moved: recompute the
        verdicts that may differ."""
        if world.troopers.ids != self.world.troopers.ids:
            raise ValueError("a live matrix follows changes to its troopers, not new or removed ones")
        if world.scene.base_contact_tolerance != self.world.scene.base_contact_tolerance:
            raise ValueError("a live matrix follows changes to its troopers, not to the base contact tolerance")
        before, after = self.world.troopers, world.troopers
        taken, put = changed_pieces(self.world, world)
        a, b = np.triu_indices(len(after), k=1)
        sights = [self._sights[pair] for pair in zip(a.tolist(), b.tolist())]
        searched = sight_may_change_with(before, after, sights, taken, put)
        self._sights.update(sight(world, searched, evidence=False))
        self.world = world
        if taken or put:  # base contact and cover read the terrain: every verdict again, from its sight
            self._touching.clear()
            return Recomputed(self._rebuild(every_ordered_pair(len(after))), len(searched))
        for trooper in moved_troopers(before, after).tolist():
            self._touching.pop(trooper, None)
        return Recomputed(self._rebuild(affected_verdicts(before, after, searched)), len(searched))

    def _rebuild(self, ordered_pairs: np.ndarray) -> int:
        """The verdicts of `ordered_pairs` (k, 2) on this world, from their current sight; returns k."""
        rebuilt = verdicts_given_sight(self.world, ordered_pairs, self._sights, self._touching)
        self._verdicts.update(zip(map(tuple, ordered_pairs.tolist()), rebuilt))
        return len(ordered_pairs)

    @property
    def result(self) -> MatrixResult:
        """The matrix, as `lof.matrix` answers it (see the module docstring for the evidence of kept verdicts)."""
        pairs = every_ordered_pair(len(self.world.troopers)).tolist()
        return MatrixResult(tuple(self._verdicts[pair] for pair in map(tuple, pairs)))
