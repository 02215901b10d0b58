"""docs/rules.md section Deployment: each rule at its edges, on constructed tables whose answers are known by hand."""

import math

import pytest

from lofkit import LofkitError
from lofkit.rules.deployment import deploy_check
from tests.helpers import build_world, trooper

TABLE = 48 * 25.4  # 1219.2 mm
ZONES = [
    {"side": "blue", "polygon": [[0, 0], [TABLE, 0], [TABLE, 304.8], [0, 304.8]]},
    {"side": "red", "polygon": [[0, 914.4], [TABLE, 914.4], [TABLE, TABLE], [0, TABLE]]},
]
R = 12.5  # S2 base radius


def check(troopers, terrain=(), **fields):
    fields.setdefault("deployment_zones", ZONES)
    return deploy_check(build_world(troopers, terrain, **fields))


def rules(result, rule):
    return [p for p in result.problems if p.rule == rule]


def test_a_legal_table_is_ok():
    result = check([trooper("a", 300, 100), trooper("b", 900, 1100, side="red"), trooper("c", 600, 150, z="auto")])
    assert result.ok and result.to_dict() == {"ok": True, "problems": [], "checked": ["a", "b", "c"], "exempt": []}


# --- "The base must be totally inside the owner's deployment zone (a base touching the zone's edge from inside is in)"


def test_own_zone_base_touching_the_edge_from_inside_is_in():
    assert not rules(check([trooper("a", 500, 304.8 - R)]), "own_zone")


def test_own_zone_base_one_hundredth_of_a_mm_outside_fails_and_says_how_far():
    [problem] = rules(check([trooper("a", 500, 304.8 - R + 0.01)]), "own_zone")
    assert problem.trooper == "a" and math.isclose(problem.to_dict()["outside_mm"], 0.01, abs_tol=1e-6)
    assert "0.01 mm outside blue's deployment zone" in problem.message


def test_own_zone_is_the_owners_zone_not_any_zone():
    [problem] = rules(check([trooper("a", 500, 1000)]), "own_zone")  # deep in red's zone
    assert math.isclose(problem.to_dict()["outside_mm"], 1000 + R - 304.8)


def test_own_zone_of_a_side_with_several_polygons_is_their_union():
    zones = [
        {"side": "blue", "polygon": [[0, 0], [600, 0], [600, 300], [0, 300]]},
        {"side": "blue", "polygon": [[600, 0], [TABLE, 0], [TABLE, 300], [600, 300]]},
    ]
    assert check([trooper("a", 600, 100)], deployment_zones=zones).ok  # straddles the seam between the two


def test_own_zone_a_side_without_a_zone_cannot_deploy():
    [problem] = rules(check([trooper("g", 500, 100, side="green")]), "own_zone")
    assert problem.to_dict()["outside_mm"] is None and "no deployment zone" in problem.message


def test_side_markers_deploy_in_their_zone_and_neutrals_are_exempt():
    result = check(
        [
            {"id": "camo", "side": "blue", "marker": True, "position": [500, 600]},
            {"id": "civ", "neutral": True, "silhouette": 2, "position": [500, 800], "facing": 0},
        ]
    )
    assert [(p.trooper, p.rule) for p in result.problems] == [("camo", "own_zone")] and result.exempt == ("civ",)


# --- "No base contact with enemy or neutral models, markers, tokens or mission objectives" ------------------------


@pytest.mark.parametrize(("gap", "contact"), [(0.0, True), (0.5, True), (0.51, False)])
def test_base_contact_with_an_enemy_at_exactly_the_tolerance_counts(gap, contact):
    result = check([trooper("a", 500, 200), trooper("b", 500 + 2 * R + gap, 200, side="red")])
    found = rules(result, "base_contact")
    assert bool(found) is contact
    if contact:
        assert found[0].to_dict() | {"message": ""} == {
            "trooper": "a", "rule": "base_contact", "message": "", "other": "b",
            "distance_mm": pytest.approx(gap), "tolerance_mm": 0.5,
        }


def test_base_contact_with_a_neutral_objective_counts_and_with_a_friend_does_not():
    result = check(
        [
            trooper("a", 500, 200),
            {"id": "objective", "neutral": True, "marker": True, "position": [500 + 2 * R, 200]},
            trooper("friend", 500, 200 - 2 * R),
        ]
    )
    assert [(p.trooper, p.to_dict()["other"]) for p in rules(result, "base_contact")] == [("a", "objective")]


def test_base_contact_with_an_enemy_marker_counts_and_uses_the_scene_tolerance():
    camo = {"id": "camo", "side": "red", "marker": True, "position": [500 + 2 * R + 0.9, 200]}
    assert not rules(check([trooper("a", 500, 200), camo]), "base_contact")
    assert rules(check([trooper("a", 500, 200), camo], base_contact_tolerance="1mm"), "base_contact")


def test_base_contact_with_a_friendly_marker_counts():
    """The rules list markers beside enemies and neutrals, whoever's: a trooper touching its own side's camouflage
    marker is reported (once, under the first listed), two friendly models touching are not."""
    own_camo = {"id": "own-camo", "side": "blue", "marker": True, "position": [500 + 2 * R, 200]}
    result = check([trooper("a", 500, 200), own_camo, trooper("friend", 500, 200 - 2 * R)])
    (problem,) = rules(result, "base_contact")
    assert (problem.trooper, problem.to_dict()["other"]) == ("a", "own-camo")
    assert "friendly marker 'own-camo'" in problem.message


def test_two_neutral_objectives_touching_are_the_scenarios_business():
    objectives = [{"id": f"objective-{k}", "neutral": True, "marker": True, "position": [500 + 2 * R * k, 600]}
                  for k in range(2)]
    assert not rules(check(objectives), "base_contact")


def test_base_contact_is_measured_between_bases_at_their_height():
    """A trooper on a 60 mm roof right above an enemy's base is 60 mm from it: no contact."""
    crate = {"id": "roof", "box": {"size": [100, 100, 60]}, "position": [500, 200, 0]}
    result = check([trooper("a", 500, 200, z="auto"), trooper("b", 500 + 2 * R + 40, 200, side="red")], [crate])
    assert not rules(result, "base_contact")


# --- "The whole base must fit: it rests flat on a supporting surface at least as large as the base" ---------------


def test_supported_on_a_roof_larger_than_the_base():
    crate = {"id": "crate", "box": {"size": [60, 60, 30]}, "position": [500, 200, 0]}
    assert check([trooper("a", 500, 200, z="auto")], [crate]).ok


def test_supported_on_a_surface_exactly_as_large_as_the_base():
    crate = {"id": "crate", "box": {"size": [25, 25, 30]}, "position": [500, 200, 0]}
    assert check([trooper("a", 500, 200, z="auto")], [crate]).ok


def test_unsupported_on_a_crate_smaller_than_the_base():
    crate = {"id": "crate", "box": {"size": [20, 20, 30]}, "position": [500, 200, 0]}
    [problem] = check([trooper("a", 500, 200, z="auto")], [crate]).problems
    numbers = problem.to_dict()
    assert problem.rule == "supported" and numbers["z"] == 30 and math.isclose(numbers["drop_mm"], 30, abs_tol=1e-3)
    assert 0 < numbers["unsupported_share"] < 1


def test_unsupported_hanging_half_over_a_roof_edge():
    roof = {"id": "roof", "box": {"size": [100, 100, 50]}, "position": [500, 150, 0]}  # x from 450 to 550
    [problem] = check([trooper("a", 550, 150, z=50)], [roof]).problems
    assert problem.rule == "supported" and math.isclose(problem.to_dict()["unsupported_share"], 0.5, abs_tol=0.1)


def test_unsupported_floating_above_the_table():
    [problem] = check([trooper("a", 500, 200, z=10)]).problems
    assert problem.rule == "supported" and problem.to_dict()["drop_mm"] == pytest.approx(10, abs=1e-4)


# --- "... and the volume intersects no scenery" --------------------------------------------------------------------


def test_scenery_a_base_touching_a_wall_is_clear():
    wall = {"id": "wall", "wall": {"from": [400, 100], "to": [400, 300], "thickness": 10, "height": 30}}
    assert check([trooper("a", 405 + R, 200)], [wall]).ok


def test_scenery_a_base_cutting_three_mm_into_a_wall_says_by_how_much():
    wall = {"id": "wall", "wall": {"from": [400, 100], "to": [400, 300], "thickness": 10, "height": 30}}
    result = check([trooper("a", 405 + R - 3, 200)], [wall])
    [problem] = result.problems
    assert problem.rule == "scenery" and problem.to_dict()["pieces"] == [{"id": "wall", "reach_mm": pytest.approx(3)}]
    assert "'wall'" in problem.message and "3.00 mm" in problem.message


def test_scenery_prone_deployment_under_an_overhang_is_allowed():
    """ "Prone deployment is allowed (volume becomes S0)": a 3 mm tall volume fits under a deck 10 mm up."""
    deck = {"id": "deck", "box": {"size": [100, 100, 5]}, "position": [500, 200, 10]}
    assert check([trooper("a", 500, 200, state=["prone"])], [deck]).ok
    [problem] = check([trooper("a", 500, 200)], [deck]).problems
    assert problem.rule == "scenery" and problem.to_dict()["pieces"][0]["id"] == "deck"


def test_every_problem_is_listed_trooper_by_trooper_in_rule_order():
    wall = {"id": "wall", "wall": {"from": [400, 500], "to": [400, 700], "thickness": 10, "height": 30}}
    floating = {"z": 5}  # both 5 mm above the table: in contact with each other, supported by nothing
    a, b = trooper("a", 405 + R - 3, 600, **floating), trooper("b", 405 + 3 * R - 3, 600, side="red", **floating)
    result = check([a, b], [wall])
    assert [(p.trooper, p.rule) for p in result.problems] == [
        ("a", "own_zone"), ("a", "base_contact"), ("a", "supported"), ("a", "scenery"), ("b", "own_zone"),
        ("b", "supported"),
    ]
    assert not result.to_dict()["ok"]


def test_unknown_input_still_raises_lofkit_errors():
    with pytest.raises(LofkitError):
        check([trooper("a", 500, 200)], deployment_zones=[{"side": "blue", "polygon": [[0, 0], [1, 1], [2, 2]]}])


def test_the_example_scene_shows_its_mistakes():
    from lofkit import World, load_scene
    from tests.helpers import REPO

    result = deploy_check(World.from_scene(load_scene(REPO / "examples" / "rules" / "deploy_check.yaml")))
    assert [(p.trooper, p.rule) for p in result.problems] == [
        ("runner", "own_zone"), ("lookout", "supported"), ("camo-blue", "base_contact"),
        ("infiltrator", "own_zone"),
    ]
    assert result.exempt == ("objective", "hvt")
