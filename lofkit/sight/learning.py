"""What each pair remembers: the convex parts on the line between its troopers, then those that blocked its segments,
as the candidates of its next proofs.

A part that blocked many of a pair's stride-10 segments is likely to hide whole tiles of its next eyes, whole templates
or patches (`hidden.hidden_eye_tiles`, `screen.prove_hidden_before_casting`); a proof from a candidate is still the
convexity lemma of `hidden.parts_crossing_every_segment`, so remembering a part never hides a clear segment.
"""

from __future__ import annotations

import numba
import numpy as np

from lofkit.sight.hidden import Candidates

LINE_PARTS = 64
"""Parts on the line between a pair's two volumes' middles that it keeps, the largest first, since a larger part hides
more of the views around that line. The first `LEARNED_PARTS` are its first candidates, and all of them may hide
tiles of its dense eyes (`hidden.hidden_eye_tiles`)."""
LEARNED_PARTS = 16
"""Convex parts each pair remembers (first those on the line between the two volumes, then those that blocked its
stride-10 segments), as candidates for its next eyes."""


def largest_parts(candidates: Candidates, count: int, most: int, sizes: np.ndarray) -> np.ndarray:
    """The `most` largest parts (by `sizes`, per part) of each of `count` rows among `candidates` ((row, part)
    ordered by row, as `hidden.line_candidates` gives them), largest first, -1 padding: (count, most)."""
    rows, found = candidates
    by_size = np.lexsort((-sizes[found], rows))
    rows, found = rows[by_size], found[by_size]
    out = np.full((count, most), -1, dtype=np.int64)
    rank = np.arange(len(rows)) - np.searchsorted(rows, rows)
    keep = rank < most
    out[rows[keep], rank[keep]] = found[keep]
    return out


def each_once(parts: np.ndarray) -> np.ndarray:
    """Each row of `parts` (n, k) (-1: none) with a part only where it first comes, in order, and -1 last."""
    parts = np.ascontiguousarray(parts, dtype=np.int64)
    out = np.empty_like(parts)
    if parts.size:
        _each_once(parts=parts, last_row=np.full(max(int(parts.max()) + 1, 1), -1, dtype=np.int64), out=out)
    return out


@numba.njit(cache=True, nogil=True)
def _each_once(parts, last_row, out) -> None:
    """`each_once` compiled: `last_row[p]`, the last row that kept part p."""
    for r in range(parts.shape[0]):
        kept = 0
        for k in range(parts.shape[1]):
            p = parts[r, k]
            if p >= 0 and last_row[p] != r:
                last_row[p] = r
                out[r, kept] = p
                kept += 1
        out[r, kept:] = -1


class LearnedParts:
    """Per pair (rows of `pairs`, (n, 2)), up to `LEARNED_PARTS` convex part indices (-1: none), the parts that
    blocked most first, then those it had before. Both directions share them: sight is mutual, and the segments
    either way cross the same space between the two volumes. A pair starts out with the largest parts (by
    `sizes`, per part) on the line between its two volumes' middles (`line`: `hidden.line_candidates` of
    `pairs`), before any segment is cast: a larger part hides more of the segments around that line."""

    def __init__(self, pairs: np.ndarray, line: Candidates, sizes: np.ndarray):
        self.line = largest_parts(line, len(pairs), LINE_PARTS, sizes)
        """The largest `LINE_PARTS` parts on the line between each pair's middles, largest first (either way:
        (n, LINE_PARTS))."""
        self.parts = self.line[:, :LEARNED_PARTS].copy()

    def of_rows(self, rows) -> np.ndarray:
        """The parts learned by each row's pair: (n, LEARNED_PARTS)."""
        return self.parts[rows.pair]

    def for_tiles(self, pair_ids: np.ndarray) -> np.ndarray:
        """The parts that may hide tiles of the dense eyes of pairs `pair_ids`: those learned, then the line's not
        among them (a failing tile tries every candidate; on table-c 8 of 36 a pair were there twice), -1 last."""
        return each_once(np.hstack([self.parts[pair_ids], self.line[pair_ids]]))

    def learn(self, rows, owner: np.ndarray, part: np.ndarray) -> None:
        """Segment s, from the eye of row `owner[s]`, met convex part `part[s]` first (-1: none): put the parts that
        blocked the most segments of each pair first among its parts, ahead of those it had."""
        found = part >= 0
        if not found.any():
            return
        pair = rows.pair[owner][found]
        count = int(part.max()) + 1  # one number per (pair, part), in that order
        combos, hits = np.unique(pair * count + part[found], return_counts=True)
        pairs, parts = np.divmod(combos, count)
        order = np.lexsort((-hits, pairs))
        pairs, parts = pairs[order], parts[order]
        starts = np.r_[True, pairs[1:] != pairs[:-1]]
        rank = np.arange(len(pairs)) - np.maximum.accumulate(np.where(starts, np.arange(len(pairs)), 0))
        best = rank < LEARNED_PARTS
        changed, row = np.unique(pairs[best], return_inverse=True)
        merged = np.full((len(changed), 2 * LEARNED_PARTS), -1, dtype=np.int64)
        merged[row, rank[best]] = parts[best]
        merged[:, LEARNED_PARTS:] = self.parts[changed]
        self.parts[changed] = each_once(merged)[:, :LEARNED_PARTS]
