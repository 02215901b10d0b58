"""The Initiative roll: the two Lieutenants' face-to-face WIP roll, one die each, rolled again until someone wins;
its exact odds from two WIPs or two army lists, and `lofkit initiative`."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from lofkit.dice.rolls import DIE_FACES
from lofkit.game.army import ArmyError, army_from_data
from lofkit.game.initiative import (
    InitiativeError,
    initiative_from_lists,
    initiative_odds,
    lieutenant_of,
    roll_winner,
)
from tests.helpers import army_data, army_trooper, regulars, unit


def per_roll(odds) -> tuple[int, int, int, int]:
    return odds.a_wins, odds.b_wins, odds.again, odds.total


def write_list(folder, file_name: str, troopers, units=None, **fields):
    """An army list file `file_name` (YAML) in `folder`; `fields` go to `army_data`."""
    path = folder / file_name
    path.write_text(yaml.safe_dump(army_data(troopers, units, **fields)), encoding="utf-8")
    return path


# --- odds from two WIPs -----------------------------------------------------------------------------------------


def test_wip_13_vs_13_each_wins_half_and_62_of_400_rolls_are_rolled_again():
    odds = initiative_odds(13, 13)
    assert per_roll(odds) == (169, 169, 62, 400)
    assert (odds.p_a, odds.p_b) == (Fraction(1, 2), Fraction(1, 2))


def test_wip_14_vs_12_a_wins_10_of_17_after_rerolls():
    odds = initiative_odds(14, 12)
    assert per_roll(odds) == (200, 140, 60, 400)
    assert (odds.p_a, odds.p_b) == (Fraction(10, 17), Fraction(7, 17))


@pytest.mark.parametrize(("die_a", "die_b"), [
    pytest.param(10, 10, id="equal-results-tie"),
    pytest.param(13, 14, id="both-critical"),
    pytest.param(15, 16, id="both-fail"),
])
def test_a_roll_without_a_winner_is_rolled_again_wip_13_vs_14(die_a, die_b):
    assert roll_winner(13, die_a, 14, die_b) is None


def test_a_critical_wins_the_roll_against_a_higher_success():
    assert roll_winner(13, 13, 14, 12) == "A"


@pytest.mark.parametrize(("wip_a", "wip_b"), [(13, 13), (14, 12), (1, 20), (0, 9), (23, 11)])
def test_per_roll_counts_match_every_pair_of_dice(wip_a, wip_b):
    winners = [roll_winner(wip_a, a, wip_b, b) for a, b in itertools.product(DIE_FACES, repeat=2)]
    counts = (winners.count("A"), winners.count("B"), winners.count(None), len(winners))
    assert per_roll(initiative_odds(wip_a, wip_b)) == counts


@given(st.integers(-3, 30), st.integers(1, 30))
def test_the_odds_add_up_and_swapping_sides_swaps_them(wip_a, wip_b):
    odds, swapped = initiative_odds(wip_a, wip_b), initiative_odds(wip_b, wip_a)
    assert odds.p_a + odds.p_b == 1 and odds.a_wins + odds.b_wins + odds.again == odds.total
    assert (swapped.p_a, swapped.p_b) == (odds.p_b, odds.p_a)


def test_a_wip_below_1_always_loses_to_one_that_can_succeed():
    assert initiative_odds(0, 5).p_b == 1


def test_nobody_can_win_when_both_wips_are_below_1():
    with pytest.raises(InitiativeError, match="nobody can ever win"):
        initiative_odds(0, -2)


def test_to_dict_gives_the_odds_exactly_and_per_roll():
    document = initiative_odds(14, 12).to_dict()
    assert (document["p_a"], document["p_b"]) == (10 / 17, 7 / 17)
    assert (document["p_a_exact"], document["p_b_exact"]) == ("10/17", "7/17")
    assert document["per_roll"] == {"a": 200, "b": 140, "again": 60, "total": 400}
    assert (document["wip_a"], document["wip_b"], document["lieutenant_a"]) == (14, 12, None)
    assert document["winner_chooses"] == ["Initiative", "Deployment"]


# --- the Lieutenant of an army list -----------------------------------------------------------------------------


def test_the_lieutenant_is_the_trooper_with_the_lieutenant_option_and_rolls_its_units_wip():
    army = army_from_data(army_data(regulars(3, lieutenant=2), {"line": unit(wip=14)}, name="Reds"))
    lieutenant = lieutenant_of(army, "reds.yaml")
    assert (lieutenant.list_name, lieutenant.trooper_id, lieutenant.isc, lieutenant.wip) == (
        "Reds", "t2", "Line Trooper", 14)


def test_a_special_character_marked_lieutenant_is_the_lieutenant():
    units = {"line": unit(), "hero": unit("Hero", special_character=True, wip=15)}
    army = army_from_data(army_data([*regulars(2), army_trooper("h", unit_name="hero", lieutenant=True)], units))
    assert (lieutenant_of(army, "a.yaml").trooper_id, lieutenant_of(army, "a.yaml").wip) == ("h", 15)


@pytest.mark.parametrize(("troopers", "why"), [
    pytest.param(regulars(3), "no Lieutenant", id="none"),
    pytest.param([*regulars(2, lieutenant=1), army_trooper("t3", option="Lieutenant")],
                 r"2 Lieutenants: troopers\[0\] \(t1\), troopers\[2\] \(t3\)", id="two"),
])
def test_a_list_needs_exactly_one_lieutenant(troopers, why):
    with pytest.raises(ArmyError, match=rf"lists/a\.yaml: troopers: {why}; the Initiative roll needs exactly one"):
        lieutenant_of(army_from_data(army_data(troopers)), "lists/a.yaml")


def test_a_lieutenant_of_an_undefined_unit_is_named_by_its_place():
    army = army_from_data(army_data([*regulars(1), army_trooper("x", unit_name="ghost", lieutenant=True)]))
    with pytest.raises(ArmyError, match=r"a\.yaml: troopers\[1\]\.unit: the Lieutenant's unit 'ghost'"):
        lieutenant_of(army, "a.yaml")


def test_a_lieutenant_whose_unit_gives_no_wip_is_an_error():
    profile = {key: value for key, value in unit().items() if key != "wip"}
    army = army_from_data(army_data(regulars(2, lieutenant=1), {"line": profile}))
    with pytest.raises(ArmyError, match=r"a\.yaml: units\.line\.wip: the Lieutenant's unit gives no WIP"):
        lieutenant_of(army, "a.yaml")


def test_a_trooper_of_a_unit_the_list_lacks_is_an_error_as_for_orders(tmp_path):
    """Not only the Lieutenant: any trooper naming a unit its list does not define (a typo) stops the roll, as it
    stops `lofkit orders`."""
    troopers = [*regulars(2, lieutenant=1), army_trooper("x", unit_name="outridr")]
    path_a = write_list(tmp_path, "a.yaml", troopers, {"line": unit(wip=14)})
    path_b = write_list(tmp_path, "b.yaml", regulars(2, lieutenant=2), {"line": unit(wip=12)})
    with pytest.raises(ArmyError, match=r"a\.yaml: troopers\[2\]\.unit: x: no unit 'outridr'"):
        initiative_from_lists(path_a, path_b)


def test_odds_from_two_list_files(tmp_path):
    path_a = write_list(tmp_path, "a.yaml", regulars(2, lieutenant=1), {"line": unit(wip=14)}, name="A")
    path_b = write_list(tmp_path, "b.yaml", regulars(2, lieutenant=2), {"line": unit(wip=12)}, name="B")
    odds = initiative_from_lists(path_a, path_b)
    assert (odds.p_a, odds.lieutenant_a.trooper_id, odds.lieutenant_b.trooper_id) == (Fraction(10, 17), "t1", "t2")


# --- lofkit initiative ------------------------------------------------------------------------------------------


@pytest.fixture
def two_lists(tmp_path):
    path_a = write_list(tmp_path, "reds.yaml", regulars(3, lieutenant=1), {"line": unit("Red Trooper", wip=14)},
                        name="Reds")
    path_b = write_list(tmp_path, "blues.yaml", regulars(3, lieutenant=3), {"line": unit("Blue Trooper", wip=12)},
                        name="Blues")
    return path_a, path_b


def test_cli_json_gives_p_a_and_p_b(run_cli, two_lists):
    result = run_cli("initiative", *two_lists, "--json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert (document["p_a"], document["p_b"]) == (10 / 17, 7 / 17)
    assert document == initiative_from_lists(*two_lists).to_dict()
    assert document["lieutenant_b"] == {"list": "Blues", "trooper": "t3", "isc": "Blue Trooper", "wip": 12}


def test_cli_table_shows_the_lieutenants_the_odds_and_the_winners_choice(run_cli, two_lists):
    result = run_cli("initiative", *two_lists)
    assert result.exit_code == 0
    for shown in ("Reds", "t1 (Red Trooper)", "Blues", "t3 (Blue Trooper)", "58.8%", "10/17", "41.2%", "7/17",
                  "Of 400 equally likely rolls, A wins 200, B wins 140, nobody 60", "chooses Initiative",
                  "or Deployment", "the loser gets the other"):
        assert shown in result.stdout, shown


def test_cli_missing_file_is_bad_input_naming_it(run_cli, two_lists, tmp_path):
    result = run_cli("initiative", two_lists[0], tmp_path / "nowhere.yaml")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "nowhere.yaml: (file): file not found" in result.stderr


def test_cli_malformed_list_is_bad_input_naming_file_and_line(run_cli, two_lists, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("lofkit_army: 1\nunits: [unclosed\n", encoding="utf-8")
    result = run_cli("initiative", broken, two_lists[1])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "broken.yaml: line 3" in result.stderr and "not valid YAML" in result.stderr


def test_cli_list_of_the_wrong_shape_is_bad_input_naming_the_field(run_cli, two_lists, tmp_path):
    path = tmp_path / "shapeless.yaml"
    path.write_text(yaml.safe_dump({**army_data(regulars(1, lieutenant=1)), "points": "many"}), encoding="utf-8")
    result = run_cli("initiative", two_lists[0], path)
    assert result.exit_code == 2 and "shapeless.yaml: points:" in result.stderr


def test_cli_list_without_a_lieutenant_is_bad_input_naming_the_file(run_cli, two_lists, tmp_path):
    leaderless = write_list(tmp_path, "leaderless.yaml", regulars(2))
    result = run_cli("initiative", two_lists[0], leaderless)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "leaderless.yaml: troopers: no Lieutenant" in result.stderr
