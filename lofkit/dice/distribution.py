"""The exact odds of a face-to-face roll (docs/rules.md "Rolls"), counted per value rather than per dice combination.

Every die of a side is reduced to a *rank*: 0 for a failure, its result (1..19) for a non-critical success, 20 for
any critical. Then "each success cancels every opposing success with a lower result; a critical beats any
non-critical; crit vs crit and ties cancel" reads: a success survives exactly when its rank is above the opponent's
best rank. So the exact distribution only needs, per side, how many combinations have each best rank, and how many
put h dice in the non-critical band above a rank and c dice on a critical: sums over the 21 ranks, never over dice
combinations. `lofkit.testing.f2f_distribution_enumerated` counts the slow way, as a reference.

>>> d = f2f_distribution(12, 1, 12, 1)
>>> d.total, d.none
(400, 76)
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from lofkit.dice.rolls import DIE_FACES, RollError, RollResult, resolve_roll

CRIT_RANK = 20
"""Rank of any critical: above every non-critical result (1..19), equal to every other critical."""


@dataclass(frozen=True)
class Outcome:
    """`count` of the `total` dice combinations in which one side keeps `hits` non-critical and `crits` critical
    successes."""

    hits: int
    crits: int
    count: int
    probability: float

    def to_dict(self) -> dict:
        return {"hits": self.hits, "crits": self.crits, "count": self.count, "probability": self.probability}


@dataclass(frozen=True)
class F2FDistribution:
    """Exact outcome counts of SV1 x B1 against SV2 x B2 over all `total` = 20^(B1+B2) dice combinations.

    `p1` / `p2`: the outcomes in which that side keeps at least one success (only one side can), sorted by
    (hits, crits), zero counts left out; `none`: combinations where no success survives on either side.
    """

    sv1: int
    burst1: int
    sv2: int
    burst2: int
    total: int
    p1: tuple[Outcome, ...]
    p2: tuple[Outcome, ...]
    none: int

    def to_dict(self) -> dict:
        return {
            "sv1": self.sv1,
            "burst1": self.burst1,
            "sv2": self.sv2,
            "burst2": self.burst2,
            "total": self.total,
            "p1": [o.to_dict() for o in self.p1],
            "p2": [o.to_dict() for o in self.p2],
            "none": {"count": self.none, "probability": self.none / self.total},
        }


def _rank(result: RollResult) -> int:
    """0 for a failure, CRIT_RANK for any critical, else the result (1..19)."""
    if not result.success:
        return 0
    return CRIT_RANK if result.critical else result.value


def rank_counts(sv: int) -> tuple[int, ...]:
    """How many of the 20 faces give each rank 0..20 at `sv` (0 = failure, 20 = critical).

    >>> rank_counts(23)[CRIT_RANK], rank_counts(23)[19], rank_counts(23)[0]
    (4, 1, 0)
    """
    counts = [0] * (CRIT_RANK + 1)
    for die in DIE_FACES:
        counts[_rank(resolve_roll(sv, die))] += 1
    return tuple(counts)


def _at_most(counts: Sequence[int]) -> list[int]:
    """faces with rank <= m, for m = 0..20."""
    return list(itertools.accumulate(counts))


def _best_counts(at_most: Sequence[int], burst: int) -> list[int]:
    """Combinations of `burst` dice whose best rank is exactly m, for m = 0..20 (burst 0: best rank 0, once)."""
    power = [f**burst for f in at_most]
    return [power[0]] + [power[m] - power[m - 1] for m in range(1, CRIT_RANK + 1)]


def _kept_counts(counts: Sequence[int], burst: int, opponent_best: Sequence[int]) -> Counter:
    """Combinations in which a side keeps (hits, crits) != (0, 0), summed over the opponent's best rank m.

    Against best rank m a die survives iff its rank is above m: `hit` faces in m+1..19, `crit` faces on a
    critical (only while m < 20); the other dice fall at or below m (`low` faces).
    """
    at_most = _at_most(counts)
    kept: Counter = Counter()
    for m, opponents in enumerate(opponent_best):
        if not opponents:
            continue
        low = at_most[m]
        hit = at_most[CRIT_RANK - 1] - at_most[m] if m < CRIT_RANK - 1 else 0
        crit = counts[CRIT_RANK] if m < CRIT_RANK else 0
        for crits in range(burst + 1):
            for hits in range(burst - crits + 1):
                if hits + crits == 0:
                    continue
                ways = math.comb(burst, crits) * math.comb(burst - crits, hits)
                kept[hits, crits] += opponents * ways * hit**hits * crit**crits * low ** (burst - hits - crits)
    return kept


def outcomes_from_counts(kept: Counter, total: int) -> tuple[Outcome, ...]:
    return tuple(Outcome(h, c, n, n / total) for (h, c), n in sorted(kept.items()) if n)


def checked_burst(burst: int) -> int:
    if isinstance(burst, bool) or not isinstance(burst, int) or burst < 0:
        raise RollError(f"a burst is a whole number of dice, 0 or more, got {burst!r}")
    return burst


def f2f_distribution(sv1: int, burst1: int, sv2: int, burst2: int) -> F2FDistribution:
    """Exact distribution of a face-to-face roll SV1 x B1 against SV2 x B2 (B2 = 0: a normal roll).

    Per-value counting, never per combination: a success survives iff its rank beats the opponent's best rank
    (see the module docstring), so side 1 keeps (h, c) in sum over m of
    #(side 2's best = m) * B1! / (h! c! rest!) * hit(m)^h * crit(m)^c * low(m)^rest, and nobody keeps anything in
    sum over m of #(side 1's best = m) * #(side 2's best = m).

    >>> [(o.hits, o.crits, o.count) for o in f2f_distribution(12, 1, 0, 0).p1]
    [(0, 1, 1), (1, 0, 11)]
    """
    burst1, burst2 = checked_burst(burst1), checked_burst(burst2)
    counts1, counts2 = rank_counts(sv1), rank_counts(sv2)
    best1 = _best_counts(_at_most(counts1), burst1)
    best2 = _best_counts(_at_most(counts2), burst2)
    total = 20 ** (burst1 + burst2)
    p1 = outcomes_from_counts(_kept_counts(counts1, burst1, best2), total)
    p2 = outcomes_from_counts(_kept_counts(counts2, burst2, best1), total)
    neither = sum(a * b for a, b in zip(best1, best2))
    return F2FDistribution(int(sv1), burst1, int(sv2), burst2, total, p1, p2, neither)
