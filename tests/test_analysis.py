"""Designer analyses (issue 7): heatmap, lanes, scorecard and their CLI commands, on constructed tables whose
answers are known by hand.

The standard table: 300 mm wide, cells of 50 mm (6 columns at x = 25, 75, ..., 275), S2 probes and viewers
(25 mm base, 40 mm tall). Blue's zone is the strip y in [0, 50]: with a viewer spacing of 50 mm its grid is 6 x 1,
so blue has 6 viewers at y = 25, x = 25, 75, ..., 275 (red's strip along the far edge likewise). `counts[row, col]`
has row 0 at y = 25 (rows run from the first player's edge, as `cell_centres` lays them).
"""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from lofkit import LofkitError, World, scene_from_data
from lofkit.design.executors import WORKER_MODULES, open_executor
from lofkit.design.exposure import SightOptions, viewer_batches
from lofkit.design.layout import cell_centres, place, terrain_only, zone_points
from lofkit.design.scorecard import heatmap, lanes, scorecard, symmetry, terrain_density
from lofkit.rules.lof import check
from tests.helpers import scene_data, wall, write_scene
from tests.worker_probe import parent_and_modules

WIDTH = 300.0
OPTIONS = SightOptions(cell_size=50, viewer_spacing=50)
CLI_OPTIONS = ("--cell-size", "50mm", "--viewer-spacing", "50mm", "--executor", "serial")
VIEWERS = 6  # blue's zone 300 x 50 mm with spacing 50: round(300 / 50) x round(50 / 50) viewers


def table(terrain=(), depth=300.0, zones=("blue", "red")) -> dict:
    """A 300 mm wide table: blue's zone along y = 0, red's along y = depth, each 50 mm deep."""
    strips = {"blue": [[0, 0], [WIDTH, 0], [WIDTH, 50], [0, 50]],
              "red": [[0, depth - 50], [WIDTH, depth - 50], [WIDTH, depth], [0, depth]]}
    return scene_data(terrain=terrain, table={"width": WIDTH, "depth": depth},
                      deployment_zones=[{"side": side, "polygon": strips[side]} for side in zones])


def world_of(data: dict) -> World:
    return World.from_scene(scene_from_data(data))


def box(name, centre, size, **fields) -> dict:
    return {"id": name, "box": {"size": list(size)}, "position": [*centre, 0], **fields}


TALL_WALL = wall(0, 150, WIDTH, 150, 120)  # across the table, y in [145, 155], 120 mm tall: taller than any S2 (40 mm)


# --- 1. an empty table is fully exposed ------------------------------------------------------------------------------


def test_an_empty_table_is_fully_exposed():
    result = heatmap(world_of(table()), "blue", OPTIONS)
    # by hand: 6 x 6 cells, every probe fits on the bare table, nothing blocks, so each of the 6 viewers sees each
    assert result.counts.shape == (6, 6) and (result.counts == VIEWERS).all()
    assert (result.cells, result.exposed_cells, result.exposed_share) == (36, 36, 1.0)
    d = result.to_dict()
    assert d["viewers"] == VIEWERS and d["grid"] == [6, 6] and d["max_count"] == 6 and d["mean_count"] == 6.0
    assert np.allclose(result.viewers.centres, [[x, 25] for x in (25, 75, 125, 175, 225, 275)])
    assert np.allclose(result.z, 0)


# --- 2. a cell boxed in by walls taller than the viewers -------------------------------------------------------------


def test_a_cell_boxed_in_by_tall_walls_is_seen_by_no_viewer():
    # four 120 mm walls, 4 mm thick, around the cell centred (175, 175): the inner room is x, y in [149, 201], the
    # probe's base (162.5..187.5) stands inside it clear of the walls, and the outer faces (145 and 205) stay clear
    # of the neighbouring cells' bases (which end at 137.5 and start at 212.5)
    ring = [
        {"id": "south", "wall": {"from": [145, 147], "to": [205, 147], "thickness": 4, "height": 120}},
        {"id": "north", "wall": {"from": [145, 203], "to": [205, 203], "thickness": 4, "height": 120}},
        {"id": "west", "wall": {"from": [147, 145], "to": [147, 205], "thickness": 4, "height": 120}},
        {"id": "east", "wall": {"from": [203, 145], "to": [203, 205], "thickness": 4, "height": 120}},
    ]
    result = heatmap(world_of(table(ring)), "blue", OPTIONS)
    assert (result.counts >= 0).all(), "every probe fits, the boxed-in one too (on the table, clear of the walls)"
    # by hand: the probe and every viewer lie wholly below z = 40 on either side of a closed ring of walls 120 mm
    # tall, so every segment between them crosses a wall below its top
    assert result.counts[3, 3] == 0
    # rows y = 25 and y = 75: segments between them and the viewers stay at y <= 87.5, far from the ring (y >= 145)
    assert (result.counts[:2] == VIEWERS).all()
    assert result.exposed_cells == 35


# --- 3. a wall across the middle hides exactly the cells behind it ---------------------------------------------------


def test_a_full_width_wall_taller_than_anything_hides_every_cell_behind_it():
    result = heatmap(world_of(table([TALL_WALL])), "blue", OPTIONS)
    # by hand: probes and viewers are at most 40 mm tall and the 120 mm wall spans the full width at y in [145, 155]:
    # rows y = 25, 75, 125 (in front) see all 6 viewers, rows y = 175, 225, 275 (behind) none
    assert (result.counts[:3] == VIEWERS).all() and (result.counts[3:] == 0).all()
    assert (result.cells, result.exposed_cells, result.exposed_share) == (36, 18, 0.5)


def test_a_tower_behind_the_wall_exposes_the_probes_on_its_roof():
    # table 300 x 400; the tall wall at y = 150; a tower x in [100, 200], y in [200, 250], 150 mm tall (taller than
    # the wall), whose roof holds exactly the cells (125, 225) and (175, 225)
    tower = box("tower", (150, 225), (100, 50, 150))
    result = heatmap(world_of(table([TALL_WALL, tower], depth=400)), "blue", OPTIONS)
    expected = np.zeros((8, 6), dtype=int)
    expected[:3] = VIEWERS  # in front of the wall
    # Roof probes (template through the base centre, so its points have y in [212.5, 237.5], z up to 190): from a
    # viewer's top centre eye (y = 25, z = 40) a line to a template point at (y_t, z_t) is at height
    # 40 + (z_t - 40) * (200 - 25) / (y_t - 25) over the tower's edge y = 200, which beats 150 when z_t > 173.6 for
    # every y_t <= 237.5, and at 40 + (z_t - 40) * 130 / (y_t - 25) over the wall's far face y = 155, which beats 120
    # when z_t > 170.8. So a band 16 mm tall across the whole template is seen by every viewer.
    expected[4, 2:4] = VIEWERS
    # every other cell behind the wall, on the ground, stays hidden: everything there is below z = 40 < 120
    assert np.array_equal(result.counts, expected)
    assert np.allclose(result.z.reshape(8, 6)[4, 2:4], 150) and np.allclose(np.delete(result.z, [26, 27]), 0)


def test_a_wall_lower_than_the_probe_does_not_hide_it():
    # a 20 mm wall across the table: the top eye of a viewer (z = 40) sees the 3 x 3 mm square at the top of every
    # probe (z in [37, 40]) along segments that never go below z = 37 > 20, so every cell is seen by all 6 viewers
    result = heatmap(world_of(table([wall(0, 150, WIDTH, 150, 20)], depth=400)), "blue", OPTIONS)
    assert (result.counts == VIEWERS).all() and result.exposed_share == 1.0


def test_max_range_counts_only_viewers_within_it_base_to_base_boundary_included():
    result = heatmap(world_of(table()), "blue", SightOptions(cell_size=50, viewer_spacing=50, max_range=75))
    # by hand: within 75 mm base to base means centres at most 100 mm apart; viewers sit at y = 25
    # row y = 25: |dx| <= 100 -> dx in {0, +-50, +-100}; row y = 75 (dy = 50): |dx| <= 86.6 -> {0, +-50};
    # row y = 125 (dy = 100): only dx = 0, exactly 75 mm base to base, which counts; rows beyond: none
    expected = np.array([[3, 4, 5, 5, 4, 3], [2, 3, 3, 3, 3, 2], [1, 1, 1, 1, 1, 1], [0] * 6, [0] * 6, [0] * 6])
    assert np.array_equal(result.counts, expected)


# --- 4. the heatmap is the same rule as `lofkit check` ---------------------------------------------------------------

MIXED = [
    {"id": "half-wall", "wall": {"from": [0, 150], "to": [150, 150], "thickness": 10, "height": 60}},
    box("tower", (150, 225), (100, 50, 150)),
    box("crate", (240, 110), (40, 40, 30), rotation=30),
    {"id": "pillar", "cylinder": {"diameter": 30, "height": 100}, "position": [60, 300, 0]},
]
"""A 300 x 400 table with partial cover: a half-width wall, a tower with a roof, a turned crate and a pillar."""


def test_heatmap_counts_equal_the_pairwise_check():
    data = table(MIXED, depth=400)
    result = heatmap(world_of(data), "blue", OPTIONS)
    counts = result.counts.ravel()
    partly = np.flatnonzero((counts > 0) & (counts < VIEWERS))  # cells some viewers see and others do not
    viewer_ids, cell_ids = np.meshgrid(np.arange(VIEWERS), partly, indexing="ij")
    candidates = np.column_stack([viewer_ids.ravel(), cell_ids.ravel()])
    seen = result.seen[candidates[:, 0], candidates[:, 1]]
    assert seen.any() and not seen.all(), "the table must give both answers among partly seen cells"
    rng = np.random.default_rng(7)
    chosen = np.concatenate([rng.choice(candidates[seen], 4, replace=False),
                             rng.choice(candidates[~seen], 4, replace=False)])
    for v, c in chosen:
        (vx, vy), (cx, cy) = result.viewers.centres[v], result.centres[c]
        pair = [
            {"id": "viewer", "side": "blue", "silhouette": 2, "position": [vx, vy], "z": float(result.viewers.z[v]),
             "facing_towards": "probe"},
            {"id": "probe", "side": "red", "silhouette": 2, "position": [cx, cy], "z": float(result.z[c]),
             "facing_towards": "viewer"},
        ]
        verdict = check(world_of({**data, "troopers": pair}), "viewer", "probe")
        assert verdict.sight == verdict.lof == bool(result.seen[v, c]), (v, c, verdict.reason)


# --- 5. --quick against the exact search ----------------------------------------------------------------------------


def test_quick_is_close_to_exact():
    world = world_of(table(MIXED, depth=400))
    exact = heatmap(world, "blue", OPTIONS)
    quick = heatmap(world, "blue", SightOptions(cell_size=50, viewer_spacing=50, quick=True))
    assert quick.counts.shape == exact.counts.shape == (8, 6)
    assert np.array_equal(quick.counts >= 0, exact.counts >= 0)  # placement does not depend on --quick
    # quick may miss a narrow view or take one clear line for a patch: compare exposed/safe cell by cell
    changed = ((quick.counts > 0) != (exact.counts > 0)) & (exact.counts >= 0)
    assert changed.sum() / exact.cells <= 0.10
    assert quick.to_dict()["quick"] is True and exact.to_dict()["quick"] is False


def test_quick_equals_exact_where_every_view_is_wide_open_or_shut():
    # the tall wall: a probe in front is seen whole by every viewer, one behind is hidden whole from every viewer,
    # so any sampling of eyes and points gives the hand answer
    quick = heatmap(world_of(table([TALL_WALL])), "blue", SightOptions(cell_size=50, viewer_spacing=50, quick=True))
    assert (quick.counts[:3] == VIEWERS).all() and (quick.counts[3:] == 0).all()


# --- 6. every executor gives the same answer ------------------------------------------------------------------------

SPREAD = SightOptions(cell_size=50, viewer_spacing=25)
"""24 viewers over blue's zone (12 x 2): three batches of 8, so a batch returned out of order would show."""


@pytest.fixture(scope="module")
def serial_heatmap():
    return heatmap(world_of(table(MIXED, depth=400)), "blue", SPREAD)


@pytest.mark.slow
def test_serial_and_process_pool_agree(serial_heatmap):
    seen = serial_heatmap.seen
    assert len(seen) == 24
    batches = {seen[k : k + 8].tobytes() for k in (0, 8, 16)}
    assert len(batches) == 3, "the three batches must differ, or batches swapped would go unnoticed"
    with open_executor("processes:2") as pool:
        pooled = heatmap(world_of(table(MIXED, depth=400)), "blue", SPREAD, pool)
    assert np.array_equal(pooled.seen, serial_heatmap.seen)  # the full matrix: rows (viewers) in the same order
    assert np.array_equal(pooled.counts, serial_heatmap.counts)


@pytest.mark.slow
def test_pool_workers_are_forked_from_one_server_that_imported_their_modules():
    """No worker imports lofkit for itself: each starts from the server that did, and the next pool's workers come
    from the same server (the spawn start method fails both: its workers are this process's children, and bare)."""
    parents = []
    for _ in range(2):
        with open_executor("processes:2") as pool:
            answers = list(pool.map(parent_and_modules, [WORKER_MODULES] * 4))
        assert all(modules == list(WORKER_MODULES) for _, modules in answers), answers
        parents.append({parent for parent, _ in answers})
    assert len(parents[0]) == 1 and parents[1] == parents[0] != {os.getpid()}


def test_analyses_hand_workers_the_terrain_alone():
    """A worker builds its World from the scene it is sent: that scene holds no trooper to settle or check (the
    scene's own, here one standing inside the wall, are left out of analyses), and the caller's World keeps them."""
    data = table([TALL_WALL])
    data["troopers"] = [{"id": "in-wall", "side": "blue", "silhouette": 2, "position": [150, 150], "facing": 90}]
    world = world_of(data)
    terrain = terrain_only(world)
    assert len(world.scene.troopers) == 1 and len(world.troopers) == 1 and len(world.warnings) == 1
    assert terrain.scene.troopers == () and len(terrain.troopers) == 0
    assert World.from_scene(terrain.scene).warnings == []


def test_viewer_batches_keep_the_order_and_run_the_last_eight_one_by_one():
    expected = [[0, 10, 20, 30], [40]] + [[10 * k] for k in range(5, 13)]
    assert [b.tolist() for b in viewer_batches(np.arange(13) * 10)] == expected
    for count in (0, 1, 8, 9, 33):
        batches = viewer_batches(np.arange(count))
        assert np.array_equal(np.concatenate([*batches, np.zeros(0, dtype=int)]), np.arange(count))
        assert [len(b) for b in batches][-min(count, 8):] == [1] * min(count, 8)
        assert all(1 <= len(b) <= 4 for b in batches)


@pytest.fixture(scope="module")
def dask_scheduler():
    """A one-worker Dask cluster on loopback; yields the address the CLI takes (HOST:PORT)."""
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                           dashboard_address=None)
    try:
        yield cluster.scheduler_address.removeprefix("tcp://")
    finally:
        cluster.close()


@pytest.mark.slow
def test_dask_cluster_agrees_with_the_local_run(dask_scheduler, serial_heatmap, tmp_path, run_cli):
    with open_executor(f"dask://{dask_scheduler}") as client:
        remote = heatmap(world_of(table(MIXED, depth=400)), "blue", SPREAD, client)
    assert np.array_equal(remote.seen, serial_heatmap.seen)
    scene = write_scene(tmp_path, table(MIXED, depth=400))
    result = run_cli("heatmap", scene, "--zone", "blue", "-o", tmp_path / "h.png", "--cell-size", "50mm",
                     "--viewer-spacing", "25mm", "--executor", f"dask://{dask_scheduler}", "--json")
    assert result.exit_code == 0, result.stderr
    assert np.array_equal(np.load(json.loads(result.stdout)["counts_file"]), serial_heatmap.counts)


# --- 7. where a probe fits ------------------------------------------------------------------------------------------


def test_probe_fits_on_a_flat_roof_not_across_its_edge():
    # a platform 30 mm tall over the whole width, y in [100, 175]: row y = 125 (base 112.5..137.5) rests on it,
    # row y = 175 has its base centre on the platform's edge (half on, half hanging 30 mm above the table)
    platform = box("platform", (150, 137.5), (WIDTH, 75, 30))
    result = heatmap(world_of(table([platform], depth=400)), "blue", OPTIONS)
    z = result.z.reshape(result.counts.shape)
    assert (result.counts[3] == -1).all()
    assert (result.counts[2] >= 0).all() and np.allclose(z[2], 30)
    assert (np.delete(result.counts, 3, axis=0) >= 0).all() and result.cells == 6 * 7


def test_place_at_the_edges():
    world = world_of(table([box("crate", (150, 150), (100, 100, 30))]))  # crate x, y in [100, 200]
    spots = place(world, [[150, 150], [112.5, 150], [100, 150], [87.4, 150], [12.5, 12.5], [12.4, 100],
                          [287.6, 100]], 2)
    # centre and flush inside the roof: on it; base centre on the roof edge: hangs over; clear of the crate by
    # 0.1 mm: on the table; touching the table edges from inside: fits; 0.1 mm past the left or right edge: off table
    assert spots.fits.tolist() == [True, True, False, True, True, False, False]
    assert np.allclose(spots.z[[0, 1, 3, 4]], [30, 30, 0, 0])


def test_place_a_base_touching_a_crate_from_outside_stands_on_the_table():
    data = table([box("crate", (150, 150), (100, 100, 30))])  # crate x in [100, 200]; the base below touches x = 100
    spots = place(world_of(data), [[87.5, 150]], 2)
    assert spots.fits.tolist() == [True] and spots.z.tolist() == [0.0]


def test_cells_whose_base_would_leave_the_table_do_not_fit():
    # an S8 probe (70 mm base, radius 35) on 50 mm cells: the outer ring of cells (centre 25 mm from an edge) hangs
    # 10 mm off the table; the inner 4 x 4 cells fit
    result = heatmap(world_of(table()), "blue", SightOptions(probe_silhouette=8, cell_size=50, viewer_spacing=50))
    expected = np.full((6, 6), -1)
    expected[1:5, 1:5] = VIEWERS
    assert np.array_equal(result.counts, expected) and result.cells == 16


def test_grid_of_cells_and_of_viewers():
    world = world_of(table(depth=400))
    centres, shape = cell_centres(world.scene, 50)
    assert shape == (8, 6) and np.allclose(centres[:7], [[25, 25], [75, 25], [125, 25], [175, 25], [225, 25],
                                                         [275, 25], [25, 75]])
    # red's strip y in [350, 400] with spacing 25: 12 x 2 points, centred in the zone
    points, spacing = zone_points(world, "red", 25)
    assert len(points) == 24 and np.allclose(sorted(set(points[:, 1])), [362.5, 387.5]) and spacing == (25, 25)
    with pytest.raises(LofkitError, match="no deployment zone for side 'green'"):
        zone_points(world, "green", 25)
    with pytest.raises(LofkitError, match="more than 1,000,000; give a larger --cell-size"):
        cell_centres(world.scene, 0.1)


# --- 8. firing lanes -------------------------------------------------------------------------------------------------


def test_lanes_on_an_empty_table_join_every_pair():
    result = lanes(world_of(table()), ("blue", "red"), OPTIONS)
    # by hand: 6 blue spots at y = 25, 6 red at y = 275, nothing between: 36 lanes; the farthest pair is a corner to
    # the opposite corner, centres (25, 25) and (275, 275): sqrt(250^2 + 250^2) - 12.5 - 12.5 = 328.553 mm
    assert result.count == 36
    assert math.isclose(result.longest_mm, math.hypot(250, 250) - 25, abs_tol=1e-3)
    assert result.visible_share() == {"blue": 1.0, "red": 1.0}
    d = result.to_dict()
    assert d["zones"] == ["blue", "red"] and d["lanes"] == 36
    assert math.isclose(d["longest_lane_in"], (math.hypot(250, 250) - 25) / 25.4, abs_tol=1e-3)
    first = d["longest"][0]
    assert {tuple(first["blue"]), tuple(first["red"])} in ({(25.0, 25.0), (275.0, 275.0)},
                                                          {(275.0, 25.0), (25.0, 275.0)})


def test_a_full_width_tall_wall_leaves_no_lane():
    result = lanes(world_of(table([TALL_WALL])), ("blue", "red"), OPTIONS)
    assert result.count == 0 and result.longest_mm == 0.0 and result.longest() == []
    assert result.visible_share() == {"blue": 0.0, "red": 0.0}


# --- 9. scorecard metrics --------------------------------------------------------------------------------------------


def test_terrain_density_is_the_share_of_the_table_under_blocking_terrain():
    depth = 400.0  # table area 300 x 400 = 120,000 mm^2
    one_box = world_of(table([box("b", (100, 100), (60, 50, 30))], depth=depth))
    assert terrain_density(one_box) == 0.025  # 60 x 50 = 3,000 mm^2
    half_off = world_of(table([box("b", (0, 200), (60, 50, 30))], depth=depth))
    assert terrain_density(half_off) == 0.0125  # half of it lies past the left edge: 1,500 mm^2
    haze = {"id": "haze", "cylinder": {"diameter": 100, "height": 50}, "position": [150, 300, 0],
            "kind": "low_visibility"}
    assert terrain_density(world_of(table([box("b", (100, 100), (60, 50, 30)), haze], depth=depth))) == 0.025
    assert terrain_density(world_of(table(depth=depth))) == 0.0


def test_symmetry_of_the_halves():
    depth = 400.0  # centre (150, 200)
    twins = [box("a", (100, 100), (50, 50, 30)), box("b", (200, 300), (50, 50, 30))]  # each the other turned 180°
    assert symmetry(world_of(table(twins, depth=depth))) == 1.0
    # one 40 x 40 box at x in [120, 160] turned half a turn lies at x in [140, 180]: overlap 20 x 40 = 800 mm^2,
    # union 1,600 + 1,600 - 800 = 2,400 mm^2: 1/3
    assert symmetry(world_of(table([box("a", (140, 200), (40, 40, 30))], depth=depth))) == 0.3333
    assert symmetry(world_of(table([box("a", (100, 100), (50, 50, 30))], depth=depth))) == 0.0
    assert symmetry(world_of(table(depth=depth))) == 1.0


def test_scorecard_safe_share_with_a_wall_between_the_zones():
    card = scorecard(world_of(table([TALL_WALL])), "wall", OPTIONS)
    d = card.to_dict()
    # by hand: blue sees the 18 cells in front of the wall, red the 18 behind it: no cell is seen by neither
    assert d["exposed_share"] == {"blue": 0.5, "red": 0.5} and d["safe_share"] == 0.0
    assert d["lanes"] == 0 and d["longest_lane_mm"] == 0.0 and d["zone_visible_share"] == {"blue": 0.0, "red": 0.0}
    assert d["terrain_density"] == 0.0333  # 300 x 10 of 300 x 300
    assert d["symmetry"] == 1.0 and d["exposure_balance"] == 1.0 and d["cells"] == 36


def test_scorecard_a_pocket_against_the_wall_is_the_one_safe_cell():
    # three 120 mm walls close a pocket around the cell (175, 125) against the tall wall (its north side): inner
    # room x in [150, 200], y in [100, 145]; the probe's base (162.5..187.5 x 112.5..137.5) stands clear inside
    pocket = [
        {"id": "west", "wall": {"from": [148, 98], "to": [148, 150], "thickness": 4, "height": 120}},
        {"id": "east", "wall": {"from": [202, 98], "to": [202, 150], "thickness": 4, "height": 120}},
        {"id": "south", "wall": {"from": [146, 98], "to": [204, 98], "thickness": 4, "height": 120}},
    ]
    card = scorecard(world_of(table([TALL_WALL, *pocket])), "pocket", OPTIONS)
    blue, red = card.heatmaps
    # blue: each other cell in front is seen at least by the viewer straight in front of it (the straight segment at
    # that x meets no pocket wall), the pocket cell by none; red sees only the 18 cells behind the wall, all of them
    assert blue.counts[2, 3] == 0 and blue.exposed_cells == 17 and red.exposed_cells == 18
    d = card.to_dict()
    assert d["safe_share"] == round(1 / 36, 4)
    assert d["exposed_share"] == {"blue": round(17 / 36, 4), "red": 0.5}
    assert d["exposure_balance"] == round(1 - (0.5 - round(17 / 36, 4)), 4)


def test_scorecard_of_a_scene_without_zones_is_bad_input():
    world = world_of(scene_data(table={"width": WIDTH, "depth": 300}))
    with pytest.raises(LofkitError, match="deployment"):
        scorecard(world, "bare", OPTIONS).to_dict()


# --- 10. the CLI -----------------------------------------------------------------------------------------------------


def _png(path) -> tuple[int, int]:
    with Image.open(path) as image:
        assert image.format == "PNG"
        image.verify()
        return image.size


@pytest.mark.slow
def test_cli_heatmap_json_counts_csv_and_picture(tmp_path, run_cli):
    scene = write_scene(tmp_path, table([TALL_WALL]))
    picture = tmp_path / "maps" / "blue.png"
    result = run_cli("heatmap", scene, "--zone", "blue", "-o", picture, *CLI_OPTIONS, "--json")
    assert result.exit_code == 0, result.stderr
    d = json.loads(result.stdout)
    assert {"cells", "exposed_cells", "exposed_share", "counts_file", "segments", "segments_tested"} <= d.keys()
    assert (d["cells"], d["exposed_cells"], d["exposed_share"]) == (36, 18, 0.5)
    counts = np.load(d["counts_file"])
    expected = np.zeros((6, 6), dtype=int)
    expected[:3] = VIEWERS  # the tall wall's side facing blue
    assert np.array_equal(counts, expected)
    assert int((counts >= 0).sum()) == d["cells"] and int((counts > 0).sum()) == d["exposed_cells"]
    with open(d["csv_file"], newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["x_mm", "y_mm", "z_mm", "count"] and len(rows) == 1 + 36
    assert [float(v) for v in rows[1]] == [25, 25, 0, 6] and [float(v) for v in rows[-1]] == [275, 275, 0, 0]
    assert [int(r[3]) for r in rows[1:]] == counts.ravel().tolist()
    assert _png(d["picture"]) and picture.exists()


@pytest.mark.slow
def test_cli_heatmap_counts_option_and_readable_output(tmp_path, run_cli):
    scene = write_scene(tmp_path, table())
    result = run_cli("heatmap", scene, "--zone", "red", "-o", tmp_path / "h.png", "--counts", tmp_path / "c.npy",
                     *CLI_OPTIONS)
    assert result.exit_code == 0, result.stderr
    assert "36 of 36 cells (100.0%)" in result.stdout and "6 viewers" in result.stdout
    assert (np.load(tmp_path / "c.npy") == VIEWERS).all() and (tmp_path / "c.csv").exists()


@pytest.mark.slow
def test_cli_analyze_and_compare(tmp_path, run_cli):
    walled = write_scene(tmp_path, table([TALL_WALL]), "walled.yaml")
    open_table = write_scene(tmp_path, table(), "open.yaml")
    folder = tmp_path / "cards"
    result = run_cli("analyze", walled, open_table, "-o", folder, *CLI_OPTIONS, "--json")
    assert result.exit_code == 0, result.stderr
    d = json.loads(result.stdout)
    assert json.loads((folder / "scorecard.json").read_text()) == d
    first, second = d["layouts"]
    for layout in (first, second):
        assert {"scene", "exposed_share", "safe_share", "lanes", "longest_lane_mm"} <= layout.keys()
    assert first["scene"] == str(walled) and second["scene"] == str(open_table)
    assert first["exposed_share"] == {"blue": 0.5, "red": 0.5} and first["safe_share"] == 0.0 and first["lanes"] == 0
    assert second["exposed_share"] == {"blue": 1.0, "red": 1.0} and second["lanes"] == 36
    assert math.isclose(second["longest_lane_mm"], math.hypot(250, 250) - 25, abs_tol=1e-3)
    for name in ("walled-heatmap-blue", "walled-heatmap-red", "open-heatmap-blue", "open-heatmap-red"):
        assert _png(folder / f"{name}.png")

    picture = tmp_path / "side-by-side.png"
    compared = run_cli("compare", walled, open_table, "-o", picture, *CLI_OPTIONS, "--json")
    assert compared.exit_code == 0, compared.stderr
    c = json.loads(compared.stdout)
    assert c["picture"] == str(picture) and c["layouts"] == d["layouts"]
    assert _png(picture)


def test_cli_analyze_readable_table(tmp_path, run_cli):
    walled = write_scene(tmp_path, table([TALL_WALL]), "walled.yaml")
    result = run_cli("analyze", walled, "-o", tmp_path / "cards", "--no-pictures", *CLI_OPTIONS)
    assert result.exit_code == 0, result.stderr
    assert "layout scorecard" in result.stdout and "safe cells (seen by no zone)" in result.stdout
    assert "50.0%" in result.stdout and (tmp_path / "cards" / "scorecard.json").exists()
    assert list((tmp_path / "cards").glob("*.png")) == []


@pytest.mark.slow
def test_cli_analyze_keeps_one_picture_per_layout_and_zone(tmp_path, run_cli):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = write_scene(tmp_path / "a", table([TALL_WALL]), "table.yaml")
    second = write_scene(tmp_path / "b", table(), "table.yaml")
    result = run_cli("analyze", first, second, "-o", tmp_path / "cards", *CLI_OPTIONS)
    assert result.exit_code == 0, result.stderr
    assert len(list((tmp_path / "cards").glob("*.png"))) == 4  # 2 layouts x 2 zones


@pytest.mark.slow
def test_cli_lanes_json(tmp_path, run_cli):
    scene = write_scene(tmp_path, table())
    result = run_cli("lanes", scene, "-o", tmp_path / "lanes.png", *CLI_OPTIONS, "--json")
    assert result.exit_code == 0, result.stderr
    d = json.loads(result.stdout)
    assert d["lanes"] == 36 and d["zones"] == ["blue", "red"] and d["visible_share"] == {"blue": 1.0, "red": 1.0}
    assert _png(tmp_path / "lanes.png")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("heatmap", "{scene}", "--zone", "green", "-o", "{out}/h.png"), "no deployment zone for side 'green'"),
        (("analyze", "{bare}", "-o", "{out}"), "no deployment_zones"),
        (("heatmap", "{scene}", "--zone", "blue", "-o", "{out}/h.png", "--cell-size", "abc"), "--cell-size"),
        (("heatmap", "{scene}", "--zone", "blue", "-o", "{out}/h.png", "--probe-silhouette", "9"),
         "probe silhouette must be one of 1..8"),
        (("heatmap", "{scene}", "--zone", "blue", "-o", "{out}/h.png", "--executor", "bogus"), "unknown executor"),
        (("heatmap", "{scene}", "--zone", "blue", "-o", "{out}/h.png", "--cell-size", "400mm"),
         "larger than the table"),
        (("lanes", "{scene}", "--zones", "blue"), "two deployment zones (the scene's zones: blue, red); write two "
                                                  "of them with a comma, e.g. --zones blue,red"),
        (("lanes", "{scene}", "--zones", "blue,green"), "--zones blue,green: no deployment zone for side 'green' "
                                                        "(the scene's zones: blue, red); write two of them"),
        (("lanes", "{bare}"), "two deployment zones (the scene's zones: none); add a zone per side"),
        (("lanes", "{scene}", "--zones", "blue,blue"), "two different zones"),
        (("heatmap", "{scene}", "--zone", "blue", "-o", "{out}/h.txt"), "ending in .png"),
        (("heatmap", "{scene}", "--zone", "blue", "-o", "{out}/h.png", "--counts", "{out}/c.csv"), "ending in .npy"),
        (("heatmap", "{scene}", "--zone", "blue", "-o", "{out}/h.png", "--executor", "dask://127.0.0.1:port"),
         "dask://HOST:PORT"),
        (("heatmap", "{scene}", "--zone", "blue", "-o", "{out}/h.png", "--viewer-spacing", "0.001mm"),
         "give a larger --viewer-spacing"),
    ],
    ids=["unknown-zone", "no-zones", "cell-size-abc", "silhouette-9", "executor-bogus", "cell-too-big", "one-zone",
         "unknown-lanes-zone", "lanes-no-zones", "same-zone", "not-png", "counts-not-npy", "dask-no-port", "viewers-too-many"],
)
def test_cli_bad_input_exits_2_with_a_message(args, message, tmp_path, run_cli):
    scene = write_scene(tmp_path, table(), "zoned.yaml")
    bare = write_scene(tmp_path, scene_data(table={"width": WIDTH, "depth": 300}), "bare.yaml")
    filled = [a.format(scene=scene, bare=bare, out=tmp_path / "out") for a in args]
    result = run_cli(*filled, "--executor", "serial") if "--executor" not in args else run_cli(*filled)
    assert result.exit_code == 2, result.stdout + result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr and result.stdout == ""


@pytest.fixture(scope="module", autouse=True)
def unreachable_dask_run(tmp_path_factory):
    """`lofkit heatmap --executor dask://127.0.0.1:1` (nothing listens on port 1 of loopback), started in the
    background as this module starts, so that the client's 10 s connect timeout passes while the other tests run."""
    scene = write_scene(tmp_path_factory.mktemp("unreachable"), table())
    run = subprocess.Popen([sys.executable, "-m", "lofkit", "heatmap", str(scene), "--zone", "blue", "-o",
                            str(scene.with_suffix(".png")), "--executor", "dask://127.0.0.1:1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    yield run
    if run.poll() is None:
        run.kill()
    run.communicate()


@pytest.mark.slow
def test_cli_unreachable_dask_scheduler_exits_2_instead_of_hanging(unreachable_dask_run):
    # the timeout only guards against a hang: the client gives up after its own 10 s
    stdout, stderr = unreachable_dask_run.communicate(timeout=60)
    assert unreachable_dask_run.returncode == 2, stderr
    assert "cannot reach the Dask scheduler at 127.0.0.1:1" in stderr and "Traceback" not in stderr
    assert stdout == ""


def test_cli_analyze_never_writes_over_other_files(tmp_path, run_cli):
    """`analyze` writes into a new or empty folder; other files, or its own earlier output, need --force."""
    scene = write_scene(tmp_path, table())
    folder = tmp_path / "cards"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    refused = run_cli("analyze", scene, "-o", folder, "--no-pictures", *CLI_OPTIONS)
    assert refused.exit_code == 2 and "notes.txt" in refused.stderr and "Traceback" not in refused.stderr
    assert not (folder / "scorecard.json").exists()
    assert run_cli("analyze", scene, "-o", folder, "--no-pictures", "--force", *CLI_OPTIONS).exit_code == 0
    (folder / "notes.txt").unlink()
    again = run_cli("analyze", scene, "-o", folder, "--no-pictures", *CLI_OPTIONS)  # its own earlier output
    assert again.exit_code == 2 and "earlier analysis" in again.stderr and "--force" in again.stderr
    assert run_cli("analyze", scene, "-o", folder, "--no-pictures", "--force", *CLI_OPTIONS).exit_code == 0
    assert (folder / "notes.txt").exists() is False and (folder / "scorecard.json").exists()


def test_cli_analyze_with_force_replaces_the_earlier_analysis_as_a_whole(tmp_path, run_cli):
    """An earlier analysis's heatmap of a layout no longer analysed does not stay beside the new scorecard; the
    user's other files do."""
    scene = write_scene(tmp_path, table())
    folder = tmp_path / "cards"
    folder.mkdir()
    (folder / "old-heatmap-red.png").write_bytes(b"an earlier picture")
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    assert run_cli("analyze", scene, "-o", folder, "--no-pictures", "--force", *CLI_OPTIONS).exit_code == 0
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt", "scorecard.json"]


def test_heatmap_reports_the_cell_size_it_used():
    """The table is divided evenly: 300 mm with 70 mm asked gives 4 cells of 75 mm (by hand: floor(300 / 70) = 4)."""
    result = heatmap(world_of(table()), "red", SightOptions(cell_size=70, viewer_spacing=50, quick=True))
    assert result.counts.shape == (4, 4) and result.to_dict()["cell_mm"] == [75.0, 75.0]


def test_a_zone_where_no_viewer_fits_is_bad_input():
    """A zone 10 mm wide along the table's edge leaves no room for a 25 mm base: that is said, not a 0% heatmap."""
    data = table()
    data["deployment_zones"].append({"side": "green", "polygon": [[0, 0], [10, 0], [10, 300], [0, 300]]})
    with pytest.raises(LofkitError, match="no S2 viewer fits over green's deployment zone"):
        heatmap(world_of(data), "green", OPTIONS)


def test_max_range_and_lane_lengths_count_the_height_between_bases():
    """docs/rules.md (Distances): a probe on a 150 mm tower whose base is 125 mm from the viewer's, horizontally, is
    sqrt(125^2 + 150^2) = 195.3 mm away, so a 130 mm range leaves it out (by hand, viewer at x = 25, probe at 175)."""
    data = table([box("tower", (175, 175), (50, 50, 150))])
    world = world_of(data)
    near = heatmap(world, "blue", SightOptions(cell_size=50, viewer_spacing=50, max_range=130, quick=True))
    far = heatmap(world, "blue", SightOptions(cell_size=50, viewer_spacing=50, max_range=200, quick=True))
    roof = (3, 3)  # the cell centred (175, 175), on the tower
    assert near.z.reshape(near.counts.shape)[roof] == 150
    assert near.counts[roof] == 0 < far.counts[roof]
    both = lanes(world_of(table()), ("blue", "red"), OPTIONS)
    assert np.isclose(both.lengths.max(), math.hypot(250, 250) - 25)


@pytest.mark.slow
def test_an_error_in_a_worker_process_reaches_the_user_as_bad_input(tmp_path):
    """A worker builds the World from the scene again: if a mesh file went missing meanwhile, the SceneError it
    raises crosses the process boundary intact (exit 2 in the CLI, not an internal error)."""
    import trimesh

    trimesh.creation.box((40, 40, 60)).export(tmp_path / "crate.stl")
    data = table([{"id": "crate", "mesh": "crate.stl", "position": [150, 150, 0]}])
    world = World.from_scene(scene_from_data(data, source=tmp_path / "scene.yaml"))
    (tmp_path / "crate.stl").unlink()
    with open_executor("processes:1") as pool, pytest.raises(LofkitError, match="crate.stl"):
        heatmap(world, "red", OPTIONS, pool)


@pytest.mark.slow
def test_cli_compare_layouts_with_different_zones(tmp_path, run_cli):
    first = write_scene(tmp_path, table(), "a.yaml")
    second = write_scene(tmp_path, table(zones=("red",)), "b.yaml")
    result = run_cli("compare", first, second, "-o", tmp_path / "both.png", *CLI_OPTIONS, "--quick")
    assert result.exit_code == 0, result.stderr
    assert _png(tmp_path / "both.png")
