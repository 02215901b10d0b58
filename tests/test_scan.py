"""`lofkit import-scan`: a synthetic scan (a known table, tilted, turned, offset, scaled, with noise) is levelled,
found, scaled and cropped back to the known table."""

import json
import math

import numpy as np
import pytest
import trimesh

from lofkit import World, load_scene
from lofkit.exchange.scan_planes import fit_plane, rectangle
from tests.scan_files import BOXES, SCAN_SCALE, SQUARE, TILT_DEG, phone_game_scan, scan_transform, write_game_scan
from tests.scan_simulation import Z_UP_TO_Y_UP

WIDTH, DEPTH = 1200.0, 900.0


def _known_table(rng) -> trimesh.Trimesh:
    """A 1200 x 900 mm table top (a 48 x 36 grid, 0.3 mm of noise in z) with three boxes standing on it."""
    nx, ny = 48, 36
    xs, ys = np.meshgrid(np.linspace(0, WIDTH, nx + 1), np.linspace(0, DEPTH, ny + 1), indexing="ij")
    vertices = np.column_stack([xs.ravel(), ys.ravel(), rng.normal(0, 0.3, xs.size)])
    index = np.arange(xs.size).reshape(nx + 1, ny + 1)
    a, b, c, d = index[:-1, :-1].ravel(), index[1:, :-1].ravel(), index[1:, 1:].ravel(), index[:-1, 1:].ravel()
    top = trimesh.Trimesh(vertices, np.vstack([np.column_stack([a, b, c]), np.column_stack([a, c, d])]), process=False)
    boxes = []
    for x, y, w, dd, h in BOXES:
        box = trimesh.creation.box(extents=(w, dd, h))
        box.apply_translation((x, y, h / 2))
        boxes.append(box)
    return trimesh.util.concatenate([top, *boxes])


def file_axes(path) -> np.ndarray:
    """The turn from the scan's z-up frame into the file's axes: glTF files are y up, as phone scans arrive."""
    return Z_UP_TO_Y_UP if str(path).endswith((".glb", ".gltf")) else np.eye(4)


def write_scan(path, transform, seed=1, noise_faces=300):
    """The known table moved by `transform`, plus small random triangles above, below and around it, written in
    the file's axes (y up for glTF)."""
    rng = np.random.default_rng(seed)
    scan = _known_table(rng)
    centres = rng.uniform([-300, -300, -100], [WIDTH + 300, DEPTH + 300, 400], (noise_faces, 3))
    corners = (centres[:, None, :] + rng.normal(0, 5, (noise_faces, 3, 3))).reshape(-1, 3)
    noise = trimesh.Trimesh(corners, np.arange(len(corners)).reshape(-1, 3), process=False)
    scan = trimesh.util.concatenate([scan, noise])
    scan.apply_transform(file_axes(path) @ transform)
    scan.export(str(path))
    return path


def _box_tops(mirrored=False) -> np.ndarray:
    corners = []
    for x, y, w, d, h in BOXES:
        for sx in (-1, 1):
            for sy in (-1, 1):
                px, py = x + sx * w / 2, y + sy * d / 2
                corners.append((WIDTH - px, DEPTH - py, h) if mirrored else (px, py, h))
    return np.array(corners)


def _all_vertices(scene) -> np.ndarray:
    """Every vertex of every terrain piece of the scene file `scene`."""
    return np.vstack([piece.mesh.vertices for piece in World.from_scene(load_scene(scene)).pieces])


def _nearest(points, targets) -> np.ndarray:
    return np.linalg.norm(points[:, None, :] - targets[None, :, :], axis=2).min(axis=0)


@pytest.fixture(scope="module")
def scan_glb(tmp_path_factory):
    return write_scan(tmp_path_factory.mktemp("scan") / "scan.glb", scan_transform(20.0))


def test_synthetic_scan_is_levelled_scaled_and_placed(scan_glb, tmp_path, run_cli):
    result = run_cli("import-scan", scan_glb, "--table", "1200mmx900mm", "-o", tmp_path / "out", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["tilt_deg"] == pytest.approx(TILT_DEG, abs=0.5)
    assert report["scale"] == pytest.approx(1 / SCAN_SCALE, rel=0.005)
    assert report["table_found_mm"] == pytest.approx([WIDTH, DEPTH], rel=0.005)
    assert 0.5 < report["inlier_share"] < 1 and report["warnings"] == []
    # the import undoes the scan's transform: what is left is the identity, up to the tolerances
    undone = np.array(report["transform"]) @ file_axes(scan_glb) @ scan_transform(20.0)
    scale = np.cbrt(np.linalg.det(undone[:3, :3]))
    assert scale == pytest.approx(1.0, rel=0.005)
    up = undone[:3, 2] / np.linalg.norm(undone[:3, 2])
    assert math.degrees(math.acos(up[2])) < 0.5
    assert np.allclose(undone[:3, :3] / scale, np.eye(3), atol=math.radians(0.5))
    assert np.allclose(undone[:3, 3], 0, atol=2.0)
    # the written scene: a piece for each box, where it stood, the table top and outside noise gone
    world = World.from_scene(load_scene(tmp_path / "out" / "scene.yaml"))
    assert world.scene.table.width == pytest.approx(WIDTH) and world.scene.table.depth == pytest.approx(DEPTH)
    assert len(world.pieces) == len(BOXES) and report["holes"]["on_table"] == len(BOXES)
    vertices = np.vstack([piece.mesh.vertices for piece in world.pieces])
    assert _nearest(vertices, _box_tops()).max() < 2.0
    inside = (vertices[:, 0] > -3) & (vertices[:, 0] < WIDTH + 3) & (vertices[:, 1] > -3) & (vertices[:, 1] < DEPTH + 3)
    assert inside.mean() > 0.9  # only faces whose centroid is over the table are kept
    assert report["faces_dropped"]["table_top"] == 2 * 48 * 36 + 3 * 2  # the grid and the boxes' bottoms
    # what lies on the table is each box's underside, closed again, and nothing of the table top
    on_table = sum(piece.mesh.area_faces[(np.abs(piece.mesh.triangles[:, :, 2]) <= 1.0).all(axis=1)].sum()
                   for piece in world.pieces)
    assert on_table == pytest.approx(sum(w * d for _, _, w, d, _ in BOXES), rel=0.02)


def test_long_side_follows_the_table_and_turn_flips_it(tmp_path, run_cli):
    """A scan turned by 110 degrees: the long side is put along x (the 180-degree ambiguity remains: --turn)."""
    scan = write_scan(tmp_path / "scan.ply", scan_transform(110.0), seed=2)
    for turn, mirrored in (("0", True), ("180", False)):
        result = run_cli("import-scan", scan, "--table", "1200mmx900mm", "-o", tmp_path / turn, "--turn", turn,
                         "--json")
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout)["table_found_mm"] == pytest.approx([WIDTH, DEPTH], rel=0.005)
        vertices = _all_vertices(tmp_path / turn / "scene.yaml")
        assert _nearest(vertices, _box_tops(mirrored)).max() < 2.0


def test_true_scale_keeps_the_scan_units(tmp_path, run_cli):
    scan = write_scan(tmp_path / "scan.obj", scan_transform(-10.0, tilt_deg=3.0, scale=0.1), seed=3)  # in cm
    result = run_cli("import-scan", scan, "--table", "1200mmx900mm", "-o", tmp_path / "out", "--scale", "true",
                     "--scan-units", "cm", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["scale"] == 10.0 and report["tilt_deg"] == pytest.approx(3.0, abs=0.5)
    assert report["table_found_mm"] == pytest.approx([WIDTH, DEPTH], rel=0.005)
    wrong = run_cli("import-scan", scan, "--table", "1200mmx900mm", "-o", tmp_path / "mm", "--scale", "true",
                    "--scan-units", "mm")
    assert wrong.exit_code == 0 and "check --scan-units" in wrong.stderr


def test_plane_fit_and_rectangle_on_known_points():
    rng = np.random.default_rng(0)
    xy = rng.uniform(0, 100, (4000, 2))
    points = np.column_stack([xy, 0.5 * xy[:, 0] + 3 + rng.normal(0, 0.01, 4000)])  # z = 0.5 x + 3
    points = np.vstack([points, rng.uniform(0, 100, (1000, 3))])
    plane = fit_plane(points, 0.1, rng)
    expected = np.array([-0.5, 0, 1]) / math.hypot(0.5, 1)
    assert np.degrees(np.arccos(plane.normal @ expected)) < 0.1 and plane.inlier_share == pytest.approx(0.8, abs=0.01)
    square = np.array([[0, 0], [4, 0], [4, 2], [0, 2]]) @ np.array([[math.cos(0.3), math.sin(0.3)],
                                                                  [-math.sin(0.3), math.cos(0.3)]])
    angle, a, b = rectangle(np.vstack([square, square.mean(axis=0)]))
    assert angle == pytest.approx(math.degrees(0.3)) and sorted([a, b]) == pytest.approx([2, 4])


def test_bad_scans_fail_with_clear_messages(tmp_path, run_cli):
    ball = tmp_path / "ball.stl"
    trimesh.creation.icosphere(subdivisions=4).export(str(ball))
    garbage = tmp_path / "garbage.ply"
    garbage.write_bytes(b"ply\nformat nonsense\n\x00\x01\x02")
    cloud = tmp_path / "cloud.ply"
    trimesh.PointCloud(np.random.default_rng(0).uniform(0, 1, (100, 3))).export(str(cloud))
    cases = [(ball, "no table found"), (garbage, "garbage.ply"), (cloud, "no faces"),
             (tmp_path / "missing.glb", "file not found"), (tmp_path / "notes.txt", "not a scan mesh")]
    for scan, message in cases:
        result = run_cli("import-scan", scan, "-o", tmp_path / f"out-{scan.stem}", "--table", "48inx48in")
        assert result.exit_code == 2 and message in result.stderr, (scan, result.stderr)
        assert "Traceback" not in result.stderr and not (tmp_path / f"out-{scan.stem}" / "scene.yaml").exists()


def test_a_scan_in_unknown_units_needs_the_table_or_its_units(tmp_path, run_cli):
    """An OBJ says no units, so its size cannot tell a 48" x 48" table from any other square one."""
    scan = write_scan(tmp_path / "scan.obj", scan_transform(0.0, scale=0.1), seed=3)
    result = run_cli("import-scan", scan, "-o", tmp_path / "out")
    assert result.exit_code == 2 and "Traceback" not in result.stderr and not (tmp_path / "out").exists()
    assert "does not say its units" in result.stderr and "--table" in result.stderr and "--scan-units" in result.stderr


def test_refuses_a_folder_holding_other_files(scan_glb, tmp_path, run_cli):
    folder = tmp_path / "busy"
    folder.mkdir()
    (folder / "notes.md").write_text("mine", encoding="utf-8")
    result = run_cli("import-scan", scan_glb, "--table", "1200mmx900mm", "-o", folder)
    assert result.exit_code == 2 and "already holds files (notes.md)" in result.stderr
    assert (folder / "notes.md").read_text(encoding="utf-8") == "mine" and not (folder / "scene.yaml").exists()
    bad_table = run_cli("import-scan", scan_glb, "--table", "1200x900", "-o", tmp_path / "t")
    assert bad_table.exit_code == 2 and "give units" in bad_table.stderr


@pytest.mark.slow
def test_the_walkthrough_example_runs(example_run):
    done, folder = example_run("examples/imports/scan_walkthrough.py")
    assert done.returncode == 0, done.stderr
    assert "levelled by 7.00 degrees" in done.stdout and "table found: 1219.2 x 914.4 mm" in done.stdout
    assert (folder / "out" / "imports" / "scan" / "scene.yaml").is_file()
    assert (folder / "out" / "imports" / "scan_table.glb").is_file()


# --- a scan of a game in progress: the room's floor, the table's legs, a roof with a miniature on it --------------

@pytest.fixture(scope="module")
def game_scan(tmp_path_factory):
    """The game as a phone app exports it: metres, y up, turned 23 degrees, tilted 2 and offset."""
    return write_game_scan(tmp_path_factory.mktemp("game") / "game.glb")


def test_the_table_is_found_in_a_room_not_the_floor_nor_a_roof(game_scan, tmp_path, run_cli):
    result = run_cli("import-scan", game_scan, "--table", "48inx48in", "-o", tmp_path / "out", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["table_found_mm"] == pytest.approx([SQUARE, SQUARE], rel=0.01)
    assert report["scale"] == pytest.approx(1000.0, rel=0.01) and report["table_choice"] == "given"
    assert report["fit"]["shape_error"] < 0.01 and report["fit"]["size_error"] < 0.01
    vertices = _all_vertices(tmp_path / "out" / "scene.yaml")
    # the boxes stand where they stood, up to the quarter turns a square table cannot tell apart (`--turn`)
    centre = np.array([SQUARE / 2, SQUARE / 2, 0.0])
    turned = [(_box_tops() - centre) @ trimesh.transformations.rotation_matrix(k * math.pi / 2, [0, 0, 1])[:3, :3].T
              + centre for k in range(4)]
    assert min(_nearest(vertices, tops).max() for tops in turned) < 3.0
    assert vertices[:, 2].min() > -2.0 and vertices[:, 2].max() == pytest.approx(190.0, abs=3.0)  # no floor, no legs


def test_without_a_table_size_the_standard_one_is_taken_and_said(game_scan, tmp_path, run_cli):
    result = run_cli("import-scan", game_scan, "-o", tmp_path / "out", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["table_choice"] == "48x48in" and report["table_mm"] == pytest.approx([SQUARE, SQUARE])
    assert any("took the standard 48x48in table" in warning for warning in report["warnings"])


def test_a_scan_where_nothing_fits_the_table_is_refused_with_what_was_found(game_scan, tmp_path, run_cli):
    """The floor has the shape of a 48" x 36" table but four times its size, the table top the wrong shape."""
    result = run_cli("import-scan", game_scan, "--table", "48inx36in", "-o", tmp_path / "out")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert "no table found" in result.stderr and "rectangle" in result.stderr and "--table" in result.stderr
    assert not (tmp_path / "out" / "scene.yaml").exists()


def write_usdz(path, mesh: trimesh.Trimesh, up: str = "Y", metres_per_unit: float = 1.0):
    """`mesh` as a USDZ package (one mesh prim, placed by a translation as apps place their nodes)."""
    from pxr import Gf, Sdf, Usd, UsdGeom, UsdUtils

    layer = path.with_suffix(".usdc")
    stage = Usd.Stage.CreateNew(str(layer))
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y if up == "Y" else UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, metres_per_unit)
    prim = UsdGeom.Mesh.Define(stage, "/scan/mesh")
    prim.CreatePointsAttr([Gf.Vec3f(*p) for p in (mesh.vertices - [0.25, 0.0, 0.0]).tolist()])
    prim.CreateFaceVertexCountsAttr([3] * len(mesh.faces))
    prim.CreateFaceVertexIndicesAttr(mesh.faces.ravel().tolist())
    UsdGeom.Xformable(prim).AddTranslateOp().Set(Gf.Vec3d(0.25, 0.0, 0.0))
    stage.GetRootLayer().Save()
    assert UsdUtils.CreateNewUsdzPackage(Sdf.AssetPath(str(layer)), str(path))
    return path


def test_a_usdz_scan_is_read_with_its_stated_axes_and_units(tmp_path, run_cli):
    """The game in progress as a phone app exports USDZ: y up, metres (stated by the stage)."""
    usdz = write_usdz(tmp_path / "game.usdz", phone_game_scan())
    result = run_cli("import-scan", usdz, "-o", tmp_path / "out", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["table_choice"] == "48x48in" and report["scale"] == pytest.approx(1000.0, rel=0.01)
    assert report["tilt_deg"] == pytest.approx(2.0, abs=0.5) and report["fit"]["size_error"] < 0.01
    true_scale = run_cli("import-scan", usdz, "--table", "48inx48in", "--scale", "true", "-o", tmp_path / "true",
                         "--json")
    assert true_scale.exit_code == 0 and json.loads(true_scale.stdout)["scale"] == 1000.0


def test_a_usd_file_with_no_mesh_is_refused(tmp_path, run_cli):
    from pxr import Usd, UsdGeom

    empty = tmp_path / "empty.usda"
    stage = Usd.Stage.CreateNew(str(empty))
    UsdGeom.Xform.Define(stage, "/nothing")
    stage.GetRootLayer().Save()
    broken = tmp_path / "broken.usda"
    broken.write_text("#usda 1.0\n( this is not usd", encoding="utf-8")
    for path, words in ((empty, "holds no mesh"), (broken, "not a USD file")):
        result = run_cli("import-scan", path, "-o", tmp_path / f"out-{path.stem}")
        assert result.exit_code == 2 and words in result.stderr and "Traceback" not in result.stderr, result.stderr
