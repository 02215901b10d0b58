"""Sight between troopers: the 3 x 3 mm rule with mutual awareness, searched coarse to fine.

RULES.md (LoF 2): sight from A to B exists when "there is a point E anywhere in A's volume and a 3 mm x 3 mm square
Q on B's silhouette template such that every segment from E to Q is unobstructed". RULES.md (LoF 4): "sight(A, B)
holds when the 3 x 3 mm test succeeds in either direction ... Compute sight once per unordered pair."

The search (`lattice` says what is sampled and what that guarantees), for all pairs at once:
1. a proof of "hidden" for free: one convex blocker crossed by every segment between prisms around both volumes;
2. key eyes, then dense eyes, each way: segments to every 9th lattice point of the template drop the eyes that
   see none of them; segments to every 3rd point leave as candidates only the blocks of lattice cells whose
   sampled points are all clear; candidate blocks are then checked point by point (the fine pass), centre-most
   first, until one is clear (the witness) or none is left. Sampled points are lattice points, so a block the
   fine pass would find clear is never skipped: the answer equals the brute-force search of every eye and every
   block, which `sight_brute_force` runs for tests and benchmarks. Zero Visibility zones also block segments that
   start inside them (see `blockers.blocked`).
Proofs spare most of those segments, all from convex parts of the terrain a pair has `learned` (those that blocked
its earlier segments): a tile of 3 x 3 dense eyes hidden from every template it looks at is never made a row
(`_eye_rows`); compiled code (`screen`) drops an eye whose whole template a part hides, marks the patches of it a
part hides, and tests each stride-9 segment against the parts before any goes to Embree. Every proof is the
convexity lemma of `blockers.covering_parts`, so it never hides a clear segment.
Segments of all pairs go to Embree in large batches; blocks of different template sizes are handled per size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from lofkit.sight.obstruction import (
    Segments,
    blocked,
    blocked_first_parts,
    blocker_counts,
    blocking_troopers,
    hiding_blocker,
    hiding_parts,
    inside_zero_visibility,
)
from lofkit.sight.kernels import (
    Eyes,
    Planes,
    Sample,
    Screened,
    Shooters,
    Spans,
    Templates,
    Tiles,
    clear_blocks,
    hidden_tiles,
    screen_eyes,
)
from lofkit.sight.lattice import (
    END_TRIM,
    Lattice,
    dense_eyes,
    dense_tiles,
    key_eyes,
    lead_eye,
    other_key_eyes,
    square_corners,
    template_axis,
    template_points,
    to_world,
)

Progress = Callable[..., None]
"""`progress(cast, tested=0)`: segments a search cast (Embree), and segments it settled by compiled tests instead."""
BATCH_POINTS = 8_000_000
"""Lattice points held at once (rows x lattice size) in a pass."""
COARSE_STRIDES = (9, 3)
"""Lattice strides of the passes before the fine checks."""
EYE_PASSES = (lead_eye, other_key_eyes, dense_eyes)
"""Eyes tried in turn, each way: one eye settles most clear views; the rest are for the hard cases."""
PATCHES = (2, 4)
"""Patches of a template (across, up) that an eye tries to prove it cannot see before it casts segments there."""
LEARNED_PARTS = 4
"""Convex parts each pair and direction remembers from its stride-9 segments, as candidates for its next eyes."""
ROWS_PER_PAIR = 8
"""Eyes of one pair whose candidate blocks are checked in one round of the fine pass."""


def _xyz(point) -> list[float]:
    return [round(float(c), 4) for c in point]


@dataclass(frozen=True)
class Witness:
    """Evidence of sight: the eye E (in `eye_of`'s volume) and the seen 3 x 3 mm square on `patch_of`'s template."""

    eye_of: str
    patch_of: str
    eye: tuple[float, float, float]
    centre: tuple[float, float, float]
    corners: tuple[tuple[float, float, float], ...]

    def to_dict(self) -> dict:
        return {
            "eye_of": self.eye_of,
            "eye": _xyz(self.eye),
            "patch_of": self.patch_of,
            "patch_centre": _xyz(self.centre),
            "patch": [_xyz(c) for c in self.corners],
        }


@dataclass(frozen=True)
class Sight:
    """Sight between troopers `a` and `b` (indices), the same both ways."""

    a: int
    b: int
    seen: bool
    witness: Witness | None = None
    proof: str | None = None
    """Id of one convex blocker that every segment between the two volumes crosses (a proof of "hidden")."""
    blockers: tuple[tuple[str, int], ...] = ()
    """For a NO: the blockers that stopped the most sampled segments, with their counts."""


@dataclass(frozen=True)
class _Rows:
    """Eye rows of one direction: for row r, eye `eye[r]` in trooper `shooter[r]` looks at `target[r]`'s template."""

    pair: np.ndarray
    shooter: np.ndarray
    target: np.ndarray
    eye: np.ndarray
    in_smoke: np.ndarray
    """Whether the eye is inside a Zero Visibility zone (then every segment from it is blocked)."""

    def take(self, keep: np.ndarray) -> _Rows:
        return _Rows(self.pair[keep], self.shooter[keep], self.target[keep], self.eye[keep], self.in_smoke[keep])


def _patches(lattice: Lattice) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """The template's `PATCHES`: lattice indices of their edges across and up, and their (across, up) numbers."""
    cw, ch = lattice.cells
    across = np.linspace(0, cw, PATCHES[0] + 1).round().astype(int)
    up = np.linspace(0, ch, PATCHES[1] + 1).round().astype(int)
    return across, up, [(i, j) for i in range(PATCHES[0]) for j in range(PATCHES[1])]


def _keep(keep: np.ndarray, *arrays):
    """The rows `keep` of each of `arrays` (`_Rows` or numpy arrays)."""
    return tuple(a.take(keep) if isinstance(a, _Rows) else a[keep] for a in arrays)


def _in_patches(lattice: Lattice, proved: np.ndarray, cols: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """Whether each lattice point cols x lines lies in a patch its row proved it cannot see: (n, c, r)."""
    inside = np.zeros((len(proved), len(cols), len(lines)), dtype=bool)
    for k, holds in enumerate(_patch_masks(lattice, tuple(cols.tolist()), tuple(lines.tolist()))):
        rows = np.flatnonzero(proved[:, k])
        if len(rows):
            inside[rows] |= holds
    return inside


@lru_cache(maxsize=64)
def _patch_masks(lattice: Lattice, cols: tuple[int, ...], lines: tuple[int, ...]) -> np.ndarray:
    """Which lattice points cols x lines each patch holds: (patches, c, r)."""
    across, up, patches = _patches(lattice)
    cols, lines = np.array(cols), np.array(lines)
    return np.stack([np.outer((across[i] <= cols) & (cols <= across[i + 1]), (up[j] <= lines) & (lines <= up[j + 1]))
                     for i, j in patches])


def _towards(volumes, shooters, targets) -> np.ndarray:
    """Unit vectors, seen from above, from each shooter's base centre to its target's (+x for a target straight
    above or below); one (2,) or (n, 2)."""
    towards = volumes.centre[targets] - volumes.centre[shooters]
    norm = np.linalg.norm(towards, axis=-1, keepdims=True)
    return np.where(norm > 1e-9, towards / np.maximum(norm, 1e-12), [1.0, 0.0])


def _eye_rows(world, pairs: np.ndarray, pair_ids: np.ndarray, forward: bool, pattern: Callable,
              candidates: np.ndarray | None = None) -> _Rows:
    """Eyes from `pattern(radius, height)` in the shooter of each pair, ranked so that row order is eye order.
    With `candidates` (convex parts per pair, (n, k)), dense eyes come in tiles (`lattice.dense_tiles`), and the
    tiles one of their pair's candidates hides from the target (`crossing.hidden_tiles`) are left out."""
    v = world.troopers
    shooters = pairs[pair_ids, 0] if forward else pairs[pair_ids, 1]
    targets = pairs[pair_ids, 1] if forward else pairs[pair_ids, 0]
    towards = _towards(v, shooters, targets)
    owners, ranks, eyes = [], [], []
    sizes = np.stack([v.radius[shooters], v.height[shooters]], axis=1)
    for radius, height in np.unique(sizes, axis=0).tolist():
        same = np.flatnonzero((sizes[:, 0] == radius) & (sizes[:, 1] == height))
        local = pattern(radius, height)
        keep = np.ones((len(same), len(local)), dtype=bool)
        if candidates is not None and pattern is dense_eyes and len(world.convex_parts.piece):
            tile, grouped, counts = dense_tiles(radius, height)
            keep = ~_hidden_tiles(world, grouped, counts, same, shooters, targets, towards, candidates)[:, tile]
        placed = to_world(local, v.centre[shooters[same]], v.z[shooters[same]], towards[same])  # (n, k, 3)
        owners.append(np.broadcast_to(same[:, None], keep.shape)[keep])
        ranks.append(np.broadcast_to(np.arange(len(local)), keep.shape)[keep])
        eyes.append(placed[keep])
    order = np.argsort(np.concatenate(ranks), kind="stable")  # the best eye of every pair first
    owner = np.concatenate(owners)[order]
    eyes = np.concatenate(eyes)[order]
    return _Rows(pair_ids[owner], shooters[owner], targets[owner], eyes, inside_zero_visibility(world, eyes))


def _hidden_tiles(world, grouped: np.ndarray, counts: np.ndarray, same: np.ndarray, shooters: np.ndarray,
                  targets: np.ndarray, towards: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """For shooters `same` (indices into `shooters`, `targets`, `towards`, `candidates`) of one size, which tiles
    of their eye pattern (`grouped`, `counts`: see `lattice.dense_tiles`) a candidate hides: (len(same), tiles)."""
    v = world.troopers
    parts = world.convex_parts
    shooter, target = shooters[same], targets[same]
    hidden = np.zeros((len(same), len(counts)), dtype=bool)
    shooters = Shooters(v.centre[shooter], v.z[shooter], np.ascontiguousarray(towards[same]),
                        np.ascontiguousarray(candidates[same]))
    targets = Spans(v.centre[target], v.z[target] + END_TRIM, v.top[target], v.radius[target])
    hidden_tiles(Tiles(grouped, counts), shooters, targets, Planes(parts.normals, parts.offsets, parts.faces),
                 END_TRIM, hidden)
    return hidden


def _clear_blocks(known_blocked: np.ndarray, block: tuple[int, int]) -> np.ndarray:
    """For each row, which blocks (by lower-left lattice point) hold no point known to be blocked."""
    n, cols, lines = known_blocked.shape
    clear = np.empty((n, cols - block[0], lines - block[1]), dtype=bool)
    clear_blocks(known_blocked, block[0], block[1], clear)
    return clear


def _central(candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the candidate block nearest the middle of the template (the witness players expect to see)."""
    cols, lines = candidates.shape[1:]
    offset = np.add.outer((np.arange(cols) - (cols - 1) / 2) ** 2, (np.arange(lines) - (lines - 1) / 2) ** 2)
    best = np.where(candidates, offset, np.inf).reshape(len(candidates), cols * lines).argmin(axis=1)
    return np.unravel_index(best, (cols, lines))


def screen(world, lattice: Lattice, rows: _Rows, axis: np.ndarray, cols: np.ndarray, lines: np.ndarray,
           candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, Segments]:
    """What each row's eye provably cannot see, without a segment cast (`crossing.screen_eyes`), using its
    `candidates` (n, k) (convex parts, -1 for none): its whole template (n,), each of the template's patches
    (n, patches; see `_patches`), and which of its segments to lattice points cols x lines are blocked (n, c, r);
    and the other segments of eyes not hidden, in row-major order, to cast."""
    across, up, patches = _patches(lattice)
    n, points = len(rows.pair), len(cols) * len(lines)
    hidden, proved = np.zeros(n, dtype=bool), np.zeros((n, len(patches)), dtype=bool)
    blocked_points = np.zeros((n, len(cols), len(lines)), dtype=bool)
    origins, directions, lengths = np.empty((n * points, 3)), np.empty((n * points, 3)), np.empty(n * points)
    parts = world.convex_parts
    eyes = Eyes(np.ascontiguousarray(rows.eye[:, None, :]), np.ascontiguousarray(candidates))
    cast = screen_eyes(eyes, _templates(world, lattice, rows, axis), Sample(across, up, cols, lines),
                       Planes(parts.normals, parts.offsets, parts.faces), END_TRIM,
                       Screened(hidden, proved, blocked_points, origins, directions, lengths))
    return hidden, proved, blocked_points, Segments(origins[:cast], directions[:cast], lengths[:cast])


def _templates(world, lattice: Lattice, rows: _Rows, axis: np.ndarray) -> Templates:
    """The templates rows' eyes look at, as the compiled screen takes them."""
    v = world.troopers
    return Templates(np.ascontiguousarray(v.centre[rows.target]), np.ascontiguousarray(v.z[rows.target]),
                     np.ascontiguousarray(axis), lattice.width / 2, np.array(lattice.pitch), np.array(lattice.cells))


class _Search:
    """The state of one sight search over many pairs."""

    def __init__(self, world, pairs: np.ndarray, progress: Progress | None = None):
        self.world = world
        self.pairs = pairs
        self.progress = progress or (lambda cast, tested=0: None)
        v = world.troopers
        can_block = bool((~v.marker & ~v.moving).any())
        near = [blocking_troopers(world, a, b) for a, b in pairs.tolist()] if can_block else []
        width = max((len(n) for n in near), default=0)
        self.cylinders = np.full((len(pairs), width), -1, dtype=np.int64)
        for k, n in enumerate(near):
            self.cylinders[k, : len(n)] = n
        self.found: dict[int, Witness] = {}
        # per pair and direction (see `_side`), convex parts that blocked its stride-9 segments, most recent first
        self.learned = np.full((2 * len(pairs), LEARNED_PARTS), -1, dtype=np.int64)
        self.done = np.zeros(len(pairs), dtype=bool)
        self.sizes = {(2 * float(v.radius[i]), float(v.height[i])) for i in range(len(v))}

    def blocked(self, rows: _Rows, owner: np.ndarray, segments: Segments, learn: bool = False) -> np.ndarray:
        """Whether each segment, from the eye of row `owner[s]`, is obstructed (terrain, smoke, other troopers).
        With `learn`, the convex parts that block them are remembered as candidates for the pair's next eyes."""
        in_smoke = rows.in_smoke[owner] if rows.in_smoke.any() else np.zeros(len(owner), dtype=bool)
        cylinders = self.cylinders[rows.pair[owner]]
        if not learn or len(self.world.convex_parts.piece) == 0:
            hit = blocked(self.world, segments, cylinders, in_smoke)
        else:
            hit, part = blocked_first_parts(self.world, segments, cylinders, in_smoke)
            self._learn(self._side(rows)[owner], part)
        self.progress(len(hit))
        return hit

    def _side(self, rows: _Rows) -> np.ndarray:
        """Each row's pair and direction as one number: 2 x pair, plus 1 when the pair's second trooper looks."""
        return 2 * rows.pair + (rows.shooter != self.pairs[rows.pair, 0])

    def _learn(self, side: np.ndarray, part: np.ndarray) -> None:
        """Put the parts that blocked the most segments of each pair and direction (`side`) first among its
        `learned` candidates, ahead of those it already had."""
        found = part >= 0
        if not found.any():
            return
        count = len(self.world.convex_parts.piece)
        combos, hits = np.unique(side[found] * count + part[found], return_counts=True)
        sides, parts = np.divmod(combos, count)
        order = np.lexsort((-hits, sides))
        sides, parts = sides[order], parts[order]
        starts = np.r_[True, sides[1:] != sides[:-1]]
        rank = np.arange(len(sides)) - np.maximum.accumulate(np.where(starts, np.arange(len(sides)), 0))
        best = rank < LEARNED_PARTS
        changed, row = np.unique(sides[best], return_inverse=True)
        merged = np.full((len(changed), 2 * LEARNED_PARTS), -1, dtype=np.int64)
        merged[row, rank[best]] = parts[best]
        merged[:, LEARNED_PARTS:] = self.learned[changed]
        repeated = merged < 0
        for k in range(1, merged.shape[1]):
            repeated[:, k] |= (merged[:, :k] == merged[:, k : k + 1]).any(axis=1)
        merged[repeated] = -1
        order = np.argsort(repeated, axis=1, kind="stable")
        self.learned[changed] = np.take_along_axis(merged, order, axis=1)[:, :LEARNED_PARTS]

    def open_pairs(self, pair_ids: np.ndarray) -> np.ndarray:
        return pair_ids[~self.done[pair_ids]]

    def look(self, rows: _Rows, exhaustive_fine: bool = False, centre_first: bool = False) -> None:
        """Search every row's template for a clear block; record the first witness of each pair. With
        `centre_first`, each row's centre block is tried before anything else (see `_look_at`)."""
        v = self.world.troopers
        sizes = np.stack([2 * v.radius[rows.target], v.height[rows.target]], axis=1)
        for width, height in sorted(self.sizes):
            same = np.flatnonzero((sizes[:, 0] == width) & (sizes[:, 1] == height))
            lattice = Lattice(width, height)
            if len(same) == 0 or not lattice.fits:
                continue
            cells = lattice.cells
            per_batch = max(1, BATCH_POINTS // ((cells[0] + 1) * (cells[1] + 1)))
            for start in range(0, len(same), per_batch):
                chunk = rows.take(same[start : start + per_batch])
                chunk = chunk.take(~self.done[chunk.pair])
                if len(chunk.pair):
                    self._look_at(lattice, chunk, exhaustive_fine, centre_first)

    def _look_at(self, lattice: Lattice, rows: _Rows, exhaustive_fine: bool, centre_first: bool = False) -> None:
        """Passes at lattice strides 9 and 3, then fine checks of candidate blocks until each pair has a witness.

        The stride-9 pass starts compiled (`_screen`): eyes that provably see none of their template are dropped,
        the patches an eye provably cannot see and the segments its candidate parts block are marked blocked
        without a segment cast; the rest are cast. A block spans at least 9 cells, so it holds a lattice point of
        every 9th column and row, and 3 x 3 points of every 3rd: one blocked point rules the block out. Eyes with no
        clear stride-9 point are dropped before any per-eye lattice arrays are made. With `centre_first`, the
        block at the template's centre is cast first: when it is clear it is the witness the passes would pick
        (the candidate nearest the middle), found for ~100 segments instead of ~1,000. The brute force
        (`exhaustive_fine`) proves nothing and casts every point."""
        v = self.world.troopers
        axis = template_axis(rows.eye, v.centre[rows.target], _towards(v, rows.shooter, rows.target))
        cw, ch = lattice.cells
        if exhaustive_fine:
            every = self._segments_blocked(lattice, rows, axis, np.arange(len(rows.pair)), np.arange(cw + 1),
                                           np.arange(ch + 1))
            self._record(lattice, rows, axis, _clear_blocks(every, lattice.block))
            return
        cols, lines = np.arange(0, cw + 1, COARSE_STRIDES[0]), np.arange(0, ch + 1, COARSE_STRIDES[0])
        hidden, proved, coarse, segments = self._screen(lattice, rows, axis, cols, lines)
        rows, axis, proved, coarse = _keep(np.flatnonzero(~hidden), rows, axis, proved, coarse)
        owner = np.repeat(np.arange(len(rows.pair)), (~coarse).sum(axis=(1, 2)))  # of each segment to cast
        if centre_first:
            block_cols, block_lines, centre = self._centre_block(lattice, rows, axis, proved)
            still = ~self.done[rows.pair]
            rows, axis, proved, coarse, centre = _keep(np.flatnonzero(still), rows, axis, proved, coarse, centre)
            segments, owner = segments.take(still[owner]), (np.cumsum(still) - 1)[owner[still[owner]]]
        coarse[~coarse] = self.blocked(rows, owner, segments, learn=True)
        marks = [(cols, lines, coarse)] + ([(block_cols, block_lines, centre)] if centre_first else [])
        seeing = np.flatnonzero(~coarse.all(axis=(1, 2)))  # eyes with a clear stride-9 point
        rows, axis, proved = _keep(seeing, rows, axis, proved)
        known = _in_patches(lattice, proved, np.arange(cw + 1), np.arange(ch + 1))
        tested = known.copy()
        for at_cols, at_lines, found in marks:
            known[:, at_cols[:, None], at_lines[None, :]] |= found[seeing]
            tested[:, at_cols[:, None], at_lines[None, :]] = True
        candidates = _clear_blocks(known, lattice.block)
        for stride in COARSE_STRIDES[1:]:
            alive = np.flatnonzero(candidates.any(axis=(1, 2)))
            cols, lines = np.arange(0, cw + 1, stride), np.arange(0, ch + 1, stride)
            self._cast(lattice, rows, axis, known, tested, alive, cols, lines)
            candidates[alive] = _clear_blocks(known[alive], lattice.block)
        bw, bh = lattice.block
        while len(pick := self._pick(rows, candidates)):
            c0, r0 = _central(candidates[pick])
            cols, lines = c0[:, None] + np.arange(bw + 1), r0[:, None] + np.arange(bh + 1)
            self._cast(lattice, rows, axis, known, tested, pick, cols, lines)
            inside = known[pick[:, None, None], cols[:, :, None], lines[:, None, :]]
            for k in np.flatnonzero(~inside.any(axis=(1, 2))).tolist():
                self._witness(lattice, rows, axis, pick[k], c0[k], r0[k])
            candidates[pick] = _clear_blocks(known[pick], lattice.block)

    def _centre_block(self, lattice: Lattice, rows: _Rows, axis: np.ndarray, proved: np.ndarray):
        """Cast every row's centre block (the one `_central` picks when all are candidates) but the points of
        its `proved` patches; a clear one is the row's witness. Returns the block's lattice columns, lines and
        which of its points are blocked."""
        cw, ch = lattice.cells
        bw, bh = lattice.block
        c0, r0 = (int(k[0]) for k in _central(np.ones((1, cw + 1 - bw, ch + 1 - bh), dtype=bool)))
        cols, lines = np.arange(c0, c0 + bw + 1), np.arange(r0, r0 + bh + 1)
        known = _in_patches(lattice, proved, cols, lines)
        known |= self._segments_blocked(lattice, rows, axis, np.arange(len(rows.pair)), cols, lines, ~known)
        for row in np.flatnonzero(~known.any(axis=(1, 2))).tolist():
            self._witness(lattice, rows, axis, row, c0, r0)
        return cols, lines, known

    def _screen(self, lattice: Lattice, rows: _Rows, axis: np.ndarray, cols: np.ndarray,
                lines: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, Segments]:
        """`screen` with the convex parts each row's pair and direction has `learned` as candidates; the segments
        it finds blocked by them one by one are reported as tested (`progress(0, tested)`)."""
        hidden, proved, blocked_points, segments = screen(self.world, lattice, rows, axis, cols, lines,
                                                          self.learned[self._side(rows)])
        seeing = ~hidden
        self.progress(0, int(blocked_points[seeing].sum() - _in_patches(lattice, proved[seeing], cols, lines).sum()))
        return hidden, proved, blocked_points, segments

    def _segments_blocked(self, lattice, rows, axis, which, cols, lines, todo=None) -> np.ndarray:
        """Whether the segments from the eyes of rows `which` to their lattice points cols x lines are blocked
        (only where `todo`; elsewhere False). `cols`/`lines`: shared (c,)/(r,) or per row (n, c)/(n, r)."""
        v = self.world.troopers
        points = template_points(lattice, axis[which], v.centre[rows.target[which]], v.z[rows.target[which]],
                                 cols, lines)
        todo = np.ones(points.shape[:3], dtype=bool) if todo is None else todo
        owner = np.broadcast_to(np.arange(len(which))[:, None, None], todo.shape)[todo]
        eyes = rows.eye[which]
        result = np.zeros(todo.shape, dtype=bool)
        result[todo] = self.blocked(rows.take(which), owner, Segments.between(eyes[owner], points[todo]))
        return result

    def _cast(self, lattice, rows, axis, known, tested, which, cols, lines) -> None:
        """Cast the segments of rows `which` to lattice points cols x lines not yet tested; mark them in `known`."""
        n = len(which)
        cols, lines = np.broadcast_to(cols, (n, np.shape(cols)[-1])), np.broadcast_to(lines, (n, np.shape(lines)[-1]))
        where = (which[:, None, None], cols[:, :, None], lines[:, None, :])
        todo = ~tested[where]
        tested[where] = True
        if todo.any():
            known[where] |= self._segments_blocked(lattice, rows, axis, which, cols, lines, todo)

    def _pick(self, rows: _Rows, candidates: np.ndarray) -> np.ndarray:
        """Rows with candidate blocks whose pair is still open, at most ROWS_PER_PAIR per pair (the first ones)."""
        picked = np.flatnonzero(candidates.any(axis=(1, 2)) & ~self.done[rows.pair])
        pair = rows.pair[picked]
        order = np.argsort(pair, kind="stable")
        starts = np.r_[True, pair[order][1:] != pair[order][:-1]]
        rank = np.arange(len(order)) - np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))
        return np.sort(picked[order[rank < ROWS_PER_PAIR]])

    def _record(self, lattice, rows, axis, candidates) -> None:
        seen = np.flatnonzero(candidates.any(axis=(1, 2)))
        c0, r0 = _central(candidates[seen])
        for row, col, line in zip(seen.tolist(), c0.tolist(), r0.tolist()):
            self._witness(lattice, rows, axis, row, col, line)

    def _witness(self, lattice, rows, axis, row: int, col: int, line: int) -> None:
        pair = int(rows.pair[row])
        if self.done[pair]:
            return
        self.done[pair] = True
        v = self.world.troopers
        target = int(rows.target[row])
        centre, corners = square_corners(lattice, axis[row], v.centre[target], float(v.z[target]), col, line)
        self.found[pair] = Witness(
            eye_of=v.ids[int(rows.shooter[row])],
            patch_of=v.ids[target],
            eye=tuple(rows.eye[row]),
            centre=tuple(centre),
            corners=tuple(map(tuple, corners)),
        )


def _unordered(pairs: Sequence[tuple[int, int]]) -> np.ndarray:
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return np.unique(np.sort(pairs, axis=1), axis=0)


def _searched(world, pairs: np.ndarray, progress: Progress | None) -> tuple[_Search, dict[int, str]]:
    """The search over unordered `pairs` run to the end: proofs first, then every eye pass each way."""
    search = _Search(world, pairs, progress)
    proofs = _proofs(world, search, pairs)
    open_ids = np.setdiff1d(np.arange(len(pairs)), np.fromiter(proofs, dtype=np.int64, count=len(proofs)))
    for pattern in EYE_PASSES:
        for forward in (True, False):
            open_ids = search.open_pairs(open_ids)
            if len(open_ids):
                rows = _eye_rows(world, pairs, open_ids, forward, pattern, search.learned[2 * open_ids + (not forward)])
                search.look(rows, centre_first=pattern is lead_eye)
    return search, proofs


def sight(
    world, pairs: Sequence[tuple[int, int]], progress: Progress | None = None, evidence: bool = True
) -> dict:
    """Sight for every unordered pair among `pairs` (trooper indices): {(a, b) with a < b: Sight}; `evidence=False`
    skips counting the blockers of hidden pairs (callers that only need yes or no)."""
    pairs = _unordered(pairs)
    search, proofs = _searched(world, pairs, progress)
    return _results(world, search, pairs, proofs, evidence)


def seen_pairs(world, pairs: Sequence[tuple[int, int]], progress: Progress | None = None) -> np.ndarray:
    """Whether the troopers of each pair (n, 2) see each other, in pair order, without evidence: `sight` for
    analyses over many pairs."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    unique, back = np.unique(np.sort(pairs, axis=1), axis=0, return_inverse=True)
    search, _ = _searched(world, unique, progress)
    return search.done[back.reshape(-1)]


GLIMPSE_EYES = (0, 1, 6, 2, 3)
"""Key eyes a glimpse looks from: the top's front, centre, left and right, and the front at half height."""
GLIMPSE_POINTS = np.array([[0.0, 0.5], [0.0, 0.85], [0.0, 0.15], [-0.3, 0.5], [0.3, 0.5], [0.0, 0.97],
                           [-0.35, 0.9], [0.35, 0.9]])
"""Points a glimpse looks at, on the other's silhouette template: (across, up) as shares of its width and
height from the middle of its bottom edge."""


def glimpse(world, pairs: Sequence[tuple[int, int]], progress: Progress | None = None) -> np.ndarray:
    """A quick estimate of sight for many pairs (the designer's `--quick`): segments from 5 key eyes of each
    volume to 8 points of the other's template, both ways; seen when one segment is clear. It takes one clear
    segment for a 3 x 3 mm patch and looks at 8 points instead of every patch, so it can differ from
    `seen_pairs` where a view is partly blocked; `benchmarks/bench_heatmap.py` measures how often. Only terrain
    blocks a glimpse (the analyses that use it have no troopers in the way)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    v = world.troopers
    seen = np.zeros(len(pairs), dtype=bool)
    sizes, size_of = np.unique(np.stack([v.radius, v.height], axis=1), axis=0, return_inverse=True)
    for forward in (True, False):
        for eye in GLIMPSE_EYES:
            rows = np.flatnonzero(~seen)
            if len(rows) == 0:
                return seen
            shooter, target = (pairs[rows, 0], pairs[rows, 1]) if forward else (pairs[rows, 1], pairs[rows, 0])
            towards = _towards(v, shooter, target)
            eyes = np.empty((len(rows), 3))
            for size in np.unique(size_of[shooter]).tolist():  # one eye pattern per volume size
                same = np.flatnonzero(size_of[shooter] == size)
                local = key_eyes(*sizes[size].tolist())[eye : eye + 1]
                eyes[same] = to_world(local, v.centre[shooter[same]], v.z[shooter[same]], towards[same])[:, 0]
            axis = template_axis(eyes, v.centre[target], towards)
            across = GLIMPSE_POINTS[None, :, 0] * 2 * v.radius[target][:, None]
            up = v.z[target][:, None] + np.maximum(GLIMPSE_POINTS[None, :, 1] * v.height[target][:, None], END_TRIM)
            points = np.concatenate([v.centre[target][:, None] + across[..., None] * axis[:, None],
                                     up[..., None]], axis=-1)
            starts = np.repeat(eyes, len(GLIMPSE_POINTS), axis=0)
            in_smoke = np.repeat(inside_zero_visibility(world, eyes), len(GLIMPSE_POINTS))
            hit = blocked(world, Segments.between(starts, points.reshape(-1, 3)), np.zeros((len(starts), 0), int),
                          in_smoke)
            if progress:
                progress(len(starts))
            seen[rows] |= ~hit.reshape(len(rows), -1).all(axis=1)
    return seen


def _proofs(world, search: _Search, pairs: np.ndarray) -> dict[int, str]:
    """Pair number -> id of a convex blocker proving the pair hidden. Pairs with troopers in their corridor are
    proved one by one (a trooper may be the proof); the others, all at once against terrain."""
    alone = ~(search.cylinders >= 0).any(axis=1)
    proofs = {}
    parts = world.convex_parts if alone.any() else None
    for k, part in zip(np.flatnonzero(alone).tolist(), hiding_parts(world, pairs[alone]).tolist()):
        if part >= 0:
            proofs[k] = world.pieces[parts.piece[part]].id
    for k in np.flatnonzero(~alone).tolist():
        a, b = pairs[k]
        proof = hiding_blocker(world, a, b, search.cylinders[k][search.cylinders[k] >= 0])
        if proof is not None:
            proofs[k] = proof
    return proofs


def sight_brute_force(world, pairs: Sequence[tuple[int, int]]) -> dict:
    """The reference search: every eye (key and dense) both ways against every lattice block, no shortcuts but
    stopping a pair at its first witness."""
    pairs = _unordered(pairs)
    search = _Search(world, pairs)
    every = np.arange(len(pairs))
    for pattern in (key_eyes, dense_eyes):
        for forward in (True, False):
            open_ids = search.open_pairs(every)
            if len(open_ids):
                search.look(_eye_rows(world, pairs, open_ids, forward, pattern), exhaustive_fine=True)
    return _results(world, search, pairs, {})


def _results(world, search: _Search, pairs: np.ndarray, proofs: dict, evidence: bool = True) -> dict:
    results = {}
    for k, (a, b) in enumerate(pairs.tolist()):
        if k in search.found:
            results[a, b] = Sight(a, b, True, witness=search.found[k])
        elif proofs.get(k):
            results[a, b] = Sight(a, b, False, proof=proofs[k], blockers=((proofs[k], 0),))
        else:
            results[a, b] = Sight(a, b, False, blockers=_evidence(world, a, b) if evidence else ())
    return results


def evidence_segments(world, shooter: int, target: int) -> tuple[Segments, np.ndarray]:
    """Segments from the shooter's key eyes to the target's coarse lattice (stride 3), with the troopers that may
    block each (n, k): the sample that evidence and pictures are drawn from."""
    v = world.troopers
    towards = _towards(v, shooter, target)
    eyes = to_world(key_eyes(float(v.radius[shooter]), float(v.height[shooter])), v.centre[shooter],
                    v.z[shooter], towards)
    lattice = Lattice(2 * float(v.radius[target]), float(v.height[target]))
    centres = np.broadcast_to(v.centre[target], (len(eyes), 2))
    axis = template_axis(eyes, centres, towards[None])
    cw, ch = lattice.cells
    stride = COARSE_STRIDES[-1]
    points = template_points(lattice, axis, centres, np.full(len(eyes), v.z[target]), np.arange(0, cw + 1, stride),
                             np.arange(0, ch + 1, stride))
    starts = np.repeat(eyes, points.shape[1] * points.shape[2], axis=0)
    segments = Segments.between(starts, points.reshape(-1, 3))
    near = blocking_troopers(world, shooter, target)
    return segments, np.broadcast_to(near, (len(segments.lengths), len(near)))


def _evidence(world, a: int, b: int) -> tuple[tuple[str, int], ...]:
    """The blockers that stop the most segments from the key eyes to the coarse lattice, both ways."""
    counts: dict[str, int] = {}
    for shooter, target in ((a, b), (b, a)):
        segments, cylinders = evidence_segments(world, shooter, target)
        for name, count in blocker_counts(world, segments, cylinders):
            counts[name] = counts.get(name, 0) + count
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:3])
