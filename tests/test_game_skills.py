"""The skill catalogue (data, its unruled values marked as assumptions) and what one order may hold: one Entire
Order skill, two Short Movement skills, or a Short Movement and a Short skill in either order; a lone skill pairs
with Idle."""

import json

import pytest

from lofkit.game.skills import (
    CatalogueError,
    UnknownSkillError,
    catalogue_from_data,
    default_catalogue,
    load_catalogue,
    order_check,
    parse_skills,
)
from lofkit.rules.aro import AGAINST_MARKER, AGAINST_MARKER_BY_ZOC, ZOC_ONLY

NAMED = {"Move", "Discover", "BS Attack", "CC Attack", "Dodge", "Change Facing", "Reset", "Idle", "Jump", "Climb"}


def test_the_catalogue_holds_the_named_skills_and_marks_each_category_as_assumed():
    """Which skill is in which category is not in the rules: every row says its category is assumed."""
    catalogue = default_catalogue()
    assert set(catalogue.skills) == NAMED
    assert all("category" in skill.assumed for skill in catalogue.skills.values())
    assert catalogue.assumptions()["Move"] == ("category", "aro", "needs_lof")


def test_what_the_rules_say_is_not_marked_assumed():
    """Discover, BS Attack and Dodge are AROs in the rules' examples; Change Facing and Reset are the ZoC AROs."""
    skills = default_catalogue().skills
    for name in ("Discover", "BS Attack", "Dodge", "Change Facing", "Reset"):
        assert skills[name].aro and "aro" not in skills[name].assumed
    assert {name for name, skill in skills.items() if skill.zoc} == set(ZOC_ONLY)
    assert {name for name, skill in skills.items() if skill.against_marker} == {"Discover", "Change Facing"}


def test_aro_skills_by_kind_of_eligibility():
    catalogue = default_catalogue()
    assert catalogue.aro_skills("lof") == ("Discover", "BS Attack", "CC Attack", "Dodge", "Change Facing", "Reset")
    assert catalogue.aro_skills("zoc") == ("Change Facing", "Reset")
    assert catalogue.aro_skills("no_lof") == () == catalogue.usable_without_lof
    assert catalogue.aro_skills("lof", active_is_marker=True) == ("Discover", "Change Facing") == AGAINST_MARKER
    assert catalogue.aro_skills("zoc", active_is_marker=True) == ("Change Facing",) == AGAINST_MARKER_BY_ZOC


@pytest.mark.parametrize(("skills", "categories"), [
    (["Move", "Move"], ("short_movement", "short_movement")),
    (["Move", "Jump"], ("short_movement", "short_movement")),
    (["Move", "BS Attack"], ("short_movement", "short")),
    (["BS Attack", "Move"], ("short", "short_movement")),
    (["Jump", "Discover"], ("short_movement", "short")),
    (["Climb"], ("entire_order",)),
])
def test_legal_orders(skills, categories):
    result = order_check(skills)
    assert result.legal and result.categories == categories and not result.idle_added


@pytest.mark.parametrize(("skill", "category"), [("BS Attack", "short"), ("Move", "short_movement")])
def test_a_lone_skill_pairs_with_idle(skill, category):
    result = order_check([skill])
    assert result.legal and result.idle_added
    assert result.skills == (skill, "Idle") and result.categories == (category, "short_movement")
    assert "pairs with Idle" in result.reason


@pytest.mark.parametrize(("skills", "reason"), [
    (["BS Attack", "Discover"], "both Short skills"),
    (["Climb", "Move"], "Entire Order skill"),
    (["Climb", "BS Attack"], "Entire Order skill"),
    (["Move", "Climb"], "Entire Order skill"),
    (["Climb", "Climb"], "Entire Order skill"),
    (["Move", "Move", "BS Attack"], "at most two skills"),
])
def test_illegal_orders_say_why(skills, reason):
    result = order_check(skills)
    assert not result.legal and reason in result.reason and len(result.categories) == len(skills)


def test_names_match_whatever_their_case_spaces_or_dashes():
    assert order_check(["bs attack", " MOVE "]).skills == ("BS Attack", "Move")
    assert order_check(["change-facing"]).skills[0] == "Change Facing"
    assert parse_skills(["Move, BS Attack", "Dodge"]) == ["Move", "BS Attack", "Dodge"]


def test_an_unknown_skill_is_bad_input_naming_the_known_ones():
    with pytest.raises(UnknownSkillError, match="unknown skill 'Fly'; known skills: Move, .*Climb"):
        order_check(["Move", "Fly"])


def test_to_dict_has_the_contract_keys():
    document = order_check(["Move", "BS Attack"]).to_dict()
    assert {"legal", "categories", "reason"} <= document.keys()
    assert document["categories"] == ["short_movement", "short"]


def _catalogue(**move) -> dict:
    rows = {"Idle": {"category": "short_movement", "aro": False, "needs_lof": False},
            "Move": {"category": "short_movement", "aro": False, "needs_lof": False, **move}}
    return {"lofkit_skills": 1, "skills": rows}


def test_a_catalogue_names_the_place_of_each_problem():
    with pytest.raises(CatalogueError) as caught:
        catalogue_from_data(_catalogue(category="sideways", assumed=["colour"]), "mine.yaml")
    places = {p.where for p in caught.value.problems}
    assert places == {"skills.Move.category", "skills.Move.assumed[0]"} and "mine.yaml" in str(caught.value)


def test_a_catalogue_version_written_true_is_refused():
    """YAML's `true` is no version number (pydantic would take it as 1)."""
    with pytest.raises(CatalogueError, match="expected a number, got true"):
        catalogue_from_data({**_catalogue(), "lofkit_skills": True})


def test_a_catalogue_needs_idle_as_a_short_movement_skill():
    data = _catalogue()
    data["skills"]["Idle"]["category"] = "short"
    with pytest.raises(CatalogueError, match="Idle"):
        catalogue_from_data(data)


def test_another_catalogue_from_a_file(tmp_path):
    path = tmp_path / "skills.yaml"
    path.write_text(json.dumps(_catalogue(category="entire_order")))
    assert order_check(["Move"], load_catalogue(path)).categories == ("entire_order",)
    with pytest.raises(CatalogueError, match="cannot read"):
        load_catalogue(tmp_path / "none.yaml")


def test_order_check_command(run_cli):
    result = run_cli("order-check", "Move, BS Attack", "--json")
    document = json.loads(result.stdout)
    assert result.exit_code == 0 and document["legal"] is True and document["reason"]
    assert document["categories"] == ["short_movement", "short"]
    human = run_cli("order-check", "bs attack")
    assert human.exit_code == 0 and "legal" in human.stdout and "Idle" in human.stdout


def test_an_illegal_order_is_an_answer(run_cli):
    result = run_cli("order-check", "BS Attack, Discover", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["legal"] is False
    assert "not legal" in run_cli("order-check", "Climb", "Move").stdout


@pytest.mark.parametrize(("args", "message"), [(["Move, Fly"], "known skills: Move"), ([","], "name the skills"),
                                               (["Move", "--skills", "none.yaml"], "none.yaml")])
def test_order_check_bad_input(run_cli, args, message):
    result = run_cli("order-check", *args)
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output


def test_order_check_with_another_catalogue(tmp_path, run_cli):
    path = tmp_path / "skills.json"
    path.write_text(json.dumps(_catalogue(category="entire_order")))
    result = run_cli("order-check", "Move", "--skills", path, "--json")
    assert json.loads(result.stdout)["categories"] == ["entire_order"]
