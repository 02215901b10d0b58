"""docs/rules.md sections Volumes, Distances and measurement, Zone of Control, and LoF point 1 (the arc)."""

import math

import numpy as np
import pytest

from lofkit import INCH, base_contact, base_distance, distance, in_arc, in_front_arc, in_zoc, range_band, zoc
from lofkit.rules import queries
from tests.helpers import build_world, trooper

EIGHT = 8 * INCH  # 203.2 mm
S2_RADIUS = 12.5


# --- Volumes and silhouettes -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("silhouette", "base", "height"),
    [(1, 25, 25), (2, 25, 40), (3, 40, 32), (4, 55, 32), (5, 40, 45), (6, 40, 55), (7, 55, 67), (8, 70, 70)],
)
def test_silhouette_table_gives_volume_cylinders(silhouette, base, height):
    world = build_world([trooper("a", 500, 500, silhouette=silhouette)])
    assert world.troopers.radius[0] * 2 == base and world.troopers.height[0] == height


def test_prone_is_s0_same_base_three_mm():
    world = build_world([trooper("a", 500, 500, silhouette=7, state=["prone"])])
    assert (world.troopers.radius[0] * 2, world.troopers.height[0]) == (55, 3)


def test_overrides_and_marker_defaults():
    world = build_world(
        [
            trooper("odd", 500, 500, silhouette=3, base=50),
            trooper("custom", 600, 500, silhouette=None, base=32, height=44),
            {"id": "camo", "side": "red", "marker": True, "position": [700, 500]},
        ]
    )
    assert (world.troopers.radius * 2).tolist() == [50, 32, 25]
    assert world.troopers.height.tolist() == [32, 44, 40]


# --- Distances ---------------------------------------------------------------------------------------------------


def test_distance_is_base_to_base_with_elevation():
    """sqrt(max(0, d_xy - r_a - r_b)^2 + dz^2): a 75 mm gap and a 100 mm climb are 125 mm apart."""
    world = build_world([trooper("a", 500, 500), trooper("b", 600, 500, z=100)])
    assert math.isclose(distance(world, "a", "b").distance_mm, 125.0)


def test_overlapping_footprints_at_different_heights_measure_the_climb():
    world = build_world([trooper("a", 500, 500), trooper("b", 510, 500, z=60)])
    assert math.isclose(distance(world, "a", "b").distance_mm, 60.0)


def test_eight_inches_is_reported_in_inches():
    world = build_world([trooper("a", 500, 500), trooper("b", 500 + 25 + EIGHT, 500)])
    result = distance(world, "a", "b").to_dict()
    assert math.isclose(result["distance_in"], 8.0) and result["range_band"] == "0-8in"


@pytest.mark.parametrize(("gap", "contact"), [(0.0, True), (0.5, True), (0.51, False), (-3.0, True)])
def test_base_contact_within_tolerance(gap, contact):
    world = build_world([trooper("a", 500, 500), trooper("b", 525 + gap, 500)])
    assert distance(world, "a", "b").base_contact is contact


def test_base_contact_tolerance_is_a_scene_setting():
    world = build_world([trooper("a", 500, 500), trooper("b", 525.9, 500)], base_contact_tolerance="1mm")
    assert distance(world, "a", "b").base_contact


@pytest.mark.parametrize(
    ("mm", "band"),
    [
        (0.0, "0-8in"),
        (EIGHT, "0-8in"),
        (EIGHT + 0.01, "8-16in"),
        (2 * EIGHT, "8-16in"),
        (2 * EIGHT + 0.01, "16-24in"),
        (96 * INCH, "88-96in"),
        (96 * INCH + 0.01, "over 96in"),
    ],
)
def test_range_band_boundary_belongs_to_the_shorter_band(mm, band):
    assert str(range_band(mm)[1]) == band


def test_measurements_are_vectorised():
    world = build_world([trooper(f"t{i}", 100 + 60 * i, 500) for i in range(5)])
    a, b = np.array([0, 0, 1, 4]), np.array([1, 4, 3, 0])
    d = base_distance(world.troopers, a, b)
    assert np.allclose(d, [35, 215, 95, 215]) and d.shape == (4,)
    assert base_contact(world.troopers, a, b, 0.5).tolist() == [False] * 4


# --- Arc ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "y", "inside"),
    [
        (500, 700, True),  # straight ahead
        (700, 500, True),  # exactly 90 degrees off the facing (right)
        (300, 500, True),  # exactly 90 degrees off the facing (left)
        (700, 500 - S2_RADIUS, True),  # behind, but the base touches the plane: partial counts, closed half-space
        (700, 500 - S2_RADIUS - 0.01, False),  # 0.01 mm further back
        (500, 300, False),  # straight behind
    ],
)
def test_front_arc_is_a_closed_half_space(x, y, inside):
    world = build_world([trooper("a", 500, 500, facing=90), trooper("b", x, y)])
    assert bool(in_front_arc(world.troopers, 0, 1)) is inside


def test_arc_is_360_when_moving_or_engaged():
    world = build_world(
        [
            trooper("mover", 500, 500, facing=90, state=["moving"]),
            trooper("fighter", 800, 500, facing=90, state=["engaged"]),
            trooper("still", 600, 500, facing=90),
            trooper("behind", 650, 300),
        ]
    )
    assert in_arc(world.troopers, [0, 1, 2], [3, 3, 3]).tolist() == [True, True, False]


def test_arc_follows_facing_towards():
    world = build_world([trooper("a", 500, 500, facing=None, facing_towards=[500, 400]), trooper("b", 500, 300)])
    assert math.isclose(world.troopers.facing[0], -90) and in_front_arc(world.troopers, 0, 1)


# --- Zone of Control ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("extra", "inside"), [(0.0, True), (0.01, False), (-5.0, True)])
def test_zoc_horizontal_edge_at_exactly_eight_inches(extra, inside):
    """Inside when any part of the base disc is inside radius r_a + 8": edge-to-edge gap of exactly 8" counts."""
    world = build_world([trooper("a", 300, 500), trooper("b", 300 + 2 * S2_RADIUS + EIGHT + extra, 500)])
    assert bool(in_zoc(world.troopers, 0, 1)) is inside
    assert zoc(world, "a").inside_zoc_of_a == (("b",) if inside else ())


@pytest.mark.parametrize("silhouette", [1, 8])
@pytest.mark.parametrize(("rise", "inside"), [(203.2, True), (203.4, False), (-203.2, True), (-203.4, False)])
def test_zoc_reaches_eight_inches_above_and_below_the_base(silhouette, rise, inside):
    """"drawn horizontally and vertically: an 8-inch-high cylinder" from the base: a base 203.2 mm (8") above or below
    the owner's is inside, 203.4 mm is not, for a 25 mm tall S1 and a 70 mm tall S8 alike."""
    world = build_world([trooper("owner", 500, 500, z=300, silhouette=silhouette, side="red"),
                         trooper("b", 500, 500, z=300 + rise)])
    assert bool(in_zoc(world.troopers, 0, 1)) is inside
    assert zoc(world, "owner").inside_zoc_of_a == (("b",) if inside else ())


def test_a_trooper_on_a_roof_is_outside_a_tall_troopers_zoc():
    """The rulebook's ZoC ignores the silhouette: a trooper on a roof 230 mm up, 133 mm from an S8's base edge, is
    outside the S8's ZoC (8" is 203.2 mm), and the S8 is outside its."""
    s8_radius = 35
    world = build_world([trooper("s8", 500, 500, silhouette=8, side="red"),
                         trooper("b", 500 + s8_radius + 133 + S2_RADIUS, 500, z=230)])
    assert zoc(world, "s8").inside_zoc_of_a == () and zoc(world, "b").inside_zoc_of_a == ()


def test_zoc_both_ways_is_the_same_height_whatever_the_silhouettes():
    """Both cylinders run 8" above and below their own base: b 8" - 1 mm above a TAG is in the TAG's ZoC and the TAG
    is in b's, though the TAG is 67 mm tall and b 40 mm."""
    world = build_world([trooper("tag", 500, 500, silhouette=7, side="red"), trooper("b", 500, 500, z=EIGHT - 1)])
    relation = zoc(world, "tag")
    assert relation.inside_zoc_of_a == ("b",) and relation.a_inside_zoc_of == ("b",)


def test_prone_trooper_zoc_is_the_same_cylinder():
    """Prone changes the silhouette (S0), not the ZoC: 8" up from the base is still inside, 8" and 1 mm is not."""
    for z, inside in [(EIGHT, True), (EIGHT + 1, False)]:
        world = build_world([trooper("a", 500, 500, state=["prone"]), trooper("b", 500, 500, z=z)])
        assert bool(in_zoc(world.troopers, 0, 1)) is inside


def test_zoc_query_uses_the_broad_phase_and_agrees_with_brute_force(monkeypatch):
    """60 troopers of mixed bases, some raised: `zoc` tests only the few the broad phase finds near each owner,
    and both its lists equal the rule applied to every pair in plain Python: b is inside a's ZoC when |z_b - z_a|
    <= 8" and the centres lie at most r_a + 8" + r_b apart horizontally."""
    rng = np.random.default_rng(7)
    bases = {1: 25, 3: 40, 4: 55, 8: 70}  # silhouette -> base diameter, mm
    placed = [trooper(f"t{i}", float(x), float(y), z=float(rng.choice([0, rng.uniform(0, 400)])),
                      silhouette=int(rng.choice(list(bases))))
              for i, (x, y) in enumerate(rng.uniform(30, 1190, (60, 2)))]
    world = build_world(placed)

    def inside(owner: dict, other: dict) -> bool:
        (xa, ya), (xb, yb) = owner["position"], other["position"]
        reach = bases[owner["silhouette"]] / 2 + EIGHT + bases[other["silhouette"]] / 2
        return owner is not other and abs(other["z"] - owner["z"]) <= EIGHT and math.hypot(xb - xa, yb - ya) <= reach

    tested = []
    measured = in_zoc

    def counted(volumes, owner, other):
        tested.append(np.size(other) * np.size(owner))
        return measured(volumes, owner, other)

    monkeypatch.setattr(queries, "in_zoc", counted)
    found = 0
    for a in placed:
        result = zoc(world, a["id"])
        assert result.inside_zoc_of_a == tuple(b["id"] for b in placed if inside(a, b)), a["id"]
        assert result.a_inside_zoc_of == tuple(b["id"] for b in placed if inside(b, a)), a["id"]
        found += len(result.inside_zoc_of_a)
    assert 60 < found < 60 * 59 / 4  # inside and outside both common
    assert len(tested) == 120 and sum(tested) < 120 * 59 / 3  # the broad phase spares most pairs
