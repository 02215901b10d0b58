"""The Tactical phase of a player turn: Victory Points (step 1.1, Retreat!), the Loss of Lieutenant check (step
1.2) and the order count (step 1.3); spending a pool's Regular orders; naming a new Lieutenant at the end of a turn
in Loss of Lieutenant.

The count reads the list's trooper states (`dead`, `unconscious`, `sepsitorized`, `isolated`, `undeployed`,
`marker`, `deployed_by_impetuous_order`) as they stand at the active player's Tactical phase. It is the owner's
view: it names the Lieutenant and counts nothing for troopers still off the table, both private to the opponent.

Rules not in the rules text, and so not here: the Victory Points that put an army in Retreat! (the caller says
whether it is, `retreat=True`), the other effects of Retreat!, and what an Impetuous order must be used for.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lofkit.errors import LofkitError, Problem
from lofkit.game.army import NULL_STATES, ArmyError, ArmyList, ArmyTrooper
from lofkit.game.listcheck import check_list

IMPETUOUS_DEPLOYMENT = "deployed_by_impetuous_order"
IMPETUOUS_DEPLOYMENT_NOTE = (
    "assumption: a trooper deployed through its Impetuous order adds its own order (Regular to its group's pool, "
    "or Irregular for itself) for this turn, after the count; the rules make the exception but do not say when "
    "it applies")
RETREAT_NOTE = "Retreat!: no Lieutenant order, and no Impetuous phase (Impetuous orders cannot be spent)"


@dataclass(frozen=True)
class LieutenantCheck:
    """Step 1.2: whether the army is in Loss of Lieutenant, and why."""

    lieutenant: str | None
    """The Lieutenant's id, or None when the list has none."""
    loss_of_lieutenant: bool
    reason: str | None = None


@dataclass(frozen=True)
class OrderPool:
    """One combat group's pool: its Regular orders, which any trooper of the group may spend."""

    group: int
    regular: int
    troopers: tuple[str, ...] = ()
    """The troopers whose Regular orders are in the pool."""
    deployed_by_impetuous_order: tuple[str, ...] = ()
    """Of those, the ones whose order joined after the Impetuous phase (an assumption, see the count's notes)."""

    def to_dict(self) -> dict:
        return {"group": self.group, "regular": self.regular, "troopers": list(self.troopers),
                "deployed_by_impetuous_order": list(self.deployed_by_impetuous_order)}


@dataclass(frozen=True)
class OrderCount:
    """The orders of one player turn: a pool of Regular orders per combat group, an Irregular order per Irregular
    trooper (for itself), an Impetuous order per Impetuous trooper (for itself, in the Impetuous phase) and the
    Lieutenant order (for the Lieutenant). Unused orders do not carry over: each turn is counted afresh."""

    loss_of_lieutenant: bool
    retreat: bool
    turn_start: bool
    lieutenant: str | None
    pools: tuple[OrderPool, ...]
    irregular: tuple[str, ...]
    impetuous: tuple[str, ...]
    """Impetuous orders that can be spent: none in Retreat!, which has no Impetuous phase."""
    impetuous_unusable: tuple[str, ...]
    """In Retreat!: the troopers whose Impetuous orders cannot be spent."""
    lieutenant_order: int
    victory_points: int
    reasons: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def impetuous_phase(self) -> bool:
        """No Impetuous phase while in Retreat!."""
        return not self.retreat

    @property
    def total(self) -> int:
        """Every order that can be spent this turn."""
        return (sum(pool.regular for pool in self.pools) + len(self.irregular) + len(self.impetuous)
                + self.lieutenant_order)

    def pool(self, group: int) -> OrderPool | None:
        return next((pool for pool in self.pools if pool.group == group), None)

    def to_dict(self) -> dict:
        return {"loss_of_lieutenant": self.loss_of_lieutenant, "retreat": self.retreat,
                "turn_start": self.turn_start, "lieutenant": self.lieutenant,
                "pools": [pool.to_dict() for pool in self.pools], "irregular": list(self.irregular),
                "impetuous": list(self.impetuous), "impetuous_unusable": list(self.impetuous_unusable),
                "impetuous_phase": self.impetuous_phase, "lieutenant_order": self.lieutenant_order,
                "total": self.total, "victory_points": self.victory_points, "reasons": list(self.reasons),
                "notes": list(self.notes)}


def check_list_for_orders(army: ArmyList, source: str | None = None) -> None:
    """Raise ArmyError (every problem, with its place) when a trooper names a unit or option its list does not
    define, when two troopers are Lieutenant, when the Lieutenant is a Remote or Irregular in its profile (never a
    Lieutenant, `Unit.never_lieutenant`), or when a trooper deployed through its Impetuous order is not Impetuous.
    `source` is the file, for the message."""
    problems = [Problem(problem.where, problem.message) for problem in check_list(army).problems
                if problem.rule in ("unit", "option")]
    for index, trooper in enumerate(army.troopers):
        unit = army.unit_of(trooper)
        if unit is not None and IMPETUOUS_DEPLOYMENT in trooper.state and unit.impetuous == "none":
            problems.append(Problem(f"troopers[{index}].state", f"'{trooper.id}' is marked {IMPETUOUS_DEPLOYMENT}, "
                                    f"but unit '{trooper.unit}' is not Impetuous: it has no Impetuous order"))
    lieutenants = [index for index, trooper in enumerate(army.troopers) if army.is_lieutenant(trooper)]
    for index in lieutenants:
        unit = army.unit_of(army.troopers[index])
        problems += [Problem(f"troopers[{index}].unit", f"the Lieutenant {army.troopers[index].id}: {why}")
                     for why in (unit.never_lieutenant if unit is not None else ())]
    for index in lieutenants[1:]:
        problems.append(Problem(f"troopers[{index}].lieutenant", "a second Lieutenant ("
                                f"{', '.join(army.troopers[i].id for i in lieutenants)}); a list has one: set "
                                "`lieutenant: false` on the one replaced"))
    if problems:
        raise ArmyError(source, problems)


def victory_points(army: ArmyList) -> int:
    """The Retreat! check's Victory Points: the summed cost of the troopers not in a Null state (troopers still off
    the table count: they are not Null). Whether they put the army in Retreat! is not in the rules.

    A 300-point list with troopers of 40 and 25 points Dead and one of 18 Unconscious has 217."""
    check_list_for_orders(army)
    return sum(army.option_of(trooper).cost for trooper in army.troopers if not trooper.null)


def in_retreat(army: ArmyList, below: int) -> bool:
    """Retreat! by a threshold the caller gives (the rules give none): the army's Victory Points are below `below`."""
    return victory_points(army) < below


def _null_state(trooper: ArmyTrooper) -> str | None:
    return next((state for state in trooper.state if state in NULL_STATES), None)


def _impetuous_deployment(trooper: ArmyTrooper) -> bool:
    """Deployed this turn through its Impetuous order: off the table at the Tactical phase."""
    return IMPETUOUS_DEPLOYMENT in trooper.state


def _on_table_at_count(trooper: ArmyTrooper) -> bool:
    """Deployed (as a model or a marker) at the Tactical phase and not in a Null state."""
    return trooper.deployed and not _impetuous_deployment(trooper) and not trooper.null


def _why_not_in_command(trooper: ArmyTrooper) -> str | None:
    """Why this Lieutenant puts its army in Loss of Lieutenant, or None."""
    null = _null_state(trooper)
    if null is not None:
        return f"the Lieutenant {trooper.id} is {null}"
    if not trooper.deployed:
        return f"the Lieutenant {trooper.id} is not deployed"
    if _impetuous_deployment(trooper):
        return f"the Lieutenant {trooper.id} was not on the table at the Tactical phase (deployed by its Impetuous " \
               "order)"
    if "isolated" in trooper.state:
        return f"the Lieutenant {trooper.id} is isolated"
    return None


def lieutenant_check(army: ArmyList) -> LieutenantCheck:
    """Step 1.2: the army is in Loss of Lieutenant when its Lieutenant is not deployed, in a Null state or
    Isolated at the active player's Tactical phase; a list with no Lieutenant is too."""
    check_list_for_orders(army)
    lieutenant = next((trooper for trooper in army.troopers if army.is_lieutenant(trooper)), None)
    if lieutenant is None:
        return LieutenantCheck(None, True, "the list has no Lieutenant")
    reason = _why_not_in_command(lieutenant)
    return LieutenantCheck(lieutenant.id, reason is not None, reason)


def _irregular_now(army: ArmyList, trooper: ArmyTrooper, loss_of_lieutenant: bool) -> bool:
    """Irregular in its profile, or every trooper while in Loss of Lieutenant."""
    return loss_of_lieutenant or army.unit_of(trooper).training == "irregular"


def _impetuous(army: ArmyList, trooper: ArmyTrooper) -> bool:
    return army.unit_of(trooper).impetuous != "none"


def _joins_after_impetuous_phase(trooper: ArmyTrooper, retreat: bool, turn_start: bool) -> bool:
    """The exception: a trooper deployed through its Impetuous order brings its own order for this turn (an
    assumption on when: after the Impetuous phase, so not in the turn-start count, and never in Retreat!)."""
    return _impetuous_deployment(trooper) and not trooper.null and not retreat and not turn_start


def _generates_impetuous_order(army: ArmyList, trooper: ArmyTrooper, retreat: bool) -> bool:
    """Deployed, not Null and Impetuous; or not yet deployed but about to be, through this very order."""
    if not _impetuous(army, trooper) or trooper.null:
        return False
    return _on_table_at_count(trooper) or (_impetuous_deployment(trooper) and not retreat)


def _pools(army: ArmyList, regulars: list[ArmyTrooper], late: set[str]) -> tuple[OrderPool, ...]:
    """One pool per combat group of the list, empty ones included."""
    groups = sorted({trooper.group for trooper in army.troopers})
    return tuple(OrderPool(group, sum(t.group == group for t in regulars),
                           tuple(t.id for t in regulars if t.group == group),
                           tuple(t.id for t in regulars if t.group == group and t.id in late)) for group in groups)


def _notes(army: ArmyList, retreat: bool, turn_start: bool) -> tuple[str, ...]:
    marked = [trooper.id for trooper in army.troopers if _impetuous_deployment(trooper) and not trooper.null]
    if not marked:
        return ()
    if retreat:
        return (f"{', '.join(marked)}: marked {IMPETUOUS_DEPLOYMENT}, but there is no Impetuous phase in Retreat!: "
                "counted as not deployed",)
    if turn_start:
        return (f"{', '.join(marked)}: off the table at the Tactical phase; only the Impetuous order that deploys "
                "each one counts yet",)
    return (IMPETUOUS_DEPLOYMENT_NOTE,)


def count_orders(army: ArmyList, retreat: bool = False, turn_start: bool = False) -> OrderCount:
    """Step 1.3, the orders of the active player's turn.

    - Each deployed trooper not in a Null state gives one order: Regular into its combat group's pool if it is
      Regular now, else Irregular, for itself only. Troopers on the table as markers (Camouflage, TO Camouflage,
      Impersonation) count; troopers not yet deployed (Airborne Deployment, hidden deployment) do not.
    - Each deployed, non-Null Impetuous or Extremely Impetuous trooper gives one Impetuous order more.
    - The Lieutenant gives one Lieutenant order, unless the army is in Retreat! or Loss of Lieutenant.
    - Loss of Lieutenant (step 1.2) makes every trooper Irregular for this turn.
    - Retreat! (`retreat`: the caller's call, the threshold is not in the rules): no Lieutenant order and no
      Impetuous phase; the Impetuous orders are listed as `impetuous_unusable`, not as `impetuous`.
    - Exception (an assumption on timing): a trooper marked `deployed_by_impetuous_order` was off the table at the
      count; its Impetuous order deploys it, and then its own order joins its pool (or is its Irregular order) for
      this turn. `turn_start=True` gives the count at step 1.3 itself, before the Impetuous phase, without those.
    """
    check_list_for_orders(army)
    command = lieutenant_check(army)
    lol = command.loss_of_lieutenant
    late = {t.id for t in army.troopers if _joins_after_impetuous_phase(t, retreat, turn_start)}
    giving = [t for t in army.troopers if _on_table_at_count(t) or t.id in late]
    regulars = [t for t in giving if not _irregular_now(army, t, lol)]
    impetuous = tuple(t.id for t in army.troopers if _generates_impetuous_order(army, t, retreat))
    reasons = ((f"Loss of Lieutenant: {command.reason}: every trooper is Irregular this turn, no Lieutenant "
                "order",) if lol else ()) + ((RETREAT_NOTE,) if retreat else ())
    return OrderCount(
        loss_of_lieutenant=lol, retreat=retreat, turn_start=turn_start, lieutenant=command.lieutenant,
        pools=_pools(army, regulars, late), irregular=tuple(t.id for t in giving if _irregular_now(army, t, lol)),
        impetuous=() if retreat else impetuous, impetuous_unusable=impetuous if retreat else (),
        lieutenant_order=0 if (lol or retreat) else 1, victory_points=victory_points(army), reasons=reasons,
        notes=_notes(army, retreat, turn_start))


def may_spend(count: OrderCount, group: int, trooper: ArmyTrooper) -> bool:
    """A Regular order of group `group`'s pool may go to any trooper of that group (Irregular ones included), as
    many to one trooper as the pool holds; never to a trooper of another group."""
    pool = count.pool(group)
    return pool is not None and pool.regular > 0 and trooper.group == group


def spend_regular(count: OrderCount, group: int, trooper: ArmyTrooper) -> OrderCount:
    """The count after one Regular order of group `group`'s pool is spent on `trooper`; LofkitError if it may not
    be (see `may_spend`)."""
    if may_spend(count, group, trooper):
        pools = tuple(replace(pool, regular=pool.regular - 1) if pool.group == group else pool
                      for pool in count.pools)
        return replace(count, pools=pools)
    if count.pool(group) is None:
        raise LofkitError(f"the list has no combat group {group}")
    if trooper.group != group:
        raise LofkitError(f"a Regular order of group {group}'s pool goes only to a trooper of group {group}; "
                          f"{trooper.id} is in group {trooper.group}")
    raise LofkitError(f"group {group}'s pool has no Regular order left")


def _why_not_lieutenant(army: ArmyList, trooper: ArmyTrooper) -> list[str]:
    """Why `trooper` cannot be named the new Lieutenant: its profile (`Unit.never_lieutenant`, the bar list building
    uses too), a Null state or Isolated, or (derived) not deployed."""
    reasons = list(army.unit_of(trooper).never_lieutenant)
    null = _null_state(trooper)
    if null is not None:
        reasons.append(f"it is {null} (a Null state)")
    if "isolated" in trooper.state:
        reasons.append("it is isolated")
    if not trooper.deployed:
        reasons.append("it is not deployed, and a Lieutenant off the table puts the next turn in Loss of Lieutenant "
                       "again")
    return reasons


def name_new_lieutenant(army: ArmyList, trooper_id: str) -> ArmyList:
    """The list with `trooper_id` as its Lieutenant, named at the end of a turn in Loss of Lieutenant (free, and
    optional: not naming one leaves the list as it is, and the next Tactical phase checks again).

    Refused (LofkitError, with every reason): the list is not in Loss of Lieutenant; a Remote or a trooper Irregular
    in its profile, as at list building (Loss of Lieutenant's Irregularity does not count); a trooper in a Null
    state or Isolated; and (derived) a trooper not deployed, which would put the next turn in Loss of Lieutenant at
    once. The rules do not ask for a Lieutenant option or skill. The former Lieutenant gets `lieutenant: false`, the
    new one `lieutenant: true`.
    """
    check_list_for_orders(army)
    trooper = army.trooper(trooper_id)
    if trooper is None:
        raise LofkitError(f"no trooper '{trooper_id}' in the list; ids: "
                          f"{', '.join(t.id for t in army.troopers) or 'none'}")
    command = lieutenant_check(army)
    if not command.loss_of_lieutenant:
        raise LofkitError(f"cannot name {trooper_id} Lieutenant: the list is not in Loss of Lieutenant "
                          f"({command.lieutenant} is its Lieutenant)")
    reasons = _why_not_lieutenant(army, trooper)
    if reasons:
        raise LofkitError(f"cannot name {trooper_id} Lieutenant: " + "; ".join(reasons))
    troopers = tuple(t.model_copy(update={"lieutenant": t.id == trooper_id})
                     if t.id == trooper_id or army.is_lieutenant(t) else t for t in army.troopers)
    return army.model_copy(update={"troopers": troopers})
