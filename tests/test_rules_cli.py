"""README `disperse` and `deploy-check`: the JSON keys of the contract, readable output and bad input."""

import json

import pytest

from tests.helpers import REPO

TABLE_A = REPO / "examples" / "tables" / "table-a.yaml"
DEPLOY = REPO / "examples" / "rules" / "deploy_check.yaml"


def test_disperse_json_keys(run_cli):
    result = run_cli("disperse", TABLE_A, "blue-1", "--at", "14in,22in", "--roll", "6", "--json")
    document = json.loads(result.stdout)
    assert result.exit_code == 0 and {"direction_deg", "landing", "placed", "fallback"} <= document.keys()
    assert len(document["landing"]) == 3


def test_disperse_all_twenty(run_cli):
    document = json.loads(run_cli("disperse", TABLE_A, "blue-1", "--at", "14in,22in", "--all", "--json").stdout)
    assert [o["roll"] for o in document["outcomes"]] == list(range(1, 21))
    assert "landings stand" in run_cli("disperse", TABLE_A, "blue-1", "--at", "14in,22in", "--all").stdout


@pytest.mark.parametrize(
    "args",
    [
        ["blue-1", "--at", "14in,22in", "--roll", "0"],
        ["blue-1", "--at", "14in,22in", "--roll", "21"],
        ["blue-1", "--at", "14in"],
        ["blue-1", "--at", "fourteen,22"],
        ["blue-1", "--at", "14in,22in"],
        ["ghost", "--at", "14in,22in", "--roll", "3"],
    ],
)
def test_disperse_bad_input(run_cli, args):
    result = run_cli("disperse", TABLE_A, *args)
    assert result.exit_code == 2 and result.stderr.startswith("error:") and "Traceback" not in result.output


def test_disperse_roll_and_all_together_say_they_cannot_be_used_together(run_cli):
    result = run_cli("disperse", TABLE_A, "blue-1", "--at", "14in,22in", "--roll", "3", "--all")
    assert result.exit_code == 2 and result.stdout == ""
    assert "--roll 3 and --all cannot be used together: --roll answers for one d20 result" in result.stderr


def test_deploy_check_lists_each_problem(run_cli):
    document = json.loads(run_cli("deploy-check", DEPLOY, "--json").stdout)
    assert document["ok"] is False
    assert {(p["trooper"], p["rule"]) for p in document["problems"]} >= {("runner", "own_zone"),
                                                                        ("lookout", "supported")}
    assert all({"trooper", "rule", "message"} <= p.keys() for p in document["problems"])
    assert "deployment problems" in run_cli("deploy-check", DEPLOY).stdout
