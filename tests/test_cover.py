"""docs/rules.md "Cover" (N4 Partial Cover) and LoF 3 (Low/Poor Visibility zones add MODs) in `check`."""

import json

import numpy as np
import pytest

from lofkit import check
from lofkit.rules.cover import scenery_in_contact
from tests.helpers import build_world, enemy, scene_data, trooper, write_scene


def low_wall(y: float) -> dict:
    """A 20 mm wall, 10 mm thick, across x 500..700 centred on y."""
    return {"id": "low-wall", "wall": {"from": [500, y], "to": [700, y], "thickness": 10, "height": 20}}


@pytest.mark.parametrize(
    ("wall_y", "cover"),
    [
        (600 - 12.5 - 5, True),  # its face touches the target's base, between it and the attacker
        (600 - 12.5 - 5 - 0.5, True),  # 0.5 mm away: contact at exactly the tolerance counts
        (600 - 12.5 - 5 - 25.4, False),  # the same wall 1 inch away: no contact
        (600 + 12.5 + 5, False),  # touching the base, but behind the target: it hides nothing from the attacker
    ],
)
def test_partial_cover_needs_contact_and_an_obscured_template(wall_y, cover):
    world = build_world([trooper("a", 600, 300), enemy("b", 600, 600)], [low_wall(wall_y)])
    verdict = check(world, "a", "b")
    assert verdict.lof and verdict.cover is cover
    assert verdict.cover_from == ("low-wall" if cover else None)


@pytest.mark.parametrize(("blocks", "cover"), [(True, True), (False, False)])
def test_scenery_that_blocks_no_lof_obscures_nothing_and_gives_no_cover(blocks, cover):
    """The wall touching the target's base between it and the attacker, marked `blocks_lof: false` (a see-through
    fence): it obstructs no segment, so it obscures no part of the template."""
    wall = {**low_wall(600 - 12.5 - 5), "blocks_lof": blocks}
    verdict = check(build_world([trooper("a", 600, 300), enemy("b", 600, 600)], [wall]), "a", "b")
    assert verdict.lof and verdict.cover is cover


@pytest.mark.parametrize("angle", [225.0, 227.5, 262.5])
@pytest.mark.parametrize(("gap", "touching"), [(0.3, True), (0.5, True), (0.55, False)])
def test_a_corner_pointing_at_the_rim_is_in_contact_wherever_it_points(angle, gap, touching):
    """A building's corner `gap` mm from the target's base, pointing at its centre from `angle` degrees: 5 degrees
    between two of the rim's first samples (227.5), or on one (225). The contact does not depend on where."""
    direction = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    corner = np.array([600.0, 600.0]) + (12.5 + gap) * direction
    building = {"id": "bldg", "box": {"size": [100, 100, 60]}, "position": [*(corner - 50), 0], "rotation": 0}
    world = build_world([trooper("a", 450, 620), enemy("b", 600, 600)], [building])
    assert scenery_in_contact(world, 1) == ([0] if touching else [])


def test_the_surface_a_trooper_stands_on_is_not_cover():
    roof = {"id": "roof", "box": {"size": [100, 100, 50]}, "position": [600, 600, 0]}
    world = build_world([trooper("a", 600, 200), enemy("b", 600, 600, z="auto")], [roof])
    assert not check(world, "a", "b").cover


@pytest.mark.parametrize(
    ("zones", "mod", "zone"),
    [
        ([("haze", "low_visibility", 300)], -3, "haze"),
        ([("fog", "poor_visibility", 100)], -6, "fog"),
        ([("haze", "low_visibility", 300), ("fog", "poor_visibility", 100)], -6, "fog"),  # the worst, not the sum
        ([("haze", "low_visibility", 80)], -3, "haze"),  # a zone around the shooter: segments start inside it
    ],
)
def test_visibility_zones_add_their_mod_when_the_witness_crosses_them(zones, mod, zone):
    pieces = [{"id": name, "cylinder": {"diameter": size, "height": 200},
               "position": [600, 300 if size == 80 else 450], "kind": kind} for name, kind, size in zones]
    verdict = check(build_world([trooper("a", 600, 300), enemy("b", 600, 600)], pieces), "a", "b")
    assert verdict.sight and (verdict.visibility_mod, verdict.visibility_zone) == (mod, zone)


def test_a_zone_off_the_line_adds_nothing():
    haze = {"id": "haze", "cylinder": {"diameter": 100, "height": 200}, "position": [900, 450],
            "kind": "low_visibility"}
    verdict = check(build_world([trooper("a", 600, 300), enemy("b", 600, 600)], [haze]), "a", "b")
    assert verdict.visibility_mod == 0 and verdict.visibility_zone is None


def test_check_odds_apply_cover_and_visibility(tmp_path, run_cli):
    haze = {"id": "haze", "cylinder": {"diameter": 60, "height": 200}, "position": [600, 450],
            "kind": "low_visibility"}
    scene = write_scene(tmp_path, scene_data([trooper("a", 600, 300), enemy("b", 600, 600)],
                                             [low_wall(600 - 12.5 - 5), haze]))
    result = json.loads(run_cli("check", scene, "a", "b", "--odds", "12x3 vs 11x1", "--json").stdout)
    assert result["cover"] and result["cover_from"] == "low-wall" and result["visibility_mod"] == -3
    assert result["odds"]["sv1"] == 12 - 3 - 3 and result["odds"]["sv2"] == 11 - 3


def test_the_floor_is_not_cover_even_with_a_generous_contact_tolerance():
    roof = {"id": "roof", "box": {"size": [200, 200, 60]}, "position": [500, 700, 0]}
    world = build_world([trooper("a", 500, 300), enemy("b", 500, 640, z="auto")], [roof],
                        base_contact_tolerance="1mm")
    assert check(world, "a", "b").sight and not check(world, "a", "b").cover


def test_check_shows_cover_and_visibility_to_people(tmp_path, run_cli):
    haze = {"id": "haze", "cylinder": {"diameter": 60, "height": 200}, "position": [600, 450],
            "kind": "low_visibility"}
    scene = write_scene(tmp_path, scene_data([trooper("a", 600, 300), enemy("b", 600, 600)],
                                             [low_wall(600 - 12.5 - 5), haze]))
    shown = run_cli("check", scene, "a", "b").stdout
    assert "Partial Cover from low-wall" in shown and "visibility zone haze (-3)" in shown


def test_contact_on_a_large_mesh_is_judged_on_the_faces_near_the_rim_alone(monkeypatch):
    """A finely meshed, noisy block (like a scan): rims at gaps around the contact tolerance, and far away, get the
    same answer from the faces near the rim as from the whole mesh."""
    import trimesh

    from lofkit.rules import cover as cover_rules

    block = trimesh.creation.box(extents=(200, 120, 80))
    block.apply_translation((300, 300, 40))
    vertices, faces = trimesh.remesh.subdivide_to_size(block.vertices, block.faces, max_edge=4.0)
    noisy = trimesh.Trimesh(vertices + np.random.default_rng(3).normal(0, 0.1, vertices.shape), faces)
    rims = [((300 - 100 - 12.5 - gap, 300, 5.0), 12.5) for gap in (0.0, 0.3, 0.45, 0.7, 2.0, 40.0)]
    rims += [((300, 300 + 60 + 20 + gap, 30.0), 20.0) for gap in (-5.0, 0.2, 1.0)]
    pruned = [cover_rules.rim_within(noisy, centre, radius, 0.5) for centre, radius in rims]
    monkeypatch.setattr(cover_rules, "_faces_near", lambda mesh, *_: mesh)
    whole = [cover_rules.rim_within(noisy, centre, radius, 0.5) for centre, radius in rims]
    assert pruned == whole and True in whole and False in whole
