"""A player turn's sequence: the Tactical phase (Retreat! check, Loss of Lieutenant check, order count), the
Impetuous phase, the Orders phase and the end of the turn.

The active player must spend every Impetuous order in the Impetuous phase, which does not happen in Retreat!; in
the Orders phase he may spend his Irregular orders, the Lieutenant order and his pools' Regular orders, all or
some: what is left does not carry over, since every Tactical phase counts the orders afresh from the list.
"""

from __future__ import annotations

from lofkit.errors import LofkitError
from lofkit.game.army import ArmyList
from lofkit.game.orders import IMPETUOUS_DEPLOYMENT, OrderCount, count_orders, name_new_lieutenant

TURN_STEPS = ("retreat_check", "loss_of_lieutenant_check", "order_count", "impetuous_phase", "orders_phase",
              "end_of_turn")
"""The steps of a player turn, in order; the first three make the Tactical phase."""
STEP_NAMES = {"retreat_check": "Retreat! check", "loss_of_lieutenant_check": "Loss of Lieutenant check",
              "order_count": "Order count", "impetuous_phase": "Impetuous phase", "orders_phase": "Orders phase",
              "end_of_turn": "End of turn"}


def turn_sequence(retreat: bool) -> tuple[str, ...]:
    """The steps of the active player's turn; in Retreat! there is no Impetuous phase.

    >>> turn_sequence(retreat=True)
    ('retreat_check', 'loss_of_lieutenant_check', 'order_count', 'orders_phase', 'end_of_turn')
    """
    return tuple(step for step in TURN_STEPS if not (retreat and step == "impetuous_phase"))


def tactical_phase(army: ArmyList, retreat: bool = False, turn_start: bool = False) -> OrderCount:
    """Steps 1.1 to 1.3, from the list alone: no earlier count goes in, so unused orders never carry over.
    `retreat` is the caller's Retreat! check (its threshold is not in the rules)."""
    return count_orders(army, retreat=retreat, turn_start=turn_start)


def end_of_turn(army: ArmyList, count: OrderCount, new_lieutenant: str | None = None) -> ArmyList:
    """The list for the player's next turn: troopers deployed through their Impetuous order this turn are simply
    deployed now, and `new_lieutenant`, if given, is named Lieutenant; that is only allowed at the end of a turn
    whose count was in Loss of Lieutenant (`count`), and optional."""
    if new_lieutenant is not None:
        if not count.loss_of_lieutenant:
            raise LofkitError(f"cannot name {new_lieutenant} Lieutenant: this turn was not in Loss of Lieutenant")
        army = name_new_lieutenant(army, new_lieutenant)
    troopers = tuple(t.model_copy(update={"state": tuple(s for s in t.state if s != IMPETUOUS_DEPLOYMENT)})
                     if IMPETUOUS_DEPLOYMENT in t.state else t for t in army.troopers)
    return army.model_copy(update={"troopers": troopers})
