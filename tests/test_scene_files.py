"""README "Scene files": YAML, JSON and TOML files, every field, facing_towards, and the shipped JSON Schema."""

import json
import math
import tomllib
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import yaml

from lofkit import World, load_scene, scene_from_data, scene_schema
from lofkit.scene.schema import scene_schema_json
from tests.helpers import EXAMPLE_SCENES, REPO, scene_data, trooper

FULL = scene_data(
    troopers=[
        trooper("fusilier", 100, 200, base=25, height=40, z=0, state=[]),
        trooper("alguacil", "20in", "30in", side="red", facing=None, facing_towards="fusilier", state=["prone"]),
        {"id": "civ", "neutral": True, "silhouette": 1, "position": [600, 600], "facing_towards": [600, 700]},
        {"id": "camo-1", "side": "red", "marker": True, "position": [500, 700], "facing": 270},
    ],
    terrain=[
        {"id": "crate-1", "box": {"size": [100, 100, 60]}, "position": [600, 300, 0], "rotation": 30},
        {"id": "low-wall", "wall": {"from": [100, 900], "to": [400, 900], "thickness": 10, "height": 25}},
        {"id": "pillar", "cylinder": {"diameter": 40, "height": 120}, "position": [800, 200, 0]},
        {"id": "trace", "prism": {"polygon": [[0, 0], [120, 0], [120, 80], [0, 80]], "height": 75},
         "position": [900, 900, 0]},
        {"id": "smoke", "cylinder": {"diameter": "2.5in", "height": 500}, "position": [600, 450],
         "kind": "zero_visibility"},
        {"id": "haze", "box": {"size": [100, 100, 100]}, "position": [300, 600, 0], "kind": "low_visibility"},
    ],
    units="mm",
    table={"width": "48in", "depth": "48in"},
    base_contact_tolerance="0.5mm",
    deployment_zones=[
        {"side": "blue", "polygon": [[0, 0], ["48in", 0], ["48in", "12in"], [0, "12in"]]},
        {"side": "red", "polygon": [[0, "36in"], ["48in", "36in"], ["48in", "48in"], [0, "48in"]]},
    ],
)


def _toml(data: dict) -> str:
    """A tiny TOML writer for the test (arrays of tables for terrain/troopers, inline tables elsewhere)."""

    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items() if x is not None) + "}"

    lines = [f"{k} = {value(v)}" for k, v in data.items() if k not in ("terrain", "troopers")]
    for group in ("terrain", "troopers"):
        for item in data[group]:
            lines.append(f"[[{group}]]")
            lines += [f"{k} = {value(v)}" for k, v in item.items() if v is not None]
    return "\n".join(lines) + "\n"


@pytest.fixture
def three_files(tmp_path: Path) -> list[Path]:
    files = {
        "s.yaml": yaml.safe_dump(FULL),
        "s.json": json.dumps(FULL),
        "s.toml": _toml(FULL),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert tomllib.loads(files["s.toml"])["troopers"][1]["facing_towards"] == "fusilier"
    return [tmp_path / name for name in files]


def test_yaml_json_and_toml_read_the_same_scene(three_files):
    dumps = [load_scene(path).model_dump() for path in three_files]
    assert dumps[0] == dumps[1] == dumps[2]


def test_every_field_compiles_into_a_world(three_files):
    world = World.from_scene(load_scene(three_files[0]))
    assert [p.id for p in world.pieces] == ["crate-1", "low-wall", "pillar", "trace", "smoke", "haze"]
    assert [p.blocks_lof for p in world.pieces] == [True, True, True, True, True, False]
    assert world.blocking_pieces.tolist() == [0, 1, 2, 3, 4] and world.solid_pieces.tolist() == [0, 1, 2, 3]
    assert world.troopers.ids == ("fusilier", "alguacil", "civ", "camo-1")
    assert world.troopers.neutral.tolist() == [False, False, True, False]
    assert world.troopers.marker.tolist() == [False, False, False, True]
    assert world.troopers.prone.tolist() == [False, True, False, False]
    assert math.isclose(world.scene.deployment_zones[0].polygon[2][1], 304.8)


def test_facing_towards_a_trooper_and_a_point():
    world = World.from_scene(scene_from_data(FULL))
    dx, dy = 100 - 508, 200 - 762
    assert math.isclose(world.troopers.facing[1], math.degrees(math.atan2(dy, dx)))
    assert math.isclose(world.troopers.facing[2], 90.0)


def test_bare_numbers_follow_the_scene_units():
    inches = scene_from_data(scene_data([trooper("a", 10, 10, z="1cm")], units="in", table={"width": 48}))
    assert inches.troopers[0].position == (254.0, 254.0) and inches.troopers[0].z == 10.0
    assert math.isclose(inches.table.width, 1219.2)


def test_shipped_schema_is_the_generated_one():
    assert (REPO / "scene.schema.json").read_text() == scene_schema_json()


def test_schema_accepts_the_example_scenes_and_rejects_unknown_keys():
    schema = scene_schema()
    validator = jsonschema.Draft202012Validator(schema)
    for path in EXAMPLE_SCENES:
        errors = list(validator.iter_errors(yaml.safe_load(path.read_text())))
        assert not errors, f"{path}: {errors[0].message}"
    assert list(validator.iter_errors({**FULL, "colour": "red"}))


def test_schema_command_prints_the_schema(run_cli):
    result = run_cli("schema")
    assert result.exit_code == 0 and json.loads(result.stdout) == scene_schema()


@pytest.mark.parametrize("command", [("schema",), ("army", "schema")])
def test_a_schema_written_to_a_file_replaces_one_already_there_only_with_force(tmp_path, run_cli, command):
    path = tmp_path / "mine.json"
    path.write_text("my notes", encoding="utf-8")
    result = run_cli(*command, "-o", path)
    assert result.exit_code == 2 and "--force" in result.stderr and "Traceback" not in result.stderr
    assert path.read_text(encoding="utf-8") == "my notes"
    assert run_cli(*command, "-o", path, "--force").exit_code == 0 and json.loads(path.read_text(encoding="utf-8"))


# an asymmetric tetrahedron (mm, z up): any wrong turn, order or mirror moves some corner
TETRA = [(0, 0, 0), (10, 0, 0), (0, 20, 0), (0, 0, 30)]
TETRA_OBJ = "\n".join(f"v {x} {y} {z}" for x, y, z in TETRA) + "\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


@pytest.mark.parametrize(("rotation", "scale", "corner"), [
    # a quarter turn about x takes (a, b, c) to (a, -c, b); then a quarter turn about z takes (x, y, z) to (-y, x, z)
    ({"x": 90, "z": 90}, 1, lambda a, b, c: (c, a, b)),
    # flipped (a half turn about x) after scaling by 2
    ({"x": 180}, 2, lambda a, b, c: (2 * a, -2 * b, -2 * c)),
    # a half turn about y, then a quarter about z: (a, b, c) -> (-a, b, -c) -> (-b, -a, -c)
    ({"y": 180, "z": 90}, 1, lambda a, b, c: (-b, -a, -c)),
    ({"y": 90}, 1, lambda a, b, c: (c, b, -a)),
    (90, 1, lambda a, b, c: (-b, a, c)),  # the number form turns about z
])
def test_a_tilted_or_flipped_piece_lands_where_turns_about_fixed_axes_put_it(tmp_path, rotation, scale, corner):
    (tmp_path / "tetra.obj").write_text(TETRA_OBJ, encoding="utf-8")
    position = [300, 400, 50]
    piece = {"id": "tetra", "mesh": "tetra.obj", "mesh_units": "mm", "position": position, "rotation": rotation,
             "scale": scale}
    path = tmp_path / "scene.yaml"
    path.write_text(yaml.safe_dump(scene_data(terrain=[piece])), encoding="utf-8")
    (placed,) = World.from_scene(load_scene(path)).pieces
    expected = [[p + q for p, q in zip(corner(*v), position)] for v in TETRA]
    assert np.allclose(placed.mesh.vertices, expected, atol=1e-9)


def test_a_rotation_names_only_the_table_axes(tmp_path, run_cli):
    path = tmp_path / "scene.yaml"
    box = {"id": "b", "box": {"size": [10, 10, 10]}, "rotation": {"x": 10, "w": 5}}
    path.write_text(yaml.safe_dump(scene_data(terrain=[box])), encoding="utf-8")
    result = run_cli("validate", path, "--json")
    assert result.exit_code == 2
    assert [e["where"] for e in json.loads(result.stdout)["errors"]] == ["terrain[0].rotation.w"]
