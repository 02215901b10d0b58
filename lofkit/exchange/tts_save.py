"""Reading a Tabletop Simulator save (JSON): its objects, where each stands on the table, and their cached meshes.

What is read: every object of `ObjectStates`, recursively through `ContainedObjects`. An object inside a bag is
on the table only when a bag around it (the nearest first) lists it in its `LuaScript` as a layout line
`--GUID,x,y,z,rx,ry,rz` (the way community Infinity maps keep terrain in a bag); that line then gives its place,
and the object keeps its own `scaleX/Y/Z`. Bags themselves and objects left inside bags are reported as skipped.

Meshes. `CustomMesh.MeshURL` is resolved in the local TTS model cache (the `Mods` or `Mods/Models` folder), where
TTS stores a download as `<the URL with every character that is not a letter or digit removed>.obj` (the rule the
community's backup tools use); an old `cloud-3.steamusercontent.com` URL and its newer
`steamusercontent-a.akamaihd.net` form name the same file, so both names are tried. A URL not found there is
reported as unresolved, never guessed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from lofkit.errors import LofkitError

BAGS = ("Bag", "Custom_Model_Bag", "Infinite_Bag", "Custom_Model_Infinite_Bag")
CONTAINERS = BAGS + ("Deck", "DeckCustom")
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_LAYOUT = re.compile(rf"^\s*--\s*([^\s,]+)\s*,\s*({_NUMBER})\s*,\s*({_NUMBER})\s*,\s*({_NUMBER})\s*,"
                     rf"\s*({_NUMBER})\s*,\s*({_NUMBER})\s*,\s*({_NUMBER})\s*$", re.MULTILINE)
_MARKUP = re.compile(r"\[(?:[0-9a-fA-F]{6}|-|/?[a-z]{1,3})\]")
_STEAM_HOSTS = ("http://cloud-3.steamusercontent.com/", "https://steamusercontent-a.akamaihd.net/")
SCALE_KEYS = ("scaleX", "scaleY", "scaleZ")


@dataclass(frozen=True)
class Placed:
    """One TTS object found in the save, with the transform that puts it on the table (None: not on the table)."""

    state: dict
    where: str
    transform: dict | None
    reason: str = ""

    @property
    def guid(self) -> str:
        return str(self.state.get("GUID", ""))

    @property
    def name(self) -> str:
        return _MARKUP.sub("", str(self.state.get("Nickname") or self.state.get("Name") or "")).strip()

    @property
    def text(self) -> str:
        return _MARKUP.sub("", f"{self.state.get('Nickname') or ''} {self.state.get('Description') or ''}")


def read_save(path: Path) -> dict:
    """The save's JSON; a file that is not a TTS save is an error saying what was expected."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("ObjectStates"), list):
        raise LofkitError(f"{path}: not a Tabletop Simulator save: it has no `ObjectStates` list at the top level")
    return data


def read_json(path: Path) -> object:
    """A JSON file as TTS writes a save (a byte-order mark allowed); an error names the file and what was expected."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise LofkitError(f"{path}: file not found") from None
    except UnicodeDecodeError:
        raise LofkitError(f"{path}: not a Tabletop Simulator save (not a JSON text file); a save is the .json "
                          "file in 'My Games/Tabletop Simulator/Saves'") from None
    except OSError as exc:
        raise LofkitError(f"{path}: cannot read the file ({exc.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise LofkitError(f"{path}: line {exc.lineno}, column {exc.colno}: not valid JSON ({exc.msg}); a Tabletop "
                          "Simulator save is the .json file in 'My Games/Tabletop Simulator/Saves'") from None


def layout_lines(lua: str) -> dict[str, tuple[float, ...]]:
    """`--GUID,x,y,z,rx,ry,rz` lines of a bag's LuaScript: GUID -> (x, y, z, rx, ry, rz)."""
    return {m.group(1): tuple(float(v) for v in m.groups()[1:]) for m in _LAYOUT.finditer(lua or "")}


def placed_objects(states: list, where: str = "ObjectStates", layouts: tuple[dict, ...] = ()) -> list[Placed]:
    """Every object in `states` and in the containers inside them, with where it stands on the table."""
    found = []
    for i, state in enumerate(states):
        spot = f"{where}[{i}]"
        if not isinstance(state, dict):
            continue
        name = str(state.get("Name", ""))
        for k, child in enumerate(state.get("ChildObjects") or []):
            if isinstance(child, dict):
                found.append(Placed(child, f"{spot}.ChildObjects[{k}]", None,
                                    f"attached to {state.get('GUID', '?')} (ChildObjects): not imported"))
        contained = state.get("ContainedObjects") or []
        if name in CONTAINERS or contained:
            found.append(Placed(state, spot, None, f"a container ({name or 'no Name'})"))
            inner = (layout_lines(str(state.get("LuaScript") or "")),) + layouts
            found.extend(placed_objects(contained if isinstance(contained, list) else [], f"{spot}.ContainedObjects",
                                        inner))
            continue
        if where == "ObjectStates":
            transform = state.get("Transform")
            found.append(Placed(state, spot, transform if isinstance(transform, dict) else None,
                                "" if isinstance(transform, dict) else "no Transform"))
            continue
        line = next((layout[state.get("GUID")] for layout in layouts if state.get("GUID") in layout), None)
        if line is None:
            found.append(Placed(state, spot, None, "inside a container, with no layout line for its GUID"))
            continue
        scales = state.get("Transform") if isinstance(state.get("Transform"), dict) else {}
        transform = dict(zip(("posX", "posY", "posZ", "rotX", "rotY", "rotZ"), line))
        transform.update({k: scales.get(k, 1.0) for k in SCALE_KEYS})
        found.append(Placed(state, spot, transform))
    return found


def cache_names(url: str) -> list[str]:
    """The file names TTS's model cache may hold for `url`: the URL with every character that is not a letter or
    digit removed, plus `.obj`, for both spellings of a Steam Cloud URL (letters beyond ASCII, rare in a URL, are
    tried both kept and removed)."""
    url = url.strip()
    spellings = [url]
    for old, new in (_STEAM_HOSTS, _STEAM_HOSTS[::-1]):
        if url.startswith(old):
            spellings.append(new + url[len(old):])
    names = [re.sub(pattern, "", s) + ".obj" for s in spellings for pattern in (r"[\W_]", r"[^A-Za-z0-9]")]
    return list(dict.fromkeys(names))


def resolve_mesh(url: str, cache: Path | None) -> Path | None:
    """The cached OBJ for `url` in `cache` (the Mods folder or its Models folder), or None."""
    if cache is None:
        return None
    for folder in (cache, cache / "Models", cache / "Mods" / "Models"):
        for name in cache_names(url):
            if (folder / name).is_file():
                return folder / name
    return None


def mesh_url(state: dict) -> str:
    """The object's `CustomMesh.MeshURL`, or '' when it has none."""
    mesh = state.get("CustomMesh")
    return str(mesh.get("MeshURL") or "").strip() if isinstance(mesh, dict) else ""
