"""Army lists: unit profiles (with their option rows) and the troopers taken from them, read from YAML, JSON or
TOML files (`lofkit_army: 1`). A list carries its own profiles: lofkit holds no unit data.

Loading checks the file's shape (types, known keys, known skill names, unique ids); whether the list is legal
(points, AVA, SWC, combat groups, the Lieutenant, Remotes, Mercenaries, and troopers naming units and options the
list defines) is `listcheck`'s question, answered with every problem at once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from lofkit.errors import Problem, SceneError
from lofkit.scene.loading import read_document, validation_problems
from lofkit.scene.model import NOT_A_BOOL, Flag, Version, duplicate_ids
from lofkit.scene.silhouettes import SILHOUETTES

TroopType = Literal["LI", "MI", "HI", "SK", "WB", "REM", "TAG", "SU"]
Classification = Literal["garrison", "line", "specially_trained", "veteran", "elite", "headquarters", "mechanized",
                         "support", "mercenary"]
Training = Literal["regular", "irregular"]
Impetuous = Literal["none", "impetuous", "extremely_impetuous"]
TrooperState = Literal["dead", "unconscious", "sepsitorized", "isolated", "undeployed", "marker",
                       "deployed_by_impetuous_order"]
NULL_STATES = frozenset({"dead", "unconscious", "sepsitorized"})
"""The Null states: a trooper in one generates no orders, cannot react and is no Lieutenant."""
States = Annotated[
    tuple[TrooperState, ...],
    BeforeValidator(lambda value: (value,) if isinstance(value, str) else value),
    WithJsonSchema({"anyOf": [{"enum": list(get_args(TrooperState))},
                              {"type": "array", "items": {"enum": list(get_args(TrooperState))}}],
                    "description": "one state, or a list of them"}),
]
"""A trooper's states in a game: one (`state: unconscious`) or several."""
Ava = Annotated[int, Field(ge=0), NOT_A_BOOL] | Literal["total"]
"""How many troopers of a unit a list may hold: a number, or `total` (no limit)."""
SkillName = Literal["lieutenant", "hacker", "camouflage", "to_camouflage", "impersonation", "airborne_deployment",
                    "infiltration", "mechanized_deployment", "combat_jump", "strategos", "doctor"]
"""The special skills a unit or an option may list under `skills`: the ones the rules name. A closed list, so a
misspelt skill is refused at loading instead of silently not counting."""
SKILL_NAMES: tuple[str, ...] = get_args(SkillName)


def _known_skill(value: object) -> object:
    if isinstance(value, str) and value not in SKILL_NAMES:
        raise ValueError(f"unknown skill {value!r}; the skills lofkit knows: {', '.join(SKILL_NAMES)}")
    return value


Skills = Annotated[tuple[Annotated[SkillName, BeforeValidator(_known_skill)], ...],
                   Field(description="special skills, each one of the names lofkit knows")]
PROFILE_MAX = 30
"""The largest profile value (MOV, CC, BS, PH, WIP, ARM, BTS, W, STR) a list may give: real profiles stay near 20
and below, so a larger one is a typo."""


def _profile_range(least: int) -> BeforeValidator:
    """A profile value from `least` to `PROFILE_MAX`: a number out of range is said with the whole range (pydantic's
    constraints would name one bound)."""
    def check(value: object) -> object:
        if isinstance(value, int | float) and not isinstance(value, bool) and not least <= value <= PROFILE_MAX:
            raise ValueError(f"{value} is out of range: this profile value is {least} to {PROFILE_MAX}; give the "
                             "value from the unit's profile")
        return value
    return BeforeValidator(check)


Attribute = Annotated[int, Field(ge=0, le=PROFILE_MAX), _profile_range(0), NOT_A_BOOL]
"""A value of a unit's profile, 0..PROFILE_MAX."""
Wounds = Annotated[int, Field(ge=1, le=PROFILE_MAX), _profile_range(1), NOT_A_BOOL]
"""W or STR, 1..PROFILE_MAX."""


class ArmyError(SceneError):
    """An army list file that cannot be used; carries every problem found (`where`: e.g. ``units.fusilier.bs``)."""

    def __init__(self, source: Path | str | None, problems: list[Problem]):
        super().__init__(source if source is not None else "<army>", problems)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Faction(_Model):
    name: str
    alien: Flag = False
    """The Combined Army and other alien factions: no Mercenaries unless their unit says so."""


class Option(_Model):
    """One option row of a profile: its cost and SWC belong to it, not to the unit."""

    name: str
    cost: Annotated[int, Field(ge=0), NOT_A_BOOL]
    swc: Annotated[float, NOT_A_BOOL] | str = 0.0
    """Support Weapon Cost, a multiple of 0.5; `"+X"` gives X extra SWC to the list instead (and costs 0)."""
    lieutenant: Flag = False
    """The Lieutenant option: a trooper taking it is the list's Lieutenant."""
    extra_swc_only_as_lieutenant: Flag = False
    """The extra SWC counts only while this trooper is the Lieutenant."""
    skills: Skills = ()
    """Special skills of this option row only: each row of a profile shows its own special skills and equipment,
    so only the troopers who take it have them."""

    @field_validator("swc")
    @classmethod
    def _half_points(cls, value: float | str) -> float | str:
        number = float(value[1:]) if isinstance(value, str) and value.startswith("+") else value
        try:
            number = float(number)
        except ValueError:
            raise ValueError(f"SWC {value!r}: give a number (0, 0.5, 1, ...) or an extra SWC like '+0.5'") from None
        if number < 0 or (2 * number) % 1:
            raise ValueError(f"SWC {value!r}: SWC comes in steps of 0.5 and is never negative")
        return value if isinstance(value, str) else number

    @property
    def lieutenant_option(self) -> bool:
        """A Lieutenant option: marked `lieutenant: true`, or with `lieutenant` among its own skills."""
        return self.lieutenant or "lieutenant" in self.skills

    @property
    def extra_swc(self) -> float:
        """The SWC this option adds to the list's allowance (`+X`), else 0."""
        return float(self.swc[1:]) if isinstance(self.swc, str) else 0.0

    @property
    def swc_used(self) -> float:
        """The SWC this option takes from the allowance (an extra-SWC option takes none)."""
        return 0.0 if isinstance(self.swc, str) else float(self.swc)


class Unit(_Model):
    """A unit's profile: every trooper of it shares these, and picks one of its `options`."""

    isc: str
    type: TroopType
    classification: Classification = "line"
    training: Training = "regular"
    impetuous: Impetuous = "none"
    special_character: Flag = False
    ava: Ava = "total"
    sectorial_ava: dict[str, Ava] = {}
    joins_alien_factions: Flag = False
    """A Mercenary unit that may join an alien faction's list anyway."""
    mov: tuple[Attribute, Attribute] = (4, 4)
    cc: Attribute = 0
    bs: Attribute = 0
    ph: Attribute = 0
    wip: Attribute = 0
    arm: Attribute = 0
    bts: Attribute = 0
    w: Wounds | None = None
    str_: Wounds | None = Field(None, alias="str")
    s: Annotated[int, NOT_A_BOOL] = 2
    skills: Skills = ()
    """Special skills every trooper of the unit has, whatever its option."""
    options: Annotated[tuple[Option, ...], Field(min_length=1)]

    @field_validator("s")
    @classmethod
    def _known_silhouette(cls, value: int) -> int:
        if value not in SILHOUETTES:
            raise ValueError(f"unknown silhouette {value}; use 1..8")
        return value

    @model_validator(mode="after")
    def _wounds_or_structure(self) -> Unit:
        if (self.w is None) == (self.str_ is None):
            raise ValueError("give `w` (wounds) or `str` (structure, for TAGs and Remotes), not both")
        if len({option.name for option in self.options}) != len(self.options):
            raise ValueError("two options of one unit share a name")
        return self

    def option(self, name: str) -> Option | None:
        return next((option for option in self.options if option.name == name), None)

    @property
    def never_lieutenant(self) -> tuple[str, ...]:
        """Why no trooper of this profile can be the Lieutenant, at list building or named after Loss of Lieutenant
        (docs/game.md): "A trooper whose profile is Irregular, or a Remote (REM), can never be the Lieutenant"."""
        reasons = []
        if self.type == "REM":
            reasons.append("it is a Remote (REM), and a Remote can never be the Lieutenant")
        if self.training == "irregular":
            reasons.append("it is Irregular in its profile, and an Irregular profile can never be the Lieutenant")
        return tuple(reasons)


class ArmyTrooper(_Model):
    """A trooper of the list: its unit and option, its combat group and, optionally, its state in a game."""

    id: Annotated[str, Field(min_length=1)]
    unit: str
    option: str
    group: Annotated[int, Field(ge=1), NOT_A_BOOL]
    state: States = ()
    lieutenant: Flag | None = None
    """Whether it is the Lieutenant; left out, its option says (`lieutenant: true`, or `lieutenant` among the
    option's skills). Set it to make a special character with the Lieutenant skill the Lieutenant, or to name a new
    one after Loss of Lieutenant."""

    @property
    def null(self) -> bool:
        return bool(NULL_STATES.intersection(self.state))

    @property
    def deployed(self) -> bool:
        """On the table, as a model or as a marker."""
        return "undeployed" not in self.state


class ArmyList(_Model):
    """An army list file (`lofkit_army: 1`)."""

    lofkit_army: Version
    name: str = "army"
    faction: Faction
    sectorial: str | None = None
    points: Annotated[int, Field(gt=0), NOT_A_BOOL]
    """The agreed points limit."""
    units: dict[str, Unit]
    troopers: tuple[ArmyTrooper, ...] = ()

    def unit_of(self, trooper: ArmyTrooper) -> Unit | None:
        return self.units.get(trooper.unit)

    def option_of(self, trooper: ArmyTrooper) -> Option | None:
        unit = self.unit_of(trooper)
        return unit.option(trooper.option) if unit is not None else None

    def skills_of(self, trooper: ArmyTrooper) -> frozenset[str]:
        """The trooper's special skills (docs/game.md, "Army lists"): "its unit's `skills` plus its option's
        `skills`", plus `lieutenant` when it takes a Lieutenant option. Every skill test asks this, never the unit
        alone."""
        unit, option = self.unit_of(trooper), self.option_of(trooper)
        skills = set(unit.skills) if unit is not None else set()
        if option is not None:
            skills.update(option.skills)
            if option.lieutenant_option:
                skills.add("lieutenant")
        return frozenset(skills)

    def is_lieutenant(self, trooper: ArmyTrooper) -> bool:
        """Its own `lieutenant:` if given, else whether its option is a Lieutenant option."""
        if trooper.lieutenant is not None:
            return trooper.lieutenant
        option = self.option_of(trooper)
        return option is not None and option.lieutenant_option

    def trooper(self, trooper_id: str) -> ArmyTrooper | None:
        return next((trooper for trooper in self.troopers if trooper.id == trooper_id), None)


def army_from_data(data: object, source: Path | str | None = None) -> ArmyList:
    """Validate already-parsed army-list data."""
    if not isinstance(data, dict):
        raise ArmyError(source, [Problem("(top)", "an army list is a mapping with keys like lofkit_army, faction, "
                                                  "points, units, troopers")])
    if "lofkit" in data and "lofkit_army" not in data:
        raise ArmyError(source, [Problem("(top)", "this is a scene (lofkit: 1), not an army list; give an army list "
                                                  "(lofkit_army: 1)")])
    try:
        army = ArmyList.model_validate(data)
    except ValidationError as exc:
        raise ArmyError(source, validation_problems(exc, "lofkit army schema")) from None
    twice = duplicate_ids({"troopers": army.troopers})
    if twice:
        raise ArmyError(source, twice)
    return army


def load_army(path: str | Path) -> ArmyList:
    """Read an army list: `.yaml`/`.yml`, `.json` or `.toml`."""
    path = Path(path)
    try:
        data = read_document(path)
    except SceneError as exc:
        raise ArmyError(path, exc.problems) from None
    return army_from_data(data, path)


def army_schema() -> dict:
    """JSON Schema (draft 2020-12) of an army-list file (shipped as army.schema.json)."""
    schema = ArmyList.model_json_schema(by_alias=True, mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "lofkit army list",
            **{key: value for key, value in schema.items() if key != "title"}}


def army_schema_json() -> str:
    return json.dumps(army_schema(), indent=2) + "\n"
