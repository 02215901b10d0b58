"""`lofkit import-tts`: a Tabletop Simulator save becomes a scene (TTS: Y up, 1 unit = 1 inch, table centred)."""

import json
import math

import numpy as np
import pytest

from lofkit import World, load_scene
from lofkit.exchange.tts import scene_rotation, trooper_profile
from lofkit.exchange.tts_save import cache_names, layout_lines
from tests.tts_files import BLOCK, BLOCK_OBJ, CACHED_URL, MISSING_URL

INCH = 25.4


def _transform(x, y, z, rot_y=0.0, scale=1.0):
    return {"posX": x, "posY": y, "posZ": z, "rotX": 0.0, "rotY": rot_y, "rotZ": 0.0,
            "scaleX": scale, "scaleY": scale, "scaleZ": scale}


def _save() -> dict:
    dummy = _transform(70, 100, 70, scale=0.775)
    figurines = [
        {"Name": "Figurine_Custom", "Nickname": "Fusilier S2", "Description": "side: blue", "GUID": "a1b2c3",
         "Transform": dummy},
        {"Name": "Figurine_Custom", "Nickname": "[b]Heavy[/b] 40mm S5", "Description": "side: red", "GUID": "d4e5f6",
         "Transform": dummy},
        {"Name": "Figurine_Custom", "Nickname": "Reserve S2", "GUID": "777777", "Transform": dummy},
    ]
    bag = {
        "Name": "Bag", "Nickname": "Troops", "GUID": "bag001", "Transform": _transform(-30, 1, -30),
        "LuaScript": ("-- layout written by the map maker\n--a1b2c3,-10,1.0,5,0,90,0\r\n"
                      "--d4e5f6, 12.5, 1.0, -20, 0, 180, 0\n"),
        "ContainedObjects": figurines,
    }
    return {
        "SaveName": "test map",
        "ObjectStates": [
            bag,
            {"Name": "Custom_Model", "Nickname": "Container", "GUID": "c0ffee",
             "Transform": {**_transform(0, 1.0, 0, 30), "scaleX": 2.0, "scaleY": 1.5, "scaleZ": 0.5},
             "CustomMesh": {"MeshURL": CACHED_URL, "DiffuseURL": ""}},
            {"Name": "Custom_Model", "Nickname": "Ruin", "GUID": "bad001", "Transform": _transform(5, 1.0, 5),
             "CustomMesh": {"MeshURL": MISSING_URL}},
            {"Name": "BlockSquare", "Nickname": "", "GUID": "b10c00", "Transform": _transform(0, 1.5, 10)},
        ],
    }


@pytest.fixture
def tts_files(tmp_path):
    save = tmp_path / "map.json"
    save.write_text(json.dumps(_save()), encoding="utf-8")
    cache = tmp_path / "Mods" / "Models"
    cache.mkdir(parents=True)
    (cache / "httpcloud3steamusercontentcomugc1234ABCD5678.obj").write_text(BLOCK_OBJ, encoding="utf-8")
    return save, tmp_path / "Mods", tmp_path / "out" / "scene.yaml"


def test_cache_name_strips_every_non_alphanumeric():
    names = cache_names(CACHED_URL)
    assert names[0] == "httpcloud3steamusercontentcomugc1234ABCD5678.obj"
    assert names[1] == "httpssteamusercontentaakamaihdnetugc1234ABCD5678.obj"
    assert cache_names("https://x.org/a_b-c.obj") == ["httpsxorgabcobj.obj"]
    assert cache_names("https://x.org/café.obj") == ["httpsxorgcaféobj.obj", "httpsxorgcafobj.obj"]


def test_layout_lines_and_profiles():
    assert layout_lines("--abc123,1,2,3,4,5,6\n-- comment\n  --9f,-1.5,0,2e1,0,0,0") == {
        "abc123": (1, 2, 3, 4, 5, 6), "9f": (-1.5, 0, 20, 0, 0, 0)}
    assert trooper_profile("Fusilier S2") == (2, None)
    assert trooper_profile("Remote (S 3), 40 mm") == (3, 40.0)
    assert trooper_profile("silhouette: 7") == (7, None)
    assert trooper_profile("Sniper's 3 shots, Bus 2") == (None, None)


def test_rotation_about_y_is_clockwise_from_above():
    """Unity Euler(0, 90, 0) takes forward (+Z, scene +y) to the right (+X, scene +x): a scene turn of -90."""
    turned = scene_rotation(0, 90, 0)
    assert np.allclose(turned @ [0, 1, 0], [1, 0, 0])
    assert np.allclose(turned, [[0, 1, 0], [-1, 0, 0], [0, 0, 1]])
    assert np.isclose(np.linalg.det(scene_rotation(20, 30, 40)), 1.0)


def test_save_imports_to_the_expected_places(tts_files, run_cli):
    save, cache, scene_path = tts_files
    result = run_cli("import-tts", save, "--mesh-cache", cache, "-o", scene_path, "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    troopers = {t["guid"]: t for t in report["troopers"]}
    assert set(troopers) == {"a1b2c3", "d4e5f6"}
    # a1b2c3: (-10, 1, 5) -> x = -10 + 24 = 14 in, y = 5 + 24 = 29 in, on the table top; rotY 90 -> facing 0
    fusilier = troopers["a1b2c3"]
    assert fusilier["position_mm"] == pytest.approx([14 * INCH, 29 * INCH], abs=1e-6)
    assert fusilier["z_mm"] == pytest.approx(0, abs=1e-9)
    assert (fusilier["silhouette"], fusilier["side"], fusilier["facing_deg"]) == (2, "blue", pytest.approx(0))
    heavy = troopers["d4e5f6"]  # (12.5, 1, -20) -> (36.5, 4) in; rotY 180 -> facing 270
    assert heavy["position_mm"] == pytest.approx([36.5 * INCH, 4 * INCH], abs=1e-6)
    assert (heavy["silhouette"], heavy["base_mm"], heavy["side"]) == (5, 40.0, "red")
    assert heavy["facing_deg"] == pytest.approx(270)
    assert report["unresolved"] == [{"guid": "bad001", "name": "Ruin", "url": MISSING_URL,
                                     "reason": "not in the mesh cache"}]
    skipped = {s["guid"]: s["reason"] for s in report["skipped"]}
    assert "no layout line" in skipped["777777"] and "container" in skipped["bag001"]
    assert "no silhouette or base" in skipped["b10c00"]
    assert report["table_top"] == pytest.approx(1.0)

    world = World.from_scene(load_scene(scene_path))
    assert world.troopers.ids == ("fusilier-s2", "heavy-40mm-s5")
    assert np.allclose(world.troopers.centre, [[14 * INCH, 29 * INCH], [36.5 * INCH, 4 * INCH]])
    assert np.allclose(world.troopers.facing, [0, 270]) and np.allclose(world.troopers.z, 0)
    (piece,) = world.pieces
    assert piece.id == "container"
    # the block, OBJ (ox, oy, oz): Unity reads (-ox, oy, oz) and scales it by (2, 1.5, 0.5); scene local
    # (-2 ox, 0.5 oz, 1.5 oy); turned by -30 about z (rotY 30 is clockwise); its bottom (oy = 0) on the table top
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    expected = np.array([[24 - c * 2 * ox + s * 0.5 * oz, 24 + s * 2 * ox + c * 0.5 * oz, 1.5 * oy]
                         for ox, oy, oz in BLOCK]) * INCH
    placed = piece.mesh.vertices
    assert len(placed) == 8
    assert np.abs(placed[:, None, :] - expected[None, :, :]).max(axis=2).min(axis=0).max() < 1e-6


def test_without_a_cache_every_mesh_is_unresolved(tts_files, run_cli):
    save, _, scene_path = tts_files
    report = json.loads(run_cli("import-tts", save, "-o", scene_path, "--json", "--table-top", "0.5").stdout)
    assert {u["guid"] for u in report["unresolved"]} == {"c0ffee", "bad001"}
    assert {u["reason"] for u in report["unresolved"]} == {"no --mesh-cache given"}
    assert [t["z_mm"] for t in report["troopers"]] == pytest.approx([0.5 * INCH, 0.5 * INCH])


def test_refuses_to_overwrite_without_force(tts_files, run_cli):
    save, cache, scene_path = tts_files
    assert run_cli("import-tts", save, "-o", scene_path).exit_code == 0
    again = run_cli("import-tts", save, "-o", scene_path)
    assert again.exit_code == 2 and "already exists" in again.stderr
    assert run_cli("import-tts", save, "-o", scene_path, "--force", "--mesh-cache", cache).exit_code == 0


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ('{"SaveName": "x"}', "no `ObjectStates` list"),
    ("[1, 2]", "no `ObjectStates` list"),
])
def test_bad_saves_fail_with_a_clear_message(tmp_path, run_cli, content, message):
    save = tmp_path / "save.json"
    save.write_text(content, encoding="utf-8")
    result = run_cli("import-tts", save, "-o", tmp_path / "scene.yaml")
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.stderr
    assert str(save) in result.stderr and not (tmp_path / "scene.yaml").exists()


def test_a_table_top_that_is_not_a_number_is_refused_by_name(tts_files, run_cli):
    save, cache, scene_path = tts_files
    result = run_cli("import-tts", save, "--mesh-cache", cache, "-o", scene_path, "--table-top", "nan")
    assert result.exit_code == 2 and "--table-top nan" in result.stderr and not scene_path.exists()


def test_missing_save_and_bad_cache(tmp_path, run_cli, tts_files):
    missing = run_cli("import-tts", tmp_path / "nowhere.json", "-o", tmp_path / "s.yaml")
    assert missing.exit_code == 2 and "file not found" in missing.stderr
    save, _, scene_path = tts_files
    bad_cache = run_cli("import-tts", save, "-o", scene_path, "--mesh-cache", tmp_path / "nope")
    assert bad_cache.exit_code == 2 and "not a folder" in bad_cache.stderr


def test_odd_objects_are_reported_not_guessed(tts_files, run_cli):
    save, cache, scene_path = tts_files
    model = {"Name": "Custom_Model", "CustomMesh": {"MeshURL": CACHED_URL}}
    figurine = {"Name": "Figurine_Custom", "Transform": _transform(0, 1, 0)}
    states = [
        {**model, "Nickname": "Flipped", "GUID": "flip01", "Transform": {**_transform(-10, 1, -10, 30), "rotX": 180,
                                                                           "rotZ": 180}},
        {**figurine, "Nickname": "Line trooper 25mm", "GUID": "base25"},
        {**figurine, "Nickname": "Odd 32mm", "GUID": "base32"},
        {**figurine, "Nickname": "Far S2", "GUID": "far001", "Transform": _transform(30, 1, 0)},
        {**figurine, "Nickname": "No x S2", "GUID": "nox001", "Transform": {"posY": 1, "posZ": 0},
         "ChildObjects": [{"Name": "Custom_Model", "Nickname": "Hat", "GUID": "hat001"}]},
        {**model, "Nickname": "Squashed", "GUID": "flat01", "Transform": {**_transform(10, 1, 10), "scaleX": 0}},
        {**model, "Nickname": "Mirrored", "GUID": "mirror", "Transform": {**_transform(10, 1, -10), "scaleY": -1}},
    ]
    save.write_text(json.dumps({"ObjectStates": states}), encoding="utf-8")
    report = json.loads(run_cli("import-tts", save, "--mesh-cache", cache, "-o", scene_path, "--json").stdout)
    skipped = {s["guid"]: s["reason"] for s in report["skipped"]}
    assert "32 mm base and no silhouette" in skipped["base32"]
    assert "off the table" in skipped["far001"]
    assert "Transform.posX is missing" in skipped["nox001"] and "attached to nox001" in skipped["hat001"]
    assert "Transform.scaleX is 0" in skipped["flat01"] and "Transform.scaleY is -1" in skipped["mirror"]
    # Euler (180, 30, 180) is the same turn as (0, 210, 0): scene turn -210, the OBJ's half turn added: 330
    (flipped,) = report["terrain"]
    assert flipped["guid"] == "flip01" and flipped["rotation_deg"] == pytest.approx(330)
    (line,) = report["troopers"]
    assert (line["guid"], line["silhouette"], line["base_mm"], line["side"]) == ("base25", 2, 25.0, "unknown")
    assert any("S2 assumed from its 25 mm base" in a for a in report["assumptions"])
    assert World.from_scene(load_scene(scene_path)).troopers.ids == ("line-trooper-25mm",)


def test_tilted_and_flipped_pieces_keep_their_orientation(tts_files, run_cli):
    """Pieces the game's physics tilted, or a map maker flipped, are imported as they lie (none is skipped)."""
    save, cache, scene_path = tts_files
    model = {"Name": "Custom_Model", "CustomMesh": {"MeshURL": CACHED_URL}}
    states = [
        {**model, "Nickname": "Leaning", "GUID": "lean01", "Transform": {**_transform(-10, 1, -10), "rotX": 30}},
        {**model, "Nickname": "Settled", "GUID": "sett01", "Transform": {**_transform(0, 1, 0, 45), "rotZ": 0.4}},
        {**model, "Nickname": "Flipped", "GUID": "flip02", "Transform": {**_transform(10, 2, 10), "rotZ": 180}},
    ]
    save.write_text(json.dumps({"ObjectStates": states}), encoding="utf-8")
    result = run_cli("import-tts", save, "--mesh-cache", cache, "-o", scene_path, "--json", "--table-top", "1")
    report = json.loads(result.stdout)
    assert [p["guid"] for p in report["terrain"]] == ["lean01", "sett01", "flip02"] and report["skipped"] == []
    pieces = {p.id: p.mesh.vertices for p in World.from_scene(load_scene(scene_path)).pieces}
    # Unity reads OBJ (ox, oy, oz) as (-ox, oy, oz), turns it, adds the position; the scene takes (X, Z, Y), the
    # table's corner (24, 24) in from its centre and z from the table top (1)
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    leaning = [(-ox - 10 + 24, oy * s + oz * c - 10 + 24, oy * c - oz * s + 1 - 1) for ox, oy, oz in BLOCK]
    flipped = [(ox + 10 + 24, oz + 10 + 24, -oy + 2 - 1) for ox, oy, oz in BLOCK]  # rotZ 180: (-X, -Y, Z)
    for piece_id, expected in (("leaning", leaning), ("flipped", flipped)):
        assert np.abs(pieces[piece_id][:, None, :] - np.array(expected)[None] * INCH).max(axis=2).min(axis=0).max() < 1e-6
    lowest = pieces["settled"][:, 2].min()
    assert -0.4 * INCH < lowest < 0  # tilted by 0.4 degrees, not snapped upright: one edge dips below its pivot
    # Unity's rotZ 0.4 lifts the model's +X: about the scene's y by -0.4, which the OBJ's half turn (applied first)
    # makes +0.4; then rotY 45 is -45 about z, after the half turn's 180
    assert report["terrain"][1]["rotation_deg"] == {"x": 0.0, "y": pytest.approx(0.4), "z": 135.0}
    # the table top found is the lowest point of what lies there as it lies: the flipped block's top, now at 2 - 2
    again = run_cli("import-tts", save, "--mesh-cache", cache, "-o", scene_path, "--json", "--force")
    assert json.loads(again.stdout)["table_top"] == pytest.approx(0.0, abs=1e-9)


def test_a_trooper_with_a_cached_mesh_stands_on_its_lowest_point(tts_files, run_cli):
    """A model's pivot is often its middle: with its mesh cached, the base's underside is the mesh's lowest point."""
    save, cache, scene_path = tts_files
    figure_url = "https://example.com/minis/sniper.obj"
    figure = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 1.5) for z in (-0.5, 0.5)]  # pivot 0.5 in above its foot
    obj = "\n".join(f"v {x} {y} {z}" for x, y, z in figure) + "\n" + BLOCK_OBJ.split("\n", 8)[-1]
    (cache / "Models" / cache_names(figure_url)[0]).write_text(obj, encoding="utf-8")
    states = [
        {"Name": "Custom_Model", "Nickname": "Sniper S2", "GUID": "snip01", "Transform": _transform(0, 1.5, 0),
         "CustomMesh": {"MeshURL": figure_url}},
        {"Name": "Figurine_Custom", "Nickname": "Line S2", "GUID": "line01", "Transform": _transform(5, 1.2, 0)},
    ]
    save.write_text(json.dumps({"ObjectStates": states}), encoding="utf-8")
    report = json.loads(run_cli("import-tts", save, "--mesh-cache", cache, "-o", scene_path, "--json").stdout)
    assert report["table_top"] == pytest.approx(1.0)  # the sniper's foot: 1.5 - 0.5
    troopers = {t["guid"]: t for t in report["troopers"]}
    assert (troopers["snip01"]["z_mm"], troopers["snip01"]["z_from"]) == (pytest.approx(0.0), "mesh")
    assert (troopers["line01"]["z_mm"], troopers["line01"]["z_from"]) == (pytest.approx(0.2 * INCH), "pivot")
    assert any(a.startswith("line-s2: no cached mesh") for a in report["assumptions"])


@pytest.mark.slow
def test_the_walkthrough_example_runs(example_run):
    done, folder = example_run("examples/imports/tts_walkthrough.py")
    assert done.returncode == 0, done.stderr
    assert "trooper fusilier-s2: S2 blue at (304.8, 254.0) mm facing 90" in done.stdout
    assert "unresolved Ruined tower: https://example.com/never-downloaded/tower.obj" in done.stdout
    assert (folder / "out" / "imports" / "tts" / "table.glb").is_file()
