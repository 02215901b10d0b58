"""Reading scene files (YAML, JSON or TOML, by extension) into a validated `Scene`."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import yaml
from pydantic import ValidationError

from lofkit.errors import Problem, SceneError
from lofkit.scene.model import Scene, scene_problems
from lofkit.units import SCENE_UNITS

SCENE_SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml"}


class _UniqueKeys(yaml.SafeLoader):
    """YAML as `yaml.safe_load` reads it, but a key written twice in one mapping is an error (YAML keeps the last
    one without a word: a second `troopers:` block would silently replace the first)."""

    def construct_mapping(self, node, deep=False):
        first: dict = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, str | int | float | bool) and key in first:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key '{key}' is written twice (first on line {first[key] + 1}); keep one",
                    key_node.start_mark)
            first[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep)


def _unique_pairs(pairs: list) -> dict:
    """A JSON object whose keys are all different (JSON keeps the last of two without a word)."""
    keys = [key for key, _ in pairs]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise ValueError(f"the key '{twice[0]}' is written twice in one object; keep one")
    return dict(pairs)


def read_document(path: Path) -> object:
    """Parse a YAML, JSON or TOML file; syntax errors name the line."""
    kind = SCENE_SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise SceneError(path, [Problem("(file)", f"unknown extension '{path.suffix}'; use .yaml, .json or .toml")])
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark, as some Windows editors write, is no text
    except FileNotFoundError:
        raise SceneError(path, [Problem("(file)", "file not found")]) from None
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise SceneError(path, [Problem(f"line {line}", f"byte 0x{exc.object[exc.start]:02x} is not UTF-8 text; save "
                                                         "the file as UTF-8")]) from None
    except OSError as exc:
        raise SceneError(path, [Problem("(file)", f"cannot read the file: {exc}")]) from None
    try:
        if kind == "yaml":
            return yaml.load(text, Loader=_UniqueKeys)  # noqa: S506 - a SafeLoader
        if kind == "json":
            return json.loads(text, object_pairs_hook=_unique_pairs)
        return tomllib.loads(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(file)"
        raise SceneError(path, [Problem(where, f"not valid YAML: {exc.problem}")]) from None
    except json.JSONDecodeError as exc:
        raise SceneError(path, [Problem(f"line {exc.lineno}, column {exc.colno}", f"not valid JSON: {exc.msg}")]) from None
    except ValueError as exc:  # `_unique_pairs`
        raise SceneError(path, [Problem("(file)", f"not valid JSON: {exc}")]) from None
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise SceneError(path, [Problem("(file)", f"not valid {kind.upper()}: {exc}")]) from None


def place_of(loc: tuple) -> str:
    """('troopers', 2, 'silhouette') -> 'troopers[2].silhouette'."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif not str(part).startswith(("function-", "tagged-union", "union[", "tuple[", "float", "str", "int",
                                       "constrained-", "literal[")):
            text += f".{part}" if text else str(part)
    return text or "(top)"


def validation_problems(exc: ValidationError, schema_command: str = "lofkit schema") -> list[Problem]:
    """pydantic's errors as problems, each once, with its place; an unknown key names the command that prints the
    file format's schema."""
    def message(error: dict) -> str:
        if error["type"] == "extra_forbidden":
            return f"unknown key '{error['loc'][-1]}'; check its spelling against the file format (`{schema_command}`)"
        if error["type"] == "missing":
            return "required field is missing"
        if error["type"] in ("tuple_type", "list_type"):
            return f"give a list, written [...] (got {error['input']!r})"
        if error["type"] == "string_type" and type(error["input"]) in (int, float):  # `id: 12`, not `id: true`
            return (f"expected text, got the number {error['input']} (YAML reads unquoted digits as a number); put "
                    "it in quotes exactly as you mean it, e.g. \"12\" or \"007\"")
        return error["msg"].removeprefix("Value error, ")

    errors = exc.errors()
    places = [place_of(error["loc"]) for error in errors]
    typed = {place for place, error in zip(places, errors) if not error["type"].endswith("_type")}

    worded = {place for place, error in zip(places, errors) if error["type"] != "literal_error"}

    def misleading(place: str, error: dict) -> bool:
        """Another way of a union when one way took the value's type (its errors are at the place or inside it: a
        scale of [1, 0, 1] is a list with a bad item, not also "not a number"), or wanted a word (`ava: total`) when
        another way says what is wrong; or a list "too short after validation" because its items failed (their own
        messages say why)."""
        inside = any(other.startswith((place + "[", place + ".")) for other in places)
        if error["type"] == "literal_error":
            return place in worded
        if error["type"].endswith("_type"):
            return place in typed or inside
        return error["type"] == "too_short" and inside

    return list(dict.fromkeys(Problem(place, message(error)) for place, error in zip(places, errors)
                              if not misleading(place, error)))


def scene_from_data(data: object, source: Path | str | None = None) -> Scene:
    """Validate already-parsed scene data (a scene file's content as a dict) into a Scene.

    Parameters
    ----------
    data : dict
        The scene, as a scene file holds it (`lofkit: 1`, `table`, `terrain`, `troopers`, ...); bare numbers are in
        its `units` (mm by default), and a length may carry its own unit (``"8in"``).
    source : str, Path or None
        The file it came from: mesh and image paths are relative to its folder (the current folder when None),
        and errors name it.

    Returns
    -------
    Scene
        The validated scene, lengths in mm.

    Raises
    ------
    SceneError
        Every problem found, each at its place (``troopers[0].silhouette``).

    Examples
    --------
    >>> import lofkit
    >>> scene = lofkit.scene_from_data({"lofkit": 1, "units": "in", "troopers": [
    ...     {"id": "a", "side": "blue", "silhouette": 2, "position": [10, 10], "facing": 90},
    ...     {"id": "b", "side": "red", "silhouette": 2, "position": [10, "18in"], "facing": 270}]})
    >>> scene.troopers[1].position
    (254.0, 457.2)
    >>> lofkit.distance(lofkit.World.from_scene(scene), "a", "b").distance_mm
    178.2
    """
    if not isinstance(data, dict):
        raise SceneError(source, [Problem("(top)", "a scene is a mapping with keys like lofkit, table, terrain, troopers")])
    if "lofkit_army" in data and "lofkit" not in data:
        raise SceneError(source, [Problem("(top)", "this is an army list (lofkit_army), not a scene; give a scene file "
                                                   "(lofkit: 1)")])
    units = data.get("units", "mm")
    try:
        scene = Scene.model_validate(data, context={"units": units if units in SCENE_UNITS else "mm"})
    except ValidationError as exc:
        raise SceneError(source, validation_problems(exc)) from None
    if source is not None:
        scene._source = Path(source).resolve()
    problems = scene_problems(scene)
    if problems:
        raise SceneError(source, problems)
    return scene


def load_scene(path: str | Path) -> Scene:
    """Read and validate a scene file: `.yaml`/`.yml`, `.json` or `.toml` (no meshes are read yet).

    Parameters
    ----------
    path : str or Path
        The scene file.

    Returns
    -------
    Scene
        The validated scene, lengths in mm; `World.from_scene` compiles it for questions.

    Raises
    ------
    SceneError
        The file is missing, unreadable or invalid; its `problems` name each place (a line, or a key's path).

    Examples
    --------
    >>> import lofkit
    >>> scene = lofkit.load_scene("examples/quickstart.yaml")
    >>> [piece.id for piece in scene.terrain], scene.troopers[0].z
    (['hab-block', 'low-wall', 'pillar', 'rubble', 'smoke'], 'auto')
    """
    path = Path(path)
    return scene_from_data(read_document(path), path)


def scene_data(scene: Scene, absolute: bool = False) -> dict:
    """A scene as scene-file data, lengths in mm; with `absolute`, the files it names (meshes, the table's image)
    as absolute paths, so that the data can be written anywhere."""
    data = scene.model_dump(mode="json", exclude_none=True)
    data["units"] = "mm"
    if absolute:
        for piece in data["terrain"]:
            if "mesh" in piece:
                piece["mesh"] = str(scene.resolve(piece["mesh"]))
        if "image" in data["table"]:
            data["table"]["image"] = str(scene.resolve(data["table"]["image"]))
    return data


def relocated(scene: Scene, source: Path) -> Scene:
    """`scene` as if read from `source`: the files it names made absolute, so that they are still found (an imported
    scene opened from its save, whose scene file was written in a folder that is gone)."""
    return scene_from_data(scene_data(scene, absolute=True), source)
