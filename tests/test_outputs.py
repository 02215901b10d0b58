"""Nothing a user made is replaced unasked (`exchange.output`'s policy, on every command that writes): an output file
that is already there needs --force, an input is never an output, and a path under a file is refused before any
work, with exit status 2 and no traceback."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from lofkit import World
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
    """The scan lies in the output folder under a name the import writes (piece-01.ply): --force would have
    replaced the scan with its own cropped copy."""
    import trimesh

    folder = tmp_path / "scan"
    folder.mkdir()
    scan = folder / "piece-01.ply"
    trimesh.load(REPO / "terrain_models" / "container.stl").export(scan)
    before = scan.read_bytes()
    refused = run_cli("import-scan", scan, "-o", folder, "--force")
    assert refused.exit_code == 2 and "input" in refused.stderr and "Traceback" not in refused.stderr
    assert scan.read_bytes() == before


WRITERS = {**COMMANDS, "export": lambda scene, out: ("export", scene, "-o", out)}


def _picture(path) -> bytes:
    from PIL import Image

    Image.new("RGB", (60, 60), "#7a8f5c").save(path)
    return path.read_bytes()


def _reading_scene(folder, image: str):
    """A scene that reads a table picture (`image`, relative to `folder`) and a mesh, crate.glb, beside it."""
    import trimesh

    trimesh.creation.box((0.05, 0.05, 0.05)).export(folder / "crate.glb")  # glTF: metres
    data = scene_data([trooper("a", 100, 100), trooper("b", 500, 500, side="red")],
                      [{"id": "crate", "mesh": "crate.glb", "position": [300, 300, 0]}],
                      table={"width": 600, "depth": 600, "image": image}, deployment_zones=ZONES)
    return write_scene(folder, data)


@pytest.mark.parametrize(("command", "name"), [*((command, "map.png") for command in sorted(COMMANDS)),
                                               ("export", "crate.glb")])
def test_a_file_the_scene_reads_is_never_an_output_even_with_force(command, name, tmp_path, run_cli):
    """The table picture and the mesh files are inputs of the run, as the scene file is."""
    _picture(tmp_path / "map.png")
    scene = _reading_scene(tmp_path, "map.png")
    before = (tmp_path / name).read_bytes()
    result = run_cli(*WRITERS[command](scene, tmp_path / name), "--force")
    assert result.exit_code == 2 and "is an input of this run" in result.stderr, result.output
    assert "Traceback" not in result.stderr and (tmp_path / name).read_bytes() == before


@pytest.mark.parametrize(("args", "name"), [
    (("report", "{scene}", "a", "b", "-o", "{folder}", "--size", "320x240"), "top.png"),
    (("analyze", "{scene}", "-o", "{folder}", *QUICK), "scene-heatmap-red.png"),
])
def test_a_folder_run_never_writes_over_a_file_the_scene_reads(args, name, tmp_path, run_cli):
    """The table picture lies in the output folder under a name the run writes (or, for `analyze`, removes as an
    earlier analysis's heatmap)."""
    folder = tmp_path / "out"
    folder.mkdir()
    before = _picture(folder / name)
    scene = _reading_scene(tmp_path, f"out/{name}")
    result = run_cli(*(a.format(scene=scene, folder=folder) for a in args), "--force")
    assert result.exit_code == 2 and "is an input of this run" in result.stderr, result.output
    assert (folder / name).read_bytes() == before


@pytest.mark.parametrize(("mesh", "side"), [("crate.obj", "paint.mtl"), ("crate.gltf", "crate-data.bin")])
def test_a_file_a_mesh_reads_is_an_input_too(mesh, side, tmp_path):
    """An OBJ's material library and a glTF's buffer are read with the mesh, so no run writes over them (the output
    check refuses a scene's `input_files`, as the tests above show)."""
    import trimesh

    from lofkit import load_scene

    box = trimesh.creation.box((50, 50, 50))
    if mesh.endswith(".obj"):
        (tmp_path / mesh).write_text(f"mtllib {side}\n" + box.export(file_type="obj"), encoding="utf-8")
        (tmp_path / side).write_text("newmtl paint\nKd 0.5 0.5 0.5\n", encoding="utf-8")
    else:
        files = box.export(file_type="gltf")
        document = json.loads(files.pop("model.gltf"))
        for name, data in files.items():
            (tmp_path / name).write_bytes(data)
        (tmp_path / document["buffers"][0]["uri"]).rename(tmp_path / side)
        document["buffers"][0]["uri"] = side
        (tmp_path / mesh).write_text(json.dumps(document), encoding="utf-8")
    data = scene_data([trooper("a", 100, 100)], [{"id": "crate", "mesh": mesh, "position": [300, 300, 0]}])
    scene = load_scene(write_scene(tmp_path, data))
    assert (tmp_path / side).resolve() in [path.resolve() for path in scene.input_files()]
    assert World.from_scene(scene).pieces[0].bounds is not None  # the mesh and its side file load


def test_a_texture_a_material_names_is_an_input_too(tmp_path, run_cli):
    """trimesh reads the texture maps an OBJ's material library names (options first, the file name last), so
    `--force` never writes a picture over one."""
    import trimesh
    from PIL import Image

    (tmp_path / "crate.obj").write_text("mtllib paint.mtl\n" + trimesh.creation.box((50, 50, 50)).export(
        file_type="obj"), encoding="utf-8")
    (tmp_path / "paint.mtl").write_text("newmtl paint\nKd 0.5 0.5 0.5\nmap_Kd -s 1 1 1 wood.png\n", encoding="utf-8")
    Image.new("RGB", (4, 4), (120, 80, 40)).save(tmp_path / "wood.png")
    before = (tmp_path / "wood.png").read_bytes()
    data = scene_data([trooper("a", 100, 100)], [{"id": "crate", "mesh": "crate.obj", "position": [300, 300, 0]}])
    scene = write_scene(tmp_path, data)
    result = run_cli("render", scene, "-o", tmp_path / "wood.png", "--force")
    assert result.exit_code == 2 and "is an input of this run" in result.stderr, result.output
    assert (tmp_path / "wood.png").read_bytes() == before


def test_import_tts_never_writes_over_its_save(tmp_path, run_cli):
    save = tmp_path / "save.yaml"  # JSON is YAML: a save under a scene's name
    save.write_text('{"SaveName": "mine", "ObjectStates": []}', encoding="utf-8")
    result = run_cli("import-tts", save, "-o", save, "--force")
    assert result.exit_code == 2 and "is an input of this run" in result.stderr, result.output
    assert save.read_text(encoding="utf-8") == '{"SaveName": "mine", "ObjectStates": []}'


def _no_work(*args, **kwargs):
    raise AssertionError("the work started before the outputs were checked")


def test_generate_never_writes_over_its_catalogue(tmp_path, run_cli, monkeypatch):
    import yaml

    monkeypatch.setattr("lofkit.design.generate.make_brief", _no_work)
    folder = tmp_path / "out"
    folder.mkdir()
    catalog = folder / "best-1.yaml"  # a name generate writes
    pieces = yaml.safe_load((REPO / "terrain_models" / "catalog.yaml").read_text(encoding="utf-8"))
    catalog.write_text(yaml.safe_dump([{**piece, "file": str(REPO / "terrain_models" / piece["file"])}
                                       for piece in pieces]), encoding="utf-8")
    before = catalog.read_bytes()
    result = run_cli("generate", "--catalog", catalog, "--target", "safe_share>=0.05", "-o", folder, "--force")
    assert result.exit_code == 2 and "is an input of this run" in result.stderr, result.output
    assert catalog.read_bytes() == before


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_picture_named_in_upper_case_is_written_as_a_png(command, scene, tmp_path, run_cli):
    picture = tmp_path / "TABLE.PNG"
    result = run_cli(*COMMANDS[command](scene, picture))
    assert result.exit_code == 0, result.output
    assert picture.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


@pytest.fixture
def sealed(tmp_path, monkeypatch) -> Path:
    """A folder that takes no new file, as a read-only folder or /proc does (made so for this test's probes, since a
    folder's permissions do not stop root)."""
    def no_new_file(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(tempfile, "TemporaryFile", no_new_file)
    return tmp_path


@pytest.mark.parametrize(("module", "args"), [
    ("pictures", ("render", "{scene}", "-o", "{sealed}/x.png")),
    ("imports", ("export", "{scene}", "-o", "{sealed}/x.glb")),
    ("analysis", ("heatmap", "{scene}", "--zone", "red", "-o", "{sealed}/x.png", *QUICK)),
    ("analysis", ("lanes", "{scene}", "-o", "{sealed}/x.png", *QUICK)),
    ("analysis", ("compare", "{scene}", "{scene}", "-o", "{sealed}/x.png", *QUICK)),
    ("analysis", ("analyze", "{scene}", "-o", "{sealed}/cards", *QUICK)),
    ("pictures", ("report", "{scene}", "a", "b", "-o", "{sealed}/ruling")),
], ids=lambda value: value if isinstance(value, str) else value[0])
def test_an_output_that_cannot_be_written_is_refused_before_any_work(module, args, scene, sealed, run_cli,
                                                                      monkeypatch):
    monkeypatch.setattr(f"lofkit.cli.{module}.load_world", _no_work)
    result = run_cli(*(a.format(scene=scene, sealed=sealed) for a in args))
    assert result.exit_code == 2 and f"cannot write {sealed}/" in result.stderr, result.output
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_generate_refuses_a_folder_that_cannot_be_written_before_any_work(sealed, run_cli, monkeypatch):
    monkeypatch.setattr("lofkit.design.generate.make_brief", _no_work)
    result = run_cli("generate", "--target", "safe_share>=0.05", "-o", sealed / "layouts")
    assert result.exit_code == 2 and f"cannot write {sealed / 'layouts'}" in result.stderr, result.output


def test_a_file_that_is_there_is_replaced_in_a_folder_that_takes_no_new_file(sealed):
    """Replacing a file writes it in place, so only the file must take writing: a folder that takes no new file (as
    a read-only folder holding a writable file) refuses a new name, with the folder named, but not `--force` over
    a file that is there."""
    from lofkit.errors import LofkitError
    from lofkit.exchange.output import check_output_file

    there = sealed / "pic.png"
    there.write_bytes(b"old")
    check_output_file(there, overwrite=True)
    assert there.read_bytes() == b"old"
    with pytest.raises(LofkitError, match=f"the folder {sealed} takes no new file"):
        check_output_file(sealed / "new.png", overwrite=True)
