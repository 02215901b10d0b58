"""d20 rolls: success values, normal rolls, face-to-face rolls, and their exact odds (RULES.md "Rolls").

A die is resolved once into a `RollResult`; face-to-face compares results. For odds, every die of a side is
reduced to a *rank*: 0 for a failure, its result (1..19) for a non-critical success, 20 for any critical. Then
"each success cancels every opposing success with a lower result; a critical beats any non-critical; crit vs crit
and ties cancel" reads: a success survives exactly when its rank is above the opponent's best rank. So the exact
distribution only needs, per side, how many combinations have each best rank, and how many put h dice in the
non-critical band above a rank and c dice on a critical: sums over the 21 ranks, never over dice combinations.

>>> success_value(12, [-3])
9
>>> resolve_f2f(12, [9, 4], 11, [5]).to_dict()["p1"]
{'hits': 1, 'crits': 0}
>>> d = f2f_distribution(12, 1, 12, 1)
>>> d.total, d.none
(400, 76)
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from lofkit.errors import LofkitError

DIE_FACES = range(1, 21)
"""The faces of a d20."""
MOD_LIMIT = 12
"""The sum of MODs is clamped to [-MOD_LIMIT, +MOD_LIMIT]."""
MAX_SV = 30
"""Largest success value `parse_roll_spec` accepts."""
MAX_BURST = 6
"""Largest burst `parse_roll_spec` accepts."""
CRIT_RANK = 20
"""Rank of any critical: above every non-critical result (1..19), equal to every other critical."""


class RollError(LofkitError):
    """A roll that cannot be made: a bad die, burst, success value or MOD list."""


# ---------------------------------------------------------------------------------------------------------------
# success value and normal rolls


def success_value(attribute: int, mods: Iterable[int] = ()) -> int:
    """SV = attribute + sum of MODs — "with the sum of MODs clamped to [-12, +12]".

    >>> success_value(12, [-3]), success_value(13, [-6, -6, -3]), success_value(11, [+6, +6, +3])
    (9, 1, 23)
    """
    total = sum(int(m) for m in mods)
    return int(attribute) + max(-MOD_LIMIT, min(MOD_LIMIT, total))


def halve(x: int) -> int:
    """Half of x — "Halving always rounds up".

    >>> halve(7), halve(6), halve(1)
    (4, 3, 1)
    """
    return -(-int(x) // 2)


@dataclass(frozen=True)
class RollResult:
    """One die against a success value.

    `value` is the result that face-to-face compares (the die plus SV - 20 when SV > 20); `failure_category` is
    roll - SV on a rolled failure, None on a success or an automatic failure (SV < 1: no roll).
    """

    sv: int
    die: int | None
    value: int
    success: bool
    critical: bool
    failure_category: int | None

    def to_dict(self) -> dict:
        return asdict(self)


def _check_die(die: int) -> int:
    if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 20:
        raise RollError(f"a d20 shows 1..20, got {die!r}")
    return die


def resolve_roll(sv: int, die: int | None) -> RollResult:
    """Resolve one die of a normal roll.

    "success if roll <= SV; critical if roll == SV. SV < 1: automatic failure, no roll."
    "SV > 20: add SV - 20 to each die; a result of 20 or more is a critical (every roll succeeds)."
    "Failure category FC = roll - SV on a failure."

    >>> r = resolve_roll(23, 17); (r.value, r.critical)
    (20, True)
    >>> resolve_roll(9, 13).failure_category
    4
    """
    sv = int(sv)
    if sv < 1:
        return RollResult(sv, None if die is None else _check_die(die), 0, False, False, None)
    if die is None:
        raise RollError(f"a roll against SV {sv} needs a die (1..20); only SV < 1 fails without a roll")
    die = _check_die(die)
    if sv > 20:
        value = die + (sv - 20)
        return RollResult(sv, die, value, True, value >= 20, None)
    if die > sv:
        return RollResult(sv, die, die, False, False, die - sv)
    return RollResult(sv, die, die, True, die == sv, None)


@dataclass(frozen=True)
class RollOdds:
    """Odds of one normal roll: `successes` and `criticals` are die faces out of 20 (criticals are successes)."""

    sv: int
    successes: int
    criticals: int

    @property
    def p_success(self) -> float:
        return self.successes / 20

    @property
    def p_critical(self) -> float:
        return self.criticals / 20

    def to_dict(self) -> dict:
        return {
            "sv": self.sv,
            "p_success": self.p_success,
            "p_critical": self.p_critical,
            "successes": self.successes,
            "criticals": self.criticals,
        }


def roll_odds(sv: int) -> RollOdds:
    """Odds of one normal roll at `sv`, counted over the 20 faces with `resolve_roll`.

    >>> roll_odds(23).to_dict()["p_critical"], roll_odds(0).p_success
    (0.2, 0.0)
    """
    results = [resolve_roll(sv, die) for die in DIE_FACES]
    return RollOdds(int(sv), sum(r.success for r in results), sum(r.critical for r in results))


# ---------------------------------------------------------------------------------------------------------------
# face-to-face, given the dice rolled


def cancels(x: RollResult, y: RollResult) -> bool:
    """Whether success x cancels opposing success y.

    "each success cancels every opposing success with a lower result (even if it is itself cancelled); a critical
    beats any non-critical success; critical vs critical cancels; ties cancel."
    """
    if not (x.success and y.success):
        return False
    if x.critical:
        return True
    if y.critical:
        return False
    return x.value >= y.value


@dataclass(frozen=True)
class F2FResult:
    """Surviving successes of a face-to-face roll; `survived1[i]` is whether side 1's i-th die survives."""

    rolls1: tuple[RollResult, ...]
    rolls2: tuple[RollResult, ...]
    survived1: tuple[bool, ...]
    survived2: tuple[bool, ...]

    def kept(self, side: int) -> tuple[int, int]:
        """(hits, crits): the non-critical and critical successes that side 1 or 2 keeps."""
        rolls, survived = (self.rolls1, self.survived1) if side == 1 else (self.rolls2, self.survived2)
        crits = sum(1 for r, s in zip(rolls, survived) if s and r.critical)
        return sum(survived) - crits, crits

    hits1 = property(lambda self: self.kept(1)[0])
    crits1 = property(lambda self: self.kept(1)[1])
    hits2 = property(lambda self: self.kept(2)[0])
    crits2 = property(lambda self: self.kept(2)[1])

    def to_dict(self) -> dict:
        return {
            "p1": {"hits": self.hits1, "crits": self.crits1},
            "p2": {"hits": self.hits2, "crits": self.crits2},
            "rolls1": [r.to_dict() for r in self.rolls1],
            "rolls2": [r.to_dict() for r in self.rolls2],
            "survived1": list(self.survived1),
            "survived2": list(self.survived2),
        }


def _survivors(
    rolls1: Sequence[RollResult], rolls2: Sequence[RollResult], aimed: Sequence[bool]
) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """Which dice survive; only side 1's dice with `aimed[i]` meet side 2's dice."""
    facing = [r for r, a in zip(rolls1, aimed) if a]
    survived1 = tuple(
        r.success and not (a and any(cancels(y, r) for y in rolls2)) for r, a in zip(rolls1, aimed)
    )
    survived2 = tuple(r.success and not any(cancels(x, r) for x in facing) for r in rolls2)
    return survived1, survived2


def resolve_f2f(
    sv1: int,
    dice1: Sequence[int],
    sv2: int,
    dice2: Sequence[int],
    *,
    aimed_at_2: Sequence[bool] | None = None,
) -> F2FResult:
    """Resolve a face-to-face roll from the dice actually rolled.

    "Face to face: each side's failures are discarded; each success cancels every opposing success with a lower
    result (even if it is itself cancelled); a critical beats any non-critical success; critical vs critical
    cancels; ties cancel. Dodge and Reset cancel only the attacks aimed at the trooper who made them."

    Side 2 is one trooper (e.g. the one who Dodges or Resets). `aimed_at_2[i]` says whether side 1's die i is aimed
    at that trooper (default: all are). A die aimed elsewhere meets none of side 2's dice: it neither cancels nor is
    cancelled, so it stays a normal roll (it survives when it succeeds).

    >>> resolve_f2f(12, [9, 4], 11, [5]).survived1
    (True, False)
    >>> resolve_f2f(12, [9, 4], 15, [5], aimed_at_2=[False, True]).survived1
    (True, False)
    """
    rolls1 = tuple(resolve_roll(sv1, d) for d in dice1)
    rolls2 = tuple(resolve_roll(sv2, d) for d in dice2)
    aimed = (True,) * len(rolls1) if aimed_at_2 is None else tuple(bool(a) for a in aimed_at_2)
    if len(aimed) != len(rolls1):
        raise RollError(f"aimed_at_2 has {len(aimed)} entries but side 1 rolled {len(rolls1)} dice; give one per die")
    survived1, survived2 = _survivors(rolls1, rolls2, aimed)
    return F2FResult(rolls1, rolls2, survived1, survived2)


# ---------------------------------------------------------------------------------------------------------------
# exact distributions


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


def _outcomes(kept: Counter, total: int) -> tuple[Outcome, ...]:
    return tuple(Outcome(h, c, n, n / total) for (h, c), n in sorted(kept.items()) if n)


def _check_burst(burst: int) -> int:
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
    burst1, burst2 = _check_burst(burst1), _check_burst(burst2)
    counts1, counts2 = rank_counts(sv1), rank_counts(sv2)
    best1 = _best_counts(_at_most(counts1), burst1)
    best2 = _best_counts(_at_most(counts2), burst2)
    total = 20 ** (burst1 + burst2)
    return F2FDistribution(
        int(sv1),
        burst1,
        int(sv2),
        burst2,
        total,
        _outcomes(_kept_counts(counts1, burst1, best2), total),
        _outcomes(_kept_counts(counts2, burst2, best1), total),
        sum(a * b for a, b in zip(best1, best2)),
    )


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
    burst1, burst2 = _check_burst(burst1), _check_burst(burst2)
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
    return F2FDistribution(
        int(sv1),
        burst1,
        int(sv2),
        burst2,
        total,
        _outcomes(_tally(hits1, crits1, any1, burst1), total),
        _outcomes(_tally(hits2, crits2, any2, burst2), total),
        int(np.count_nonzero(~any1 & ~any2)),
    )


# ---------------------------------------------------------------------------------------------------------------
# parsing


@dataclass(frozen=True)
class RollSpec:
    """A success value and a burst, written `SVxB` (e.g. `12x3`)."""

    sv: int
    burst: int

    def __str__(self) -> str:
        return f"{self.sv}x{self.burst}"


_SPEC = re.compile(r"\s*(\d+)\s*[xX]\s*(\d+)\s*")
_MOD = re.compile(r"\s*([+-]?\d+)\s*")


def parse_roll_spec(text: str) -> RollSpec:
    """Parse `SVxB`: a success value 0..30 (MODs already applied; 0 fails automatically) and a burst 0..6.

    >>> parse_roll_spec("12x3")
    RollSpec(sv=12, burst=3)
    """
    match = _SPEC.fullmatch(str(text))
    if match is None:
        raise RollError(
            f"cannot read roll '{text}': write SVxB, a success value and a burst, e.g. 12x3 (SV 12, burst 3)"
        )
    sv, burst = int(match[1]), int(match[2])
    if sv > MAX_SV:
        raise RollError(f"roll '{text}': success value {sv} is above {MAX_SV}; use an SV from 0 to {MAX_SV}")
    if burst > MAX_BURST:
        raise RollError(f"roll '{text}': burst {burst} is above {MAX_BURST}; use a burst from 0 to {MAX_BURST}")
    return RollSpec(sv, burst)


def parse_mods(text: str) -> tuple[int, ...]:
    """Parse a comma-separated MOD list such as `+3,-6` (empty text: no MODs).

    >>> parse_mods("+3,-6")
    (3, -6)
    """
    if not str(text).strip():
        return ()
    mods = []
    for part in str(text).split(","):
        match = _MOD.fullmatch(part)
        if match is None:
            raise RollError(f"cannot read MOD '{part.strip()}' in '{text}': write signed whole numbers, e.g. +3,-6")
        mods.append(int(match[1]))
    return tuple(mods)
