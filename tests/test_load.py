"""`lofkit.load`: one call opens whatever `lofkit serve` opens (a scene file, a photo or scan folder, a Tabletop
Simulator save, a 3D scan) as a World ready for questions."""

import pytest

import lofkit
from lofkit.errors import LofkitError, SceneError
from tests.helpers import REPO, enemy, scene_data, trooper, write_scene
from tests.scan_files import write_game_scan
from tests.tts_files import tiny_tts_save


def test_a_scene_file_and_its_folder_open_the_same_table(tmp_path):
    path = write_scene(tmp_path, scene_data([trooper("a", 100, 100), enemy("b", 100, 500)]))
    for source in (path, tmp_path, str(path)):
        world = lofkit.load(source)
        assert world.troopers.ids == ("a", "b")
        assert lofkit.check(world, "a", "b").lof


def test_a_tts_save_opens_with_its_meshes(tmp_path):
    save, cache = tiny_tts_save(tmp_path)
    world = lofkit.load(save, mesh_cache=cache)
    assert world.troopers.ids == ("scout-s2", "heavy-s3") and [p.id for p in world.pieces] == ["container"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["map.json", cache.name])  # nothing written


def test_a_scan_is_imported_beside_itself_with_warnings_then_reopened(tmp_path):
    scan = write_game_scan(tmp_path / "game.glb")
    with pytest.warns(UserWarning, match="took the standard 48x48in table"):
        world = lofkit.load(scan)
    assert world.scene.source.parent == (tmp_path / "game-lofkit").resolve()
    assert world.pieces and all(t.proposed for t in world.scene.troopers)
    again = lofkit.load(scan)  # the earlier import: same scene, not imported again
    assert again.troopers.ids == world.troopers.ids


def test_what_cannot_be_opened_is_refused_with_its_name(tmp_path):
    with pytest.raises(LofkitError, match="holding no scene.yaml"):
        lofkit.load(tmp_path)
    with pytest.raises(LofkitError, match="mesh_cache is for a Tabletop Simulator save"):
        lofkit.load(REPO / "examples" / "quickstart.yaml", mesh_cache=tmp_path)
    bad = tmp_path / "bad.yaml"
    bad.write_text("lofkit: 1\ntroopers: [{id: a}]\n")
    with pytest.raises(SceneError) as refused:
        lofkit.load(bad)
    assert any(p.where.startswith("troopers[0]") for p in refused.value.problems)
