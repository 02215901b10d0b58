"""`lofkit f2f`, `lofkit roll` and `check --odds`: the dice rules reach the command line with the geometry's MODs."""

import json

import pytest

from lofkit.dice.distribution import f2f_distribution
from lofkit.dice.odds import band_mod, duel_odds, parse_duel
from lofkit.dice.parsing import RollSpec
from lofkit.dice.rolls import RollError
from tests.helpers import REPO

RULEBOOK = REPO / "examples" / "rulebook_lof.yaml"


def test_f2f_json_is_the_exact_distribution(run_cli):
    result = run_cli("f2f", "12x3", "11x1", "--json")
    document = json.loads(result.stdout)
    assert result.exit_code == 0 and document == f2f_distribution(12, 3, 11, 1).to_dict()
    assert sum(o["count"] for o in document["p1"] + document["p2"]) + document["none"]["count"] == 20**4


def test_f2f_readable_table(run_cli):
    shown = run_cli("f2f", "12x3", "11x1").stdout
    assert "side 1 (12x3) succeeds" in shown and "160,000" in shown


@pytest.mark.parametrize("bad", ["12x7", "31x1", "12", "x3", "12x-1"])
def test_f2f_bad_rolls_are_bad_input(run_cli, bad):
    result = run_cli("f2f", bad, "11x1")
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_roll_applies_clamped_mods(run_cli):
    assert json.loads(run_cli("roll", "12", "--mods=-3", "--json").stdout) == {
        "sv": 9, "p_success": 0.45, "p_critical": 0.05, "successes": 9, "criticals": 1}
    assert json.loads(run_cli("roll", "13", "--mods=-6,-6,-3", "--json").stdout)["sv"] == 1
    assert run_cli("roll", "12", "--mods=+x").exit_code == 2


def test_parse_duel():
    assert parse_duel("12x3 vs 11x1") == (RollSpec(12, 3), RollSpec(11, 1))
    with pytest.raises(RollError):
        parse_duel("12x3 against 11x1")


def test_band_mod_reads_one_mod_per_eight_inch_band():
    assert [band_mod("+3,0,-3", band) for band in (1, 2, 3, 4)] == [3, 0, -3, None]
    assert band_mod(None, 5) == 0


def test_duel_odds_apply_range_and_cover_and_clamp():
    odds = duel_odds(RollSpec(12, 3), RollSpec(11, 1), band=3, reply_has_lof=True,
                     attack_mods=[("target in Partial Cover", -3)], range_mods="+3,0,-3")
    assert odds.sv1 == 12 - 3 - 3 and odds.sv2 == 11
    assert odds.distribution == f2f_distribution(6, 3, 11, 1)


def test_a_target_without_lof_back_cannot_reply():
    odds = duel_odds(RollSpec(12, 3), RollSpec(11, 1), band=1, reply_has_lof=False)
    assert odds.burst2 == 0 and "normal roll" in odds.note and odds.distribution.total == 20**3


def test_out_of_range_attack_cannot_succeed():
    odds = duel_odds(RollSpec(12, 3), RollSpec(11, 1), band=4, reply_has_lof=True, range_mods="+3,0,-3")
    assert odds.sv1 == 0 and "out of its weapon's range" in odds.note and not odds.distribution.p1


def test_check_with_odds(run_cli):
    result = run_cli("check", RULEBOOK, "fusilier", "iguana", "--odds", "12x3 vs 11x1", "--range-mods", "+3,0,-3",
                     "--json")
    odds = json.loads(result.stdout)["odds"]
    assert odds["sv1"] == 9 and odds["mods1"] == [{"why": "range band 16-24in", "mod": -3}]
    assert odds["distribution"] == f2f_distribution(9, 3, 11, 1).to_dict()
    hidden = run_cli("check", RULEBOOK, "fusilier", "spektr", "--odds", "12x3 vs 11x1", "--json")
    assert json.loads(hidden.stdout)["odds"] is None
    assert "no attack" in run_cli("check", RULEBOOK, "fusilier", "spektr", "--odds", "12x3 vs 11x1").stdout


@pytest.mark.parametrize("flag", ["--range-mods", "--reply-range-mods"])
def test_range_mods_without_odds_are_refused_not_ignored(run_cli, flag):
    result = run_cli("check", RULEBOOK, "fusilier", "iguana", flag, "+3,0,-3")
    assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.stderr
    assert f"{flag} needs --odds" in result.stderr and f"or leave {flag} out" in result.stderr
