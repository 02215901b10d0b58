"""docs/rules.md section Dispersion: the template's directions, the 16" move, the landing height and the fallback for
each of the four reasons, on constructed tables whose answers are worked out by hand."""

import math

import numpy as np
import pytest

from lofkit import LofkitError, UnknownTrooperError
from lofkit.geometry.support import rest_height
from lofkit.rules.dispersion import DispersionError, disperse, disperse_all
from tests.helpers import build_world, scene_data, trooper, write_scene

TABLE = 48 * 25.4  # 1219.2 mm; the table centre is (609.6, 609.6)
SIXTEEN = 16 * 25.4  # 406.4 mm
R = 12.5  # S2 base radius
ZONES = [
    {"side": "blue", "polygon": [[0, 0], [TABLE, 0], [TABLE, 304.8], [0, 304.8]]},
    {"side": "red", "polygon": [[0, 914.4], [TABLE, 914.4], [TABLE, TABLE], [0, TABLE]]},
]
AT = (409.6, 409.6)  # 200 mm left of and below the table centre: number 1 of the template points at 45 degrees
DIAGONAL = SIXTEEN / math.sqrt(2)  # 287.368 mm


def world(terrain=(), troopers=(), **fields):
    fields.setdefault("deployment_zones", ZONES)
    return build_world([trooper("jumper", 100, 100), *troopers], terrain, **fields)


def close(a, b, tol=1e-6):
    return np.allclose(a, b, atol=tol, rtol=0)


# --- "number 1 pointing at the centre of the table; ... 20 directions printed clockwise ... at 18 degree steps" -----


@pytest.mark.parametrize(
    ("roll", "direction", "landing"),
    [
        (1, 45.0, (409.6 + DIAGONAL, 409.6 + DIAGONAL)),  # 1: toward the centre, (696.968, 696.968)
        (6, 315.0, (409.6 + DIAGONAL, 409.6 - DIAGONAL)),  # 5 steps clockwise = 90 degrees to the right
        (11, 225.0, (409.6 - DIAGONAL, 409.6 - DIAGONAL)),  # straight away from the centre
        (20, 63.0, (409.6 + SIXTEEN * math.cos(math.radians(63)), 409.6 + SIXTEEN * math.sin(math.radians(63)))),
    ],
)
def test_template_direction_is_clockwise_from_one_toward_the_centre_and_moves_sixteen_inches(roll, direction, landing):
    result = disperse(world(), "jumper", AT, roll)
    assert math.isclose(result.direction_deg, direction, abs_tol=1e-9)
    assert close(result.landing, (*landing, 0.0)) and result.placed and result.fallback is None
    assert math.isclose(math.dist(AT, result.landing[:2]), SIXTEEN)


def test_template_roll_20_is_one_step_counter_clockwise_of_roll_1_by_hand():
    """cos 63 = 0.45399, sin 63 = 0.89101: 16" at 63 degrees from (409.6, 409.6) is (594.10, 771.71)."""
    result = disperse(world(), "jumper", AT, 20)
    assert close(result.landing[:2], (594.102, 771.705), tol=1e-3)


def test_template_centred_on_the_table_centre_points_number_one_along_plus_y():
    result = disperse(world(), "jumper", (TABLE / 2, TABLE / 2), 1)
    assert result.direction_deg == 90.0 and close(result.landing[:2], (TABLE / 2, TABLE / 2 + SIXTEEN))


def test_template_all_twenty_outcomes_agree_with_single_rolls():
    w = world()
    outcomes = disperse_all(w, "jumper", (300, 500))
    assert len(outcomes) == 20 and [o.roll for o in outcomes] == list(range(1, 21))
    steps = np.diff([o.direction_deg for o in outcomes]) % 360
    assert np.allclose(steps, 360 - 18)  # each number 18 degrees clockwise of the previous one
    for roll in (1, 7, 20):
        assert outcomes[roll - 1].to_dict() == disperse(w, "jumper", (300, 500), roll).to_dict()
    summary = outcomes.to_dict()
    assert summary["placed"] == sum(o.placed for o in outcomes) and len(summary["outcomes"]) == 20


def test_template_distance_can_be_changed_by_a_skill():
    result = disperse(world(), "jumper", AT, 1, distance=4 * 25.4)
    assert close(result.landing[:2], (409.6 + 4 * 25.4 / math.sqrt(2),) * 2)


# --- landing height: "z from what is below" ------------------------------------------------------------------------


def test_landing_on_a_roof_gets_the_roofs_height():
    roof = {"id": "roof", "box": {"size": [200, 200, 60]}, "position": [700, 700, 0]}
    w = world([roof])
    result = disperse(w, "jumper", AT, 1)
    assert result.placed and math.isclose(result.landing[2], 60.0, abs_tol=1e-4)
    assert math.isclose(result.landing[2], rest_height(w, [result.landing[:2]], [R])[0], abs_tol=1e-4)


# Roll 1 from AT lands at (696.968, 696.968); a base of radius R whose centre is 2R + 0.5 mm to the right of it
# touches the landing base at exactly the 0.5 mm contact tolerance, 2R + 0.6 mm does not.
BESIDE = (409.6 + DIAGONAL + 2 * R + 0.5, 409.6 + DIAGONAL)
APART = (409.6 + DIAGONAL + 2 * R + 0.6, 409.6 + DIAGONAL)


@pytest.mark.parametrize(("other", "kind"), [
    (trooper("red-1", *BESIDE, side="red"), "enemy model 'red-1'"),
    ({"id": "civ", "neutral": True, "silhouette": 2, "position": list(BESIDE)}, "neutral model 'civ'"),
    ({"id": "camo", "side": "red", "marker": True, "position": list(BESIDE)}, "enemy marker 'camo'"),
    ({"id": "own-camo", "side": "blue", "marker": True, "position": list(BESIDE)}, "friendly marker 'own-camo'"),
])
def test_landing_in_base_contact_with_an_enemy_a_neutral_or_any_marker_cannot_stand(other, kind):
    """"anywhere else it could not be deployed for any reason", and deployment forbids "base contact with enemy or
    neutral models, markers": the landing falls back to the table edge of its own zone, naming whom it touches."""
    result = disperse(world(troopers=[other]), "jumper", AT, 1)
    assert not result.placed and result.reasons == ("contact",) and result.in_contact_with == (other["id"],)
    assert result.forbidden_contact == (other["id"],)
    assert close(result.fallback.position, (1206.7, 292.3, 0.0), tol=1e-3) and result.fallback.reason == "contact"
    assert f"base contact with {kind}" in result.fallback.message


def test_landing_in_base_contact_with_a_friend_stands():
    """"Base contact with a friendly model is no obstacle": the landing stands and lists the friend."""
    result = disperse(world(troopers=[trooper("blue-2", *BESIDE)]), "jumper", AT, 1)
    assert result.placed and result.in_contact_with == ("blue-2",) and result.forbidden_contact == ()


def test_a_dispersing_marker_may_not_land_touching_even_a_friend():
    """A marker deploys touching nobody: a camouflage marker landing beside its own side's trooper falls back."""
    w = build_world([{"id": "camo", "side": "blue", "marker": True, "position": [100, 100]},
                     trooper("blue-2", *BESIDE)], deployment_zones=ZONES)
    result = disperse(w, "camo", AT, 1)
    assert result.reasons == ("contact",) and result.forbidden_contact == ("blue-2",)
    assert "base contact with friendly model 'blue-2'" in result.fallback.message


def test_landing_just_out_of_contact_with_an_enemy_stands():
    result = disperse(world(troopers=[trooper("red-1", *APART, side="red")]), "jumper", AT, 1)
    assert result.placed and result.in_contact_with == ()


def test_contact_landings_are_counted_among_the_twenty():
    outcomes = disperse_all(world(troopers=[trooper("red-1", *BESIDE, side="red")]), "jumper", AT)
    assert outcomes[0].reason == "contact" and outcomes.to_dict()["fallback_reasons"].get("contact") == 1


def test_landing_json_has_the_cli_keys():
    document = disperse(world(), "jumper", AT, 1).to_dict()
    assert {"direction_deg", "landing", "placed", "fallback", "roll", "reason", "reasons"} <= set(document)
    assert document["fallback"] is None and document["reason"] is None and len(document["landing"]) == 3


# --- "partly off the table, inside a wall or other scenery, on a surface too small for the whole base, or inside the
# enemy deployment zone": placed "inside its own deployment zone in base contact with the table edge" ---------------

# From AT, roll 1 lands at (696.968, 696.968). The nearest spot of blue's zone with the base touching a table edge:
# on the right edge, x = 1219.2 - 12.5 = 1206.7, as high as the zone lets the base go, y = 304.8 - 12.5 = 292.3
# (650.8 mm away; the bottom edge's (696.968, 12.5) is 684.5 mm away, the left edge's (12.5, 292.3) 795 mm).
RIGHT_EDGE_SPOT = (TABLE - R, 304.8 - R, 0.0)


def test_fallback_off_table():
    """From (100, 609.6), number 1 points along +x; 11 points along -x: the base lands at x = -306.4."""
    result = disperse(world(), "jumper", (100, 609.6), 11)
    assert result.reasons == ("off_table",) and not result.placed
    # nearest spot: the left edge, as high as blue's zone allows
    assert close(result.fallback.position, (R, 304.8 - R, 0.0), tol=1e-4) and result.fallback.edge == "x=0"
    assert result.to_dict()["fallback"]["owner_chooses"] is True and "owner chooses" in result.fallback.message


@pytest.mark.parametrize(("nudge", "off"), [(0.0, False), (0.01, True)])
def test_fallback_off_table_edge_a_base_touching_the_edge_is_on_the_table(nudge, off):
    """From (800.3, 609.6) number 1 points along -x, so 11 points along +x: the base's right side ends at
    800.3 + 406.4 + 12.5 = 1219.2, exactly the table edge."""
    at = (TABLE - SIXTEEN - R + nudge, TABLE / 2)
    result = disperse(world(), "jumper", at, 11)
    assert close(result.landing[:2], (at[0] + SIXTEEN, at[1]))
    assert result.reasons == (("off_table",) if off else ())


def test_fallback_inside_scenery():
    """A wall along x = 690 (685..695) cuts 10 mm into the base landing at x = 696.968; its centre is on the table."""
    wall = {"id": "wall", "wall": {"from": [690, 600], "to": [690, 800], "thickness": 10, "height": 30}}
    result = disperse(world([wall]), "jumper", AT, 1)
    assert result.reasons == ("inside_scenery",) and result.scenery == ("wall",) and result.landing[2] == 0.0
    assert close(result.fallback.position, RIGHT_EDGE_SPOT, tol=1e-4) and result.fallback.reason == "inside_scenery"


def test_fallback_unsupported_on_a_crate_smaller_than_the_base():
    crate = {"id": "crate", "box": {"size": [20, 20, 30]}, "position": [409.6 + DIAGONAL, 409.6 + DIAGONAL, 0]}
    result = disperse(world([crate]), "jumper", AT, 1)
    assert result.reasons == ("unsupported",) and math.isclose(result.landing[2], 30.0, abs_tol=1e-4)
    assert close(result.fallback.position, RIGHT_EDGE_SPOT, tol=1e-4) and result.fallback.reason == "unsupported"


def test_fallback_unsupported_on_the_top_of_a_wall():
    wall = {"id": "wall", "wall": {"from": [409.6 + DIAGONAL, 600], "to": [409.6 + DIAGONAL, 800], "thickness": 10,
                                   "height": 30}}
    result = disperse(world([wall]), "jumper", AT, 1)
    assert result.reasons == ("unsupported",) and math.isclose(result.landing[2], 30.0, abs_tol=1e-4)


@pytest.mark.parametrize(("nudge", "enemy"), [(0.0, False), (0.01, True)])
def test_fallback_enemy_zone_edge(nudge, enemy):
    """Number 1 points along +y from (609.6, y); the base's far side ends at y + 406.4 + 12.5; red starts at 914.4."""
    at = (609.6, 914.4 - R - SIXTEEN + nudge)
    result = disperse(world(), "jumper", at, 1)
    assert result.reasons == (("enemy_zone",) if enemy else ())


def test_fallback_enemy_zone_deep_inside():
    result = disperse(world(), "jumper", (609.6, 550), 1)  # along +y, to y = 956.4, 42 mm into red's zone
    assert result.reasons == ("enemy_zone",) and result.fallback.reason == "enemy_zone"


def test_fallback_slides_along_the_edge_past_scenery():
    """A crate against the left edge from y = 200 to the zone's top: the nearest legal spot on the table top is the
    base touching the crate's side, y = 200 - 12.5 = 187.5 (not the crate's roof: a base up there is not in contact
    with the table's edge)."""
    crate = {"id": "crate", "box": {"size": [50, 104.8, 30]}, "position": [25, 252.4, 0]}
    result = disperse(world([crate]), "jumper", (100, 609.6), 11)
    assert result.fallback.edge == "x=0"
    assert close(result.fallback.position, (R, 187.5, 0.0), tol=0.0101)  # scenery tolerance: clearance.CLEARANCE


def test_fallback_keeps_out_of_base_contact_with_neutral_objectives():
    """An objective at (12.5, 280) on the left edge: spots with 280 - y <= 25 + 0.5 touch it, so the highest legal
    spot below it is just under y = 254.5."""
    objective = {"id": "objective", "neutral": True, "marker": True, "position": [R, 280]}
    result = disperse(world(troopers=[objective]), "jumper", (100, 609.6), 11)
    x, y, _ = result.fallback.position
    assert x == R and 254.5 - 1e-4 < y < 254.5


def test_fallback_with_no_own_zone_has_no_position():
    zones = [ZONES[1]]
    result = disperse(world(deployment_zones=zones), "jumper", (100, 609.6), 11)
    assert result.fallback.position is None and "no deployment zone" in result.fallback.message


def test_fallback_lists_every_failing_reason_in_rules_order():
    """Landing past the top edge inside red's zone: partly off the table and in the enemy zone."""
    result = disperse(world(), "jumper", (609.6, TABLE - 5 - SIXTEEN), 11)  # 1 points down, 11 up, to y = 1214.2
    assert result.reasons == ("off_table", "enemy_zone") and result.reason == "off_table"


# --- bad input ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("roll", [0, 21, 2.5, -1])
def test_bad_roll_is_a_clear_error(roll):
    with pytest.raises(DispersionError, match="not a d20 result; give a whole number from 1 to 20"):
        disperse(world(), "jumper", AT, roll)
    assert issubclass(DispersionError, LofkitError)


def test_bad_element_and_point_are_clear_errors():
    with pytest.raises(UnknownTrooperError):
        disperse(world(), "nobody", AT, 1)
    with pytest.raises(DispersionError, match="off the table"):
        disperse(world(), "jumper", (-5, 100), 1)
    neutral = {"id": "civ", "neutral": True, "silhouette": 2, "position": [500, 500], "facing": 0}
    with pytest.raises(DispersionError, match="neutral"):
        disperse(world(troopers=[neutral]), "civ", AT, 1)


def test_disperse_says_whom_a_landing_touches(run_cli, tmp_path):
    scene = write_scene(tmp_path, scene_data([trooper("jumper", 100, 100), trooper("red-1", *BESIDE, side="red")],
                                             deployment_zones=ZONES))
    result = run_cli("disperse", scene, "jumper", "--at", "409.6,409.6", "--roll", "1")
    assert result.exit_code == 0 and "cannot stand there (contact with red-1) → placed in its deployment zone" in \
        result.stdout
