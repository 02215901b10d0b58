"""AROs: who may declare one against an order, when, and which skills; and the army lists joined to the geometry.

The rules, in short:
- one ARO per reactive trooper per order, however many skills the order holds;
- a reactive trooper is eligible with LoF to the active trooper, or with the active trooper inside its ZoC (then
  only Change Facing or Reset), or through a skill usable without LoF;
- AROs are declared right after the order's first skill; a trooper eligible then that declares nothing has lost its
  ARO against this order; a trooper that becomes eligible only through the second skill declares right after it;
- only skills usable in ARO may be declared;
- every ARO is simultaneous with the order and with the other AROs: none may wait for another's outcome. Against a
  marker (Camouflage and the like) only Discover and Change Facing; anything else waits for a later order, after a
  successful Discover.

Eligibility comes in three kinds (`by`): "lof", "zoc" (the active trooper inside the reactor's ZoC, no LoF) and
"no_lof" (neither: only a skill usable without LoF). The functions over eligibility sets are pure; `match_armies`
and `join_armies` put the army lists' game states onto `lofkit.rules.aro`'s geometric answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from lofkit.errors import LofkitError, Problem
from lofkit.game.army import NULL_STATES, ArmyError, ArmyList, ArmyTrooper
from lofkit.game.skills import Catalogue, default_catalogue
from lofkit.rules.aro import AroResult, Reaction, allowed_reactions

KINDS = ("lof", "zoc", "no_lof")
"""How a reactive trooper is eligible: LoF, the active trooper inside its ZoC without LoF, or neither."""
MOMENTS = ("first", "second")
"""After which of the order's skills an ARO is declared."""


# ---------------------------------------------------------------------------------------------------------------
# Declaration: windows and checks over eligibility sets


@dataclass(frozen=True)
class Window:
    """When `trooper` may declare its one ARO against this order (`after` the first or the second skill), and how
    it is eligible then (`by`)."""

    trooper: str
    by: str
    after: str

    def to_dict(self) -> dict:
        return {"trooper": self.trooper, "by": self.by, "after": self.after}


def declaration_windows(eligible_after_first: Mapping[str, str],
                        eligible_after_second: Mapping[str, str] | None = None) -> tuple[Window, ...]:
    """Each eligible trooper's one moment to declare: right after the first skill if it is eligible then (whatever
    the second skill brings), else right after the second. Eligibility maps trooper id -> "lof", "zoc" or "no_lof";
    an order of one Entire Order skill has no second skill (None).

    >>> [(w.trooper, w.after) for w in declaration_windows({"a": "lof"}, {"a": "lof", "b": "zoc"})]
    [('a', 'first'), ('b', 'second')]
    """
    second = eligible_after_second or {}
    for by in (*eligible_after_first.values(), *second.values()):
        if by not in KINDS:
            raise ValueError(f"eligibility '{by}' is not one of {', '.join(KINDS)}")
    windows = [Window(trooper, by, "first") for trooper, by in eligible_after_first.items()]
    windows += [Window(trooper, by, "second") for trooper, by in second.items() if trooper not in eligible_after_first]
    return tuple(windows)


@dataclass(frozen=True)
class Declaration:
    """A reactive trooper's ARO: its `skill`, declared `after` the order's "first" or "second" skill. `waits_for`
    names another reactive trooper whose ARO must succeed first ("BS Attack if A's Discover succeeds"): never
    legal, since all AROs are simultaneous."""

    trooper: str
    skill: str
    after: str = "first"
    waits_for: str | None = None

    def to_dict(self) -> dict:
        return {"trooper": self.trooper, "skill": self.skill, "after": self.after, "waits_for": self.waits_for}


@dataclass(frozen=True)
class Refusal:
    """A declaration that may not stand, and why."""

    declaration: Declaration
    reason: str

    def to_dict(self) -> dict:
        return {**self.declaration.to_dict(), "reason": self.reason}


@dataclass(frozen=True)
class DeclarationCheck:
    """The AROs declared against one order: those that stand, those refused, and the troopers that could declare
    after the first skill, did not, and so have no ARO against this order (`lost`)."""

    accepted: tuple[Declaration, ...]
    refused: tuple[Refusal, ...]
    lost: tuple[str, ...]

    @property
    def legal(self) -> bool:
        return not self.refused

    def to_dict(self) -> dict:
        return {"legal": self.legal, "accepted": [d.to_dict() for d in self.accepted],
                "refused": [r.to_dict() for r in self.refused], "lost": list(self.lost)}


def check_declarations(windows: Sequence[Window], declarations: Sequence[Declaration], active_is_marker: bool = False,
                       catalogue: Catalogue | None = None) -> DeclarationCheck:
    """Check each declaration against its trooper's window, the one-ARO rule, simultaneity and the skill's ARO use
    (`active_is_marker`: the active trooper is still a marker). An unknown skill raises UnknownSkillError."""
    catalogue = catalogue or default_catalogue()
    by_trooper = {window.trooper: window for window in windows}
    accepted, refused, declared = [], [], set()
    for declaration in declarations:
        if declaration.after not in MOMENTS:
            raise ValueError(f"a declaration comes after the 'first' or 'second' skill, not '{declaration.after}'")
        reason = _refusal(by_trooper.get(declaration.trooper), declaration, declared, active_is_marker, catalogue)
        declared.add(declaration.trooper)
        if reason is None:
            accepted.append(declaration)
        else:
            refused.append(Refusal(declaration, reason))
    declared_first = {d.trooper for d in declarations if d.after == "first"}
    lost = tuple(w.trooper for w in windows if w.after == "first" and w.trooper not in declared_first)
    return DeclarationCheck(tuple(accepted), tuple(refused), lost)


def _refusal(window: Window | None, declaration: Declaration, declared: set[str], active_is_marker: bool,
             catalogue: Catalogue) -> str | None:
    """Why this declaration may not stand, or None."""
    name, skill = catalogue.skill(declaration.skill)
    if window is None:
        return "not eligible: no LoF to the active trooper, not within its ZoC, and no skill usable without LoF"
    if declaration.trooper in declared:
        return "one ARO per trooper per order: it has already declared one against this order"
    if window.after == "first" and declaration.after == "second":
        return ("it was eligible after the first skill and declared nothing then: it has no ARO against this order "
                "any more")
    if window.after == "second" and declaration.after == "first":
        return "not eligible after the first skill: it becomes eligible with the second and declares after it"
    if declaration.waits_for is not None:
        return (f"all AROs are simultaneous: it cannot wait for {declaration.waits_for}'s ARO to succeed; declare it "
                "against a later order")
    if not skill.aro:
        return f"{name} is not usable in ARO (usable: {', '.join(catalogue.aro_skills('lof'))})"
    if active_is_marker and not skill.against_marker:
        allowed = ", ".join(n for n, s in catalogue.skills.items() if s.aro and s.against_marker)
        return (f"against a marker only {allowed}; {name} waits for a later order, after a successful Discover")
    if not skill.usable_in_aro(window.by):
        return _not_by(name, window.by, catalogue)
    return None


def _not_by(name: str, by: str, catalogue: Catalogue) -> str:
    allowed = ", ".join(catalogue.aro_skills(by)) or "none"
    if by == "zoc":
        return f"{name} needs LoF; with the active trooper only inside its ZoC it may declare: {allowed}"
    return f"{name} needs LoF; with neither LoF nor ZoC it may declare only a skill usable without LoF: {allowed}"


# ---------------------------------------------------------------------------------------------------------------
# The army lists joined to the geometry


@dataclass(frozen=True)
class SideArmy:
    """The army list of one side of the scene, and the file it came from (for messages)."""

    side: str
    army: ArmyList
    source: str = "<army>"


@dataclass(frozen=True)
class Roster:
    """The army lists matched to a scene: each listed trooper on the table, by id, with its side, and warnings."""

    troopers: Mapping[str, ArmyTrooper]
    sides: Mapping[str, str]
    sources: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...]


def scene_sides(scene) -> list[str]:
    """The sides a scene knows: those of its troopers and of its deployment zones, in order of appearance."""
    sides = [t.side for t in scene.troopers if t.side is not None and not t.neutral]
    sides += [zone.side for zone in scene.deployment_zones]
    return list(dict.fromkeys(sides))


def match_armies(scene, armies: Sequence[SideArmy]) -> Roster:
    """Match each list's troopers to the scene's by id. A side the scene does not have, a side given twice, or a
    listed trooper the scene lacks (unless it is undeployed or in a Null state: off the table) or puts on another
    side is an error; a scene trooper its side's list leaves out is a warning (it reacts as the scene says)."""
    sides = scene_sides(scene)
    placed = {t.id: t for t in scene.troopers}
    troopers, owner, warnings, seen = {}, {}, [], set()
    for entry in armies:
        if entry.side not in sides:
            raise LofkitError(f"{entry.source}: the scene has no side '{entry.side}' (its sides: "
                              f"{', '.join(sides) or 'none'})")
        if entry.side in seen:
            raise LofkitError(f"{entry.source}: side '{entry.side}' has two army lists; give one per side")
        seen.add(entry.side)
        _check_ids(entry, placed)
        for trooper in entry.army.troopers:
            troopers[trooper.id], owner[trooper.id] = trooper, entry.side
        listed = {trooper.id for trooper in entry.army.troopers}
        missing = [t.id for t in scene.troopers if t.side == entry.side and not t.neutral and t.id not in listed]
        if missing:
            warnings.append(f"{entry.source}: on the table but not in the list (they react as the scene says): "
                            f"{', '.join(missing)}")
    return Roster(troopers, owner, tuple((a.side, a.source) for a in armies), tuple(warnings))


def _check_ids(entry: SideArmy, placed: Mapping) -> None:
    """Every listed trooper stands on the table on its list's side, unless it is off the table (undeployed, Null)."""
    problems = []
    for k, trooper in enumerate(entry.army.troopers):
        on_table = placed.get(trooper.id)
        if on_table is None and trooper.deployed and not trooper.null:
            ids = [t for t, p in placed.items() if p.side == entry.side]
            problems.append(Problem(f"troopers[{k}].id", f"'{trooper.id}' is not in the scene (side {entry.side} "
                                    f"there: {', '.join(ids) or 'none'}); give `state: undeployed` to a trooper "
                                    "not on the table yet"))
        elif on_table is not None and (on_table.side != entry.side or on_table.neutral):
            where = "neutral" if on_table.neutral else f"on side {on_table.side}"
            problems.append(Problem(f"troopers[{k}].id", f"'{trooper.id}' is {where} in the scene, not on side "
                                    f"{entry.side}"))
    if problems:
        raise ArmyError(entry.source, problems)


@dataclass(frozen=True)
class ArmyReaction:
    """A trooper that may react, how (`by`), and the skills it may declare; `geometry`: where it first could (None
    when it is eligible only through a skill usable without LoF)."""

    trooper: str
    by: str
    skills: tuple[str, ...]
    geometry: Reaction | None = None

    def to_dict(self) -> dict:
        where = self.geometry.to_dict() if self.geometry is not None else {
            "trooper": self.trooper, "allowed": list(self.skills), "point": None, "path_fraction": None,
            "witness": None}
        return {**where, "by": self.by, "skills": list(self.skills)}


@dataclass(frozen=True)
class CannotReact:
    """A trooper of a reactive side whose game state forbids any ARO."""

    trooper: str
    side: str
    state: tuple[str, ...]
    reason: str

    def to_dict(self) -> dict:
        return {"trooper": self.trooper, "side": self.side, "state": list(self.state), "reason": self.reason}


@dataclass(frozen=True)
class ArmyAroResult:
    """Who may react to the active trooper once the army lists' states are applied, and with which skills."""

    geometry: AroResult
    reactions: tuple[ArmyReaction, ...]
    cannot_react: tuple[CannotReact, ...]
    active_is_marker: bool
    armies: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...]

    def to_dict(self) -> dict:
        return {**self.geometry.to_dict(), "reactions": [r.to_dict() for r in self.reactions],
                "cannot_react": [c.to_dict() for c in self.cannot_react], "active_is_marker": self.active_is_marker,
                "armies": dict(self.armies), "warnings": list(self.warnings)}


def why_not(trooper: ArmyTrooper) -> str | None:
    """Why a trooper cannot declare an ARO (a Null state, or not deployed yet), or None."""
    null = [state for state in trooper.state if state in NULL_STATES]
    if null:
        return f"{null[0]}: a Null state"
    if not trooper.deployed:
        return "not deployed yet"
    return None


def join_armies(world, result: AroResult, roster: Roster, catalogue: Catalogue | None = None) -> ArmyAroResult:
    """`result` (from `lofkit.rules.aro.aro`) with the lists' states applied: Null and undeployed troopers of the
    reactive sides leave the reactions for `cannot_react`; each remaining reaction lists the catalogue's ARO skills
    its kind of eligibility allows (against a marker: only those usable against one)."""
    catalogue = catalogue or default_catalogue()
    active = result.active
    marker = _active_is_marker(world.scene, active, roster)
    warnings = list(roster.warnings) + _active_warnings(active, roster)
    reactions = []
    for reaction in result.reactions:
        trooper = roster.troopers.get(reaction.trooper)
        if trooper is None or why_not(trooper) is None:
            geometry = replace(reaction, allowed=allowed_reactions(reaction.by, marker))  # a marker by its list too
            reactions.append(ArmyReaction(reaction.trooper, reaction.by, catalogue.aro_skills(reaction.by, marker),
                                          geometry))
    reactions += _without_lof(world, active, {r.trooper for r in result.reactions}, roster, catalogue, marker)
    own_side = next((t.side for t in world.scene.troopers if t.id == active), None)
    unable = tuple(CannotReact(t.id, roster.sides[t.id], t.state, why_not(t)) for t in roster.troopers.values()
                   if roster.sides[t.id] != own_side and why_not(t) is not None)
    return ArmyAroResult(result, tuple(reactions), unable, marker, roster.sources, tuple(warnings))


def _active_is_marker(scene, active: str, roster: Roster) -> bool:
    """The active trooper stands as a marker: `marker: true` in the scene or `state: marker` in its list."""
    placed = next((t for t in scene.troopers if t.id == active), None)
    listed = roster.troopers.get(active)
    return bool((placed is not None and placed.marker) or (listed is not None and "marker" in listed.state))


def _active_warnings(active: str, roster: Roster) -> list[str]:
    trooper = roster.troopers.get(active)
    reason = why_not(trooper) if trooper is not None else None
    if reason is None:
        return []
    source = dict(roster.sources)[roster.sides[active]]
    return [f"{source}: the active trooper {active} is {reason}; answered as if it were on the table and active"]


def _without_lof(world, active: str, reacting: set[str], roster: Roster, catalogue: Catalogue,
                 marker: bool) -> list[ArmyReaction]:
    """Enemies with neither LoF nor ZoC that may still declare a skill usable without LoF (none in lofkit's own
    catalogue)."""
    skills = catalogue.aro_skills("no_lof", marker)
    if not skills:
        return []
    volumes = world.troopers
    a = volumes.index(active)
    found = []
    for b, trooper_id in enumerate(volumes.ids):
        listed = roster.troopers.get(trooper_id)
        if trooper_id in reacting or not volumes.enemies(a, b) or (listed is not None and why_not(listed)):
            continue
        found.append(ArmyReaction(trooper_id, "no_lof", skills))
    return found
