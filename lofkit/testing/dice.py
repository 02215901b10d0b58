"""Face-to-face rolls the slow way, to test `lofkit.dice` against: every combination of dice resolved.

- `f2f_distribution_enumerated`: a face-to-face distribution by resolving all 20^(B1+B2) combinations (numpy).
- `f2f_counts_by_resolving`: the same counts through `resolve_f2f`, one combination at a time (plain Python).
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np

from lofkit.dice.distribution import F2FDistribution, checked_burst, outcomes_from_counts
from lofkit.dice.rolls import DIE_FACES, cancels, resolve_f2f, resolve_roll

__all__ = ["f2f_counts_by_resolving", "f2f_distribution_enumerated"]


def f2f_counts_by_resolving(sv1: int, burst1: int, sv2: int, burst2: int) -> dict[tuple, int]:
    """Count the outcomes of a face-to-face roll by resolving every combination of dice with `resolve_f2f`.

    Keys: `("p1", hits, crits)` when side 1 keeps successes, `("p2", hits, crits)` when side 2 does, `("none",)`
    when nobody does (present only when some combination gives it). 20^(burst1 + burst2) combinations: keep the
    bursts small.

    >>> f2f_counts_by_resolving(12, 1, 12, 1)[("none",)]
    76
    """
    tally = Counter()
    for dice1 in itertools.product(range(1, 21), repeat=burst1):
        for dice2 in itertools.product(range(1, 21), repeat=burst2):
            r = resolve_f2f(sv1, dice1, sv2, dice2)
            if any(r.survived1):
                tally["p1", r.hits1, r.crits1] += 1
            elif any(r.survived2):
                tally["p2", r.hits2, r.crits2] += 1
            else:
                tally["none",] += 1
    return dict(tally)


def _cancelled(beaten: np.ndarray, mine: np.ndarray, theirs: np.ndarray, total: int) -> list[np.ndarray]:
    """Per die of one side, per combination: whether any opposing die cancels it (`beaten[my face, their face]`)."""
    out = []
    for i in mine:
        cancelled = np.zeros(total, dtype=bool)
        for j in theirs:
            cancelled |= beaten[i, j]
        out.append(cancelled)
    return out


def _kept_by_die(
    idx: np.ndarray, success: np.ndarray, critical: np.ndarray, cancelled: np.ndarray, burst: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per combination: surviving non-critical and critical dice of one side."""
    hits = np.zeros(idx.shape[1], dtype=np.int64)
    crits = np.zeros(idx.shape[1], dtype=np.int64)
    for k in range(burst):
        kept = success[idx[k]] & ~cancelled[k]
        crits += kept & critical[idx[k]]
        hits += kept & ~critical[idx[k]]
    return hits, crits


def _tally(hits: np.ndarray, crits: np.ndarray, rows: np.ndarray, burst: int) -> Counter:
    keys = np.bincount(hits[rows] * (burst + 1) + crits[rows], minlength=(burst + 1) ** 2)
    return Counter({divmod(k, burst + 1): int(n) for k, n in enumerate(keys) if n})


def f2f_distribution_enumerated(sv1: int, burst1: int, sv2: int, burst2: int) -> F2FDistribution:
    """The same distribution by resolving every one of the 20^(B1+B2) combinations with the face-to-face rule.

    A slow reference for tests and benchmarks: numpy arrays of all combinations (one row each, 3.2 million for
    3 vs 2), each die checked against every opposing die with `cancels`. A row where both sides kept dice (the
    rules say it cannot happen) would be counted in both `p1` and `p2`, so the counts would overshoot `total`.
    """
    burst1, burst2 = checked_burst(burst1), checked_burst(burst2)
    faces1 = [resolve_roll(sv1, d) for d in DIE_FACES]
    faces2 = [resolve_roll(sv2, d) for d in DIE_FACES]
    beaten1 = np.array([[cancels(y, x) for y in faces2] for x in faces1])  # [face1, face2]: face2 cancels face1
    beaten2 = np.array([[cancels(x, y) for x in faces1] for y in faces2])  # [face2, face1]: face1 cancels face2
    total = 20 ** (burst1 + burst2)
    grid = np.indices((20,) * (burst1 + burst2), dtype=np.int8).reshape(burst1 + burst2, total)
    idx1, idx2 = grid[:burst1], grid[burst1:]
    cancelled1 = _cancelled(beaten1, idx1, idx2, total)
    cancelled2 = _cancelled(beaten2, idx2, idx1, total)
    arrays1 = [np.array([getattr(r, a) for r in faces1]) for a in ("success", "critical")]
    arrays2 = [np.array([getattr(r, a) for r in faces2]) for a in ("success", "critical")]
    hits1, crits1 = _kept_by_die(idx1, *arrays1, cancelled1, burst1)
    hits2, crits2 = _kept_by_die(idx2, *arrays2, cancelled2, burst2)
    any1, any2 = hits1 + crits1 > 0, hits2 + crits2 > 0
    p1 = outcomes_from_counts(_tally(hits1, crits1, any1, burst1), total)
    p2 = outcomes_from_counts(_tally(hits2, crits2, any2, burst2), total)
    neither = int(np.count_nonzero(~any1 & ~any2))
    return F2FDistribution(int(sv1), burst1, int(sv2), burst2, total, p1, p2, neither)
