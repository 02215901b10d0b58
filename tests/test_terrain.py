"""Terrain: primitives and mesh files placed with position, rotation and scale, in mm, z up."""

import numpy as np
import pytest
import trimesh

from lofkit import load_scene, scene_from_data
from lofkit.geometry.terrain import load_mesh_file, placed_mesh
from tests.helpers import build_world, scene_data, write_scene


def bounds_of(piece: dict, tmp_path=None) -> np.ndarray:
    data = scene_data([], [piece])
    scene = load_scene(write_scene(tmp_path, data)) if tmp_path is not None else scene_from_data(data)
    return placed_mesh(scene.terrain[0], scene).bounds


def test_box_position_is_the_centre_of_its_bottom_face():
    assert np.allclose(
        bounds_of({"id": "b", "box": {"size": [100, 60, 30]}, "position": [500, 400, 10]}),
        [[450, 370, 10], [550, 430, 40]],
    )


def test_box_rotates_counter_clockwise_about_its_centre():
    """A quarter turn swaps the box's extents about its centre; at 30 degrees its corners are where a turn
    counter-clockwise (seen from above) puts them, not the mirror image a clockwise one gives (same bounds)."""
    b = bounds_of({"id": "b", "box": {"size": [100, 20, 30]}, "position": [500, 400, 0], "rotation": 90})
    assert np.allclose(b, [[490, 350, 0], [510, 450, 30]])
    piece = {"id": "b", "box": {"size": [100, 20, 30]}, "position": [500, 400, 0], "rotation": 30}
    scene = scene_from_data(scene_data([], [piece]))
    corners = np.unique(placed_mesh(scene.terrain[0], scene).vertices.round(6), axis=0)
    c, s = np.cos(np.radians(30)), np.sin(np.radians(30))
    expected = [[500 + c * x - s * y, 400 + s * x + c * y, z] for x in (-50, 50) for y in (-10, 10) for z in (0, 30)]
    assert np.allclose(corners, np.unique(np.round(expected, 6), axis=0))


def test_cylinder_and_scale():
    b = bounds_of({"id": "c", "cylinder": {"diameter": 40, "height": 100}, "position": [300, 300], "scale": 0.5})
    assert np.allclose(b, [[290, 290, 0], [310, 310, 50]])
    b = bounds_of({"id": "c", "cylinder": {"diameter": 40, "height": 100}, "scale": [1, 1, 2], "position": [50, 50]})
    assert np.allclose(b[:, 2], [0, 200])


def test_wall_runs_from_to_with_thickness():
    b = bounds_of({"id": "w", "wall": {"from": [100, 900], "to": [400, 900], "thickness": 10, "height": 25}})
    assert np.allclose(b, [[100, 895, 0], [400, 905, 25]])


def test_prism_extrudes_a_footprint_from_its_origin():
    piece = {"id": "p", "prism": {"polygon": [[0, 0], [120, 0], [120, 80]], "height": 75}, "position": [900, 900, 5]}
    assert np.allclose(bounds_of(piece), [[900, 900, 5], [1020, 980, 80]])


@pytest.mark.parametrize("suffix", ["stl", "obj", "ply", "off", "glb", "gltf"])
def test_mesh_files_of_every_format(tmp_path, suffix):
    box = trimesh.creation.box((100, 60, 30))  # centred on its origin
    if suffix in ("glb", "gltf"):  # glTF is metres and Y up: the 30 mm height lies along y
        box = trimesh.creation.box((0.1, 0.03, 0.06))
    box.export(tmp_path / f"box.{suffix}")
    piece = {"id": "m", "mesh": f"box.{suffix}", "position": [500, 500, 15]}
    b = bounds_of(piece, tmp_path)
    assert np.allclose(b, [[450, 470, 0], [550, 530, 30]], atol=1e-4), b


def test_mesh_units_and_up_axis_override_the_defaults(tmp_path):
    trimesh.creation.box((4, 2, 1)).export(tmp_path / "inch_y_up.stl")  # inches, y up: 2 in tall
    piece = {"id": "m", "mesh": "inch_y_up.stl", "mesh_units": "in", "up_axis": "y", "position": [500, 500, 0]}
    extents = np.ptp(bounds_of(piece, tmp_path), axis=0)
    assert np.allclose(extents, [101.6, 25.4, 50.8])


def test_mesh_paths_are_relative_to_the_scene_file(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "tables").mkdir()
    trimesh.creation.box((10, 10, 10)).export(tmp_path / "models" / "cube.stl")
    piece = {"id": "m", "mesh": "../models/cube.stl", "position": [500, 500, 5]}
    scene = load_scene(write_scene(tmp_path / "tables", scene_data([], [piece])))
    assert np.allclose(placed_mesh(scene.terrain[0], scene).bounds, [[495, 495, 0], [505, 505, 10]])


def test_kinds_and_blocks_lof():
    world = build_world(
        [],
        [
            {"id": "solid", "box": {"size": [10, 10, 10]}, "position": [100, 100]},
            {"id": "smoke", "cylinder": {"diameter": 60, "height": 200}, "position": [200, 200],
             "kind": "zero_visibility"},
            {"id": "fog", "cylinder": {"diameter": 60, "height": 200}, "position": [300, 300],
             "kind": "poor_visibility"},
            {"id": "hedge", "box": {"size": [10, 10, 10]}, "position": [400, 400], "blocks_lof": False},
        ],
    )
    assert [p.blocks_lof for p in world.pieces] == [True, True, False, False]
    assert [p.solid for p in world.pieces] == [True, False, False, True]


def test_a_mesh_file_read_again_is_a_copy_of_its_own_and_follows_the_file(tmp_path):
    path = tmp_path / "box.stl"
    trimesh.creation.box((10, 20, 30)).export(path)
    load_mesh_file(path).apply_translation([100, 0, 0])  # a caller moves the mesh it was given
    assert np.allclose(load_mesh_file(path).bounds, [[-5, -10, -15], [5, 10, 15]])
    trimesh.creation.box((10, 20, 40)).export(path)  # as many bytes (12 triangles), written at once
    assert np.allclose(load_mesh_file(path).bounds[:, 2], [-20, 20])
