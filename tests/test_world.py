"""The World: z: auto resting on what is below, warnings, and the broad-phase indexes."""

import numpy as np
import pytest
import yaml

from lofkit import World, load_scene
from tests.helpers import REPO, build_world, scene_data, trooper, write_scene

BUILDING = {"id": "building", "box": {"size": [200, 150, 150]}, "position": [600, 600, 0], "rotation": 20}


def test_z_auto_stands_on_a_buildings_roof():
    world = build_world([trooper("sniper", 600, 600, z="auto"), trooper("street", 200, 200, z="auto")], [BUILDING])
    assert np.allclose(world.troopers.z, [150, 0])
    assert world.warnings == []


def test_z_auto_on_the_generated_two_storey_building():
    """The hollow building of terrain_models/: casting down lands on its roof, not on the first floor."""
    entries = yaml.safe_load((REPO / "terrain_models" / "catalog.yaml").read_text())
    building = next(e for e in entries if "building" in e["name"])
    piece = {"id": "b", "mesh": str(REPO / "terrain_models" / building["file"]), "position": [600, 600, 0]}
    world = build_world([trooper("roof", 600, 600, z="auto")], [piece])
    assert np.isclose(world.troopers.z[0], building["height"], atol=1e-3)


def test_z_auto_takes_the_highest_surface_under_any_part_of_the_base():
    """A base hanging over a roof edge still rests on the roof (its highest support)."""
    world = build_world([trooper("edge", 600 + 100 + 10, 600, z="auto")], [{**BUILDING, "rotation": 0}])
    assert np.isclose(world.troopers.z[0], 150)


def test_z_auto_ignores_zones_that_are_not_solid():
    smoke = {"id": "smoke", "cylinder": {"diameter": 100, "height": 300}, "position": [600, 600],
             "kind": "zero_visibility"}
    world = build_world([trooper("a", 600, 600, z="auto")], [smoke])
    assert world.troopers.z[0] == 0


def test_z_auto_on_a_raised_piece(tmp_path):
    deck = {"id": "deck", "box": {"size": [300, 60, 5]}, "position": [600, 600, 80]}
    world = build_world([trooper("a", 600, 600, z="auto")], [deck])
    assert np.isclose(world.troopers.z[0], 85)


def test_warning_for_terrain_past_the_table_edge():
    world = build_world([], [{"id": "long", "box": {"size": [200, 20, 20]}, "position": [50, 600]}])
    assert [w.where for w in world.warnings] == ["terrain[0]"] and "50.0 mm past" in world.warnings[0].message


@pytest.mark.parametrize(
    ("position", "z", "inside"),
    [
        ([600, 600], 0, True),  # standing in the block
        ([600, 600], 150, False),  # standing on its roof: touching is not intersecting
        ([600 + 100 + 12.5, 600], 0, False),  # base touching the wall from outside
        ([600 + 100 + 12.4, 600], 0, True),  # 0.1 mm into the wall
    ],
)
def test_warning_for_a_volume_inside_solid_scenery(position, z, inside):
    world = build_world([trooper("a", *position, z=z)], [{**BUILDING, "rotation": 0}])
    assert (["troopers[0]"] if inside else []) == [w.where for w in world.warnings if "inside solid" in w.message]


def test_volume_buried_in_a_large_block_is_found():
    block = {"id": "hill", "box": {"size": [400, 400, 300]}, "position": [600, 600, 0]}
    world = build_world([trooper("a", 600, 600, z=100)], [block])
    assert "hill" in world.warnings[0].message


def test_thin_pole_through_a_volume_is_found():
    pole = {"id": "pole", "cylinder": {"diameter": 2, "height": 100}, "position": [603, 597]}
    world = build_world([trooper("a", 600, 600)], [pole])
    assert any("pole" in w.message for w in world.warnings)


def test_volumes_near_the_same_pieces_are_told_apart_when_tested_together():
    """The clearance test takes the volumes near a piece together: each keeps the answer it has alone."""
    hill = {"id": "hill", "box": {"size": [400, 400, 300]}, "position": [300, 300, 0]}
    pole = {"id": "pole", "cylinder": {"diameter": 2, "height": 100}, "position": [903, 897]}
    spots = [(300, 300, 100), (300, 300, 300), (900, 900, 0), (900, 960, 0), (300 + 200 + 12.4, 300, 0),
             (300 + 200 + 12.5, 300, 0)]
    troopers = [trooper(f"t{k}", x, y, z=z) for k, (x, y, z) in enumerate(spots)]
    together = build_world(troopers, [hill, pole])
    alone = [build_world([t], [hill, pole]) for t in troopers]
    assert [w.where for w in together.warnings if "inside solid" in w.message] == [
        f"troopers[{k}]" for k, world in enumerate(alone) if any("inside solid" in w.message for w in world.warnings)]
    assert len([w for w in together.warnings if "inside solid" in w.message]) == 3


def test_missing_facing_is_a_warning_not_an_error():
    world = build_world([trooper("a", 600, 600, facing=None)])
    assert world.troopers.facing[0] == 0 and "no `facing`" in world.warnings[0].message


def test_broad_phase_indexes_cover_pieces_and_troopers():
    world = build_world([trooper("a", 100, 100), trooper("b", 900, 900)], [BUILDING])
    assert list(world.piece_index.intersection((550, 550, 0, 560, 560, 10))) == [0]
    assert sorted(world.trooper_index.intersection((0, 0, 0, 1219, 1219, 100))) == [0, 1]


def test_world_builds_from_a_scene_file_with_meshes(tmp_path):
    path = write_scene(tmp_path, scene_data([trooper("a", 100, 100)], [BUILDING]))
    world = World.from_scene(load_scene(path))
    assert len(world.pieces) == 1 and world.scene.source == path.resolve()


def test_z_auto_finds_a_thin_fence_under_a_wide_base():
    """A 4 mm fence under a 70 mm base: the fence's top vertices stand inside the base's column."""
    fence = {"id": "fence", "mesh": str(REPO / "terrain_models" / "fence.stl"), "position": [600, 600, 0]}
    world = build_world([trooper("tag", 600, 608, silhouette=8, z="auto")], [fence])
    assert np.isclose(world.troopers.z[0], 35) and world.warnings == []


@pytest.mark.parametrize("offset", [0.8, 12.0, -12.2])
def test_z_auto_finds_a_long_thin_rail_with_no_vertex_over_the_base(offset):
    """A rail 1 mm thick and 10 mm tall, 200 mm long, under an S2's base between the rays' grid lines (0.3-1.3 mm
    off the centre; and near the rim on either side): no vertex stands over the base, but its top edges cross it."""
    rail = {"id": "rail", "wall": {"from": [200, 300 + offset], "to": [400, 300 + offset], "thickness": 1,
                                   "height": 10}}
    world = build_world([trooper("a", 300, 300, z="auto")], [rail])
    assert world.troopers.z[0] == 10.0


def test_z_auto_heights_carry_no_float32_noise():
    container = {"id": "c", "mesh": str(REPO / "terrain_models" / "container.stl"), "position": [600, 600, 0],
                 "rotation": 30}
    world = build_world([trooper("top", 600, 600, z="auto")], [container])
    assert world.troopers.z[0] == 65.0


@pytest.mark.parametrize(("b", "warned"), [((105, 100, 0), True), ((125, 100, 0), False), ((105, 100, 40), False)])
def test_bases_that_overlap_are_a_warning_touching_or_stacked_ones_are_not(b, warned):
    """Two S2s 5 mm apart cross by 20 mm; 25 mm apart they touch (base contact); one standing 40 mm up, on the
    other's height, is above it."""
    x, y, z = b
    world = build_world([trooper("a", 100, 100), trooper("b", x, y, z=z)])
    assert any("overlaps 'a'" in w.message for w in world.warnings) is warned


def test_a_trooper_below_the_table_top_is_a_warning():
    world = build_world([trooper("a", 100, 100, z=-50), trooper("b", 300, 100, z=0)])
    assert [w.where for w in world.warnings if "below the table top" in w.message] == ["troopers[0].z"]


def test_one_ray_scene_serves_both_when_the_same_pieces_block_and_support():
    """Smoke blocks LoF but supports no base: then the two ray scenes differ, and each answers for its own pieces."""
    plain = build_world([trooper("a", 100, 100, z="auto")], [BUILDING])
    assert plain.solid_rays is plain.blocking_rays
    smoke = {"id": "smoke", "cylinder": {"diameter": 60, "height": 200}, "position": [300, 300, 0],
             "kind": "zero_visibility"}
    smoky = build_world([trooper("a", 300, 300, z="auto")], [BUILDING, smoke])
    assert smoky.solid_rays is not smoky.blocking_rays
    down = np.array([[300.0, 300.0, 500.0], [600.0, 600.0, 500.0]]), np.array([[0.0, 0.0, -1.0]] * 2)
    assert np.isfinite(smoky.blocking_rays.first_hit(*down)[0]).all()  # the smoke's top, the building's roof
    assert list(np.isfinite(smoky.solid_rays.first_hit(*down)[0])) == [False, True]
    assert smoky.troopers.z[0] == 0  # no base stands on smoke
