"""The JSON Schema of the scene format, generated from the pydantic models (shipped as scene.schema.json)."""

from __future__ import annotations

import json

from lofkit.scene.model import LENGTH_SCHEMA, Scene


def _share_lengths(node: object) -> object:
    """Replace every inline length schema by a reference to one `$defs/Length`."""
    if node == LENGTH_SCHEMA:
        return {"$ref": "#/$defs/Length"}
    if isinstance(node, dict):
        return {key: _share_lengths(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_share_lengths(value) for value in node]
    return node


def scene_schema() -> dict:
    """The JSON Schema (draft 2020-12) of a scene file, as `lofkit schema` prints it.

    Returns
    -------
    dict
        The schema, generated from the `Scene` model; every length is a `$defs/Length` (a number, or a string
        with its unit).

    Examples
    --------
    >>> import lofkit
    >>> schema = lofkit.scene_schema()
    >>> schema["title"], sorted(schema["properties"])
    ('lofkit scene', ['base_contact_tolerance', 'deployment_zones', 'lofkit', 'table', 'terrain', 'troopers', 'units'])
    """
    schema = _share_lengths(Scene.model_json_schema(by_alias=True, mode="validation"))
    schema["$defs"]["Length"] = LENGTH_SCHEMA
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "lofkit scene",
        **{key: value for key, value in schema.items() if key != "title"},
    }


def scene_schema_json() -> str:
    return json.dumps(scene_schema(), indent=2) + "\n"
