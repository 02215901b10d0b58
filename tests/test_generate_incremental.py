"""The search's incremental evaluation equals a full recomputation, exactly, step after step; and the full one is
the scorecard's own (`scorecard.heatmap` and `scorecard.lanes` on the layout's scene file).

A small table (24 x 24 in, zones 6 in deep) with catalogue pieces, a coarse grid, random steps drawn from a
seeded generator (so every run takes the same steps).
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st

from lofkit.design.exposure import SightOptions
from lofkit.design.generate import SEARCH_OPTIONS, make_brief, standard_zones
from lofkit.design.incremental import MARGIN, Evaluator
from lofkit.design.moves import WALL_SCREEN, first_layout, propose, walled_layout
from lofkit.design.placing import Layout, Rules, changed_pieces, footprint_of, layout_data, placed, rule_breaks
from lofkit.design.scorecard import scorecard
from lofkit.design.targets import parse_targets
from lofkit.geometry.world import World
from lofkit.scene.catalog import BUNDLED
from lofkit.scene.loading import scene_from_data
from lofkit.sight.corridor import corridors_meet
from lofkit.units import INCH

SIDE = 24 * INCH
OPTIONS = SightOptions(cell_size=2 * INCH, viewer_spacing=3 * INCH, quick=True)
IN_RANGE = SightOptions(cell_size=2 * INCH, viewer_spacing=3 * INCH, max_range=8 * INCH, quick=True)


def small_brief(symmetry="none", pieces=(4, 8)):
    rules = Rules((SIDE, SIDE), standard_zones((SIDE, SIDE), 6 * INCH), pieces, playable=0.3, symmetry=symmetry)
    return make_brief(BUNDLED / "catalog.yaml", rules, parse_targets("safe_share>=0.05"), OPTIONS, OPTIONS)[0]


def same(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b)) and len(a) == len(b)


@pytest.mark.parametrize("symmetry, seed, options", [("none", 1, OPTIONS), ("180", 2, OPTIONS), ("none", 3, IN_RANGE)])
def test_incremental_updates_equal_full_recomputations(symmetry, seed, options):
    brief = small_brief(symmetry)
    evaluator = Evaluator.build(brief.rules, brief.kinds, options)
    rng = np.random.default_rng(seed)
    layout = first_layout(brief, rng)
    state = evaluator.full(layout)
    steps = recomputed = moved = 0
    assert not state.seen[0].all() and state.seen[0].any()  # some sight blocked, some not
    while steps < 12:
        after = propose(brief, layout, rng)
        change = changed_pieces(layout, after, brief.rules, brief.kinds)
        if not change or rule_breaks(after, brief.rules, brief.kinds, list(change.fresh)):
            continue
        updated = evaluator.update(state, after, change)
        full = evaluator.full(after)
        assert same(updated.z, full.z) and same(updated.fits, full.fits)
        assert same(updated.seen, full.seen), f"step {steps}: the incremental matrices differ"
        assert updated.recomputed < full.recomputed
        recomputed += updated.recomputed
        moved += not same(state.seen, updated.seen)
        layout, state, steps = after, updated, steps + 1
    assert moved >= 6  # most steps changed what is seen
    assert recomputed < steps * full.recomputed  # it did save work


@pytest.mark.parametrize("options", [OPTIONS, IN_RANGE], ids=["any range", "8in range"])
def test_the_full_evaluation_is_the_scorecards(options):
    """With the scorecard's own sight function (the search uses the wider `survey`), the same numbers; with a
    maximum range, pairs beyond it see nothing in both."""
    brief = small_brief()
    evaluator = Evaluator.build(brief.rules, brief.kinds, options, sight="options")
    layout = first_layout(brief, np.random.default_rng(5))
    state = evaluator.full(layout)
    world = World.from_scene(scene_from_data(layout_data(layout, brief.rules, brief.kinds), source="a.yaml"))
    card = scorecard(world, "a.yaml", options)
    for k, result in enumerate(card.heatmaps):
        assert np.array_equal(result.seen, state.seen[k])
        assert np.array_equal(result.z, state.z[0]) and np.array_equal(result.viewers.fits, state.fits[1 + k])
    assert np.array_equal(card.lanes.seen, state.seen[2])
    doc, coarse = card.to_dict(), evaluator.card(layout, state)
    assert doc["safe_share"] == round(coarse["safe_share"], 4)
    assert doc["exposed_share"] == {side: round(v, 4) for side, v in coarse["exposed_share"].items()}
    assert doc["zone_visible_share"] == {side: round(v, 4) for side, v in coarse["zone_visible_share"].items()}
    assert doc["longest_lane_mm"] == round(coarse["longest_lane_mm"], 3)
    assert doc["terrain_density"] == round(coarse["terrain_density"], 4)
    assert doc["symmetry"] == round(coarse["symmetry"], 4)


def test_a_world_of_placed_pieces_is_the_scene_files():
    brief = small_brief()
    evaluator = Evaluator.build(brief.rules, brief.kinds, OPTIONS)
    layout = Layout(((0, 100, 200, 3), (1, 300, 250, 7), (3, 150, 350, 13)))
    mine = evaluator.world(layout)
    theirs = World.from_scene(scene_from_data(layout_data(layout, brief.rules, brief.kinds)))
    for a, b in zip(mine.pieces, theirs.pieces):
        assert np.array_equal(a.mesh.vertices, b.mesh.vertices)


coordinate = st.floats(0, 600, allow_nan=False)


@given(st.lists(st.tuples(coordinate, coordinate, coordinate, coordinate), min_size=1, max_size=40),
       st.floats(100, 500), st.floats(100, 500), st.integers(0, 23), st.floats(1, 30))
def test_corridors_that_come_near_a_piece_are_never_missed(segments, x, y, turn, reach):
    """Against shapely's exact distance: every segment within `reach` of the footprint is flagged, and none much
    farther than the footprint's convex hull widened by `reach` (the hull's distance from the footprint measured on
    densified edges: shapely's plain Hausdorff distance looks at corners only)."""
    kinds = small_brief().kinds
    shape = shapely.affinity.translate(shapely.affinity.rotate(kinds[3].footprint, 15 * turn, origin=(0, 0)), x, y)
    ends = np.array(segments, dtype=float).reshape(-1, 2, 2)
    flagged = corridors_meet(ends[:, 0], ends[:, 1], [shape], reach)
    with np.errstate(divide="ignore"):  # a segment of length 0 is a point: shapely divides by its length
        distance = shapely.distance(shape, shapely.linestrings(ends))
    assert flagged[distance <= reach].all()
    assert not flagged[distance > reach * 1.1 + shapely.hausdorff_distance(shapely.convex_hull(shape), shape, densify=0.01) + 1].any()


def test_the_margin_covers_the_base_discs():
    assert MARGIN >= 1.0


def test_symmetric_first_layouts_keep_every_rule():
    for symmetry in ("none", "180", "mirror"):
        brief = small_brief(symmetry)
        layout = first_layout(brief, np.random.default_rng(11))
        assert not rule_breaks(layout, brief.rules, brief.kinds)
        assert len(placed(layout, brief.rules, brief.kinds)) >= 4


def test_the_search_counts_the_scorecards_cells_with_fewer_viewers_and_a_quicker_sight():
    exact = SightOptions()
    assert SEARCH_OPTIONS.quick and SEARCH_OPTIONS.cell_size == exact.cell_size
    assert SEARCH_OPTIONS.viewer_spacing > exact.viewer_spacing


@pytest.mark.parametrize("symmetry", ["none", "180"])
def test_walled_first_layouts_keep_every_rule_and_stand_between_the_zones(symmetry):
    brief = small_brief(symmetry, pieces=(4, 12))
    for seed in range(3):
        layout = walled_layout(brief, np.random.default_rng(seed))
        assert not rule_breaks(layout, brief.rules, brief.kinds)
        pieces = placed(layout, brief.rules, brief.kinds)
        walls = [p for p in pieces if brief.kinds[p[0]].screen >= WALL_SCREEN]
        assert len(walls) >= 2
        band = shapely.box(0, 6 * INCH, SIDE, SIDE - 6 * INCH)
        assert all(band.contains(footprint_of(p, brief.rules, brief.kinds)) for p in walls if p in layout.primaries)
