"""Nothing a user made is replaced unasked (`exchange.output`'s policy, on every command that writes): an output file
that is already there needs --force, an input is never an output, and a path under a file is refused before any
work, with exit status 2 and no traceback."""

from __future__ import annotations

import pytest

from tests.helpers import REPO, scene_data, trooper, write_scene

QUICK = ("--quick", "--cell-size", "100mm", "--viewer-spacing", "200mm", "--executor", "serial")
ZONES = [{"side": "blue", "polygon": [[0, 0], [600, 0], [600, 150], [0, 150]]},
         {"side": "red", "polygon": [[0, 450], [600, 450], [600, 600], [0, 600]]}]


@pytest.fixture
def scene(tmp_path):
    data = scene_data([trooper("a", 100, 100), trooper("b", 500, 500, side="red")],
                      [{"id": "box", "box": {"size": [50, 50, 50]}, "position": [300, 300, 0]}],
                      table={"width": 600, "depth": 600}, deployment_zones=ZONES)
    return write_scene(tmp_path, data)


COMMANDS = {
    "render": lambda scene, out: ("render", scene, "-o", out),
    "heatmap": lambda scene, out: ("heatmap", scene, "--zone", "red", "-o", out, *QUICK),
    "lanes": lambda scene, out: ("lanes", scene, "-o", out, *QUICK),
    "compare": lambda scene, out: ("compare", scene, scene, "-o", out, *QUICK),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_picture_that_is_already_there_is_replaced_only_with_force(command, scene, tmp_path, run_cli):
    picture = tmp_path / "mine.png"
    picture.write_bytes(b"my own picture")
    refused = run_cli(*COMMANDS[command](scene, picture))
    assert refused.exit_code == 2 and "already exists" in refused.stderr and "--force" in refused.stderr
    assert "Traceback" not in refused.stderr and picture.read_bytes() == b"my own picture"
    assert run_cli(*COMMANDS[command](scene, picture), "--force").exit_code == 0
    assert picture.read_bytes() != b"my own picture"


def test_heatmap_never_replaces_the_counts_it_was_not_named_for(scene, tmp_path, run_cli):
    """The counts go beside the picture (.npy, .csv): a CSV of the user's under that name is refused, before the
    picture or the .npy is written."""
    (tmp_path / "red.csv").write_text("mine", encoding="utf-8")
    refused = run_cli("heatmap", scene, "--zone", "red", "-o", tmp_path / "red.png", *QUICK)
    assert refused.exit_code == 2 and "red.csv" in refused.stderr
    assert not (tmp_path / "red.png").exists() and not (tmp_path / "red.npy").exists()
    assert (tmp_path / "red.csv").read_text(encoding="utf-8") == "mine"


@pytest.mark.parametrize("args", [
    ("render", "{scene}", "-o", "{file}/x.png"),
    ("heatmap", "{scene}", "--zone", "red", "-o", "{file}/x.png", *QUICK),
    ("export", "{scene}", "-o", "{file}/x.glb"),
    ("report", "{scene}", "a", "b", "-o", "{file}/ruling"),
    ("analyze", "{scene}", "-o", "{file}/cards", *QUICK),
    ("import-scan", str(REPO / "terrain_models" / "container.stl"), "-o", "{file}/scan"),
])
def test_an_output_under_a_file_is_refused_before_any_work(args, scene, tmp_path, run_cli):
    victim = tmp_path / "notes.txt"
    victim.write_text("mine", encoding="utf-8")
    result = run_cli(*(a.format(scene=scene, file=victim) for a in args))
    assert result.exit_code == 2 and "Traceback" not in result.stderr, result.stderr
    assert "notes.txt" in result.stderr and "is a file" in result.stderr
    assert victim.read_text(encoding="utf-8") == "mine"


def test_report_replaces_an_earlier_report_only_with_force(scene, tmp_path, run_cli):
    folder = tmp_path / "ruling"
    assert run_cli("report", scene, "a", "b", "-o", folder, "--size", "320x240").exit_code == 0
    (folder / "index.html").write_text("my notes", encoding="utf-8")
    refused = run_cli("report", scene, "a", "b", "-o", folder, "--size", "320x240")
    assert refused.exit_code == 2 and "earlier report" in refused.stderr and "--force" in refused.stderr
    assert (folder / "index.html").read_text(encoding="utf-8") == "my notes"
    assert run_cli("report", scene, "a", "b", "-o", folder, "--size", "320x240", "--force").exit_code == 0
    assert "my notes" not in (folder / "index.html").read_text(encoding="utf-8")


def test_an_import_never_replaces_its_own_input_even_with_force(tmp_path, run_cli):
    """The scan lies in the output folder under the name the import writes (terrain.ply): --force would have
    replaced the scan with its own cropped copy."""
    import trimesh

    folder = tmp_path / "scan"
    folder.mkdir()
    scan = folder / "terrain.ply"
    trimesh.load(REPO / "terrain_models" / "container.stl").export(scan)
    before = scan.read_bytes()
    refused = run_cli("import-scan", scan, "-o", folder, "--force")
    assert refused.exit_code == 2 and "input" in refused.stderr and "Traceback" not in refused.stderr
    assert scan.read_bytes() == before
