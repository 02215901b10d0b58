"""Is an army list legal? Every rule of list building checked at once, each broken one a problem with its `rule`,
its place in the file and the numbers:

- points: the options' costs add up to at most the agreed points;
- ava: at most AVA troopers of one unit (ISC), whatever their options; `total` has no limit; a sectorial list
  uses the unit's sectorial AVA where it gives one;
- swc: the options' SWC adds up to at most the allowance, points / 50 exactly (225 points: 4.5), plus every extra
  SWC (`+X`) in the list; an extra marked `extra_swc_only_as_lieutenant` counts only for the Lieutenant;
- combat_group: at most 10 troopers in a combat group, every trooper counted;
- lieutenant: exactly one Lieutenant, from a Lieutenant option or a special character with the Lieutenant skill,
  and never an Irregular or a Remote profile (each reason a problem of its own);
- remote: a Remote (REM) needs a TAG or a trooper with the Hacker skill (its unit's or its option's) somewhere in
  the list;
- mercenary: no Mercenary in an alien faction's list unless its unit says it may join one;
- unit, option: a trooper must name a unit and an option the list defines.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from lofkit.game.army import ArmyList, ArmyTrooper

POINTS_PER_SWC = 50
"""The SWC allowance is one per 50 points of the agreed limit, exactly."""
MAX_GROUP = 10
"""The most troopers in one combat group."""


@dataclass(frozen=True)
class ListProblem:
    rule: str
    where: str
    message: str

    def to_dict(self) -> dict:
        return {"rule": self.rule, "where": self.where, "message": self.message}


@dataclass(frozen=True)
class ListCheck:
    """The answer of `lofkit army check`."""

    name: str
    points: int
    points_limit: int
    swc: float
    swc_limit: float
    groups: tuple[tuple[int, tuple[str, ...]], ...]
    lieutenant: str | None
    problems: tuple[ListProblem, ...]

    @property
    def valid(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        return {"valid": self.valid, "name": self.name, "points": self.points, "points_limit": self.points_limit,
                "swc": self.swc, "swc_limit": self.swc_limit,
                "groups": [{"group": group, "troopers": list(ids)} for group, ids in self.groups],
                "lieutenant": self.lieutenant, "problems": [problem.to_dict() for problem in self.problems]}


def _references(army: ArmyList) -> list[ListProblem]:
    problems = []
    for k, trooper in enumerate(army.troopers):
        unit = army.unit_of(trooper)
        if unit is None:
            problems.append(ListProblem("unit", f"troopers[{k}].unit", f"{trooper.id}: no unit '{trooper.unit}' in "
                                        f"the list's units ({', '.join(army.units) or 'none'})"))
        elif unit.option(trooper.option) is None:
            problems.append(ListProblem("option", f"troopers[{k}].option", f"{trooper.id}: unit '{trooper.unit}' "
                                        f"has no option '{trooper.option}' ({', '.join(o.name for o in unit.options)})"))
    return problems


def points_spent(army: ArmyList) -> int:
    return sum(option.cost for option in map(army.option_of, army.troopers) if option is not None)


def swc_allowance(army: ArmyList) -> float:
    """points / 50, plus the extra SWC of the list's options (a Lieutenant-only extra while its trooper is the
    Lieutenant)."""
    extra = 0.0
    for trooper in army.troopers:
        option = army.option_of(trooper)
        if option is not None and (not option.extra_swc_only_as_lieutenant or army.is_lieutenant(trooper)):
            extra += option.extra_swc
    return army.points / POINTS_PER_SWC + extra


def swc_spent(army: ArmyList) -> float:
    return sum(option.swc_used for option in map(army.option_of, army.troopers) if option is not None)


def _ava_problems(army: ArmyList) -> list[ListProblem]:
    taken = Counter(unit.isc for unit in map(army.unit_of, army.troopers) if unit is not None)
    problems = []
    for name, unit in army.units.items():
        ava = unit.sectorial_ava.get(army.sectorial, unit.ava) if army.sectorial else unit.ava
        if ava != "total" and taken[unit.isc] > ava:
            which = f"sectorial AVA in {army.sectorial}" if army.sectorial in unit.sectorial_ava else "AVA"
            problems.append(ListProblem("ava", f"units.{name}.ava", f"{taken[unit.isc]} troopers of {unit.isc}; its "
                                        f"{which} is {ava}"))
    return problems


def combat_groups(army: ArmyList) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """Each combat group with its troopers' ids, in group order."""
    groups: dict[int, list[str]] = {}
    for trooper in army.troopers:
        groups.setdefault(trooper.group, []).append(trooper.id)
    return tuple((group, tuple(groups[group])) for group in sorted(groups))


def lieutenant_bars(army: ArmyList, trooper: ArmyTrooper) -> list[str]:
    """Why this trooper cannot be the list's Lieutenant, each reason after its id ("rem-1: ..."); none when it can.

    docs/game.md ("Army lists"): "The Lieutenant comes from an option marked `lieutenant: true` (or with `lieutenant`
    among the option's skills), or is a special character whose profile has the Lieutenant skill", and never a
    profile that is Irregular or a Remote, the bar a new Lieutenant meets too (`Unit.never_lieutenant`)."""
    unit, option = army.unit_of(trooper), army.option_of(trooper)
    if unit is None or option is None:
        return []  # reported as `unit` or `option`
    reasons = [f"{trooper.id}: {why}" for why in unit.never_lieutenant]
    if option.lieutenant_option:
        return reasons
    if not unit.special_character:
        reasons.append(f"{trooper.id}: only a trooper taking a Lieutenant option (`lieutenant: true`, or `lieutenant` "
                       "in the option's skills) or a special character with the Lieutenant skill can be the "
                       "Lieutenant")
    elif "lieutenant" not in army.skills_of(trooper):
        reasons.append(f"{trooper.id}: a special character can be the Lieutenant only when its profile has the "
                       "Lieutenant skill (`lieutenant` in its unit's or option's skills)")
    return reasons


def _lieutenant_problems(army: ArmyList) -> list[ListProblem]:
    lieutenants = [(k, t) for k, t in enumerate(army.troopers) if army.is_lieutenant(t)]
    problems = []
    if len(lieutenants) != 1:
        named = ", ".join(t.id for _, t in lieutenants)
        problems.append(ListProblem("lieutenant", "troopers", f"a list has exactly one Lieutenant; this one has "
                                    f"{len(lieutenants)}{': ' + named if named else ''}"))
    for k, trooper in lieutenants:
        where = f"troopers[{k}].{'lieutenant' if trooper.lieutenant else 'option'}"
        problems += [ListProblem("lieutenant", where, why) for why in lieutenant_bars(army, trooper)]
    return problems


def _remote_problems(army: ArmyList) -> list[ListProblem]:
    """docs/game.md ("Army lists"): "a list with a Remote (REM) needs a TAG or a trooper with the Hacker skill
    somewhere in it", the trooper's own skills (`ArmyList.skills_of`) deciding."""
    def unit_type(trooper: ArmyTrooper) -> str | None:
        unit = army.unit_of(trooper)
        return unit.type if unit is not None else None

    remotes = [t.id for t in army.troopers if unit_type(t) == "REM"]
    if remotes and not any(unit_type(t) == "TAG" or "hacker" in army.skills_of(t) for t in army.troopers):
        return [ListProblem("remote", "troopers", f"Remotes ({', '.join(remotes)}) need a TAG or a trooper with the "
                            "Hacker skill (`hacker` in its unit's or its option's skills) in the list (in any combat "
                            "group)")]
    return []


def _mercenary_problems(army: ArmyList) -> list[ListProblem]:
    if not army.faction.alien:
        return []
    return [ListProblem("mercenary", f"troopers[{k}].unit", f"{t.id}: {army.faction.name} is an alien faction and "
                        f"{u.isc} are Mercenaries (give the unit `joins_alien_factions: true` if it says it may)")
            for k, t in enumerate(army.troopers)
            if (u := army.unit_of(t)) is not None and u.classification == "mercenary" and not u.joins_alien_factions]


def check_list(army: ArmyList) -> ListCheck:
    """Every rule of list building (see the module docstring), each broken one a problem."""
    problems = _references(army)
    points, swc, swc_limit = points_spent(army), swc_spent(army), swc_allowance(army)
    if points > army.points:
        problems.append(ListProblem("points", "points", f"the troopers cost {points} points; the limit is "
                                    f"{army.points} ({points - army.points} over)"))
    problems += _ava_problems(army)
    if swc > swc_limit:
        problems.append(ListProblem("swc", "troopers", f"the options take {swc:g} SWC; the allowance is {swc_limit:g} "
                                    f"({army.points} points / {POINTS_PER_SWC} plus extra SWC)"))
    groups = combat_groups(army)
    problems += [ListProblem("combat_group", f"group {group}", f"{len(ids)} troopers; a combat group holds at most "
                             f"{MAX_GROUP}: move {len(ids) - MAX_GROUP} to another") for group, ids in groups
                 if len(ids) > MAX_GROUP]
    problems += _lieutenant_problems(army) + _remote_problems(army) + _mercenary_problems(army)
    lieutenants = [t.id for t in army.troopers if army.is_lieutenant(t)]
    return ListCheck(army.name, points, army.points, swc, swc_limit, groups,
                     lieutenants[0] if len(lieutenants) == 1 else None, tuple(problems))
