"""The `real_` terrain pieces (terrain_models/make_real_models.py) and table-c: terrain as real kits export it, one
non-convex body per piece with thousands of triangles, some not watertight; the engine's hard case."""

import json

import numpy as np
import pytest
import shapely
import trimesh
import yaml

from lofkit import World, load_scene, validate_file
from lofkit.geometry import flat
from lofkit.geometry.flat import GRID
from lofkit.ray.moller_trumbore import NumpyRays
from lofkit.sight.search import sight
from lofkit.sight.segments import Segments
from lofkit.testing import sight_brute_force
from tests.helpers import REPO, build_world, trooper

MODELS = REPO / "terrain_models"
CATALOG = yaml.safe_load((MODELS / "catalog-real.yaml").read_text())
TABLE_C = REPO / "examples" / "tables" / "table-c.yaml"


def load(entry: dict) -> trimesh.Trimesh:
    return trimesh.load(MODELS / entry["file"], force="mesh")


@pytest.mark.parametrize("entry", CATALOG, ids=lambda e: e["name"])
def test_each_real_piece_is_one_non_convex_body_of_thousands_of_triangles(entry):
    mesh = load(entry)
    assert entry["name"].startswith("real_") and entry["bodies"] == 1
    assert len(mesh.split(only_watertight=False, repair=False)) == 1  # repair=False: no hole filling (networkx)
    assert not mesh.is_convex
    assert len(mesh.faces) == entry["triangles"] >= 2000
    assert mesh.is_watertight is entry["watertight"]
    assert np.allclose(mesh.extents, [*entry["footprint"], entry["height"]], atol=1e-2)
    assert np.isclose(mesh.bounds[0, 2], 0) and np.allclose((mesh.bounds[0, :2] + mesh.bounds[1, :2]) / 2, 0)


def test_at_least_two_real_pieces_are_not_watertight():
    open_pieces = [e["name"] for e in CATALOG if not load(e).is_watertight]
    assert len(open_pieces) >= 2 and len(open_pieces) == sum(not e["watertight"] for e in CATALOG)


def test_table_c_validates_and_loads_into_a_world():
    result, world = validate_file(TABLE_C)
    assert result.errors == () and result.warnings == () and isinstance(world, World)
    assert 12 <= len(world.pieces) <= 20 and len(world.scene.deployment_zones) == 2
    assert all("real_" in str(t.mesh) for t in world.scene.terrain)
    troopers = [t for t in world.scene.troopers if not t.marker]
    assert len(troopers) >= 24 and len({t.silhouette for t in troopers}) >= 6
    assert sum(z > 1 for z in world.troopers.z) >= 8  # on roofs, the ruin's upper floor and the walkways


def test_check_on_table_c_shows_a_witness_plain_numpy_rays_find_clear(run_cli):
    """blue-1 sees red-2 on table-c, past real pieces that hide many of the segments between them; the witness's
    segments (the eye to the patch's centre and corners), cast afresh against the full meshes of the blocking pieces
    by plain-numpy Moller-Trumbore (not the search's Embree scene), cross no terrain."""
    result = run_cli("check", TABLE_C, "blue-1", "red-2", "--json")
    assert result.exit_code == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert verdict["lof"] and verdict["sight"]
    witness = verdict["witness"]
    ends = np.array([witness["patch_centre"], *witness["patch"]])
    segments = Segments.between(np.broadcast_to(witness["eye"], ends.shape), ends)
    world = World.from_scene(load_scene(TABLE_C))
    rays = NumpyRays([piece.mesh for piece in world.pieces if piece.blocks_lof])
    assert not rays.occluded(segments.origins, segments.directions, segments.lengths).any()


def piece(name: str, x: float, y: float, rotation: float = 0) -> dict:
    return {"id": name, "mesh": str(MODELS / f"real_{name}.stl"), "position": [x, y, 0], "rotation": rotation}


@pytest.mark.slow
def test_fast_search_equals_the_brute_force_reference_among_real_pieces():
    """A closed block, an open-topped shell (not watertight) and a ruin with a jagged top: troopers in the open,
    behind the block, inside the shell (seen only through its door and windows, or over its walls from above) and
    on the ruin's upper floor."""
    world = build_world(
        [
            trooper("a", 600, 250),
            trooper("b", 600, 820, side="red", facing=270),  # behind the block from a
            trooper("c", 380, 520, z="auto", side="red", facing=0),  # inside the shell
            trooper("d", 864, 556, z="auto", silhouette=3, facing=180),  # on the ruin's upper floor
            trooper("e", 250, 300, silhouette=5, facing=45),
        ],
        [piece("tower_block", 600, 560), piece("roofless_shell", 400, 520), piece("ruined_hab", 900, 560)],
    )
    pairs = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    fast, brute = sight(world, pairs), sight_brute_force(world, pairs)
    assert {k: s.seen for k, s in fast.items()} == {k: s.seen for k, s in brute.items()}
    assert any(s.seen for s in fast.values()) and not all(s.seen for s in fast.values())


def test_info_reports_the_proof_parts_of_every_piece(run_cli):
    """Every real piece has hundreds of inner boxes covering a good share of its solid; the open ones had their holes
    capped; no face is unusable. A box-shaped building is one convex part, the whole of its solid."""
    result = run_cli("info", TABLE_C, "--json")
    assert result.exit_code == 0, result.stderr
    pieces = json.loads(result.stdout)["pieces"]
    assert len(pieces) == 16
    for piece in pieces:
        assert piece["proof_parts"] >= 50 and piece["solid_covered"] > 0.5 and piece["faces_skipped"] == 0
        assert (piece["holes_closed"] > 0) is (not piece["watertight"]), piece
    shown = run_cli("info", REPO / "examples" / "rulebook_lof.yaml", "--json")
    (building,) = json.loads(shown.stdout)["pieces"]
    assert building["proof_parts"] == 1 and building["solid_covered"] == 1 and building["holes_closed"] == 0


COARSE = ("--cell-size", "2in", "--viewer-spacing", "4in")
"""A coarser grid than the default (1 in cells, viewers 2 in apart) for the table-wide commands: the same real pieces
in every sight line, an eighth of the lines."""
REAL_COMMANDS = (
    ("validate", "{scene}"),
    ("info", "{scene}"),
    ("check", "{scene}", "blue-1", "red-1"),
    ("matrix", "{scene}"),
    ("aro", "{scene}", "blue-1"),
    ("disperse", "{scene}", "blue-1", "--at", "600,600", "--all"),
    ("deploy-check", "{scene}"),
    ("heatmap", "{scene}", "--zone", "red", "--quick", *COARSE, "-o", "{out}/heat.png"),
    ("lanes", "{scene}", "--quick"),
    ("analyze", "{scene}", "--quick", *COARSE, "-o", "{out}/analysis"),
    ("compare", "{scene}", "{scene}", "--quick", *COARSE, "-o", "{out}/compare.png"),
    ("render", "{scene}", "-o", "{out}/iso.png", "--view", "iso"),
    ("report", "{scene}", "blue-1", "red-1", "-o", "{out}/ruling"),
    ("export", "{scene}", "-o", "{out}/table.glb"),
)


@pytest.mark.slow
@pytest.mark.parametrize("args", REAL_COMMANDS, ids=lambda a: a[0])
def test_every_command_runs_on_real_terrain(args, run_cli, tmp_path):
    result = run_cli(*(a.format(scene=TABLE_C, out=tmp_path) for a in args))
    assert result.exit_code == 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_real_piece_s_outline_is_united_once_and_read_back_exactly(monkeypatch, tmp_path):
    """The outline of a mesh of thousands of triangles is kept in the disk cache: asked again, it is read back with
    every coordinate as united; a mesh moved by a micrometre is united afresh."""
    monkeypatch.setenv("LOFKIT_CACHE", str(tmp_path))
    mesh = load(CATALOG[0])
    united = flat.outline(mesh)
    assert len(list(tmp_path.glob("outline-*.npz"))) == 1

    def never(shapes, grid_size=None):
        raise AssertionError("united again")

    monkeypatch.setattr(shapely, "union_all", never)
    assert shapely.to_wkb(flat.outline(mesh)) == shapely.to_wkb(united)
    moved = mesh.copy()
    moved.vertices[0, 0] += 1e-3
    with pytest.raises(AssertionError, match="united again"):
        flat.outline(moved)


def test_a_footprint_survives_geos_giving_up_on_a_triangle_soup(monkeypatch, tmp_path):
    """GEOS's exact union can fail on a real mesh's triangles (TopologyException); the footprint then snaps to
    `flat.GRID` instead of failing."""
    world = World.from_scene(load_scene(TABLE_C))
    piece = world.pieces[world.blocking_pieces[0]]
    exact = flat.outline(piece.mesh)
    union_all = shapely.union_all
    asked = []

    def fragile(shapes, grid_size=None):
        asked.append(grid_size)
        if grid_size is None:
            raise shapely.errors.GEOSException("TopologyException: found non-noded intersection")
        return union_all(shapes, grid_size=grid_size)

    monkeypatch.setenv("LOFKIT_CACHE", str(tmp_path))  # united afresh, not read from the disk cache
    monkeypatch.setattr(shapely, "union_all", fragile)
    snapped = flat.outline(piece.mesh)
    assert asked == [None, GRID]
    assert snapped.symmetric_difference(exact).area < GRID * exact.length
    assert abs(snapped.area - exact.area) < GRID * exact.length
