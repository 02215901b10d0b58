"""README: validate, info, distance, zoc, schema; `--json` prints exactly the result's `to_dict()`."""

import json

import pytest

from lofkit import World, distance, info, load_scene, zoc
from tests.helpers import EXAMPLE_SCENES, REPO, scene_data, trooper, write_scene

EXAMPLES = [path.relative_to(REPO) for path in EXAMPLE_SCENES]


@pytest.mark.parametrize("scene", EXAMPLES, ids=str)
def test_validate_and_info_run_clean_on_every_example(scene, run_cli):
    validated = run_cli("validate", REPO / scene, "--json")
    assert validated.exit_code == 0, validated.stderr
    report = json.loads(validated.stdout)
    assert report["ok"] and report["errors"] == [] and report["warnings"] == []
    shown = run_cli("info", REPO / scene)
    assert shown.exit_code == 0 and shown.stderr == ""


def test_examples_include_two_full_tables():
    for name in ("table-a.yaml", "table-b.yaml"):
        world = World.from_scene(load_scene(REPO / "examples" / "tables" / name))
        sides = [s for s in world.troopers.sides if s]
        assert len(world.pieces) >= 25 and len(world.scene.deployment_zones) == 2
        assert min(sides.count(side) for side in set(sides)) >= 10
        assert world.scene.table.width == world.scene.table.depth == pytest.approx(48 * 25.4)


@pytest.fixture
def small_scene(tmp_path):
    return write_scene(
        tmp_path,
        scene_data(
            [trooper("a", 300, 300), trooper("b", 300, 500, side="red"), trooper("c", 1000, 1000, side="red")]
        ),
    )


def test_json_equals_the_query_results(small_scene, run_cli):
    world = World.from_scene(load_scene(small_scene))
    expected = {
        ("distance", "a", "b"): distance(world, "a", "b").to_dict(),
        ("zoc", "a"): zoc(world, "a").to_dict(),
        ("info",): info(world).to_dict(),
    }
    for (command, *ids), document in expected.items():
        result = run_cli(command, small_scene, *ids, "--json")
        assert result.exit_code == 0 and json.loads(result.stdout) == document


def test_json_keys_of_the_contract(small_scene, run_cli):
    d = json.loads(run_cli("distance", small_scene, "a", "b", "--json").stdout)
    assert {"distance_mm", "distance_in", "range_band", "base_contact"} <= d.keys()
    z = json.loads(run_cli("zoc", small_scene, "a", "--json").stdout)
    assert z["inside_zoc_of_a"] == ["b"] and z["a_inside_zoc_of"] == ["b"]
    v = json.loads(run_cli("validate", small_scene, "--json").stdout)
    assert {"ok", "errors", "warnings"} <= v.keys()


def test_readable_output(small_scene, run_cli):
    assert "175.0 mm" in run_cli("distance", small_scene, "a", "b").stdout
    assert "inside a's ZoC: b" in run_cli("zoc", small_scene, "a").stdout
    assert "valid" in run_cli("validate", small_scene).stdout
    assert "3 troopers" in run_cli("info", small_scene).stdout


def test_warnings_go_to_stderr_and_keep_stdout_json(tmp_path, run_cli):
    path = write_scene(tmp_path, scene_data([trooper("a", 300, 300, facing=None), trooper("b", 300, 500)]))
    result = run_cli("distance", path, "a", "b", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["distance_mm"] == 175.0
    plain = run_cli("distance", path, "a", "b")
    assert "warning:" in plain.stderr


@pytest.mark.slow
def test_importing_lofkit_does_not_import_rendering():
    import subprocess
    import sys

    code = "import sys, lofkit; print('pyvista' in sys.modules or 'vtk' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_check_json_has_the_contract_keys(run_cli):
    result = run_cli("check", REPO / "examples" / "rulebook_lof.yaml", "fusilier", "iguana", "--json")
    verdict = json.loads(result.stdout)
    keys = {"shooter", "target", "lof", "in_arc", "sight", "can_target", "reason", "distance_mm", "distance_in",
            "range_band", "in_zoc", "witness"}
    assert result.exit_code == 0 and keys <= verdict.keys()
    assert verdict["lof"] and len(verdict["witness"]["patch"]) == 4 and len(verdict["witness"]["eye"]) == 3


def test_check_readable_output_names_the_evidence(run_cli):
    seen = run_cli("check", REPO / "examples" / "rulebook_lof.yaml", "fusilier", "iguana").stdout
    hidden = run_cli("check", REPO / "examples" / "rulebook_lof.yaml", "fusilier", "reverend-healer").stdout
    assert "LoF (a valid target)" in seen and "witness: eye" in seen
    assert "no LoF" in hidden and "blocked by: building" in hidden


def test_matrix_json_and_table(run_cli):
    scene = REPO / "examples" / "rulebook_lof.yaml"
    pairs = json.loads(run_cli("matrix", scene, "--json").stdout)["pairs"]
    assert len(pairs) == 9 * 8 and {"shooter", "target", "lof", "sight", "in_arc"} <= pairs[0].keys()
    assert "LoF matrix" in run_cli("matrix", scene).stdout


def test_ids_are_printed_as_written_never_read_as_markup_or_emoji(tmp_path, run_cli):
    """rich reads "[...]" as a style and ":name:" as an emoji: a trooper "[lt]-sniper" lost its "[lt]"."""
    box = {"id": "[b]box", "box": {"size": [50, 50, 50]}, "position": [300, 300, 0]}
    scene = write_scene(tmp_path, scene_data([trooper("[lt]-sniper", 100, 100), trooper(":smile:", 500, 500)], [box]))
    for args in (("check", scene, "[lt]-sniper", ":smile:"), ("distance", scene, "[lt]-sniper", ":smile:"),
                 ("matrix", scene), ("info", scene)):
        result = run_cli(*args)
        assert result.exit_code == 0 and "[lt]-sniper" in result.stdout and ":smile:" in result.stdout, args
    assert "[b]box" in run_cli("check", scene, "[lt]-sniper", ":smile:").stdout


@pytest.mark.parametrize("command", [("check", "zz", "sniper"), ("zoc", "zz"), ("distance", "sniper", "zz")])
def test_an_unknown_trooper_id_is_named_with_its_scene_file(command, run_cli):
    scene = REPO / "examples" / "quickstart.yaml"
    result = run_cli(command[0], scene, *command[1:])
    assert result.exit_code == 2 and f"{scene}: no trooper with id 'zz'" in result.stderr


def test_check_of_a_trooper_with_itself_is_bad_input(run_cli):
    result = run_cli("check", REPO / "examples" / "rulebook_lof.yaml", "fusilier", "fusilier")
    assert result.exit_code == 2 and "itself" in result.stderr


def test_a_missing_optional_extra_is_named_with_its_install_command(tmp_path, run_cli, monkeypatch):
    """Pictures need the `render` extra: without matplotlib, `heatmap` says which extra to install (exit 2) before
    any work is done, instead of an internal error."""
    import sys

    from tests.helpers import scene_data, write_scene

    scene = write_scene(tmp_path, scene_data(deployment_zones=[{"side": "red", "polygon": [[0, 0], [100, 0],
                                                                                          [100, 100], [0, 100]]}]))
    monkeypatch.delitem(sys.modules, "lofkit.viz.plots", raising=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = run_cli("heatmap", scene, "--zone", "red", "-o", tmp_path / "h.png", "--executor", "serial")
    assert result.exit_code == 2
    assert "pip install 'lofkit[render]'" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "h.npy").exists()
