"""`lofkit export`: the placed table as one glTF (metres, y up) whose nodes carry id, kind, silhouette and side,
and that loads back with trimesh (and as a lofkit mesh piece) where it was."""

import json

import numpy as np
import pytest
import trimesh

from lofkit import World, load_scene
from tests.helpers import scene_data, trooper, write_scene

TERRAIN = [
    {"id": "crate", "box": {"size": [100, 60, 50]}, "position": [300, 400, 0], "rotation": 30},
    {"id": "tower", "cylinder": {"diameter": 80, "height": 150}, "position": [900, 300, 0]},
    {"id": "wall", "wall": {"from": [100, 900], "to": [500, 1000], "thickness": 10, "height": 40}},
    {"id": "smoke", "cylinder": {"diameter": 63.5, "height": 100}, "position": [600, 600, 0],
     "kind": "zero_visibility"},
    {"id": "pillar", "box": {"size": [30, 30, 120]}, "position": [700, 250, 15], "rotation": {"x": 90, "z": 30}},
]
TROOPERS = [
    trooper("fusilier", 200, 200),
    trooper("heavy", 700, 900, side="red", silhouette=5, z=12),
    trooper("sniper", 1000, 1100, side="red", state=["prone"]),
    {"id": "camo", "side": "red", "marker": True, "position": [500, 500]},
]
ZONES = [{"side": "blue", "polygon": [[0, 0], [1219.2, 0], [1219.2, 300], [0, 300]]}]


@pytest.fixture
def world_and_scene(tmp_path):
    path = write_scene(tmp_path, scene_data(TROOPERS, TERRAIN, deployment_zones=ZONES))
    return World.from_scene(load_scene(path)), path


def _table_mm(vertices_gltf: np.ndarray) -> np.ndarray:
    """glTF (x, y, z) metres, y up -> table (x, y, z) mm, z up: (x, -z, y) * 1000."""
    x, y, z = np.asarray(vertices_gltf, dtype=float).T
    return np.column_stack([x, -z, y]) * 1000.0


def _expected(world) -> dict:
    """Node name -> (extras that must be there, bounds in table mm)."""
    w, d = world.scene.table.width, world.scene.table.depth
    nodes = {"table": ({"id": "table", "kind": "table", "silhouette": None, "side": None},
                       [[0, 0, -20], [w, d, 0]]),
             "zone/blue/0": ({"kind": "deployment_zone", "side": "blue"}, [[0, 0, 0.2], [1219.2, 300, 0.2]])}
    for piece in world.pieces:
        nodes[f"terrain/{piece.id}"] = ({"id": piece.id, "kind": piece.kind, "silhouette": None, "side": None},
                                        piece.bounds)
    v = world.troopers
    silhouettes = {"fusilier": 2, "heavy": 5, "sniper": 0, "camo": None}
    for i, trooper_id in enumerate(v.ids):
        (x, y), r = v.centre[i], v.radius[i]
        kind = "marker" if trooper_id == "camo" else "trooper"
        nodes[f"trooper/{trooper_id}"] = (
            {"id": trooper_id, "kind": kind, "silhouette": silhouettes[trooper_id], "side": v.sides[i]},
            [[x - r, y - r, v.z[i]], [x + r, y + r, v.z[i] + v.height[i]]])
    return nodes


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_export_round_trips_through_trimesh(world_and_scene, tmp_path, run_cli, suffix):
    world, scene_path = world_and_scene
    output = tmp_path / f"table{suffix}"
    result = run_cli("export", scene_path, "-o", output, "--include", "table,zones,terrain,troopers", "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    expected = _expected(world)
    assert [n["name"] for n in report["nodes"]] == list(expected)

    loaded = trimesh.load(str(output))
    assert isinstance(loaded, trimesh.Scene)
    assert set(loaded.graph.nodes_geometry) == set(expected)
    assert loaded.metadata["lofkit"]["table_mm"] == pytest.approx([1219.2, 1219.2])
    for name, (extras, bounds) in expected.items():
        transform, geometry = loaded.graph[name]
        node_extras = loaded.graph.transforms.edge_data[(loaded.graph.base_frame, name)]["metadata"]
        assert {k: node_extras[k] for k in extras} == extras, name
        assert {k: loaded.geometry[geometry].metadata[k] for k in extras} == extras, name
        # the mesh carries the node's extras and nothing more (trimesh adds two keys of its own when it loads)
        mesh_extras = {k: v for k, v in loaded.geometry[geometry].metadata.items()
                       if k not in ("units", "from_gltf_primitive")}
        assert mesh_extras == node_extras, name
        vertices = trimesh.transform_points(loaded.geometry[geometry].vertices, transform)
        mm = _table_mm(vertices)
        assert np.abs(np.array([mm.min(axis=0), mm.max(axis=0)]) - np.asarray(bounds)).max() < 1e-3, name
    assert loaded.graph.transforms.edge_data[(loaded.graph.base_frame, "trooper/heavy")]["metadata"]["base_mm"] == 40


def test_exported_terrain_reimports_as_one_mesh_piece(world_and_scene, tmp_path, run_cli):
    """glTF defaults (metres, y up) of the scene format read the export back in table mm."""
    world, scene_path = world_and_scene
    assert run_cli("export", scene_path, "-o", tmp_path / "terrain.glb", "--include", "terrain").exit_code == 0
    again = write_scene(tmp_path, scene_data([], [{"id": "all", "mesh": "terrain.glb"}]), name="again.yaml")
    (piece,) = World.from_scene(load_scene(again)).pieces
    low = np.min([p.bounds[0] for p in world.pieces], axis=0)
    high = np.max([p.bounds[1] for p in world.pieces], axis=0)
    assert np.abs(piece.bounds - np.array([low, high])).max() < 1e-3
    assert len(piece.mesh.faces) == sum(len(p.mesh.faces) for p in world.pieces)


def test_export_refuses_to_overwrite_and_bad_options(world_and_scene, tmp_path, run_cli):
    _, scene_path = world_and_scene
    output = tmp_path / "table.glb"
    output.write_bytes(b"mine")
    refused = run_cli("export", scene_path, "-o", output)
    assert refused.exit_code == 2 and "already exists" in refused.stderr and output.read_bytes() == b"mine"
    assert run_cli("export", scene_path, "-o", output, "--force").exit_code == 0 and output.read_bytes() != b"mine"
    wrong_part = run_cli("export", scene_path, "-o", tmp_path / "x.glb", "--include", "terrain,people")
    assert wrong_part.exit_code == 2 and "choose from terrain, troopers, table, zones" in wrong_part.stderr
    wrong_suffix = run_cli("export", scene_path, "-o", tmp_path / "x.obj")
    assert wrong_suffix.exit_code == 2 and ".glb or .gltf" in wrong_suffix.stderr
    empty = write_scene(tmp_path, scene_data([trooper("a", 100, 100)]), name="empty.yaml")
    nothing = run_cli("export", empty, "-o", tmp_path / "none.glb", "--include", "terrain")
    assert nothing.exit_code == 2 and "nothing to export" in nothing.stderr
