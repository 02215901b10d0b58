"""docs/rules.md "Zone of Control and ARO": who may react to an active trooper standing still or moving."""

import json

import pytest

from lofkit.rules.aro import SPACING, aro, stations
from tests.helpers import build_world, enemy, scene_data, trooper, write_scene

WALL = {"id": "wall", "wall": {"from": [300, 500], "to": [600, 500], "thickness": 10, "height": 100}}


def test_stations_are_at_most_two_and_a_half_mm_apart_with_ends_and_corners():
    points, fraction, corner = stations((0.0, 0.0), [(10.0, 0.0), (10.0, 7.0)])
    steps = ((points[1:] - points[:-1]) ** 2).sum(axis=1) ** 0.5
    assert steps.max() <= SPACING + 1e-9 and fraction[0] == 0 and fraction[-1] == 1
    assert points[corner].tolist() == [[0, 0], [10, 0], [10, 7]]


@pytest.mark.parametrize("start", [400.0, 376.0, 366.0])
def test_an_aro_that_only_appears_from_the_middle_of_the_path(start):
    """The wall hides the start of the move; the reactor's first LoF is about 70% along it. From each start, the
    first sighting falls elsewhere in a run of stations: at 376 mm, in the second half of a run whose first half the
    wall hides."""
    world = build_world([trooper("a", start, 300), enemy("r", 450, 800)], [WALL])
    assert aro(world, "a").reactions == ()
    (reaction,) = aro(world, "a", [(800, 300)]).reactions
    assert reaction.by == "lof" and 0.5 < reaction.path_fraction < 0.9
    assert reaction.witness.eye_of in ("r", "a") and "@" not in reaction.witness.patch_of
    # from the reactor's rim (x 462.5, y 800) past the wall's near corner (600, 505), the shadow edge reaches
    # y 300 at x = 462.5 + 137.5 * 500 / 295; a 3 mm strip of the active's template (half-width 12.5) clears it
    # once its centre passes that x + 3 - 12.5; stations are 2.5 mm apart
    first = 462.5 + 137.5 * 500 / 295 + 3 - 12.5
    assert first - 2.5 <= reaction.point[0] <= first + 2.5


def test_zoc_only_reaction_behind_a_wall():
    """Inside the reactor's ZoC but hidden behind a tall wall: only Change Facing or Reset."""
    world = build_world([trooper("a", 400, 300), enemy("r", 400, 520)], [WALL])  # 195 mm apart, a wall between
    (reaction,) = aro(world, "a").reactions
    assert reaction.by == "zoc" and reaction.allowed == ("Change Facing", "Reset")


def test_a_move_past_a_reactors_back_gives_a_zoc_reaction_only():
    """The reactor faces away (+y); the active trooper walks behind it within 8 inches: no LoF, but ZoC."""
    world = build_world([trooper("a", 200, 400), enemy("r", 600, 600, facing=90)])
    (reaction,) = aro(world, "a", [(1000, 400)]).reactions
    assert reaction.by == "zoc"
    facing_it = build_world([trooper("a", 200, 400), enemy("r", 600, 600, facing=270)])
    assert aro(facing_it, "a", [(1000, 400)]).reactions[0].by == "lof"


def test_friends_and_neutrals_never_react():
    world = build_world([trooper("a", 400, 300), trooper("friend", 400, 600, facing=270),
                         {"id": "civ", "neutral": True, "silhouette": 2, "position": [500, 600], "facing": 270}])
    assert aro(world, "a").reactions == ()


def test_aro_command(tmp_path, run_cli):
    path = write_scene(tmp_path, scene_data([trooper("a", 400, 300), enemy("r", 450, 800)], [WALL]))
    result = run_cli("aro", path, "a", "--path", "800,300", "--json")
    document = json.loads(result.stdout)
    assert result.exit_code == 0 and document["reactions"][0]["trooper"] == "r"
    assert {"trooper", "by", "allowed"} <= document["reactions"][0].keys()
    assert "may react" in run_cli("aro", path, "a", "--path", "800,300").stdout


@pytest.mark.parametrize(("args", "message"), [(["ghost"], "no trooper"), (["a", "--path", "800;300"], "path"),
                                               (["a", "--path", "x,y"], "path")])
def test_aro_bad_input(tmp_path, run_cli, args, message):
    path = write_scene(tmp_path, scene_data([trooper("a", 400, 300), enemy("r", 450, 800)]))
    result = run_cli("aro", path, *args)
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output


def test_an_engaged_reactor_sees_all_round_but_only_its_base_contact_opponent():
    """LoF 1: an engaged trooper has a 360 degree arc, limited to troopers in base contact."""
    world = build_world([trooper("a", 500, 475), enemy("r", 500, 500, facing=90, state=["engaged"])])
    assert aro(world, "a").reactions[0].by == "lof"
    far = build_world([trooper("a", 500, 300), enemy("r", 500, 500, facing=270, state=["engaged"])])
    assert aro(far, "a").reactions[0].by == "zoc"


def test_a_path_off_the_table_is_bad_input(tmp_path, run_cli):
    path = write_scene(tmp_path, scene_data([trooper("a", 400, 300), enemy("r", 450, 800)]))
    result = run_cli("aro", path, "a", "--path", "5000,5000")
    assert result.exit_code == 2 and "off the table" in result.stderr
