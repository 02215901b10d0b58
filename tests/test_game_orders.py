"""The Tactical phase's order count, Loss of Lieutenant, Retreat!, Victory Points, the new Lieutenant, the turn's
sequence, and `lofkit orders`: constructed lists whose counts are known by hand."""

from __future__ import annotations

import json

import pytest

from lofkit.errors import LofkitError
from lofkit.game.army import ArmyError
from lofkit.game.listcheck import check_list
from lofkit.game.orders import (
    count_orders,
    lieutenant_check,
    may_spend,
    name_new_lieutenant,
    spend_regular,
    victory_points,
)
from lofkit.game.turn import end_of_turn, tactical_phase, turn_sequence
from tests.helpers import army_data, army_trooper, build_army, regulars, unit

UNITS = {"line": unit(), "irregular": unit("Irregulars", training="irregular"),
         "hothead": unit("Hotheads", impetuous="impetuous"),
         "berserk": unit("Berserkers", training="irregular", impetuous="extremely_impetuous"),
         "drone": unit("Drone", type="REM", w=None, str=1)}


def army(troopers):
    return build_army(troopers, UNITS)


def pools(count) -> dict[int, int]:
    return {pool.group: pool.regular for pool in count.pools}


def twelve_regulars():
    """The rules' order-pool example: 12 Regular troopers, 8 in group 1 (t1 the Lieutenant) and 4 in group 2."""
    return army(regulars(8, 1, lieutenant=1) + regulars(4, 2, first=9))


def seven_and_three(lieutenant_state=()):
    """Group 1: t1..t7 Regular (t1 the Lieutenant) and i1 Irregular; group 2: t8..t10, t10 Unconscious."""
    troopers = regulars(7, 1, lieutenant=1) + [army_trooper("i1", 1, unit_name="irregular")] + regulars(3, 2, first=8)
    troopers[0]["state"] = list(lieutenant_state)
    troopers[-1]["state"] = ["unconscious"]
    return army(troopers)


# the order-pool example and the counts derived from it

def test_order_pool_example_twelve_regulars_in_groups_of_eight_and_four():
    count = count_orders(twelve_regulars())
    assert pools(count) == {1: 8, 2: 4}
    assert (count.irregular, count.impetuous, count.lieutenant_order, count.total) == ((), (), 1, 13)
    assert not count.loss_of_lieutenant and count.lieutenant == "t1"


def test_pool_one_goes_eight_times_to_one_trooper_and_no_ninth():
    listed, count = twelve_regulars(), count_orders(twelve_regulars())
    for _ in range(8):
        count = spend_regular(count, 1, listed.trooper("t3"))
    assert pools(count) == {1: 0, 2: 4}
    assert not may_spend(count, 1, listed.trooper("t3"))
    with pytest.raises(LofkitError, match="no Regular order left"):
        spend_regular(count, 1, listed.trooper("t3"))


def test_pool_one_goes_once_to_each_of_eight_troopers():
    listed, count = twelve_regulars(), count_orders(twelve_regulars())
    for k in range(1, 9):
        count = spend_regular(count, 1, listed.trooper(f"t{k}"))
    assert pools(count) == {1: 0, 2: 4}


def test_pool_two_goes_four_to_one_or_three_and_one_interleaved_with_pool_one():
    listed, start = twelve_regulars(), count_orders(twelve_regulars())
    count = start
    for trooper_id, group in (("t9", 2), ("t1", 1), ("t9", 2), ("t9", 2), ("t12", 2)):
        count = spend_regular(count, group, listed.trooper(trooper_id))
    assert pools(count) == {1: 7, 2: 0}


def test_a_pool_one_order_may_not_go_to_a_group_two_trooper():
    listed, count = twelve_regulars(), count_orders(twelve_regulars())
    assert may_spend(count, 1, listed.trooper("t8")) and not may_spend(count, 1, listed.trooper("t9"))
    with pytest.raises(LofkitError, match="t9 is in group 2"):
        spend_regular(count, 1, listed.trooper("t9"))
    with pytest.raises(LofkitError, match="no combat group 3"):
        spend_regular(count, 3, listed.trooper("t9"))


def test_a_pool_order_may_go_to_an_irregular_trooper_of_its_group():
    listed = seven_and_three()
    assert may_spend(count_orders(listed), 1, listed.trooper("i1"))


def test_seven_regulars_one_irregular_and_three_with_one_unconscious():
    count = count_orders(seven_and_three())
    assert pools(count) == {1: 7, 2: 2}
    assert (count.irregular, count.lieutenant_order, count.total) == (("i1",), 1, 11)


def test_same_army_with_its_lieutenant_dead_is_all_irregular():
    count = count_orders(seven_and_three(["dead"]))
    assert count.loss_of_lieutenant and pools(count) == {1: 0, 2: 0}
    assert count.irregular == ("t2", "t3", "t4", "t5", "t6", "t7", "i1", "t8", "t9")
    assert (count.lieutenant_order, count.total) == (0, 9)
    assert count.reasons == ("Loss of Lieutenant: the Lieutenant t1 is dead: every trooper is Irregular this turn, "
                             "no Lieutenant order",)


# states

@pytest.mark.parametrize("state", ["dead", "unconscious", "sepsitorized"])
def test_a_trooper_in_a_null_state_gives_no_order(state):
    count = count_orders(army(regulars(3, lieutenant=1) + [army_trooper("i1", unit_name="irregular", state=state),
                                                           army_trooper("h1", unit_name="hothead", state=state),
                                                           army_trooper("t4", state=state)]))
    assert (pools(count), count.irregular, count.impetuous) == ({1: 3}, (), ())


def test_an_undeployed_trooper_gives_no_order_of_any_kind():
    count = count_orders(army(regulars(2, lieutenant=1) + [army_trooper("t3", 2, state="undeployed"),
                                                           army_trooper("i1", unit_name="irregular", state="undeployed"),
                                                           army_trooper("h1", unit_name="hothead", state="undeployed")]))
    assert (pools(count), count.irregular, count.impetuous, count.total) == ({1: 2, 2: 0}, (), (), 3)


def test_a_trooper_deployed_as_a_marker_counts():
    count = count_orders(army(regulars(2, lieutenant=1) + [army_trooper("t3", state="marker"),
                                                           army_trooper("i1", unit_name="irregular", state="marker")]))
    assert (pools(count), count.irregular) == ({1: 3}, ("i1",))


def test_an_isolated_trooper_other_than_the_lieutenant_still_counts():
    count = count_orders(army(regulars(2, lieutenant=1) + [army_trooper("t3", state="isolated")]))
    assert (pools(count), count.loss_of_lieutenant) == ({1: 3}, False)


def test_an_impetuous_trooper_gives_its_order_and_an_impetuous_one():
    count = count_orders(army(regulars(2, lieutenant=1) + [army_trooper("h1", unit_name="hothead"),
                                                           army_trooper("b1", 2, unit_name="berserk")]))
    assert (pools(count), count.irregular, count.impetuous) == ({1: 3, 2: 0}, ("b1",), ("h1", "b1"))
    assert count.total == 3 + 1 + 2 + 1 and count.impetuous_phase


def test_in_retreat_no_lieutenant_order_and_impetuous_orders_cannot_be_spent():
    count = count_orders(army(regulars(2, lieutenant=1) + [army_trooper("h1", unit_name="hothead")]), retreat=True)
    assert (pools(count), count.lieutenant_order, count.impetuous) == ({1: 3}, 0, ())
    assert count.impetuous_unusable == ("h1",) and not count.impetuous_phase and count.total == 3
    assert not count.loss_of_lieutenant and count.reasons[0].startswith("Retreat!")


def test_retreat_and_loss_of_lieutenant_together():
    count = count_orders(army([army_trooper("t1", option="Lieutenant", state="dead"), army_trooper("t2"),
                               army_trooper("h1", unit_name="hothead")]), retreat=True)
    assert count.loss_of_lieutenant and count.retreat and len(count.reasons) == 2
    assert (pools(count), count.irregular, count.impetuous_unusable, count.total) == ({1: 0}, ("t2", "h1"), ("h1",), 2)


# Loss of Lieutenant

@pytest.mark.parametrize(("state", "why"), [("dead", "is dead"), ("unconscious", "is unconscious"),
                                            ("undeployed", "is not deployed"), ("isolated", "is isolated")])
def test_loss_of_lieutenant(state, why):
    count = count_orders(army([army_trooper("t1", option="Lieutenant", state=state)] + regulars(2, first=2)
                              + [army_trooper("t4", 2)]))
    assert count.loss_of_lieutenant and pools(count) == {1: 0, 2: 0} and count.lieutenant_order == 0
    live = ("t2", "t3", "t4") if state != "isolated" else ("t1", "t2", "t3", "t4")
    assert count.irregular == live and why in count.reasons[0]


def test_no_loss_of_lieutenant_when_the_lieutenant_is_deployed_as_a_marker():
    check = lieutenant_check(army([army_trooper("t1", option="Lieutenant", state="marker")]))
    assert (check.lieutenant, check.loss_of_lieutenant, check.reason) == ("t1", False, None)


def test_a_list_without_a_lieutenant_is_in_loss_of_lieutenant():
    count = count_orders(army(regulars(3)))
    assert count.loss_of_lieutenant and count.lieutenant is None and count.irregular == ("t1", "t2", "t3")
    assert "has no Lieutenant" in count.reasons[0]


def test_two_lieutenants_are_refused_with_their_place():
    with pytest.raises(ArmyError, match=r"troopers\[2\].lieutenant: a second Lieutenant \(t1, t3\)"):
        count_orders(army(regulars(2, lieutenant=1) + [army_trooper("t3", lieutenant=True)]))


@pytest.mark.parametrize(("fields", "why"), [({"type": "REM", "w": None, "str": 1}, "a Remote"),
                                             ({"training": "irregular"}, "Irregular in its profile")])
def test_orders_refuse_a_lieutenant_that_can_never_be_one(fields, why):
    """A Remote or an Irregular profile can never be the Lieutenant: no order count gives it a Lieutenant order."""
    units = {"line": unit(), "odd": unit("Odd", **fields)}
    with pytest.raises(ArmyError, match=rf"troopers\[1\].unit: the Lieutenant t2: it is {why}"):
        count_orders(build_army([army_trooper("t1"), army_trooper("t2", option="Lieutenant", unit_name="odd")], units))


# the Impetuous deployment exception

def impetuous_deployment(lieutenant_state=()):
    return army([army_trooper("t1", option="Lieutenant", state=list(lieutenant_state)), army_trooper("t2"),
                 army_trooper("h1", 2, unit_name="hothead", state="deployed_by_impetuous_order")])


def test_a_trooper_deployed_by_its_impetuous_order_adds_its_regular_order_for_the_turn():
    count = count_orders(impetuous_deployment())
    assert pools(count) == {1: 2, 2: 1} and count.impetuous == ("h1",)
    assert count.pool(2).deployed_by_impetuous_order == ("h1",) and "assumption" in count.notes[0]


def test_at_the_turn_start_it_brings_only_the_impetuous_order_that_deploys_it():
    count = count_orders(impetuous_deployment(), turn_start=True)
    assert pools(count) == {1: 2, 2: 0} and count.impetuous == ("h1",) and count.total == 4


def test_in_retreat_there_is_no_impetuous_deployment():
    count = count_orders(impetuous_deployment(), retreat=True)
    assert pools(count) == {1: 2, 2: 0} and (count.impetuous, count.impetuous_unusable) == ((), ())
    assert "no Impetuous phase" in count.notes[0]


def test_in_loss_of_lieutenant_the_impetuous_deployment_brings_an_irregular_order():
    count = count_orders(impetuous_deployment(["dead"]))
    assert pools(count) == {1: 0, 2: 0} and count.irregular == ("t2", "h1") and count.impetuous == ("h1",)


def test_a_lieutenant_deployed_by_its_impetuous_order_was_off_the_table_at_the_check():
    listed = army([army_trooper("h1", unit_name="hothead", option="Lieutenant", state="deployed_by_impetuous_order"),
                   army_trooper("t2")])
    count = count_orders(listed)
    assert count.loss_of_lieutenant and count.irregular == ("h1", "t2") and "Tactical phase" in count.reasons[0]


def test_only_an_impetuous_trooper_can_be_deployed_by_its_impetuous_order():
    with pytest.raises(ArmyError, match=r"troopers\[1\].state: 't2' is marked deployed_by_impetuous_order"):
        count_orders(army(regulars(1, lieutenant=1) + [army_trooper("t2", state="deployed_by_impetuous_order")]))


# Victory Points

def test_victory_points_of_the_retreat_example():
    costs = {"c40": 40, "c25": 25, "c18": 18, "c117": 117, "c100": 100}
    priced = unit(options=[{"name": name, "cost": cost} for name, cost in costs.items()])
    listed = build_army([army_trooper("a", option="c40", state="dead"), army_trooper("b", option="c25", state="dead"),
                         army_trooper("c", option="c18", state="unconscious"), army_trooper("d", option="c117"),
                         army_trooper("e", option="c100", state="undeployed")], {"line": priced})
    assert sum(listed.option_of(t).cost for t in listed.troopers) == 300
    assert victory_points(listed) == 217 == count_orders(listed).victory_points


# naming a new Lieutenant

def test_a_regular_trooper_is_named_and_the_next_count_is_normal():
    listed = seven_and_three(["dead"])
    named = name_new_lieutenant(listed, "t8")
    assert (named.trooper("t1").lieutenant, named.trooper("t8").lieutenant) == (False, True)
    count = count_orders(named)
    assert not count.loss_of_lieutenant and count.lieutenant == "t8"
    assert (pools(count), count.irregular, count.lieutenant_order) == ({1: 6, 2: 2}, ("i1",), 1)


def test_without_a_new_lieutenant_the_next_turn_is_in_loss_of_lieutenant_again():
    listed = seven_and_three(["dead"])
    count = tactical_phase(listed)
    assert tactical_phase(end_of_turn(listed, count)).loss_of_lieutenant


@pytest.mark.parametrize(("candidate", "state", "why"), [
    ("r1", (), "is a Remote"), ("i1", (), "Irregular in its profile"), ("t2", ("unconscious",), "is unconscious"),
    ("t2", ("dead",), "is dead"), ("t2", ("isolated",), "is isolated"), ("t2", ("undeployed",), "not deployed")])
def test_a_new_lieutenant_is_refused(candidate, state, why):
    troopers = [army_trooper("t1", option="Lieutenant", state="dead"), army_trooper("t2", state=list(state)),
                army_trooper("i1", unit_name="irregular"), army_trooper("r1", unit_name="drone")]
    with pytest.raises(LofkitError, match=f"cannot name {candidate} Lieutenant: .*{why}"):
        name_new_lieutenant(army(troopers), candidate)


def test_a_new_lieutenant_meets_the_bar_list_building_uses_on_remotes_and_irregulars():
    """One rule, two moments: the reasons that refuse a Remote or an Irregular profile as the new Lieutenant are
    the ones `lofkit army check` gives for such a Lieutenant at list building."""
    for candidate, unit_name in (("r1", "drone"), ("i1", "irregular")):
        dead = army([army_trooper("t1", option="Lieutenant", state="dead"), army_trooper(candidate, unit_name=unit_name)])
        with pytest.raises(LofkitError) as caught:
            name_new_lieutenant(dead, candidate)
        at_building = check_list(army([army_trooper(candidate, unit_name=unit_name, option="Lieutenant")])).problems
        reasons = [p.message.removeprefix(f"{candidate}: ") for p in at_building if p.rule == "lieutenant"]
        assert len(reasons) == 1 and str(caught.value) == f"cannot name {candidate} Lieutenant: {reasons[0]}"
    rogue = build_army([army_trooper("t1", option="Lieutenant", state="dead"), army_trooper("x", unit_name="rogue")],
                       {"line": unit(), "rogue": unit("Rogue", type="REM", training="irregular", w=None, str=1)})
    with pytest.raises(LofkitError, match="cannot name x Lieutenant: it is a Remote .*; it is Irregular in its profile"):
        name_new_lieutenant(rogue, "x")


def test_a_new_lieutenant_is_named_only_in_loss_of_lieutenant_and_from_the_list():
    with pytest.raises(LofkitError, match="not in Loss of Lieutenant"):
        name_new_lieutenant(twelve_regulars(), "t2")
    with pytest.raises(LofkitError, match="no trooper 'x9'"):
        name_new_lieutenant(seven_and_three(["dead"]), "x9")


# the turn

def test_the_turn_sequence():
    assert turn_sequence(retreat=False) == ("retreat_check", "loss_of_lieutenant_check", "order_count",
                                            "impetuous_phase", "orders_phase", "end_of_turn")
    assert turn_sequence(retreat=True) == ("retreat_check", "loss_of_lieutenant_check", "order_count",
                                           "orders_phase", "end_of_turn")


def test_unused_orders_do_not_carry_over():
    listed = twelve_regulars()
    count = tactical_phase(listed)
    for _ in range(5):
        count = spend_regular(count, 1, listed.trooper("t2"))
    assert pools(count) == {1: 3, 2: 4}
    assert pools(tactical_phase(end_of_turn(listed, count))) == {1: 8, 2: 4}


def test_end_of_turn_names_the_lieutenant_and_ends_impetuous_deployments():
    listed = impetuous_deployment(["dead"])
    after = end_of_turn(listed, tactical_phase(listed), new_lieutenant="t2")
    assert after.trooper("h1").state == () and after.trooper("t2").lieutenant
    with pytest.raises(LofkitError, match="not in Loss of Lieutenant"):
        end_of_turn(twelve_regulars(), tactical_phase(twelve_regulars()), new_lieutenant="t2")


# the command

def write_list(tmp_path, troopers, name="list.json"):
    path = tmp_path / name
    path.write_text(json.dumps(army_data(troopers, UNITS)), encoding="utf-8")
    return path


def test_orders_json_has_the_contract_keys(run_cli, tmp_path):
    path = write_list(tmp_path, regulars(7, 1, lieutenant=1) + [army_trooper("i1", unit_name="irregular"),
                                                                army_trooper("h1", 2, unit_name="hothead")])
    result = run_cli("orders", path, "--json")
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert {"loss_of_lieutenant", "retreat", "pools", "irregular", "impetuous", "lieutenant_order"} <= set(document)
    assert [(p["group"], p["regular"]) for p in document["pools"]] == [(1, 7), (2, 1)]
    assert (document["irregular"], document["impetuous"], document["lieutenant_order"]) == (["i1"], ["h1"], 1)
    assert document["turn_sequence"][3] == "impetuous_phase" and document["total"] == 11


def test_orders_json_in_retreat(run_cli, tmp_path):
    path = write_list(tmp_path, regulars(2, lieutenant=1) + [army_trooper("h1", unit_name="hothead")])
    document = json.loads(run_cli("orders", path, "--retreat", "--json").stdout)
    assert (document["retreat"], document["lieutenant_order"], document["impetuous"]) == (True, 0, [])
    assert document["impetuous_unusable"] == ["h1"] and "impetuous_phase" not in document["turn_sequence"]


def test_retreat_by_the_callers_threshold_below_the_victory_points(run_cli, tmp_path):
    """Two 10-point troopers and a Lieutenant of 10, one trooper dead: 20 Victory Points."""
    path = write_list(tmp_path, regulars(2, lieutenant=1) + [army_trooper("gone", state="dead")])
    for below, retreat in ((21, True), (20, False)):
        document = json.loads(run_cli("orders", path, "--retreat-below", below, "--json").stdout)
        assert (document["victory_points"], document["retreat"]) == (20, retreat)


@pytest.mark.parametrize("below", ["0", "301", "1000000000"])
def test_a_retreat_threshold_outside_the_lists_points_is_refused_with_the_range(run_cli, tmp_path, below):
    path = write_list(tmp_path, regulars(2, lieutenant=1))
    result = run_cli("orders", path, "--retreat-below", below)
    assert result.exit_code == 2 and result.stdout == "" and "Traceback" not in result.output
    assert f"{path}: --retreat-below {below}: give a threshold from 1 to 300, the list's points limit" in result.stderr


def test_orders_turn_start_leaves_out_impetuous_deployments(run_cli, tmp_path):
    path = write_list(tmp_path, [army_trooper("t1", option="Lieutenant"),
                                 army_trooper("h1", unit_name="hothead", state="deployed_by_impetuous_order")])
    later, start = (json.loads(run_cli("orders", path, *flags, "--json").stdout) for flags in ((), ("--turn-start",)))
    assert (later["pools"][0]["regular"], start["pools"][0]["regular"]) == (2, 1) and start["turn_start"]


def test_orders_for_people_draws_the_markers(run_cli, tmp_path):
    path = write_list(tmp_path, regulars(8, 1, lieutenant=1) + regulars(4, 2, first=9)
                      + [army_trooper("i1", 2, unit_name="irregular")])
    result = run_cli("orders", path)
    assert result.exit_code == 0
    assert "●●●●●●●● 8" in result.stdout and "●●●● 4" in result.stdout and "◆ 1" in result.stdout
    assert "★ 1" in result.stdout and "14 orders" in result.stdout and "Loss of Lieutenant:" not in result.stdout


def test_orders_for_people_says_loss_of_lieutenant_and_retreat(run_cli, tmp_path):
    path = write_list(tmp_path, [army_trooper("t1", option="Lieutenant", state="isolated"), army_trooper("t2")])
    result = run_cli("orders", path, "--retreat")
    assert result.exit_code == 0
    assert "Loss of Lieutenant: the Lieutenant t1 is isolated" in result.stdout and "Retreat!" in result.stdout


@pytest.mark.parametrize(("troopers", "place"), [
    ([army_trooper("t1", option="Lieutenant"), army_trooper("g1", unit_name="ghost")], "troopers[1].unit"),
    ([army_trooper("t1", option="Lieutenant"), army_trooper("t2", option="Sword")], "troopers[1].option"),
    ([army_trooper("t1", option="Lieutenant", group=0)], "troopers[0].group")])
def test_orders_bad_list_exit_2_with_file_and_place(run_cli, tmp_path, troopers, place):
    path = write_list(tmp_path, troopers)
    result = run_cli("orders", path)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{path}: {place}:" in result.stderr


def test_orders_malformed_file_exit_2(run_cli, tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("lofkit_army: 1\ntroopers: [\n", encoding="utf-8")
    result = run_cli("orders", path)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{path}: line" in result.stderr
