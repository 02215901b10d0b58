"""AROs: one per reactive trooper per order, declared after the first skill (or after the second, only by troopers
eligible then for the first time); LoF, ZoC (only Change Facing or Reset) or a skill usable without LoF; all
simultaneous (the Camouflage/Discover example); and the army lists' states joined to the geometry (`aro --army`)."""

import json

import pytest
import yaml

from lofkit.game.reactions import (
    Declaration,
    SideArmy,
    check_declarations,
    declaration_windows,
    join_armies,
    match_armies,
)
from lofkit.game.skills import UnknownSkillError, catalogue_from_data
from lofkit.rules.aro import aro
from tests.helpers import REPO, army_data, army_trooper, build_army, build_world, scene_data, trooper, write_scene

TABLE_A = REPO / "examples" / "tables" / "table-a.yaml"
WALL = {"id": "wall", "wall": {"from": [300, 500], "to": [600, 500], "thickness": 10, "height": 100}}
LOF_SKILLS = ["Discover", "BS Attack", "CC Attack", "Dodge", "Change Facing", "Reset"]


def refused(check) -> dict:
    return {r.declaration.trooper: r.reason for r in check.refused}


# --- when: the declaration windows -------------------------------------------------------------------------------

def test_windows_first_skill_then_only_the_newly_eligible():
    windows = declaration_windows({"a": "lof", "b": "zoc"}, {"a": "lof", "b": "lof", "c": "lof"})
    assert [(w.trooper, w.by, w.after) for w in windows] == [("a", "lof", "first"), ("b", "zoc", "first"),
                                                            ("c", "lof", "second")]


def test_eligible_after_the_first_skill_and_silent_cannot_declare_after_the_second():
    windows = declaration_windows({"a": "lof"}, {"a": "lof"})
    check = check_declarations(windows, [Declaration("a", "BS Attack", after="second")])
    assert not check.legal and "no ARO against this order" in refused(check)["a"] and check.lost == ("a",)


def test_newly_eligible_after_the_second_skill_declares_then():
    windows = declaration_windows({"a": "lof"}, {"a": "lof", "c": "lof"})
    check = check_declarations(windows, [Declaration("a", "Dodge"), Declaration("c", "BS Attack", after="second")])
    assert check.legal and [d.trooper for d in check.accepted] == ["a", "c"] and check.lost == ()
    early = check_declarations(windows, [Declaration("c", "BS Attack")])
    assert "declares after it" in refused(early)["c"]


def test_one_aro_per_trooper_per_order_however_many_skills():
    windows = declaration_windows({"a": "lof"}, {"a": "lof"})
    again = check_declarations(windows, [Declaration("a", "Discover"), Declaration("a", "BS Attack", after="second")])
    twice = check_declarations(windows, [Declaration("a", "Discover"), Declaration("a", "BS Attack")])
    for check in (again, twice):
        assert [d.skill for d in check.accepted] == ["Discover"] and "one ARO per trooper" in refused(check)["a"]


def test_an_entire_order_skill_has_one_window():
    windows = declaration_windows({"a": "lof"})
    assert [w.after for w in windows] == ["first"]
    assert check_declarations(windows, [Declaration("a", "BS Attack")]).legal


# --- who and what: eligibility and the skill -----------------------------------------------------------------------

@pytest.mark.parametrize("skill", LOF_SKILLS)
def test_zoc_without_lof_allows_only_change_facing_or_reset(skill):
    check = check_declarations(declaration_windows({"r": "zoc"}), [Declaration("r", skill)])
    assert check.legal == (skill in ("Change Facing", "Reset"))
    if not check.legal:
        assert "Change Facing, Reset" in refused(check)["r"]


def test_with_lof_every_aro_skill_but_no_skill_unusable_in_aro():
    windows = declaration_windows({"r": "lof"})
    assert all(check_declarations(windows, [Declaration("r", s)]).legal for s in LOF_SKILLS)
    assert "not usable in ARO" in refused(check_declarations(windows, [Declaration("r", "Move")]))["r"]


def test_a_trooper_with_neither_lof_nor_zoc_is_not_eligible():
    check = check_declarations(declaration_windows({"r": "lof"}), [Declaration("x", "Change Facing")])
    assert "not eligible" in refused(check)["x"]


def test_a_skill_usable_without_lof_is_all_such_a_trooper_may_declare():
    data = {"lofkit_skills": 1, "skills": {
        "Idle": {"category": "short_movement", "aro": False, "needs_lof": False},
        "Sensor": {"category": "short", "aro": True, "needs_lof": False, "assumed": ["category"]},
        "BS Attack": {"category": "short", "aro": True, "needs_lof": True}}}
    catalogue = catalogue_from_data(data)
    windows = declaration_windows({"far": "no_lof"})
    assert check_declarations(windows, [Declaration("far", "Sensor")], catalogue=catalogue).legal
    shot = check_declarations(windows, [Declaration("far", "BS Attack")], catalogue=catalogue)
    assert "may declare only a skill usable without LoF: Sensor" in refused(shot)["far"]


def test_an_unknown_skill_is_bad_input():
    with pytest.raises(UnknownSkillError, match="known skills"):
        check_declarations(declaration_windows({"a": "lof"}), [Declaration("a", "Teleport")])


def test_camouflage_and_discover_are_simultaneous():
    """A Camouflage marker moves; A and B have LoF. A: Discover; B: BS Attack if A succeeds -> illegal, all AROs
    are simultaneous. On the next order, the marker revealed, B may declare a BS Attack."""
    windows = declaration_windows({"A": "lof", "B": "lof"})
    this_order = check_declarations(windows, [Declaration("A", "Discover"), Declaration("B", "BS Attack", waits_for="A")],
                                    active_is_marker=True)
    assert [d.trooper for d in this_order.accepted] == ["A"] and "simultaneous" in refused(this_order)["B"]
    plainly = check_declarations(windows, [Declaration("B", "BS Attack")], active_is_marker=True)
    assert "only Discover, Change Facing" in refused(plainly)["B"]
    next_order = check_declarations(windows, [Declaration("B", "BS Attack")], active_is_marker=False)
    assert next_order.legal
    assert check_declarations(windows, [Declaration("B", "Change Facing")], active_is_marker=True).legal


def test_declaration_check_to_dict():
    document = check_declarations(declaration_windows({"a": "lof", "b": "lof"}),
                                  [Declaration("a", "Dodge"), Declaration("a", "Reset")]).to_dict()
    assert document["legal"] is False and document["lost"] == ["b"]
    assert document["refused"][0]["skill"] == "Reset" and document["refused"][0]["reason"]


# --- the army lists joined to the geometry ------------------------------------------------------------------------

def test_a_zoc_reaction_lists_change_facing_and_reset():
    """Inside the reactor's ZoC, behind a tall wall: the join lists only the ZoC skills."""
    world = build_world([trooper("a", 400, 300), trooper("r", 400, 520, side="red", facing=270)], [WALL])
    roster = match_armies(world.scene, [SideArmy("red", build_army([army_trooper("r")]), "red.yaml")])
    (reaction,) = join_armies(world, aro(world, "a"), roster).reactions
    assert reaction.by == "zoc" and reaction.skills == ("Change Facing", "Reset")


def test_listed_troopers_off_the_table_are_fine_and_unlisted_ones_warn():
    world = build_world([trooper("a", 400, 300), trooper("r", 450, 800, side="red", facing=270),
                         trooper("s", 600, 800, side="red", facing=270)])
    army = build_army([army_trooper("r"), army_trooper("x", state="undeployed"), army_trooper("y", state="dead")])
    roster = match_armies(world.scene, [SideArmy("red", army, "red.yaml")])
    assert roster.warnings == ("red.yaml: on the table but not in the list (they react as the scene says): s",)
    result = join_armies(world, aro(world, "a"), roster)
    assert [(c.trooper, c.reason) for c in result.cannot_react] == [("x", "not deployed yet"),
                                                                   ("y", "dead: a Null state")]
    assert {r.trooper for r in result.reactions} == {"r", "s"}


# --- `lofkit aro --army` on table-a ------------------------------------------------------------------------------

def write_lists(folder, red_states=None, red_extra=()):
    """Lists for table-a's blue-1..11 and red-1..11 (ids as in the scene); `red_states`: id -> state."""
    red_states = red_states or {}
    blue = army_data([army_trooper(f"blue-{k}") for k in range(1, 12)])
    red = army_data([army_trooper(f"red-{k}", **({"state": red_states[f"red-{k}"]} if f"red-{k}" in red_states else {}))
                     for k in range(1, 12)] + list(red_extra))
    paths = folder / "blue.yaml", folder / "red.yaml"
    for path, data in zip(paths, (blue, red)):
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return paths


@pytest.fixture(scope="module")
def table_a_lists(tmp_path_factory):
    return write_lists(tmp_path_factory.mktemp("lists"), {"red-2": "unconscious", "red-3": "undeployed"})


@pytest.fixture(scope="module")
def answer(table_a_lists):
    from click.testing import CliRunner

    from lofkit.cli import cli

    blue, red = table_a_lists
    result = CliRunner().invoke(cli, ["aro", str(TABLE_A), "blue-1", "--army", f"blue={blue}", "--army",
                                      f"red={red}", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_aro_army_states_remove_reactions(answer):
    reacting = {r["trooper"] for r in answer["reactions"]}
    assert reacting and not reacting & {"red-2", "red-3"}
    assert [(c["trooper"], c["state"], c["reason"]) for c in answer["cannot_react"]] == [
        ("red-2", ["unconscious"], "unconscious: a Null state"), ("red-3", ["undeployed"], "not deployed yet")]


def test_aro_army_reactions_list_their_skills(answer):
    assert all(r["skills"] == (LOF_SKILLS if r["by"] == "lof" else ["Change Facing", "Reset"])
               for r in answer["reactions"])


def test_aro_army_json_keys(answer):
    assert {"active", "path", "reactions", "cannot_react", "active_is_marker", "armies", "warnings"} <= answer.keys()
    assert {"trooper", "by", "allowed", "skills"} <= answer["reactions"][0].keys()
    assert set(answer["armies"]) == {"blue", "red"} and answer["warnings"] == []


def test_aro_army_for_people(run_cli, table_a_lists):
    blue, red = table_a_lists
    result = run_cli("aro", TABLE_A, "blue-11", "--army", f"red={red}")
    assert result.exit_code == 0 and "may react" in result.stdout
    assert "red-2 (red) cannot react: unconscious" in result.stdout and "a marker" in result.stdout
    assert "Discover, Change Facing" in result.stdout and "BS Attack" not in result.stdout


def test_aro_without_army_answers_as_before(run_cli):
    from lofkit.cli.common import load_world

    document = json.loads(run_cli("aro", TABLE_A, "blue-1", "--json").stdout)
    assert document == json.loads(json.dumps(aro(load_world(str(TABLE_A), quiet=True), "blue-1").to_dict()))
    assert "skills" not in document["reactions"][0] and "cannot_react" not in document


def test_aro_army_warns_about_troopers_the_list_leaves_out(run_cli, tmp_path):
    red = army_data([army_trooper(f"red-{k}") for k in range(1, 11)])
    (tmp_path / "red.yaml").write_text(yaml.safe_dump(red), encoding="utf-8")
    result = run_cli("aro", TABLE_A, "blue-1", "--army", f"red={tmp_path / 'red.yaml'}", "--json")
    assert result.exit_code == 0 and "red-11" in json.loads(result.stdout)["warnings"][0]


@pytest.mark.parametrize(("army", "message"), [
    ("red={folder}/none.yaml", "none.yaml: (file): file not found"),
    ("purple={folder}/red.yaml", "the scene has no side 'purple' (its sides: blue, red)"),
    ("red={folder}/broken.yaml", "broken.yaml: troopers[0].unit: required field is missing"),
    ("red={folder}/extra.yaml", "extra.yaml: troopers[11].id: 'red-12' is not in the scene"),
    ("red={folder}/blue.yaml", "blue.yaml: troopers[0].id: 'blue-1' is on side blue in the scene, not on side red"),
    ("red", "give SIDE=LIST"),
])
def test_aro_army_bad_input(run_cli, tmp_path, army, message):
    write_lists(tmp_path)
    broken = army_data([{"id": "red-1", "option": "Rifle", "group": 1}])
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(broken), encoding="utf-8")
    extra = army_data([army_trooper(f"red-{k}") for k in range(1, 13)])
    (tmp_path / "extra.yaml").write_text(yaml.safe_dump(extra), encoding="utf-8")
    result = run_cli("aro", TABLE_A, "blue-1", "--army", army.format(folder=tmp_path))
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output


def test_a_listed_trooper_off_the_table_needs_no_model(tmp_path, run_cli):
    _, red = write_lists(tmp_path, red_extra=[army_trooper("red-12", state="undeployed")])
    result = run_cli("aro", TABLE_A, "blue-1", "--army", f"red={red}", "--json")
    assert result.exit_code == 0
    assert "red-12" in {c["trooper"] for c in json.loads(result.stdout)["cannot_react"]}


def test_skills_needs_army(run_cli):
    result = run_cli("aro", TABLE_A, "blue-1", "--skills", "mine.yaml")
    assert result.exit_code == 2 and "--army" in result.stderr


# --- against a marker: the same answer with and without the army lists ---------------------------------------------

def marker_table(marker: bool = True) -> tuple[list, list]:
    """Troopers and terrain: camo (blue, S2) at (400, 300); `seer` (red) 400 mm to its right looks at it across open
    table; `behind` (red) stands 220 mm away behind a 100 mm wall (bases 195 mm apart: inside its 8" ZoC, no
    LoF)."""
    return ([trooper("camo", 400, 300, marker=marker), trooper("seer", 800, 300, side="red", facing=180),
             trooper("behind", 400, 520, side="red", facing=270)], [WALL])


@pytest.mark.parametrize(("marker", "seer", "behind"), [
    (True, ("Discover", "Change Facing"), ("Change Facing",)),
    (False, ("any ARO",), ("Change Facing", "Reset")),
])
def test_what_may_be_declared_against_a_marker(marker, seer, behind):
    """The rulebook's Camouflage example: against a marker only Discover or Change Facing with LoF, and by ZoC alone
    only Change Facing; anything else waits for a later order after a successful Discover."""
    world = build_world(*marker_table(marker))
    reactions = {r.trooper: (r.by, r.allowed) for r in aro(world, "camo").reactions}
    assert reactions == {"seer": ("lof", seer), "behind": ("zoc", behind)}


def test_a_marker_gets_the_same_reactions_with_and_without_army_lists(run_cli, tmp_path):
    """`aro` on a marker answers the same `allowed` with and without `--army`, and `--army`'s skills agree."""
    scene = write_scene(tmp_path, scene_data(*marker_table()))
    red = tmp_path / "red.yaml"
    red.write_text(yaml.safe_dump(army_data([army_trooper("seer"), army_trooper("behind")])), encoding="utf-8")
    plain = json.loads(run_cli("aro", scene, "camo", "--json").stdout)
    joined = json.loads(run_cli("aro", scene, "camo", "--army", f"red={red}", "--json").stdout)
    allowed = {r["trooper"]: r["allowed"] for r in plain["reactions"]}
    assert allowed == {"seer": ["Discover", "Change Facing"], "behind": ["Change Facing"]}
    assert {r["trooper"]: r["allowed"] for r in joined["reactions"]} == allowed
    assert {r["trooper"]: r["skills"] for r in joined["reactions"]} == allowed
    assert joined["active_is_marker"] is True
    text = run_cli("aro", scene, "camo").stdout
    assert "a marker" in text and "Discover, Change Facing" in text and "any ARO" not in text


def test_a_trooper_marked_as_a_marker_only_in_its_list_reacts_as_a_marker(tmp_path):
    """`state: marker` in the active trooper's list makes it a marker even where the scene does not say so."""
    world = build_world(*marker_table(marker=False))
    blue = build_army([army_trooper("camo", state="marker")])
    roster = match_armies(world.scene, [SideArmy("blue", blue, "blue.yaml")])
    result = join_armies(world, aro(world, "camo"), roster)
    assert result.active_is_marker
    assert {r.trooper: (r.skills, r.geometry.allowed) for r in result.reactions} == {
        "seer": (("Discover", "Change Facing"),) * 2, "behind": (("Change Facing",),) * 2}
