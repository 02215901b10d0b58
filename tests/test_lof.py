"""docs/rules.md "Line of Fire", points 1-5, on constructed geometry whose answer is known by hand."""

import itertools

import numpy as np
import pytest

from lofkit import World, load_scene
from lofkit.ray.moller_trumbore import NumpyRays
from lofkit.rules.lof import check, matrix
from lofkit.scene.model import SILHOUETTES
from lofkit.sight import search
from lofkit.sight.glimpse import glimpse
from lofkit.sight.lattice import WINDOW_FOUND, Lattice
from lofkit.sight.search import sight
from lofkit.testing import sight_brute_force
from tests.helpers import REPO, build_world, enemy, trooper, wall

TABLE_WIDE = [0, 1219.2]



def slit_block(width: float, y0: float = 320, y1: float = 580) -> list[dict]:
    """A block 100 mm tall across the whole table from y0 to y1, pierced by one straight slit `width` mm wide
    centred on x = 600. With mutual awareness a slit in a thin wall is seen through from whichever side stands
    nearer (it magnifies it), so the slit runs almost from shooter to target: no line through it spreads more
    than about 15% at either end."""
    depth, left, right = y1 - y0, 600 - width / 2, 1219.2 - 600 - width / 2
    return [
        {"id": "left", "box": {"size": [left, depth, 100]}, "position": [left / 2, (y0 + y1) / 2, 0]},
        {"id": "right", "box": {"size": [right, depth, 100]}, "position": [1219.2 - right / 2, (y0 + y1) / 2, 0]},
    ]


# --- LoF 2: the 3 x 3 mm rule and its precision contract -------------------------------------------------------


@pytest.mark.parametrize(("width", "seen"), [(3.5, True), (2.5, False)])
def test_slit_of_three_and_a_half_mm_is_seen_and_two_and_a_half_is_not(width, seen):
    world = build_world([trooper("a", 600, 300), enemy("b", 600, 600)], slit_block(width))
    verdict = check(world, "a", "b")
    assert verdict.sight is seen and verdict.lof is seen
    if seen:
        patch = np.array(verdict.witness.corners)
        assert np.all(np.abs(patch[:, 0] - 600) <= width / 2 * 1.1)  # the patch is seen through the slit


@pytest.mark.parametrize("silhouette", sorted(SILHOUETTES))
def test_every_standard_template_holds_a_block_in_any_window_of_three_and_a_half_mm(silhouette):
    """A window holds a whole block (at least 3 mm of lattice) wherever it lies once it is one lattice cell wider
    than the block: so the precision contract's 3.5 mm windows are found on every standard template, along both
    axes; a block of 2.5 mm cannot be."""
    lattice = Lattice(*SILHOUETTES[silhouette])
    for cells, pitch in zip(lattice.block, lattice.pitch):
        assert cells * pitch >= 3.0 - 1e-9 and (cells + 1) * pitch <= WINDOW_FOUND + 1e-9


@pytest.mark.parametrize(("height", "seen"), [(41, False), (39, True)])
def test_wall_one_mm_taller_than_the_target_hides_it_one_mm_shorter_does_not(height, seen):
    """A wall just in front of the shooter: over a 39 mm wall its 40 mm eyes see the target down to the shadow of
    the wall's far top edge (y 330, z 39) cast from the top front eye (y 312.5, z 40): z = 40 - 387.5 / 17.5 at the
    target; a 41 mm wall hides everything."""
    world = build_world([trooper("a", 600, 300), enemy("b", 600, 700)], [wall(300, 325, 900, 325, height)])
    verdict = check(world, "a", "b")
    assert verdict.sight is seen
    if seen:
        assert verdict.witness.eye_of == "a"
        assert min(c[2] for c in verdict.witness.corners) >= 40 - 387.5 / 17.5
    else:
        assert verdict.blockers[0][0] == "wall"


def test_a_shorter_friendly_in_front_does_not_hide_a_taller_target():
    world = build_world(
        [trooper("a", 600, 300), trooper("friend", 600, 400, silhouette=1), enemy("tag", 600, 700, silhouette=7)]
    )
    verdict = check(world, "a", "tag")
    assert verdict.lof and verdict.can_target


def test_a_wider_taller_trooper_in_between_hides_the_target():
    world = build_world([trooper("a", 600, 300), trooper("tag", 600, 500, silhouette=8), enemy("b", 600, 700)])
    verdict = check(world, "a", "b")
    assert not verdict.sight and "tag" in verdict.reason


def test_prone_target_behind_a_five_mm_wall_is_hidden_from_a_standing_shooter():
    world = build_world(
        [trooper("a", 600, 300), enemy("prone", 600, 700, state=["prone"])],
        [wall(550, 685, 650, 685, 5, thickness=5)],
    )
    assert not check(world, "a", "prone").sight
    no_wall = build_world([trooper("a", 600, 300), enemy("prone", 600, 700, state=["prone"])])
    assert check(no_wall, "a", "prone").sight


def test_an_elevated_shooter_on_a_roof_sees_over_a_wall():
    roof = {"id": "block", "box": {"size": [100, 100, 150]}, "position": [600, 250, 0]}
    tall_wall = wall(300, 400, 900, 400, 60)
    on_roof = build_world([trooper("a", 600, 250, z="auto"), enemy("b", 600, 600)], [roof, tall_wall])
    on_table = build_world([trooper("a", 600, 250), enemy("b", 600, 600)], [tall_wall])
    assert on_roof.troopers.z[0] == 150 and check(on_roof, "a", "b").sight
    assert not check(on_table, "a", "b").sight


# --- LoF 3: what obstructs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("blocker", "hidden"),
    [
        ({}, True),
        ({"state": ["moving"]}, False),
        ({"marker": True}, False),
    ],
)
def test_moving_troopers_and_markers_never_block(blocker, hidden):
    world = build_world([trooper("a", 600, 300), trooper("big", 600, 500, silhouette=8, **blocker), enemy("b", 600, 700)])
    assert check(world, "a", "b").sight is not hidden


@pytest.mark.parametrize(("kind", "hidden"), [("zero_visibility", True), ("low_visibility", False),
                                              ("poor_visibility", False)])
def test_zero_visibility_blocks_low_and_poor_do_not(kind, hidden):
    smoke = {"id": "smoke", "cylinder": {"diameter": "2.5in", "height": 200}, "position": [600, 500], "kind": kind}
    world = build_world([trooper("a", 600, 300), enemy("b", 600, 700)], [smoke])
    assert check(world, "a", "b").sight is not hidden


def test_terrain_with_blocks_lof_false_does_not_block():
    hedge = {**wall(300, 500, 900, 500, 100), "blocks_lof": False}
    world = build_world([trooper("a", 600, 300), enemy("b", 600, 700)], [hedge])
    assert check(world, "a", "b").sight


def test_blockers_are_named_most_often_first():
    world = build_world(
        [trooper("a", 600, 300), enemy("b", 600, 700)],
        [wall(500, 500, 602, 500, 100, wall_id="near"), wall(598, 520, 700, 520, 100, wall_id="far")],
    )
    verdict = check(world, "a", "b")
    assert not verdict.sight and {name for name, _ in verdict.blockers} == {"near", "far"}


# --- LoF 1: arcs, engagement --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("x", "y", "in_arc"), [(900, 300, True), (300, 300, True), (900, 300 - 12.5, True),
                                                (900, 300 - 12.51, False)])
def test_target_exactly_ninety_degrees_off_the_facing_is_in_arc(x, y, in_arc):
    world = build_world([trooper("a", 600, 300, facing=90), enemy("b", x, y)])
    verdict = check(world, "a", "b")
    assert verdict.in_arc is in_arc and verdict.sight and verdict.lof is in_arc
    if not in_arc:
        assert verdict.reason.startswith("out of arc") and verdict.witness is not None


def test_arc_and_sight_are_independent_and_sight_is_mutual():
    world = build_world([trooper("a", 600, 300, facing=90), enemy("b", 600, 600, facing=90)])
    forward, backward = check(world, "a", "b"), check(world, "b", "a")
    assert forward.lof and forward.sight and backward.sight and not backward.in_arc and not backward.lof


def test_engaged_shooter_sees_only_its_base_contact_opponent():
    world = build_world(
        [trooper("a", 600, 300, state=["engaged"]), enemy("foe", 600, 325.3), enemy("other", 800, 500)]
    )
    assert check(world, "a", "foe").lof
    other = check(world, "a", "other")
    assert other.sight and not other.lof and "engaged" in other.reason


def test_moving_trooper_has_a_360_arc():
    world = build_world([trooper("a", 600, 300, facing=90, state=["moving"]), enemy("b", 600, 100)])
    assert check(world, "a", "b").lof


# --- LoF 5: valid targets ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("other", "can_target"),
    [(enemy("b", 600, 600), True), (trooper("b", 600, 600), False),
     ({"id": "b", "neutral": True, "silhouette": 2, "position": [600, 600], "facing": 0}, False)],
)
def test_friendly_and_neutral_troopers_are_never_valid_targets(other, can_target):
    verdict = check(build_world([trooper("a", 600, 300), other]), "a", "b")
    assert verdict.lof and verdict.can_target is can_target
    if not can_target:
        assert "never a valid target" in verdict.reason


def test_markers_can_be_targets():
    marker = {"id": "camo", "side": "red", "marker": True, "position": [600, 600]}
    assert check(build_world([trooper("a", 600, 300), marker]), "a", "camo").can_target


# --- evidence --------------------------------------------------------------------------------------------------------


def test_witness_is_a_three_mm_square_on_the_template_facing_the_eye():
    world = build_world([trooper("a", 600, 300), enemy("b", 700, 700)])
    witness = check(world, "a", "b").witness
    corners, eye = np.array(witness.corners), np.array(witness.eye)
    sides = np.linalg.norm(np.diff(np.vstack([corners, corners[:1]]), axis=0), axis=1)
    assert np.allclose(sides, 3.0)
    to_eye = eye[:2] - np.array([700, 700])
    assert np.allclose((corners[:, :2] - [700, 700]) @ to_eye, 0, atol=1e-6)  # the plane through B's centre
    assert np.linalg.norm(eye[:2] - [600, 300]) <= 12.5 + 1e-9 and 0 <= eye[2] <= 40
    assert np.all(np.abs(np.linalg.norm(corners[:, :2] - [700, 700], axis=1)) <= 12.5 + 1e-9)


def test_witness_segments_are_really_clear():
    """A wall 1 mm lower than both troopers, 100 mm in front of a: only segments from a's top to the top of b's
    template pass over it, and the search casts rays to tell which (its proofs settle only lower ones). Segments
    from the witness's eye to a 7 x 7 grid over its patch, cast by plain-numpy Moller-Trumbore against the blocking
    pieces' meshes (not the ray scene the search used), hit nothing."""
    world = build_world([trooper("a", 600, 300), enemy("b", 600, 700)], [wall(300, 400, 900, 400, 39)])
    witness = check(world, "a", "b").witness
    corners = np.array(witness.corners)
    u, w = np.meshgrid(np.linspace(0, 1, 7), np.linspace(0, 1, 7))
    points = (corners[0] + u.reshape(-1, 1) * (corners[1] - corners[0]) + w.reshape(-1, 1) * (corners[3] - corners[0]))
    eye = np.array(witness.eye)
    span = points - eye
    length = np.linalg.norm(span, axis=1)
    rays = NumpyRays([piece.mesh for piece in world.pieces if piece.blocks_lof])
    assert not rays.occluded(np.tile(eye, (len(points), 1)), span / length[:, None], length).any()


# --- the rulebook's illustration ------------------------------------------------------------------------------------


RULEBOOK = {
    ("fusilier", "grenzer"): True,
    ("fusilier", "alguacil"): True,
    ("fusilier", "iguana"): True,
    ("fusilier", "spektr"): False,
    ("fusilier", "reverend-healer"): False,
    ("daturazi", "alguacil-2"): False,
    ("daturazi", "iguana-2"): True,
}


def test_the_rulebook_illustration():
    world = World.from_scene(load_scene(REPO / "examples" / "rulebook_lof.yaml"))
    for (shooter, target), lof in RULEBOOK.items():
        assert check(world, shooter, target).lof is lof, (shooter, target)
    over_the_head = check(world, "fusilier", "iguana").witness
    assert min(c[2] for c in over_the_head.corners) > 40  # the Iguana is seen above the Alguacil's 40 mm
    assert "iguana" in check(world, "fusilier", "spektr").reason
    assert "building" in check(world, "fusilier", "reverend-healer").reason
    assert "iguana-2" in check(world, "daturazi", "alguacil-2").reason


def test_matrix_gives_every_ordered_pair_and_computes_sight_once_per_pair(monkeypatch):
    """One search runs, over each unordered pair once (LoF 4: sight holds both ways), and both orders of a pair
    get its one answer."""
    world = World.from_scene(load_scene(REPO / "examples" / "rulebook_lof.yaml"))
    searched = []
    run_search = search.run_search

    def counted(world, pairs, *args, **kwargs):
        searched.append(np.asarray(pairs).tolist())
        return run_search(world, pairs, *args, **kwargs)

    monkeypatch.setattr(search, "run_search", counted)
    result = matrix(world).to_dict()["pairs"]
    n = len(world.troopers)
    assert len(searched) == 1 and searched[0] == [list(p) for p in itertools.combinations(range(n), 2)]
    assert len(result) == n * (n - 1)
    by_pair = {(p["shooter"], p["target"]): p for p in result}
    assert all(by_pair[a, b]["sight"] == by_pair[b, a]["sight"] for a, b in by_pair)
    assert all(by_pair[pair]["lof"] is lof for pair, lof in RULEBOOK.items())


@pytest.mark.slow
def test_fast_search_equals_the_brute_force_reference_on_constructed_scenes():
    world = build_world(
        [trooper("a", 600, 300), enemy("b", 600, 600), enemy("c", 450, 560), trooper("d", 700, 420, silhouette=5)],
        slit_block(3.5) + [wall(420, 450, 520, 450, 39, wall_id="low")],
    )
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    fast, brute = sight(world, pairs), sight_brute_force(world, pairs)
    assert {k: s.seen for k, s in fast.items()} == {k: s.seen for k, s in brute.items()}
    assert any(s.seen for s in fast.values()) and not all(s.seen for s in fast.values())


SMOKE_AROUND_BOTH = [
    {"cylinder": {"diameter": 300, "height": 200}, "position": [530, 500]},
    {"prism": {"polygon": [[0, 0], [300, 0], [300, 100], [100, 100], [100, 300], [0, 300]], "height": 200},
     "position": [420, 450]},  # L-shaped, not convex: no proof applies, the search must agree
]
"""Zero Visibility zones that hold both troopers of `test_troopers_inside_one_zero_visibility_zone_...` whole."""


@pytest.mark.parametrize("zone", SMOKE_AROUND_BOTH)
def test_troopers_inside_one_zero_visibility_zone_do_not_see_each_other(zone):
    """LoF 3: Zero Visibility zones block into, through and out of themselves, whatever their shape."""
    smoke = {"id": "smoke", "kind": "zero_visibility", **zone}
    world = build_world([trooper("a", 500, 500), enemy("b", 560, 500)], [smoke])
    assert not check(world, "a", "b").sight


@pytest.mark.parametrize("zone", SMOKE_AROUND_BOTH)
def test_the_glimpse_too_sees_nothing_inside_one_zero_visibility_zone(zone):
    """The same rule in the heatmaps' quick glimpse, which proves nothing before casting: its segments never leave
    the zone, so no ray meets its surface, and they are blocked only for starting inside it."""
    smoke = {"id": "smoke", "kind": "zero_visibility", **zone}
    world = build_world([trooper("a", 500, 500), enemy("b", 560, 500)], [smoke])
    assert not glimpse(world, [(0, 1)]).any()


def test_zoc_query_and_check_agree_at_the_tolerance():
    world = build_world([trooper("a", 100, 500), enemy("b", 100 + 228.2 + 5e-7, 500)])
    from lofkit import zoc

    assert check(world, "a", "b").in_zoc and zoc(world, "a").inside_zoc_of_a == ("b",)


@pytest.mark.slow
def test_a_slit_off_the_line_between_them_is_found_by_the_eyes_beside_it():
    """LoF 2: any point of the volume may be the eye. Two blocks leave a 4 mm slit 6 to 10 mm to the side of the line
    between the bases: no key point (the front, the sides, the top centre) sees through it, an eye on the front rim
    beside it does. The search must look there (it fails when the dense eyes are left out or the template is
    turned edge-on to the eye), and agrees with the brute force."""
    world = build_world([trooper("a", 600, 300), enemy("b", 600, 600)], [
        {"id": "left", "box": {"size": [606, 260, 100]}, "position": [303, 450, 0]},
        {"id": "right", "box": {"size": [1219.2 - 610, 260, 100]}, "position": [(1219.2 + 610) / 2, 450, 0]}])
    fast, brute = sight(world, [(0, 1)])[0, 1], sight_brute_force(world, [(0, 1)])[0, 1]
    assert brute.seen and fast.seen
