"""Sight between troopers: the 3 x 3 mm rule with mutual awareness, searched coarse to fine.

docs/rules.md (LoF 2): sight from A to B exists when "there is a point E anywhere in A's volume and a 3 mm x 3 mm square
Q on B's silhouette template such that every segment from E to Q is unobstructed". docs/rules.md (LoF 4): "sight(A, B)
holds when the 3 x 3 mm test succeeds in either direction ... Compute sight once per unordered pair."

The search (`lattice` says what is sampled and what that guarantees), for all pairs at once:
1. a proof of "hidden" for free: one convex blocker crossed by every segment between prisms around both volumes,
   or one for each half of one prism and each half of the other (`hidden.hidden_half_by_half`);
2. key eyes each way, then dense eyes both ways at once, farthest first (`eye_batch`, `lattice.dense_tiles`): segments
   to every 10th lattice point of the template drop the eyes that see none of them; segments to every 5th point of the
   blocks still candidates (`fine_pass.block_points`: no other point can change which blocks are) leave as candidates
   only the blocks of lattice cells whose sampled points are all clear; candidate blocks are then checked point by point
   (the fine pass), centre-most first (or far apart in turn, when no witness is kept) and each from its middle out
   (`fine_pass.block_cross`), until one is clear (the witness) or none is left. Sampled points are lattice points, so a
   block the fine pass would find clear is never skipped: the answer equals the brute-force search of every eye and
   every block, which `lofkit.testing.sight_brute_force` (written from the rule, with nothing of this package) runs for
   tests and benchmarks. Zero Visibility zones also block segments that start inside them (see `segments.blocked`).
   Proofs spare most of those segments, all from convex parts of the terrain a pair has learned (`learning`: those that
   blocked its earlier segments): a tile of 3 x 3 dense eyes hidden from every template it looks at is never made a row
   (`eye_batch.eye_batch`); compiled code (`screen`) drops an eye whose whole template a part hides, marks the patches
   of it a part hides, and tests each stride-10 segment against the parts before any is cast. Every proof is the
   convexity lemma of `hidden.parts_crossing_every_segment`, so it never hides a clear segment. Segments of all pairs go
   to the ray back-end in large batches (`casting`); templates of each size are searched apart.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lofkit.sight.casting import Caster, Progress
from lofkit.sight.evidence import Sight, Witness, sight_results, witness_at
from lofkit.sight.eye_batch import EyeBatch, Views, eye_batch
from lofkit.sight.fine_pass import (
    block_cross,
    block_points,
    central_blocks,
    central_order,
    clear_blocks,
    clear_blocks_again,
    clear_blocks_near,
    pick_blocks,
    search_start,
    spread_order,
)
from lofkit.sight.hidden import (
    blocker_hiding_pair,
    candidates_of,
    hidden_half_by_half,
    line_candidates,
    parts_hiding_pairs,
)
from lofkit.sight.lattice import COARSE_STRIDES, Lattice, dense_eyes, headings, lead_eye, other_key_eyes, template_axis
from lofkit.sight.learning import LearnedParts
from lofkit.sight.screen import in_patches, prove_hidden_before_casting

__all__ = ["PairSearch", "run_search", "sight", "sight_between"]

BATCH_POINTS = 32_000_000
"""Lattice points held at once (rows x lattice size) in a pass: fewer, larger batches spend less time in Python per
row, though pairs learn less between them."""
EYE_PASSES = (lead_eye, other_key_eyes, dense_eyes)
"""Eyes tried in turn: one eye settles most clear views; the rest are for the hard cases. Key eyes go one way, then
the other; dense eyes both ways in one pass, so that a pair that only the second way sees is not first searched to
the end the first way (real terrain's openings make such views common)."""
ROWS_PER_PAIR = 8
"""Eyes of one pair whose candidate blocks are checked in one round of the fine pass; in a batch's last rounds,
blocks of one pair (`fine_pass.pick_blocks`)."""


class Findings:
    """The witness each pair found first (`found`, kept only when `witnesses` are wanted), and which pairs have one
    (`has_witness`)."""

    def __init__(self, world, count: int, witnesses: bool = True):
        self.world = world
        self.witnesses = witnesses
        self.found: dict[int, Witness] = {}
        self.has_witness = np.zeros(count, dtype=bool)

    def open_pairs(self, pair_ids: np.ndarray) -> np.ndarray:
        return pair_ids[~self.has_witness[pair_ids]]

    def record(self, views: Views, rows: np.ndarray, cols: np.ndarray, lines: np.ndarray) -> None:
        """Row rows[k] sees the block whose lower-left lattice point is (cols[k], lines[k]): the witness of its pair,
        if the pair's first."""
        pairs, first = np.unique(views.rows.pair[rows], return_index=True)
        new = ~self.has_witness[pairs]
        self.has_witness[pairs[new]] = True
        if self.witnesses:
            for k in first[new].tolist():
                self.found[int(views.rows.pair[rows[k]])] = witness_at(self.world, views, int(rows[k]),
                                                                       int(cols[k]), int(lines[k]))


class PairSearch:
    """One sight search over unordered `pairs` (n, 2): what each pair learned, its corridor, what it found."""

    def __init__(self, world, pairs: np.ndarray, progress: Progress | None = None, witnesses: bool = True):
        self.world = world
        self.pairs = pairs
        self.line = line_candidates(world, pairs)
        """The convex parts whose boxes each pair's middle line meets (`hidden.line_candidates`)."""
        self.learned = LearnedParts(pairs, self.line, world.convex_parts.sizes)
        self.caster = Caster(world, pairs, self.learned, progress)
        self.findings = Findings(world, len(pairs), witnesses)
        v = world.troopers
        self.sizes = {(2 * float(v.radius[i]), float(v.height[i])) for i in range(len(v))}
        self.decided: dict[int, str] = {}
        """Pair number -> how a proof other than one blocker settled it (`evidence.Sight.decided_by`)."""

    def look(self, rows: EyeBatch, centre_first: bool = False) -> None:
        """Search every row's template for a clear block; record the first witness of each pair. With
        `centre_first`, each row's centre block is tried before anything else (see `_coarse_pass`)."""
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
                chunk = chunk.take(~self.findings.has_witness[chunk.pair])
                if len(chunk.pair):
                    self._look_at(lattice, chunk, centre_first)

    def _look_at(self, lattice: Lattice, rows: EyeBatch, centre_first: bool = False) -> None:
        """Passes at lattice strides 10 and 5, then fine checks of candidate blocks until each pair has a witness."""
        v = self.world.troopers
        axis = template_axis(rows.eye, v.centre[rows.target], headings(v, rows.shooter, rows.target))
        views = Views(lattice, rows, axis)
        views, known_blocked, settled = self._coarse_pass(views, centre_first)
        candidates = clear_blocks(known_blocked, lattice.block)
        for stride in COARSE_STRIDES[1:]:
            alive = np.flatnonzero(candidates.any(axis=(1, 2)))
            cols, lines = views.lattice.strided(stride)
            wanted = block_points(candidates, lattice.block, alive, cols, lines)
            self.caster.cast(views, known_blocked, settled, alive, cols, lines, wanted)
            clear_blocks_again(known_blocked, candidates, alive, lattice.block)
        self._fine_pass(views, known_blocked, settled, candidates)

    def _coarse_pass(self, views: Views, centre_first: bool) -> tuple[Views, np.ndarray, np.ndarray]:
        """The stride-10 pass, compiled first (`_screen`): eyes that provably see none of their template are
        dropped, the patches an eye provably cannot see and the segments its candidate parts block are marked
        blocked without a segment cast; the rest are cast. A block spans at least 10 lattice points, so it holds a
        point of every 10th column and row: eyes with no clear stride-10 point are dropped before any per-eye lattice
        arrays are made. With `centre_first`, the block at the template's centre is cast first: when it is clear
        it is the witness the passes would pick (the candidate nearest the middle), found for ~100 segments
        instead of ~1,000. Returns the eyes left, which of their lattice points are known blocked, and which were
        settled (n, c, r)."""
        cw, ch = views.lattice.cells
        cols, lines = views.lattice.strided(COARSE_STRIDES[0])
        hidden, proved, coarse, segments = self._screen(views, cols, lines)
        keep = np.flatnonzero(~hidden)
        views, proved, coarse = views.take(keep), proved[keep], coarse[keep]
        owner = np.repeat(np.arange(len(views.rows.pair)), (~coarse).sum(axis=(1, 2)))  # of each segment to cast
        marks = []
        if centre_first:
            block_cols, block_lines, centre, cast = self._centre_block(views, proved)
            still = ~self.findings.has_witness[views.rows.pair]
            keep = np.flatnonzero(still)
            views, proved, coarse, centre, cast = (views.take(keep), proved[keep], coarse[keep], centre[keep],
                                                   cast[keep])
            segments, owner = segments.take(still[owner]), (np.cumsum(still) - 1)[owner[still[owner]]]
            marks.append((block_cols, block_lines, centre, cast))
        coarse[~coarse] = self.caster.blocked(views.rows, owner, segments, learn=True)
        marks.insert(0, (cols, lines, coarse, np.ones_like(coarse)))
        seeing = np.flatnonzero(~coarse.all(axis=(1, 2)))  # eyes with a clear stride-10 point
        views, proved = views.take(seeing), proved[seeing]
        known_blocked = in_patches(views.lattice, proved, np.arange(cw + 1), np.arange(ch + 1))
        settled = known_blocked.copy()
        for at_cols, at_lines, found, cast in marks:
            known_blocked[:, at_cols[:, None], at_lines[None, :]] |= found[seeing]
            settled[:, at_cols[:, None], at_lines[None, :]] |= cast[seeing]
        return views, known_blocked, settled

    def _fine_pass(self, views: Views, known_blocked: np.ndarray, settled: np.ndarray, candidates: np.ndarray) -> None:
        """Check candidate blocks point by point, a few rows of each open pair at a time (`fine_pass.pick_blocks`),
        until every pair has a witness or no candidate is left: each row's centre-most first, the witness players
        expect; when no witness is kept, blocks far apart in turn (`fine_pass.spread_order`), which finds a clear one
        sooner. A block's middle column and line (`block_cross`) are cast first, and the rest of it only when they
        are clear."""
        bw, bh = views.lattice.block
        order = (central_order if self.findings.witnesses else spread_order)(*candidates.shape[1:])
        cursor = search_start(candidates)
        cross = block_cross(views.lattice.block)
        while True:
            pick, c0, r0 = pick_blocks(candidates, cursor, views.rows.pair, self.findings.has_witness,
                                       ROWS_PER_PAIR, order)
            if len(pick) == 0:
                return
            cols, lines = c0[:, None] + np.arange(bw + 1), r0[:, None] + np.arange(bh + 1)
            self.caster.cast(views, known_blocked, settled, pick, cols, lines,
                             np.broadcast_to(cross, (len(pick), *cross.shape)))
            clear_blocks_near(known_blocked, candidates, pick, c0, r0, views.lattice.block)
            rest = np.flatnonzero(candidates[pick, c0, r0])
            pick, c0, r0, cols, lines = pick[rest], c0[rest], r0[rest], cols[rest], lines[rest]
            self.caster.cast(views, known_blocked, settled, pick, cols, lines)
            clear_blocks_near(known_blocked, candidates, pick, c0, r0, views.lattice.block)
            clear = np.flatnonzero(candidates[pick, c0, r0])  # every point of the block is known now
            self.findings.record(views, pick[clear], c0[clear], r0[clear])

    def _centre_block(self, views: Views, proved: np.ndarray) -> tuple[np.ndarray, ...]:
        """Cast every row's centre block (the one `central_blocks` picks when all are candidates) but the points of
        its `proved` patches, its `block_cross` first; a clear one is the row's witness. Returns the block's
        lattice columns and lines, which of its points are blocked and which are known (cast or proved)."""
        cw, ch = views.lattice.cells
        bw, bh = views.lattice.block
        c0, r0 = (int(k[0]) for k in central_blocks(np.ones((1, cw + 1 - bw, ch + 1 - bh), dtype=bool)))
        cols, lines = np.arange(c0, c0 + bw + 1), np.arange(r0, r0 + bh + 1)
        known_blocked = in_patches(views.lattice, proved, cols, lines)
        settled = known_blocked | block_cross(views.lattice.block)
        known_blocked |= self.caster.segments_blocked(views, np.arange(len(views.rows.pair)), cols, lines,
                                                      settled & ~known_blocked)
        rest = np.flatnonzero(~known_blocked.any(axis=(1, 2)))
        known_blocked[rest] |= self.caster.segments_blocked(views, rest, cols, lines, ~settled[rest])
        settled[rest] = True
        clear = np.flatnonzero(~known_blocked.any(axis=(1, 2)))
        self.findings.record(views, clear, np.full(len(clear), c0), np.full(len(clear), r0))
        return cols, lines, known_blocked, settled

    def _screen(self, views: Views, cols: np.ndarray, lines: np.ndarray):
        """`screen.prove_hidden_before_casting` with the convex parts each row's pair has learned as candidates; the
        segments it finds blocked by them one by one are reported as tested (`progress(0, tested)`)."""
        hidden, proved, blocked_points, segments = prove_hidden_before_casting(
            self.world, views.lattice, views.rows, views.axis, cols, lines, self.learned.of_rows(views.rows))
        seeing = ~hidden
        settled = blocked_points[seeing].sum() - in_patches(views.lattice, proved[seeing], cols, lines).sum()
        self.caster.progress(0, int(settled))
        return hidden, proved, blocked_points, segments


def unordered_pairs(pairs: Sequence[tuple[int, int]]) -> np.ndarray:
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    return np.unique(np.sort(pairs, axis=1), axis=0)


def _proofs(world, search: PairSearch) -> dict[int, str]:
    """Pair number -> id of a convex blocker proving the pair hidden. Pairs with troopers in their corridor are
    proved one by one (a trooper may be the proof); the others, all at once against terrain."""
    pairs, cylinders = search.pairs, search.caster.cylinders
    alone = ~(cylinders >= 0).any(axis=1)
    proofs = {}
    parts = world.convex_parts if alone.any() else None
    alone_ids = np.flatnonzero(alone)
    found = parts_hiding_pairs(world, pairs[alone_ids], candidates_of(search.line, alone_ids))
    for k, part in zip(alone_ids.tolist(), found.tolist()):
        if part >= 0:
            proofs[k] = world.pieces[parts.piece[part]].id
    for k in np.flatnonzero(~alone).tolist():
        a, b = pairs[k]
        proof = blocker_hiding_pair(world, a, b, cylinders[k][cylinders[k] >= 0])
        if proof is not None:
            proofs[k] = proof
    return proofs


def run_search(world, pairs: np.ndarray, progress: Progress | None = None,
               witnesses: bool = True) -> tuple[PairSearch, dict[int, str]]:
    """The search over unordered `pairs` run to the end: proofs first, then every eye pass (`EYE_PASSES`). Returns
    it and its proofs of "hidden" (pair number -> blocker id); without `witnesses`, only which pairs see is kept.
    `search.decided` says which pairs a proof other than one blocker settled (`evidence.Sight.decided_by`)."""
    search = PairSearch(world, pairs, progress, witnesses)
    proofs = _proofs(world, search)
    open_ids = np.setdiff1d(np.arange(len(pairs)), np.fromiter(proofs, dtype=np.int64, count=len(proofs)))
    halves = hidden_half_by_half(world, pairs[open_ids], candidates_of(search.line, open_ids))
    search.decided.update(dict.fromkeys(open_ids[halves].tolist(), "blocker_per_half"))
    open_ids = open_ids[~halves]
    for pattern in EYE_PASSES:
        for ways in ((True, False),) if pattern is dense_eyes else ((True,), (False,)):
            open_ids = search.findings.open_pairs(open_ids)
            if len(open_ids):
                ids, forward = np.tile(open_ids, len(ways)), np.repeat(ways, len(open_ids))
                tiles = np.tile(search.learned.for_tiles(open_ids), (len(ways), 1)) if pattern is dense_eyes else None
                search.look(eye_batch(world, pairs, ids, forward, pattern, tiles), centre_first=pattern is lead_eye)
    return search, proofs


def sight(
    world, pairs: Sequence[tuple[int, int]], progress: Progress | None = None, evidence: bool = True
) -> dict:
    """Sight for every unordered pair among `pairs` (trooper indices): {(a, b) with a < b: Sight}; `evidence=False`
    skips counting the blockers of hidden pairs (callers that only need yes or no). The stages, which run for all
    pairs at once, are walked in order for one pair in `sight_between`."""
    pairs = unordered_pairs(pairs)
    search, proofs = run_search(world, pairs, progress)
    return sight_results(world, search.findings.found, pairs, proofs, evidence, search.decided)


def sight_between(world, a: int, b: int, evidence: bool = True) -> Sight:
    """Sight between troopers `a` and `b` (indices), the same both ways: `sight` for one pair. Its stages, in order
    (`sight` runs each for all of its pairs at once):

    1. The pair's corridor (`PairSearch`): the troopers whose volumes may block its segments
       (`corridor.corridor_troopers`, by `corridor.in_corridor`), and the convex parts of terrain on the line
       between the two volumes' middles (`hidden.line_candidates`), the largest of them its first candidates for
       proofs (`learning.LearnedParts`).
    2. Proofs of "hidden" before any segment is cast (`_proofs`): one convex part crossed by every segment between
       prisms around the two volumes (`hidden.parts_hiding_pairs`), or one trooper or part when troopers stand in the
       corridor (`hidden.blocker_hiding_pair`); then one part for each half of each prism
       (`hidden.hidden_half_by_half`).
    3. Eyes in turn (`run_search`, `EYE_PASSES`): the lead eye, the other key eyes, then the dense eyes
       (`lattice.lead_eye`, `lattice.other_key_eyes`, `lattice.dense_eyes`), each looking at the other's template
       turned to face it (`eye_batch.eye_batch`); tiles of dense eyes that candidate parts, one or several together,
       hide from every template they look at are never made rows (`hidden.hidden_eye_tiles`).
    4. The coarse pass, every 10th lattice point (`PairSearch._coarse_pass`): compiled proofs drop an eye whose whole
       template a part hides, mark the patches a part hides, and test each segment against the parts before any is cast
       (`screen.prove_hidden_before_casting`); the rest are cast (`casting.Caster`; what blocks them:
       `segments.blocked`), and the parts that block them are learned (`learning.LearnedParts.learn`). With the lead
       eye, the template's centre block is cast first (`PairSearch._centre_block`).
    5. The sampling rule (`lattice`): blocks of lattice cells with no blocked sampled point stay candidates
       (`fine_pass.clear_blocks`), narrowed by every 5th point of them (`fine_pass.block_points`).
    6. The fine pass (`PairSearch._fine_pass`): candidate blocks checked point by point, centre-most first
       (`fine_pass.pick_blocks`, `fine_pass.central_order`), each from its middle out (`fine_pass.block_cross`), until
       one is clear: the witness (`evidence.witness_at`).
    7. The verdict (`evidence.sight_results`): seen with its witness; else hidden with its proof; else hidden with
       the blockers that stop the most of a fixed sample of segments (`evidence.main_blockers`; not without
       `evidence`); with what settled it (`evidence.Sight.decided_by`).

    >>> import lofkit
    >>> world = lofkit.load("examples/rulebook_lof.yaml")
    >>> found = sight_between(world, world.troopers.index("fusilier"), world.troopers.index("spektr"))
    >>> found.seen, found.proof
    (False, 'iguana')
    """
    a, b = sorted((int(a), int(b)))
    return sight(world, [(a, b)], evidence=evidence)[a, b]
