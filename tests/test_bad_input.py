"""README "Scene files" (errors): every problem names the file and the place, exit status 2, no traceback."""

import subprocess
import sys

import pytest
import trimesh

from tests.helpers import REPO, scene_data, trooper, write_scene

BOX = {"id": "box", "box": {"size": [50, 50, 50]}, "position": [600, 600, 0]}


def _mesh_piece(path: str) -> dict:
    return {"id": "piece", "mesh": path, "position": [600, 600, 0]}


def _zones(*sides: str) -> list[dict]:
    return [{"side": side, "polygon": [[0, 300 * k], [600, 300 * k], [600, 300 * k + 150]]} for k, side in
            enumerate(sides)]


CASES = {
    "unknown key": (scene_data([trooper("a", 100, 100)], colour="red"), "colour", "unknown key 'colour'"),
    "unknown nested key": (scene_data([trooper("a", 100, 100, colour="red")]), "troopers[0].colour", "unknown key"),
    "duplicate id": (
        scene_data([trooper("a", 100, 100), trooper("a", 200, 100)]),
        "troopers[1].id",
        "duplicate id 'a'",
    ),
    "duplicate id across terrain and troopers": (
        scene_data([trooper("box", 100, 100)], [BOX]),
        "troopers[0].id",
        "duplicate id 'box'",
    ),
    "silhouette 9": (scene_data([trooper("a", 100, 100, silhouette=9)]), "troopers[0].silhouette", "silhouette 9"),
    "NaN": (scene_data([trooper("a", 100, float("nan"))]), "troopers[0].position[1]", "not a finite number"),
    "infinite height": (
        scene_data([], [{"id": "w", "box": {"size": [10, 10, float("inf")]}}]),
        "terrain[0].box.size[2]",
        "not a finite number",
    ),
    "base off the table": (scene_data([trooper("a", 5, 600)]), "troopers[0].position", "past the table edge"),
    "missing mesh": (scene_data([], [_mesh_piece("nowhere.stl")]), "terrain[0].mesh", "not found"),
    "not a mesh": (scene_data([], [_mesh_piece("garbage.stl")]), "terrain[0].mesh", "no faces"),
    "empty mesh": (scene_data([], [_mesh_piece("empty.obj")]), "terrain[0].mesh", "no faces"),
    "mesh with a NaN corner": (scene_data([], [_mesh_piece("nan.obj")]), "terrain[0].mesh",
                               "1 of 2 faces with a corner that is not a number"),
    "PLY face naming a missing vertex": (scene_data([], [_mesh_piece("bad.ply")]), "terrain[0].mesh",
                                         "a face naming a vertex it does not have"),
    "OBJ face naming a missing vertex": (scene_data([], [_mesh_piece("far.obj")]), "terrain[0].mesh",
                                         "line 5: a face names vertex 9, but the file has 3 vertices, 3 of them "
                                         "before this line (an OBJ counts them from 1"),
    "OBJ face naming vertex 0": (scene_data([], [_mesh_piece("zero.obj")]), "terrain[0].mesh",
                                 "line 5: a face names vertex 0, but the file has 3 vertices"),
    "mesh without area": (scene_data([], [_mesh_piece("flat.obj")]), "terrain[0].mesh", "no face with area"),
    "unsupported mesh format": (scene_data([], [_mesh_piece("model.dae")]), "terrain[0].mesh", "not a supported"),
    "two shapes": (
        scene_data([], [{"id": "w", "box": {"size": [1, 1, 1]}, "cylinder": {"diameter": 1, "height": 1}}]),
        "terrain[0]",
        "exactly one shape",
    ),
    "bad unit": (scene_data([trooper("a", "10ft", 100)]), "troopers[0].position[0]", "not a length"),
    "facing_towards unknown": (
        scene_data([trooper("a", 100, 100, facing=None, facing_towards="ghost")]),
        "troopers[0].facing_towards",
        "'ghost'",
    ),
    "missing version": ({"troopers": []}, "lofkit", "required"),
    "scale 0": (scene_data([], [{**BOX, "scale": 0}]), "terrain[0].scale", "Input should be greater than 0"),
    "state not a list": (scene_data([trooper("a", 100, 100, state="prone")]), "troopers[0].state",
                         "give a list, written [...] (got 'prone')"),
    "zone off the table": (
        scene_data([], deployment_zones=[{"side": "red", "polygon": [[2000, 2000], [2100, 2000], [2100, 2100]]}]),
        "deployment_zones[0].polygon",
        "wholly off the table",
    ),
    "unknown state": (scene_data([trooper("a", 100, 100, state=["flying"])]), "troopers[0].state[0]", "moving"),
    "zone side leaving the folder": (scene_data([], deployment_zones=_zones("blue", "../red")),
                                     "deployment_zones[1].side", "cannot be part of a file name"),
    "zone side with a backslash": (scene_data([], deployment_zones=_zones("red\\blue")), "deployment_zones[0].side",
                                   "cannot be part of a file name"),
    "zone side Windows refuses": (scene_data([], deployment_zones=_zones("red", "blue: north")),
                                  "deployment_zones[1].side", 'without / \\ : * ? " < > |, \'..\' or control'),
    "marker 1": (scene_data([trooper("a", 100, 100, marker=1)]), "troopers[0].marker", "expected true or false, got 1"),
    "blocks_lof yes": (scene_data([], [{**BOX, "blocks_lof": "yes"}]), "terrain[0].blocks_lof",
                       "expected true or false, got 'yes'"),
    "silhouette true": (scene_data([trooper("a", 100, 100, silhouette=True)]), "troopers[0].silhouette",
                        "expected a number, got true; write a number, not true or false"),
    "scale false": (scene_data([], [{**BOX, "scale": False}]), "terrain[0].scale", "expected a number, got false"),
    "scale item true": (scene_data([], [{**BOX, "scale": [1, True, 1]}]), "terrain[0].scale[1]",
                        "expected a number, got true"),
    "version true": ({**scene_data(), "lofkit": True}, "lofkit", "expected a number, got true"),
    "id a number": (scene_data([trooper(12, 100, 100)]), "troopers[0].id",
                    'expected text, got the number 12 (YAML reads unquoted digits as a number); put it in quotes'),
    "terrain id a number": (scene_data([], [{**BOX, "id": 7.5}]), "terrain[0].id",
                            "got the number 7.5 (YAML reads unquoted digits"),
    "rotation a list with a bad item": (scene_data([], [BOX, {**BOX, "id": "b", "rotation": [0, 0, "x"]}]),
                                        "terrain[1].rotation", "a rotation is one angle about z or a mapping {x, y, z}, "
                                        "not a list (got [0, 0, 'x']); write e.g. `rotation: 90`"),
    "rotation a list of two": (scene_data([], [{**BOX, "rotation": [1, 2]}]), "terrain[0].rotation",
                               "not a list (got [1, 2])"),
    "rotation not an angle": (scene_data([], [{**BOX, "rotation": "x"}]), "terrain[0].rotation",
                              "expected an angle in degrees, got 'x'"),
}


@pytest.fixture
def scene_folder(tmp_path):
    (tmp_path / "garbage.stl").write_text("this is not a mesh, it is a shopping list\n")
    (tmp_path / "empty.obj").write_text("# an OBJ file with nothing in it\n")
    (tmp_path / "nan.obj").write_text("v 0 0 0\nv 40 0 0\nv 0 40 0\nv nan 0 40\nf 1 2 3\nf 1 2 4\n")
    (tmp_path / "bad.ply").write_text("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                                      "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
                                      "end_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 9\n")
    (tmp_path / "far.obj").write_text("v 0 0 0\nv 40 0 0\nv 0 40 0\nf 1 2 3\nf 1 2 9\n")
    (tmp_path / "zero.obj").write_text("v 0 0 0\nv 40 0 0\nv 0 40 0\nf 1 2 3\nf 0 1 2\n")
    (tmp_path / "flat.obj").write_text("v 0 0 0\nv 40 0 0\nv 80 0 0\nf 1 2 3\nf 1 1 2\n")
    (tmp_path / "model.dae").write_text("<COLLADA/>")
    return tmp_path


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", ["validate", "info"])
def test_bad_input_names_file_and_place(case, command, scene_folder, run_cli):
    data, where, message = CASES[case]
    path = write_scene(scene_folder, data, "table.yaml")
    result = run_cli(command, path)
    assert result.exit_code == 2, result.output
    assert f"table.yaml: {where}: " in result.stderr and message in result.stderr
    assert "Traceback" not in result.output


def test_validate_json_lists_errors_with_place(scene_folder, run_cli):
    import json

    path = write_scene(scene_folder, scene_data([trooper("a", 100, 100, silhouette=9), trooper("a", 5, 5)]))
    result = run_cli("validate", path, "--json")
    report = json.loads(result.stdout)
    assert result.exit_code == 2 and report["ok"] is False
    assert {e["where"] for e in report["errors"]} == {"troopers[0].silhouette"}


def test_several_problems_are_reported_together(scene_folder, run_cli):
    path = write_scene(scene_folder, scene_data([trooper("a", 5, 100), trooper("a", 100, 100)]))
    result = run_cli("validate", path)
    assert "troopers[1].id" in result.stderr and "troopers[0].position" in result.stderr


@pytest.mark.parametrize(
    ("text", "name", "where"),
    [
        ("lofkit: 1\ntroopers: [\n", "broken.yaml", "line"),
        ('{"lofkit": 1,', "broken.json", "line 1"),
        ("lofkit = \n", "broken.toml", "(file)"),
        ("- just\n- a list\n", "list.yaml", "(top)"),
        ("lofkit: 1\n", "scene.txt", "unknown extension"),
    ],
)
def test_unreadable_files(tmp_path, run_cli, text, name, where):
    (tmp_path / name).write_text(text)
    result = run_cli("validate", tmp_path / name)
    assert result.exit_code == 2 and name in result.stderr and where in result.stderr


def test_missing_scene_file(tmp_path, run_cli):
    result = run_cli("info", tmp_path / "nope.yaml")
    assert result.exit_code == 2 and "nope.yaml" in result.stderr and "not found" in result.stderr


def test_unknown_trooper_id(tmp_path, run_cli):
    path = write_scene(tmp_path, scene_data([trooper("a", 100, 100), trooper("b", 200, 100)]))
    result = run_cli("distance", path, "a", "zed")
    assert result.exit_code == 2 and "'zed'" in result.stderr and "known ids: a, b" in result.stderr


@pytest.mark.slow
def test_real_process_exit_status_and_no_traceback(tmp_path):
    path = write_scene(tmp_path, scene_data([trooper("a", 100, 100, silhouette=9)]))
    done = subprocess.run(
        [sys.executable, "-m", "lofkit", "distance", str(path), "a", "a", "--json"], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "scene.yaml: troopers[0].silhouette: unknown silhouette 9" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_users_file_is_never_written(tmp_path, run_cli):
    path = write_scene(tmp_path, scene_data([trooper("a", 5, 100)]))
    before = path.read_bytes()
    for command in ("validate", "info"):
        run_cli(command, path)
    assert path.read_bytes() == before


def test_mesh_that_loads_is_fine(tmp_path, run_cli):
    trimesh.creation.box((40, 40, 40)).export(tmp_path / "ok.stl")
    path = write_scene(tmp_path, scene_data([], [_mesh_piece("ok.stl")]))
    assert run_cli("validate", path).exit_code == 0


def test_a_mesh_with_enormous_coordinates_is_answered_with_a_warning(tmp_path, run_cli):
    """A triangle reaching 1e30 mm (a unit gone wrong): its inner parts' grid stays small, the piece is said to
    reach past the table, and neither a traceback nor numpy's warnings reach the user."""
    (tmp_path / "huge.obj").write_text("v 0 0 0\nv 1e30 0 0\nv 0 1e30 50\nf 1 2 3\n", encoding="utf-8")
    scene = write_scene(tmp_path, scene_data([trooper("a", 100, 100), trooper("b", 500, 500, side="red")],
                                             [_mesh_piece("huge.obj")]))
    result = run_cli("check", scene, "a", "b")
    assert result.exit_code == 0, result.stderr
    assert "past the table edge" in result.stderr and "Warning" not in result.stderr


@pytest.mark.parametrize(("name", "text", "where", "key"), [
    ("twice.yaml", "lofkit: 1\ntroopers: []\nterrain: []\ntroopers: []\n", "line 4, column 1", "troopers"),
    ("nested.yaml", "lofkit: 1\ntroopers:\n  - {id: a, position: [100, 100], facing: 90, facing: 180}\n",
     "line 3", "facing"),
    ("twice.json", '{"lofkit": 1, "table": {"width": 600, "width": 700, "depth": 600}}', "(file)", "width"),
])
def test_a_key_written_twice_is_an_error_not_the_last_one_silently(tmp_path, name, text, where, key, run_cli):
    (tmp_path / name).write_text(text, encoding="utf-8")
    result = run_cli("validate", tmp_path / name)
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert where in result.stderr and f"the key '{key}' is written twice" in result.stderr


def test_yaml_merge_keys_may_still_be_overridden(tmp_path, run_cli):
    """`<<: *base` then a key of its own is YAML's way to override, not a key written twice."""
    text = ("lofkit: 1\nbase: &s2 {side: blue, silhouette: 2, position: [100, 100], facing: 90}\n"
            "troopers:\n  - {<<: *s2, id: a}\n  - {<<: *s2, id: b, position: [300, 300]}\n")
    (tmp_path / "merge.yaml").write_text(text, encoding="utf-8")
    result = run_cli("validate", tmp_path / "merge.yaml")
    assert "written twice" not in result.stderr


@pytest.mark.parametrize(("args", "says"), [
    (("check", "{army}", "blue-1", "blue-2"), "is an army list (lofkit_army), not a scene"),
    (("army", "check", "{scene}"), "is a scene (lofkit: 1), not an army list"),
    (("distance", "{scene}", "sniper", "sniper"), "a trooper and itself"),
])
def test_a_file_of_the_other_kind_or_a_trooper_twice_is_said_in_one_line(args, says, run_cli):
    files = {"army": REPO / "examples" / "armies" / "blue.yaml", "scene": REPO / "examples" / "quickstart.yaml"}
    result = run_cli(*(a.format(**files) for a in args))
    assert result.exit_code == 2 and says in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_mesh_path_that_is_a_folder_is_called_a_folder(tmp_path, run_cli):
    (tmp_path / "crate.stl").mkdir()
    scene = write_scene(tmp_path, scene_data([], [_mesh_piece("crate.stl")]))
    result = run_cli("validate", scene)
    assert result.exit_code == 2 and "is a folder, not a mesh file" in result.stderr


def test_a_byte_that_is_not_utf8_is_named_with_its_line(tmp_path, run_cli):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("lofkit: 1\ntroopers:\n  - {id: caf\u00e9, position: [100, 100]}\n".encode("latin-1"))
    result = run_cli("validate", path)
    assert result.exit_code == 2 and "line 3: byte 0xe9 is not UTF-8 text; save the file as UTF-8" in result.stderr


@pytest.mark.parametrize(("scale", "where"), [(0, "terrain[0].scale"), ([1, 0, 1], "terrain[0].scale[1]")])
def test_a_value_a_union_tries_several_ways_gets_one_message(tmp_path, run_cli, scale, where):
    """A scale is a number or [x, y, z]: a scale of 0 is a number that is too small, not also "not a valid tuple"
    (nor placed at pydantic's "scale.constrained-float"); a list with an item of 0 is not also "not a number"."""
    path = write_scene(tmp_path, scene_data([], [{**BOX, "scale": scale}]))
    errors = [line for line in run_cli("validate", path).stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and f"{where}: Input should be greater than 0" in errors[0]


def test_a_table_picture_cut_short_is_refused_by_validate(tmp_path, run_cli):
    """A PNG copied half-way (no IEND chunk) is said when the scene is checked, not when a picture is drawn."""
    whole = (REPO / "docs" / "images" / "generated-open-blue.png").read_bytes()
    (tmp_path / "table.png").write_bytes(whole[:300])
    path = write_scene(tmp_path, scene_data([], table={"width": 600, "depth": 600, "image": "table.png"}))
    result = run_cli("validate", path)
    assert result.exit_code == 2 and "table.image" in result.stderr and "cut short" in result.stderr
    (tmp_path / "table.png").write_bytes(whole)
    assert run_cli("validate", path).exit_code == 0


def test_a_bad_item_of_a_list_is_not_also_a_list_too_short(tmp_path, run_cli):
    """A zone's corner with three numbers: the corner is the problem, not the polygon being "too short after
    validation" (pydantic's consequence of dropping the corner)."""
    zone = {"side": "red", "polygon": [[0, 0, 0], [600, 0], [600, 150]]}
    path = write_scene(tmp_path, scene_data([], deployment_zones=[zone]))
    errors = [line for line in run_cli("validate", path).stderr.splitlines() if line.startswith("error")]
    assert len(errors) == 1 and "deployment_zones[0].polygon[0]" in errors[0]
