"""Army lists for the game tests, from plain dicts: a generic unit and a list builder."""

from __future__ import annotations

from lofkit.game.army import ArmyList, army_from_data


def unit(isc: str = "Line Trooper", **fields) -> dict:
    """A Regular LI unit, S2, WIP 13, with a 10-point rifle, a 10-point Lieutenant option and a 1-SWC heavy gun."""
    return {"isc": isc, "type": "LI", "classification": "line", "training": "regular", "ava": "total",
            "mov": [4, 4], "cc": 13, "bs": 12, "ph": 10, "wip": 13, "arm": 1, "bts": 0, "w": 1, "s": 2,
            "options": [{"name": "Rifle", "cost": 10, "swc": 0}, {"name": "Lieutenant", "cost": 10, "swc": 0,
                                                                  "lieutenant": True},
                        {"name": "Heavy Gun", "cost": 20, "swc": 1}], **fields}


def trooper(trooper_id: str, group: int = 1, option: str = "Rifle", unit_name: str = "line", **fields) -> dict:
    return {"id": trooper_id, "unit": unit_name, "option": option, "group": group, **fields}


def army_data(troopers, units=None, points: int = 300, **fields) -> dict:
    """A list of `troopers` (dicts, see `trooper`) of `units` (default: {"line": unit()})."""
    return {"lofkit_army": 1, "name": "test list", "faction": {"name": "testers"}, "points": points,
            "units": units if units is not None else {"line": unit()}, "troopers": list(troopers), **fields}


def build_army(troopers, units=None, points: int = 300, **fields) -> ArmyList:
    return army_from_data(army_data(troopers, units, points, **fields))


def regulars(count: int, group: int = 1, first: int = 1, lieutenant: int | None = None) -> list[dict]:
    """`count` Regular troopers t<first>.. in `group`; the one numbered `lieutenant` takes the Lieutenant option."""
    return [trooper(f"t{k}", group, "Lieutenant" if k == lieutenant else "Rifle") for k in range(first, first + count)]
