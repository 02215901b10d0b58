"""The Initiative roll's odds, exactly: before the game the two Lieutenants make a face-to-face WIP roll, one die
each, and roll again whenever nobody wins (equal results, both critical, both failed). The winner chooses
Initiative or Deployment; the loser gets the other.

Re-rolling until someone wins makes A's chance P(A wins one roll) / (P(A wins one roll) + P(B wins one roll)),
counted from the exact face-to-face distribution. The WIP is used as it stands: no MODs.

>>> odds = initiative_odds(14, 12)
>>> odds.p_a, odds.a_wins, odds.b_wins, odds.again
(Fraction(10, 17), 200, 140, 60)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from lofkit.dice.distribution import f2f_distribution
from lofkit.dice.rolls import resolve_f2f
from lofkit.errors import LofkitError, Problem
from lofkit.game.army import ArmyError, ArmyList, load_army
from lofkit.game.orders import check_list_for_orders

WINNER_CHOICES = ("Initiative", "Deployment")
"""What the winner picks one of; the loser gets the other. Initiative: who plays the first turn of every round.
Deployment: who deploys first, and which deployment zone is whose."""


class InitiativeError(LofkitError):
    """An Initiative roll that can never end: neither Lieutenant can ever win it."""


@dataclass(frozen=True)
class Lieutenant:
    """The trooper of a list who makes its Initiative roll, and the WIP it rolls against."""

    list_name: str
    trooper_id: str
    isc: str
    wip: int

    def to_dict(self) -> dict:
        return {"list": self.list_name, "trooper": self.trooper_id, "isc": self.isc, "wip": self.wip}


@dataclass(frozen=True)
class InitiativeOdds:
    """Who wins the Initiative roll of WIP A against WIP B: exact chances after re-rolls (`p_a`, `p_b`), and one
    roll's counts out of `total` equally likely rolls (`a_wins`, `b_wins`, `again`: nobody wins, roll again)."""

    wip_a: int
    wip_b: int
    a_wins: int
    b_wins: int
    again: int
    total: int
    lieutenant_a: Lieutenant | None = None
    lieutenant_b: Lieutenant | None = None

    @property
    def p_a(self) -> Fraction:
        return Fraction(self.a_wins, self.a_wins + self.b_wins)

    @property
    def p_b(self) -> Fraction:
        return 1 - self.p_a

    def to_dict(self) -> dict:
        return {
            "p_a": float(self.p_a),
            "p_b": float(self.p_b),
            "p_a_exact": str(self.p_a),
            "p_b_exact": str(self.p_b),
            "wip_a": self.wip_a,
            "wip_b": self.wip_b,
            "lieutenant_a": self.lieutenant_a.to_dict() if self.lieutenant_a else None,
            "lieutenant_b": self.lieutenant_b.to_dict() if self.lieutenant_b else None,
            "per_roll": {"a": self.a_wins, "b": self.b_wins, "again": self.again, "total": self.total},
            "winner_chooses": list(WINNER_CHOICES),
        }


def initiative_odds(wip_a: int, wip_b: int, lieutenant_a: Lieutenant | None = None,
                    lieutenant_b: Lieutenant | None = None) -> InitiativeOdds:
    """The odds of the Initiative roll of WIP A against WIP B, one die each, re-rolled until someone wins.

    >>> initiative_odds(13, 13).p_a
    Fraction(1, 2)
    """
    one_roll = f2f_distribution(wip_a, 1, wip_b, 1)
    a_wins, b_wins = (sum(outcome.count for outcome in side) for side in (one_roll.p1, one_roll.p2))
    if a_wins + b_wins == 0:
        sides = " against ".join(_side(wip, lt) for wip, lt in ((wip_a, lieutenant_a), (wip_b, lieutenant_b)))
        raise InitiativeError(f"{sides}: a WIP below 1 fails without a roll, so with both below 1 nobody can ever "
                              "win the Initiative roll")
    return InitiativeOdds(int(wip_a), int(wip_b), a_wins, b_wins, one_roll.none, one_roll.total,
                          lieutenant_a, lieutenant_b)


def roll_winner(wip_a: int, die_a: int, wip_b: int, die_b: int) -> str | None:
    """'A' or 'B', whoever keeps a success in one face-to-face roll of these dice; None: nobody does, roll again.

    >>> roll_winner(13, 10, 14, 10), roll_winner(13, 9, 14, 10), roll_winner(13, 13, 14, 10)
    (None, 'B', 'A')
    """
    result = resolve_f2f(wip_a, [die_a], wip_b, [die_b])
    return "A" if any(result.survived1) else "B" if any(result.survived2) else None


def _side(wip: int, lieutenant: Lieutenant | None) -> str:
    """'WIP 0', or 'WIP 0 (t1 of list "x")' when the Lieutenant is known."""
    return f"WIP {wip}" + (f" ({lieutenant.trooper_id} of list '{lieutenant.list_name}')" if lieutenant else "")


def lieutenant_of(army: ArmyList, source: Path | str) -> Lieutenant:
    """The list's one Lieutenant and its unit's WIP; an ArmyError naming `source` and the place otherwise."""
    found = [(index, trooper) for index, trooper in enumerate(army.troopers) if army.is_lieutenant(trooper)]
    if len(found) != 1:
        places = ", ".join(f"troopers[{index}] ({trooper.id})" for index, trooper in found)
        why = f"{len(found)} Lieutenants: {places}" if found else "no Lieutenant"
        raise ArmyError(source, [Problem("troopers", f"{why}; the Initiative roll needs exactly one: give one "
                                                     "trooper the Lieutenant option or `lieutenant: true`")])
    index, trooper = found[0]
    unit = army.unit_of(trooper)
    if unit is None:
        raise ArmyError(source, [Problem(f"troopers[{index}].unit", f"the Lieutenant's unit '{trooper.unit}' is "
                                                                    "not in `units`")])
    if "wip" not in unit.model_fields_set:
        raise ArmyError(source, [Problem(f"units.{trooper.unit}.wip", "the Lieutenant's unit gives no WIP, which "
                                                                      "the Initiative roll uses")])
    return Lieutenant(army.name, trooper.id, unit.isc, unit.wip)


def initiative_from_lists(path_a: Path | str, path_b: Path | str) -> InitiativeOdds:
    """The Initiative roll's odds between the Lieutenants of the army lists in two files."""
    armies = [load_army(path) for path in (path_a, path_b)]
    for army, path in zip(armies, (path_a, path_b)):
        check_list_for_orders(army, str(path))  # a trooper of a unit the list lacks: as `lofkit orders` says it
    lieutenant_a, lieutenant_b = (lieutenant_of(army, path) for army, path in zip(armies, (path_a, path_b)))
    return initiative_odds(lieutenant_a.wip, lieutenant_b.wip, lieutenant_a, lieutenant_b)
