"""Army lists: loading (every problem with its place), and the legality check at the edge of every rule: 10 and 11
troopers in a group, exactly at the points limit and one over, SWC exactly at the allowance with and without extra
SWC (and extra SWC that counts only for the Lieutenant), AVA at its value and one over and Total, zero, one and
two Lieutenants, who can be the Lieutenant, a Remote with a Hacker in another group and with none, a Hacker option,
unknown skill names, Mercenaries and alien factions."""

import json

import jsonschema
import pytest
import yaml

from lofkit.game.army import ArmyError, army_from_data, army_schema, army_schema_json, load_army
from lofkit.game.listcheck import check_list
from tests.helpers import REPO, army_data, army_trooper, build_army, regulars, unit

ARMIES = REPO / "examples" / "armies"


def rules_broken(army) -> list[str]:
    return [problem.rule for problem in check_list(army).problems]


def test_the_example_lists_are_legal_and_shipped_with_their_schema():
    for name in ("blue", "red"):
        result = check_list(load_army(ARMIES / f"{name}.yaml"))
        assert result.valid and result.points <= 300 and result.lieutenant == f"{name}-1", result.problems
    assert (REPO / "army.schema.json").read_text() == army_schema_json()
    validator = jsonschema.Draft202012Validator(army_schema())
    for name in ("blue", "red"):
        assert not list(validator.iter_errors(yaml.safe_load((ARMIES / f"{name}.yaml").read_text())))
    assert list(validator.iter_errors(army_data(regulars(1), colour="red")))


def test_order_pool_example_list_is_legal():
    """12 Regular troopers in combat groups of 8 and 4."""
    result = check_list(build_army(regulars(8, 1, 1, lieutenant=1) + regulars(4, 2, 9)))
    assert result.valid and [(g, len(ids)) for g, ids in result.groups] == [(1, 8), (2, 4)]


@pytest.mark.parametrize("size, legal", [(10, True), (11, False)])
def test_a_combat_group_holds_at_most_ten_troopers(size, legal):
    army = build_army(regulars(size, 1, 1, lieutenant=1), points=400)
    assert rules_broken(army) == ([] if legal else ["combat_group"])
    if not legal:
        assert check_list(army).problems[0].where == "group 1"


@pytest.mark.parametrize("limit, legal", [(40, True), (39, False)])
def test_points_exactly_at_the_limit_and_one_over(limit, legal):
    army = build_army([army_trooper("lt", option="Lieutenant"), army_trooper("a"), army_trooper("b", option="Heavy Gun")], points=limit)
    assert check_list(army).points == 10 + 10 + 20
    assert ("points" in rules_broken(army)) is not legal


def _swc_army(guns: int, points: int, extra: str | None = None, extra_as_lieutenant: bool = False, extra_is_lt=True):
    line = unit()
    line["options"].append({"name": "Officer", "cost": 18, "swc": extra or "+0",
                            "extra_swc_only_as_lieutenant": extra_as_lieutenant})
    troopers = [army_trooper(f"g{k}", option="Heavy Gun") for k in range(guns)]
    officer = army_trooper("officer", option="Officer", lieutenant=True if extra_is_lt else None)
    lieutenant = [] if extra_is_lt else [army_trooper("lt", option="Lieutenant")]
    units = {"line": {**line, "special_character": True, "skills": ["lieutenant"]}}
    return build_army(troopers + [officer] + lieutenant, units, points=points)


@pytest.mark.parametrize("guns, points, extra, only_lt, officer_is_lt, legal", [
    (6, 300, None, False, True, True),     # 6 SWC at 300 points: exactly the allowance
    (7, 300, None, False, True, False),    # one over
    (7, 300, "+1", False, True, True),     # extra SWC makes room
    (7, 300, "+1", True, True, True),      # a Lieutenant-only extra, on the Lieutenant
    (7, 300, "+1", True, False, False),    # the same extra on a trooper that is not the Lieutenant
    (5, 225, "+0.5", False, True, True),   # 225 points: 4.5, plus 0.5 = 5 exactly
])
def test_swc_at_the_allowance_with_and_without_extra_swc(guns, points, extra, only_lt, officer_is_lt, legal):
    army = _swc_army(guns, points, extra, only_lt, officer_is_lt)
    assert ("swc" not in rules_broken(army)) is legal, check_list(army).to_dict()


def test_the_swc_allowance_is_points_over_fifty_exactly():
    assert check_list(build_army(regulars(1, lieutenant=1), points=225)).swc_limit == 4.5
    assert check_list(build_army(regulars(1, lieutenant=1), points=300)).swc_limit == 6


@pytest.mark.parametrize("ava, taken, legal", [(2, 2, True), (2, 3, False), ("total", 15, True), (0, 1, False)])
def test_ava_at_its_value_one_over_and_total(ava, taken, legal):
    units = {"line": unit(), "elite": unit("Elite", ava=ava)}
    army = build_army([army_trooper("lt", option="Lieutenant")] + [army_trooper(f"e{k}", k // 10 + 1, unit_name="elite")
                                                               for k in range(taken)], units, points=1000)
    assert ("ava" not in rules_broken(army)) is legal


def test_ava_counts_troopers_of_a_unit_whatever_their_options_and_a_sectorial_uses_its_own():
    units = {"line": unit(ava=2, sectorial_ava={"coast": 4})}
    troopers = [army_trooper("lt", option="Lieutenant"), army_trooper("a", option="Heavy Gun"), army_trooper("b")]
    assert rules_broken(build_army(troopers, units)) == ["ava"]
    assert rules_broken(build_army(troopers, units, sectorial="coast")) == []
    assert rules_broken(build_army(troopers, units, sectorial="inland")) == ["ava"]


@pytest.mark.parametrize("lieutenants, legal", [(0, False), (1, True), (2, False)])
def test_exactly_one_lieutenant(lieutenants, legal):
    army = build_army([army_trooper(f"t{k}", option="Lieutenant" if k < lieutenants else "Rifle") for k in range(3)])
    assert ("lieutenant" not in rules_broken(army)) is legal


LIEUTENANT_UNITS = {
    "line": unit(), "irregular": unit("Irregulars", training="irregular"),
    "drone": unit("Drone", type="REM", w=None, str=1), "tag": unit("Tag", type="TAG", w=None, str=3),
    "hero": unit("Hero", special_character=True, skills=["lieutenant"]),
    "mystery": unit("Mystery", special_character=True),
    "masked": unit("Masked", special_character=True, options=[{"name": "Pistol", "cost": 20},
                                                              {"name": "Command", "cost": 25, "skills": ["lieutenant"]}]),
    "sergeant": unit("Sergeants", options=[{"name": "Rifle", "cost": 10},
                                           {"name": "Command", "cost": 12, "skills": ["lieutenant"]}]),
    "rogue": unit("Rogue", type="REM", training="irregular", special_character=True, w=None, str=1),
}
NO_SKILL = "a special character can be the Lieutenant only when its profile has the Lieutenant skill"
NOT_AN_OPTION = "only a trooper taking a Lieutenant option"
REMOTE = "it is a Remote (REM), and a Remote can never be the Lieutenant"
IRREGULAR = "it is Irregular in its profile, and an Irregular profile can never be the Lieutenant"


@pytest.mark.parametrize(("candidate", "problems"), [
    pytest.param(army_trooper("c", option="Lieutenant"), [], id="lieutenant option, regular unit"),
    pytest.param(army_trooper("c", option="Command", unit_name="sergeant"), [], id="option with the lieutenant skill"),
    pytest.param(army_trooper("c", option="Lieutenant", unit_name="irregular"),
                 [("troopers[1].option", IRREGULAR)], id="lieutenant option, irregular unit"),
    pytest.param(army_trooper("c", option="Lieutenant", unit_name="drone"), [("troopers[1].option", REMOTE)],
                 id="lieutenant option, remote"),
    pytest.param(army_trooper("c", unit_name="hero", lieutenant=True), [], id="special character, unit skill"),
    pytest.param(army_trooper("c", option="Command", unit_name="masked"), [], id="special character, option skill"),
    pytest.param(army_trooper("c", unit_name="mystery", lieutenant=True), [("troopers[1].lieutenant", NO_SKILL)],
                 id="special character without the skill"),
    pytest.param(army_trooper("c", option="Pistol", unit_name="masked", lieutenant=True),
                 [("troopers[1].lieutenant", NO_SKILL)], id="special character, option without the skill"),
    pytest.param(army_trooper("c", lieutenant=True), [("troopers[1].lieutenant", NOT_AN_OPTION)],
                 id="regular trooper without a lieutenant option"),
    pytest.param(army_trooper("c", unit_name="rogue", lieutenant=True),
                 [("troopers[1].lieutenant", REMOTE), ("troopers[1].lieutenant", IRREGULAR),
                  ("troopers[1].lieutenant", NO_SKILL)], id="every reason of an irregular remote character"),
])
def test_who_can_be_the_lieutenant(candidate, problems):
    """A Lieutenant option (`lieutenant: true` or the option's `lieutenant` skill) or a special character with the
    Lieutenant skill, never an Irregular or Remote profile. A TAG keeps Remotes legal."""
    army = build_army([army_trooper("t", unit_name="tag"), candidate], LIEUTENANT_UNITS, points=1000)
    result = check_list(army)
    assert [(p.rule, p.where) for p in result.problems] == [("lieutenant", place) for place, _ in problems]
    assert all(p.message.startswith(f"c: {says}") for p, (_, says) in zip(result.problems, problems))
    assert result.lieutenant == "c"


def test_a_lieutenant_skill_on_the_unit_alone_does_not_make_a_trooper_lieutenant():
    """Only its option or its own `lieutenant: true` says which trooper of a Lieutenant-skilled unit leads."""
    army = build_army([army_trooper("h1", unit_name="hero"), army_trooper("h2", unit_name="hero", lieutenant=True)],
                      LIEUTENANT_UNITS)
    assert check_list(army).valid and check_list(army).lieutenant == "h2"


def test_a_trooper_has_its_units_skills_its_options_and_lieutenant_from_its_option():
    units = {"line": unit(skills=["camouflage"], options=[
        {"name": "Rifle", "cost": 10}, {"name": "Lieutenant", "cost": 10, "lieutenant": True},
        {"name": "Hacking Device", "cost": 16, "swc": 0.5, "skills": ["hacker"]}])}
    army = build_army([army_trooper("a"), army_trooper("b", option="Lieutenant"), army_trooper("c", option="Hacking Device")], units)
    assert [army.skills_of(t) for t in army.troopers] == [
        {"camouflage"}, {"camouflage", "lieutenant"}, {"camouflage", "hacker"}]


def test_a_remote_needs_a_tag_or_a_hacker_anywhere_in_the_list():
    units = {"line": unit(), "drone": unit("Drone", type="REM", w=None, str=1),
             "hacker": unit("Hacker", skills=["hacker"]), "tag": unit("Tag", type="TAG", w=None, str=3)}
    base = [army_trooper("lt", option="Lieutenant"), army_trooper("d", 2, unit_name="drone")]
    assert rules_broken(build_army(base, units)) == ["remote"]
    assert rules_broken(build_army(base + [army_trooper("h", 1, unit_name="hacker")], units)) == []
    assert rules_broken(build_army(base + [army_trooper("t", 1, unit_name="tag")], units)) == []


def test_a_hacker_option_makes_only_the_trooper_taking_it_a_hacker():
    """Skills come with option rows: a Hacking Device option keeps a Remote legal; the same unit's troopers with
    Combi Rifles do not."""
    units = {"line": unit(), "drone": unit("Drone", type="REM", w=None, str=1), "signals": unit("Signals", options=[
        {"name": "Combi Rifle", "cost": 10}, {"name": "Hacking Device", "cost": 16, "swc": 0.5, "skills": ["hacker"]}])}
    base = [army_trooper("lt", option="Lieutenant"), army_trooper("d", 2, unit_name="drone")]
    with_device = build_army(base + [army_trooper("s1", option="Combi Rifle", unit_name="signals"),
                                     army_trooper("s2", option="Hacking Device", unit_name="signals")], units)
    without = build_army(base + [army_trooper(f"s{k}", option="Combi Rifle", unit_name="signals") for k in (1, 2)], units)
    assert rules_broken(with_device) == []
    assert [(p.rule, p.where) for p in check_list(without).problems] == [("remote", "troopers")]
    assert "Remotes (d) need a TAG or a trooper with the Hacker skill" in check_list(without).problems[0].message


@pytest.mark.parametrize(("place", "skills"), [
    ("units.line.skills[1]", {"skills": ["camouflage", "haker"]}),
    ("units.line.options[1].skills[0]", {"options": [{"name": "Rifle", "cost": 10},
                                                     {"name": "Lieutenant", "cost": 10, "skills": ["Lieutenant"]}]}),
])
def test_an_unknown_skill_is_refused_with_its_place_and_the_known_names(tmp_path, run_cli, place, skills):
    path = tmp_path / "list.yaml"
    path.write_text(yaml.safe_dump(army_data(regulars(2, lieutenant=1), {"line": unit(**skills)})), encoding="utf-8")
    with pytest.raises(ArmyError) as caught:
        load_army(path)
    assert [p.where for p in caught.value.problems] == [place]
    assert "unknown skill" in caught.value.problems[0].message and "hacker, camouflage" in caught.value.problems[0].message
    result = run_cli("army", "check", path)
    assert result.exit_code == 2 and "Traceback" not in result.stderr and f"{path}: {place}: unknown skill" in result.stderr


def test_mercenaries_stay_out_of_alien_lists_unless_their_unit_says_so():
    units = {"line": unit(), "merc": unit("Mercs", classification="mercenary")}
    troopers = [army_trooper("lt", option="Lieutenant"), army_trooper("m", unit_name="merc")]
    assert rules_broken(build_army(troopers, units, faction={"name": "combined", "alien": True})) == ["mercenary"]
    assert rules_broken(build_army(troopers, units)) == []
    units["merc"]["joins_alien_factions"] = True
    assert rules_broken(build_army(troopers, units, faction={"name": "combined", "alien": True})) == []


def test_a_trooper_naming_an_unknown_unit_or_option():
    army = build_army([army_trooper("lt", option="Lieutenant"), army_trooper("x", unit_name="ghost"), army_trooper("y", option="Gun")])
    problems = check_list(army).problems
    assert [(p.rule, p.where) for p in problems] == [("unit", "troopers[1].unit"), ("option", "troopers[2].option")]


def test_every_problem_of_a_malformed_list_with_its_place(tmp_path):
    data = army_data([army_trooper("a", group=0), army_trooper("a")], units={"line": unit(w=None, s=9)})
    with pytest.raises(ArmyError) as caught:
        army_from_data(data, tmp_path / "list.yaml")
    places = [p.where for p in caught.value.problems]
    assert "troopers[0].group" in places and "units.line.s" in places and str(tmp_path / "list.yaml") in str(caught.value)
    with pytest.raises(ArmyError, match=r"troopers\[1\]\.id: duplicate id 'a' \(first used at troopers\[0\]\.id\)"):
        army_from_data(army_data([army_trooper("a"), army_trooper("a")]))


@pytest.mark.parametrize(("profile", "place", "says"), [
    ({"wip": 99}, "units.line.wip", "99 is out of range: this profile value is 0 to 30; give the value from the unit's"),
    ({"wip": -3}, "units.line.wip", "-3 is out of range: this profile value is 0 to 30"),
    ({"bts": -3}, "units.line.bts", "-3 is out of range"),
    ({"w": 31}, "units.line.w", "31 is out of range: this profile value is 1 to 30"),
    ({"w": 0}, "units.line.w", "0 is out of range: this profile value is 1 to 30"),
    ({"mov": [4, 40]}, "units.line.mov[1]", "40 is out of range"),
    ({"bs": True}, "units.line.bs", "expected a number, got true"),
    ({"ava": True}, "units.line.ava", "expected a number, got true"),
])
def test_a_profile_value_out_of_range_or_true_is_refused_with_its_place(tmp_path, run_cli, profile, place, says):
    path = tmp_path / "list.yaml"
    path.write_text(yaml.safe_dump(army_data(regulars(2, lieutenant=1), {"line": unit(**profile)})), encoding="utf-8")
    result = run_cli("army", "check", path)
    assert result.exit_code == 2 and "Traceback" not in result.stderr and f"{path}: {place}: {says}" in result.stderr
    assert result.stderr.count(f"{path}: ") == 1  # one problem, not also another way's ("Input should be 'total'")


@pytest.mark.parametrize(("troopers", "fields", "place", "says"), [
    ([army_trooper("t1", lieutenant=1)], {}, "troopers[0].lieutenant", "expected true or false, got 1"),
    (regulars(2, lieutenant=1), {"faction": {"name": "x", "alien": 0}}, "faction.alien", "expected true or false, got 0"),
])
def test_a_number_where_true_or_false_goes_is_refused_with_its_place(tmp_path, run_cli, troopers, fields, place, says):
    """pydantic would take 1 and 0 as true and false: a list saying `lieutenant: 1` means something else."""
    path = tmp_path / "list.yaml"
    path.write_text(yaml.safe_dump(army_data(troopers, **fields)), encoding="utf-8")
    result = run_cli("army", "check", path)
    assert result.exit_code == 2 and "Traceback" not in result.stderr and f"{path}: {place}: {says}" in result.stderr


def test_profile_values_at_the_bounds_are_taken():
    army = build_army(regulars(2, lieutenant=1), {"line": unit(wip=30, bts=0, mov=[0, 30], w=30)})
    assert (army.units["line"].wip, army.units["line"].w) == (30, 30)


def test_army_check_answers_in_json_and_refuses_bad_files(tmp_path, run_cli):
    result = run_cli("army", "check", ARMIES / "blue.yaml", "--json")
    document = json.loads(result.stdout)
    assert result.exit_code == 0 and document["valid"] is True
    assert {"valid", "points", "points_limit", "swc", "swc_limit", "groups", "problems"} <= set(document)
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump(army_data(regulars(11))), encoding="utf-8")
    result = run_cli("army", "check", broken, "--json")
    assert result.exit_code == 0 and {p["rule"] for p in json.loads(result.stdout)["problems"]} == \
        {"combat_group", "lieutenant"}
    assert "not legal" in run_cli("army", "check", broken).stdout
    for bad, words in (("lofkit_army: 1\npoints: [", "not valid YAML"), ("lofkit_army: 2\n", "lofkit_army")):
        broken.write_text(bad, encoding="utf-8")
        result = run_cli("army", "check", broken)
        assert result.exit_code == 2 and words in result.stderr and "Traceback" not in result.stderr
        assert str(broken) in result.stderr
