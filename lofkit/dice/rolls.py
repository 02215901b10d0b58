"""d20 rolls (docs/rules.md "Rolls"): success values, one die resolved, one normal roll's odds, and a face-to-face roll
resolved from the dice rolled.

A die is resolved once into a `RollResult`; face-to-face compares results.

>>> success_value(12, [-3])
9
>>> resolve_f2f(12, [9, 4], 11, [5]).to_dict()["p1"]
{'hits': 1, 'crits': 0}
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from lofkit.errors import LofkitError

DIE_FACES = range(1, 21)
"""The faces of a d20."""
MOD_LIMIT = 12
"""The sum of MODs is clamped to [-MOD_LIMIT, +MOD_LIMIT]."""


class RollError(LofkitError):
    """A roll that cannot be made: a bad die, burst, success value or MOD list."""


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
