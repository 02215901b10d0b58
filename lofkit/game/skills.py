"""The skill catalogue (`skills.yaml`: each common skill's category and ARO use) and what one order may hold.

An order is one Entire Order skill, or two Short Movement skills, or one Short Movement skill and one Short skill
in either order. Everything in an order happens at once, whatever the order of declaration. Which skill is in which
category is not in the rules: the catalogue is data, and marks each of its values that is an assumption.

A lone skill pairs with Idle, a Short Movement skill here: "BS Attack" alone is the order "BS Attack, Idle", and
"Move" alone is "Move, Idle".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from lofkit.errors import LofkitError, Problem, SceneError
from lofkit.scene.loading import place_of
from lofkit.scene.model import Flag, Version

Category = Literal["short_movement", "short", "entire_order"]
Value = Literal["category", "aro", "needs_lof", "zoc", "against_marker"]
IDLE = "Idle"
"""The skill a lone skill pairs with."""
CATEGORY_NAMES = {"short_movement": "Short Movement", "short": "Short", "entire_order": "Entire Order"}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Skill(_Model):
    """One catalogue row: `assumed` names the values the rules do not give."""

    category: Category
    aro: Flag
    """Usable as an ARO."""
    needs_lof: Flag
    """As an ARO, needs LoF to the active trooper (a `zoc` skill: or the active trooper inside the reactor's ZoC);
    false: usable without LoF, so a trooper may declare it even with neither LoF nor ZoC."""
    zoc: Flag = False
    """As an ARO, usable without LoF when the active trooper is inside the reactor's ZoC."""
    against_marker: Flag = False
    """As an ARO, usable against an active trooper that is still a marker (Camouflage and the like)."""
    assumed: tuple[Value, ...] = ()
    note: str = ""

    def usable_in_aro(self, by: str, active_is_marker: bool = False) -> bool:
        """Whether a trooper eligible `by` "lof", "zoc" or "no_lof" may declare this skill as its ARO."""
        if not self.aro or (active_is_marker and not self.against_marker):
            return False
        if by == "lof":
            return True
        return not self.needs_lof or (by == "zoc" and self.zoc)


class Catalogue(_Model):
    """The skill catalogue file (`lofkit_skills: 1`): skills by name."""

    lofkit_skills: Version
    skills: dict[str, Skill]

    @model_validator(mode="after")
    def _idle_pairs(self) -> Catalogue:
        idle = self.skills.get(IDLE)
        if idle is None or idle.category != "short_movement":
            raise ValueError(f"the catalogue needs '{IDLE}' as a short_movement skill: a lone skill pairs with it")
        return self

    def skill(self, name: str) -> tuple[str, Skill]:
        """The catalogue's name and row for `name`, matched whatever its case, spaces, '-' or '_'."""
        wanted = _folded(name)
        for known, skill in self.skills.items():
            if _folded(known) == wanted:
                return known, skill
        raise UnknownSkillError(name, list(self.skills))

    def aro_skills(self, by: str, active_is_marker: bool = False) -> tuple[str, ...]:
        """The skills a trooper eligible `by` "lof", "zoc" or "no_lof" may declare as its ARO, in catalogue order."""
        return tuple(name for name, skill in self.skills.items() if skill.usable_in_aro(by, active_is_marker))

    @property
    def usable_without_lof(self) -> tuple[str, ...]:
        """ARO skills that need no LoF: any trooper may declare one, with neither LoF nor ZoC."""
        return self.aro_skills("no_lof")

    def assumptions(self) -> dict[str, tuple[str, ...]]:
        """Skill name -> the values of its row that are lofkit's assumptions."""
        return {name: skill.assumed for name, skill in self.skills.items() if skill.assumed}


class CatalogueError(SceneError):
    """A skill catalogue that cannot be used; carries every problem found (`where`: e.g. ``skills.Move.aro``)."""

    def __init__(self, source: Path | str | None, problems: list[Problem]):
        super().__init__(source if source is not None else "<skills>", problems)


class UnknownSkillError(LofkitError):
    """A skill name the catalogue does not hold."""

    def __init__(self, name: str, known: list[str]):
        self.name, self.known = name, list(known)
        super().__init__(f"unknown skill '{name}'; known skills: {', '.join(known)}")

    def __reduce__(self):
        return type(self), (self.name, self.known)


def _folded(name: str) -> str:
    return " ".join(re.split(r"[\s_-]+", name.strip().lower())).strip()


def catalogue_from_data(data: object, source: Path | str | None = None) -> Catalogue:
    """Validate already-parsed catalogue data; every problem is named with its place."""
    try:
        return Catalogue.model_validate(data)
    except ValidationError as exc:
        problems = [Problem(place_of(e["loc"]), e["msg"].removeprefix("Value error, ")) for e in exc.errors()]
        raise CatalogueError(source, problems) from None


def load_catalogue(path: Path | str) -> Catalogue:
    """A skill catalogue from a YAML file."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise CatalogueError(path, [Problem("(file)", f"cannot read the skill catalogue: {exc}")]) from None
    return catalogue_from_data(data, path)


@cache
def default_catalogue() -> Catalogue:
    """lofkit's own catalogue, `lofkit/game/skills.yaml`."""
    text = resources.files("lofkit.game").joinpath("skills.yaml").read_text(encoding="utf-8")
    return catalogue_from_data(yaml.safe_load(text), "lofkit/game/skills.yaml")


@dataclass(frozen=True)
class OrderCheck:
    """Whether the skills make one legal order; `skills` and `categories` are the order as played (a lone skill
    with the Idle it pairs with, `idle_added`)."""

    legal: bool
    skills: tuple[str, ...]
    categories: tuple[str, ...]
    reason: str
    idle_added: bool = False

    def to_dict(self) -> dict:
        return {"legal": self.legal, "categories": list(self.categories), "reason": self.reason,
                "skills": list(self.skills), "idle_added": self.idle_added}


def parse_skills(texts: Iterable[str]) -> list[str]:
    """'Move, BS Attack' (one text or several) -> ['Move', 'BS Attack'], empty parts left out."""
    return [part.strip() for text in texts for part in text.split(",") if part.strip()]


def order_check(skills: Iterable[str], catalogue: Catalogue | None = None) -> OrderCheck:
    """Is this one legal order? One Entire Order skill; two Short Movement skills; a Short Movement and a Short skill
    in either order; a lone skill that is not Entire Order pairs with Idle. Unknown names raise UnknownSkillError.

    >>> order_check(["Move", "BS Attack"]).legal, order_check(["bs attack"]).skills
    (True, ('BS Attack', 'Idle'))
    >>> order_check(["BS Attack", "Discover"]).reason
    'BS Attack and Discover are both Short skills: a Short skill combines only with a Short Movement skill'
    """
    catalogue = catalogue or default_catalogue()
    named = list(skills)
    if not named:
        raise LofkitError("name the skills of the order, e.g. \"Move, BS Attack\"")
    rows = [catalogue.skill(name) for name in named]
    idle_added = len(rows) == 1 and rows[0][1].category != "entire_order"
    if idle_added:
        rows.append(catalogue.skill(IDLE))
    names = tuple(name for name, _ in rows)
    categories = tuple(skill.category for _, skill in rows)
    legal, reason = _judge(names, categories)
    if legal and idle_added:
        reason = f"a lone {CATEGORY_NAMES[categories[0]]} skill pairs with Idle: {reason}"
    return OrderCheck(legal, names, categories, reason, idle_added)


def _judge(names: tuple[str, ...], categories: tuple[str, ...]) -> tuple[bool, str]:
    """(legal, why) for an order of one or more known skills."""
    if len(names) > 2:
        return False, f"an order holds at most two skills, not {len(names)} ({', '.join(names)})"
    entire = [name for name, category in zip(names, categories) if category == "entire_order"]
    if entire and len(names) > 1:
        return False, f"{entire[0]} is an Entire Order skill: it takes the whole order and combines with no other skill"
    if entire:
        return True, f"{entire[0]} is an Entire Order skill, alone in its order"
    if categories == ("short", "short"):
        return False, (f"{names[0]} and {names[1]} are both Short skills: a Short skill combines only with a Short "
                       "Movement skill")
    if categories == ("short_movement", "short_movement"):
        return True, "two Short Movement skills"
    return True, "a Short Movement skill and a Short skill, in either order"
