"""`lofkit generate`'s placement rules, each at its edge, symmetry, rotations, and reading targets and ranges.

Rules are judged on footprints seen from above (lofkit/design/placing.py). The pieces here are boxes whose sizes are
whole numbers of grid steps (1/20 inch), so that "exactly at the limit" is a position the grid can hold; the limits
are then set from the measured numbers, and 0.1 mm beyond them must fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import shapely
import shapely.affinity
import trimesh
import yaml

from lofkit.design.generate import parse_pieces, standard_zones
from lofkit.design.placing import (
    POSITION_STEP,
    Kind,
    Layout,
    Rules,
    catalogue_kinds,
    footprints,
    layout_data,
    placed,
    playable_shares,
    rule_breaks,
    screen_share,
    snap_turn,
)
from lofkit.design.targets import parse_targets, score
from lofkit.errors import LofkitError
from lofkit.geometry.flat import outline
from lofkit.scene.catalog import BUNDLED, load_catalog
from lofkit.scene.loading import scene_from_data
from lofkit.units import INCH

W = 48 * INCH
ZONES = standard_zones((W, W))
STEP = POSITION_STEP


def box_kind(name: str, steps_x: int, steps_y: int, height: float) -> Kind:
    w, d = steps_x * STEP, steps_y * STEP
    return Kind(name, Path(f"{name}.stl"), shapely.box(-w / 2, -d / 2, w / 2, d / 2), height, 0)


KINDS = (box_kind("block", 100, 40, 60.0), box_kind("low", 100, 40, 20.0))
"""A tall block 127 x 50.8 mm (60 mm high) and a low one (20 mm) of the same footprint."""


def rules(**changes) -> Rules:
    settings = {"pieces": (1, 30), "edge_gap": 12.7, "tall_gap": INCH, "tall": 40.0, "playable": 0.0}
    return Rules((W, W), ZONES, **{**settings, **changes})


def breaks(layout, **changes) -> list[str]:
    return rule_breaks(layout, rules(**changes), KINDS)


def test_the_grid_divides_a_48_inch_table_into_whole_steps():
    assert rules().grid == (960, 960)
    assert rules().step == pytest.approx((STEP, STEP))


# --- the table edge ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ix", [60, 480, 900])
def test_a_piece_exactly_at_the_edge_gap_passes_and_closer_fails(ix):
    piece = (0, ix, 480, 0)
    left = footprints([piece], rules(), KINDS)[0].bounds[0]
    right = W - footprints([piece], rules(), KINDS)[0].bounds[2]
    gap = min(left, right)
    assert not breaks(Layout((piece,)), edge_gap=gap)
    found = breaks(Layout((piece,)), edge_gap=gap + 0.1)
    assert len(found) == 1 and "table edge" in found[0]


def test_every_edge_counts():
    for piece in [(0, 480, 25, 0), (0, 480, 935, 0), (0, 55, 480, 0), (0, 905, 480, 0)]:
        assert any("table edge" in b for b in breaks(Layout((piece,)), edge_gap=INCH))


# --- overlaps and gaps -------------------------------------------------------------------------------------------


def test_overlapping_footprints_are_refused_and_touching_ones_pass():
    touching = Layout(((1, 300, 480, 0), (1, 400, 480, 0)))  # 100 steps apart: the ends touch
    assert shapely.distance(*footprints(placed(touching, rules(), KINDS), rules(), KINDS)) < 1e-9
    assert not breaks(touching)
    overlapping = Layout(((1, 300, 480, 0), (1, 399, 480, 0)))
    assert any("overlap" in b for b in breaks(overlapping))
    inside = Layout(((1, 300, 480, 0), (1, 300, 480, 6)))  # a cross
    assert any("overlap" in b for b in breaks(inside))


def test_two_tall_pieces_exactly_at_the_gap_pass_and_closer_fail():
    layout = Layout(((0, 300, 480, 0), (0, 420, 480, 0)))  # 20 steps = 25.4 mm between the ends
    distance = shapely.distance(*footprints(layout.primaries, rules(), KINDS))
    assert distance == pytest.approx(INCH)
    assert not breaks(layout, tall_gap=distance)
    found = breaks(layout, tall_gap=distance + 0.1)
    assert len(found) == 1 and "tall" in found[0]


def test_the_gap_applies_only_when_both_pieces_are_tall():
    near = Layout(((0, 300, 480, 0), (1, 402, 480, 0)))  # 2.54 mm apart, one of them low
    assert not breaks(near)
    assert breaks(Layout(((0, 300, 480, 0), (0, 402, 480, 0))))
    assert not breaks(Layout(((0, 300, 480, 0), (0, 402, 480, 0))), tall=61.0)  # neither counts as tall


def test_the_piece_count_is_a_rule():
    layout = Layout(((0, 300, 480, 0), (0, 600, 480, 0)))
    assert not breaks(layout, pieces=(2, 2))
    assert any("pieces" in b for b in breaks(layout, pieces=(3, 5)))
    assert any("pieces" in b for b in breaks(layout, pieces=(1, 1)))


# --- deployment zones stay playable ------------------------------------------------------------------------------


def test_a_zone_exactly_at_its_playable_share_passes_and_below_fails():
    layout = Layout(((0, 200, 100, 0), (0, 500, 120, 3), (1, 800, 860, 0)))
    shares = playable_shares(footprints(layout.primaries, rules(), KINDS), rules())
    assert 0 < min(shares) < 1
    worst = min(shares)
    assert not breaks(layout, playable=worst)
    found = breaks(layout, playable=worst + 0.01)
    assert found and all("zone keeps" in b for b in found)


def test_a_base_touching_a_footprint_still_stands_there():
    """A spot counts when the base's disc is clear of every footprint; touching is clear."""
    r = rules()
    spots = [np.array([[400.0, 100.0]])]
    centre_x = 400.0 + 12.5 + 127 / 2  # the block's end exactly touches the base
    kinds = (Kind("block", Path("b.stl"), shapely.box(-63.5, -25.4, 63.5, 25.4), 60.0, 0),)
    shape = shapely.affinity.translate(kinds[0].footprint, centre_x, 100.0)
    assert playable_shares(np.array([shape]), r, spots) == [1.0]
    assert playable_shares(np.array([shapely.affinity.translate(shape, -0.1, 0)]), r, spots) == [0.0]


# --- rotations ---------------------------------------------------------------------------------------------------


def test_a_screen_is_the_share_of_level_sight_lines_a_piece_stops():
    """Lines run at 12 heights evenly inside 0..40 mm: a wall 20 mm high stops the 6 below it, one 50 mm high all;
    a wall 100 mm long with a 20 mm gap in the middle lets through the lines at 10 of its 48 spots (laid every 100/48
    mm from 100/96 mm in: those at x = -9.4 .. 9.4)."""
    low, high = trimesh.creation.box((100, 10, 20)), trimesh.creation.box((100, 10, 50))
    low.apply_translation((0, 0, 10))
    high.apply_translation((0, 0, 25))
    assert screen_share(low, outline(low)) == 0.5
    assert screen_share(high, outline(high)) == 1.0
    left, right = trimesh.creation.box((40, 10, 50)), trimesh.creation.box((40, 10, 50))
    left.apply_translation((-30, 0, 25))
    right.apply_translation((30, 0, 25))
    gapped = trimesh.util.concatenate([left, right])
    assert screen_share(gapped, outline(gapped)) == 38 / 48


def test_the_catalogue_knows_its_screens():
    screens = {k.name: k.screen for k in catalogue_kinds(str(BUNDLED / "catalog.yaml"))}
    assert screens["container"] == 1.0
    assert screens["walkway"] < 0.1 and screens["fence"] < 0.5  # open beneath; thin rails


def test_rotations_snap_to_15_degrees():
    assert [snap_turn(a) for a in (0, 7.4, 7.6, 37, 90, -15, 352.6, 359.9)] == [0, 0, 1, 2, 6, 23, 0, 0]


def test_scene_data_turns_pieces_in_steps_of_15_degrees():
    kinds = catalogue_kinds(str(BUNDLED / "catalog.yaml"))
    layout = Layout(tuple((k % len(kinds), 100 + 60 * k, 300 + 20 * k, k) for k in range(12)))
    data = layout_data(layout, rules(), kinds)
    assert [t["rotation"] for t in data["terrain"]] == [15 * k for k in range(12)]
    scene_from_data(data)  # a valid scene


# --- symmetry ----------------------------------------------------------------------------------------------------


def _same_shapes(shapes, images) -> bool:
    """Every image matches some shape within 1e-6 mm (Hausdorff)."""
    return all(min(shapely.hausdorff_distance(image, s) for s in shapes) <= 1e-6 for image in images)


@pytest.mark.parametrize("symmetry", ["180", "mirror"])
def test_symmetric_layouts_hold_each_piece_and_its_image(symmetry):
    kinds = catalogue_kinds(str(BUNDLED / "catalog.yaml"))
    usable = [k for k, kind in enumerate(kinds) if symmetry == "180" or kind.mirror_offset is not None]
    r = rules(symmetry=symmetry)
    rng = np.random.default_rng(3)
    primaries = tuple((usable[int(rng.integers(len(usable)))], int(rng.integers(100, 860)),
                       int(rng.integers(100, 860)), int(rng.integers(24))) for _ in range(8))
    shapes = footprints(placed(Layout(primaries), r, kinds), r, kinds)
    assert len(shapes) == 16
    if symmetry == "180":
        images = [shapely.affinity.rotate(s, 180, origin=(W / 2, W / 2)) for s in shapes]
    else:
        images = [shapely.affinity.scale(s, 1, -1, origin=(0, W / 2)) for s in shapes]
    assert _same_shapes(shapes, images)


def test_mirror_symmetry_needs_footprints_with_a_mirror_line():
    kinds = catalogue_kinds(str(BUNDLED / "catalog.yaml"))
    by_name = {k.name: k for k in kinds}
    assert by_name["container"].mirror_offset == 0
    assert by_name["l_wall"].mirror_offset is None  # an L has no mirror line through its centre


# --- targets and ranges ------------------------------------------------------------------------------------------


def test_targets_are_read_with_weights():
    targets = parse_targets("zone_visible_share<=0.7, safe_share>=0.05", "safe_share=2")
    assert [(t.key, t.op, t.value, t.weight) for t in targets] == [("zone_visible_share", "<=", 0.7, 1.0),
                                                                   ("safe_share", ">=", 0.05, 2.0)]
    assert parse_targets("longest_lane_mm<=40in")[0].value == pytest.approx(40 * INCH)


@pytest.mark.parametrize("text, message", [
    ("visibility<=0.7", "unknown measure 'visibility'; the known ones are zone_visible_share, exposed_share"),
    ("safe_share=0.05", "use <= or >="),
    ("safe_share>=lots", "'lots' is not a number"),
    ("safe_share>=0.05,,", "write a target as KEY<=VALUE"),
    ("", "give at least one target"),
    ("safe_share>=0.1,safe_share>=0.2", "safe_share>= given twice"),
])
def test_bad_targets_say_what_to_write(text, message):
    with pytest.raises(LofkitError, match=None) as caught:
        parse_targets(text)
    assert message in str(caught.value) and "--target" in str(caught.value)


def test_bad_weights_name_the_option():
    with pytest.raises(LofkitError, match="--weights 'lanes=2': no target on 'lanes'"):
        parse_targets("safe_share>=0.05", "lanes=2")
    with pytest.raises(LofkitError, match="positive weight"):
        parse_targets("safe_share>=0.05", "safe_share=-1")


def test_a_per_zone_target_holds_for_the_worst_zone():
    target = parse_targets("zone_visible_share<=0.7")
    card = {"zone_visible_share": {"blue": 0.6, "red": 0.75}}
    assert target[0].worst(card) == 0.75
    assert target[0].shortfall(card) == pytest.approx(0.05)
    assert score(target, {"zone_visible_share": {"blue": 0.5, "red": 0.6}}) == 0.0


def test_the_score_is_zero_only_with_room_to_spare():
    targets = parse_targets("safe_share>=0.05")
    assert score(targets, {"safe_share": 0.2}) == 0.0
    assert 0 < score(targets, {"safe_share": 0.05}) <= 1e-3  # met, by nothing: the tie-break
    assert score(targets, {"safe_share": 0.0}) == pytest.approx(0.05 + 1e-3)


@pytest.mark.parametrize("text, expected", [("18..30", (18, 30)), ("18-30", (18, 30)), (" 6 .. 8 ", (6, 8)),
                                            ("20", (20, 20))])
def test_piece_ranges(text, expected):
    assert parse_pieces(text) == expected


@pytest.mark.parametrize("text", ["30..18", "0..5", "x..5", "18..", "-3..4", "5.5..8"])
def test_bad_piece_ranges_say_what_to_write(text):
    with pytest.raises(LofkitError, match="--pieces"):
        parse_pieces(text)


def test_symmetric_layouts_need_an_even_count_in_the_range():
    with pytest.raises(LofkitError, match="pairs"):
        parse_pieces("19", "180")
    assert parse_pieces("19..20", "180") == (19, 20)


@pytest.mark.parametrize(("entry", "says"), [
    ({"footprint": [-150, 60]}, "piece 1: footprint [-150, 60]: give [x, y], two positive numbers of mm"),
    ({"height": float("nan")}, "piece 1: height nan: give a positive number of mm"),
    ({"height": "tall"}, "piece 1: height 'tall': give a positive number of mm"),
    ({"colour": "red"}, "piece 1: unknown key 'colour'"),
])
def test_a_bad_catalogue_entry_is_named_by_its_key(tmp_path, entry, says):
    good = {"name": "crate", "file": str(BUNDLED / "container.stl"), "footprint": [150, 60], "height": 65}
    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump([{**good, **entry}]), encoding="utf-8")
    with pytest.raises(LofkitError, match=re.escape(says)):
        load_catalog(path)


def test_a_catalogue_naming_a_piece_twice_is_refused(tmp_path):
    good = {"name": "crate", "file": str(BUNDLED / "container.stl"), "footprint": [150, 60], "height": 65}
    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump([good, good]), encoding="utf-8")
    with pytest.raises(LofkitError, match="piece 2: the name 'crate' is used twice"):
        load_catalog(path)
