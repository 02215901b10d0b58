"""A live LoF matrix (what the workbench keeps): after a trooper moves or turns, or terrain is put down, taken away
or moved, recomputing only the pairs whose sight may change gives exactly the full matrix; the rules that keep a
pair's sight, and the corridor they rest on, on geometry whose answer is known by hand."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lofkit import World, load_scene, scene_from_data
from lofkit.geometry.volumes import base_volumes
from lofkit.rules.live import (
    LiveMatrix,
    affected_pairs,
    affected_verdicts,
    changed_pieces,
    corridors_meeting,
    sight_may_change,
    sight_may_change_with,
)
from lofkit.rules.lof import matrix
from lofkit.scene.loading import scene_data as scene_file_data
from lofkit.sight.corridor import comes_near, in_corridor
from lofkit.sight.search import sight
from tests.helpers import REPO, build_world, trooper
from tests.strategies import SETTINGS, layouts, scene


def moved(world, index: int, **changes):
    """The world with trooper `index` changed (`position`, `facing`, `state`, ...), its terrain kept."""
    troopers = list(world.scene.troopers)
    troopers[index] = troopers[index].model_copy(update=changes)
    return world.with_scene(world.scene.model_copy(update={"troopers": tuple(troopers)}))


def sights_before(world) -> list:
    """Each unordered pair's sight, in `np.triu_indices` order (what `sight_may_change` is given)."""
    pairs = np.column_stack(np.triu_indices(len(world.troopers), k=1))
    found = sight(world, pairs, evidence=False)
    return [found[pair] for pair in map(tuple, pairs.tolist())]


def searched(before, after, sights=None) -> set:
    return {tuple(p) for p in sight_may_change(before.troopers, after.troopers, sights).tolist()}


def test_a_trooper_in_a_corridor_makes_that_pair_affected():
    world = build_world([trooper("a", 100, 500), trooper("b", 900, 500), trooper("c", 500, 800),
                         trooper("d", 500, 100)])
    into = moved(world, 2, position=(500.0, 505.0))  # c steps between a and b
    pairs = {tuple(p) for p in affected_pairs(world.troopers, into.troopers).tolist()}
    assert pairs == {(0, 2), (1, 2), (2, 3), (0, 1)}
    away = moved(into, 2, position=(500.0, 800.0))
    assert {tuple(p) for p in affected_pairs(into.troopers, away.troopers).tolist()} == pairs


def test_a_pair_that_sees_over_a_prone_trooper_keeps_its_sight_while_it_crawls_about():
    """a and b (S2, 40 mm tall) see each other over open ground: the witness runs from the top of a's front edge to
    the middle of b's template, 20 mm up or more. c lies prone (3 mm) in their corridor and crawls along it: it
    stays far below that witness, so the pair keeps its sight without a search; on its feet (40 mm) on the line
    between them, it may hide them, and the pair is searched again."""
    world = build_world([trooper("a", 100, 500), trooper("b", 900, 500),
                         trooper("c", 450, 505, state=["prone"])])
    sights = sights_before(world)
    assert sights[0].seen  # (a, b): the first pair
    crawled = moved(world, 2, position=(550.0, 495.0))
    assert searched(world, crawled) == {(0, 1), (0, 2), (1, 2)}  # without the rule: c is in the corridor
    assert searched(world, crawled, sights) == {(0, 2), (1, 2)}
    live = LiveMatrix(world)
    live.update(crawled)
    assert live.result.to_dict() == matrix(crawled, evidence=False).to_dict()
    standing = moved(world, 2, position=(500.0, 500.0), state=[])
    assert (0, 1) in searched(world, standing, sights)
    live.update(standing)
    assert live.result.to_dict() == matrix(standing, evidence=False).to_dict()


def test_a_pair_proved_hidden_by_a_wall_stays_hidden_whoever_walks_behind_it():
    """A wall taller and wider than a and b stands between them: every segment between them crosses it (a proof).
    c walks from one side of the wall to the other, in their corridor all the while: the pair needs no search."""
    wall = {"id": "wall", "box": {"size": [20, 300, 100]}, "position": [500, 500, 0]}
    world = build_world([trooper("a", 100, 500), trooper("b", 900, 500), trooper("c", 300, 510)], [wall])
    sights = sights_before(world)
    assert not sights[0].seen and sights[0].proof == "wall"
    walked = moved(world, 2, position=(700.0, 490.0))
    assert (0, 1) in searched(world, walked)
    assert searched(world, walked, sights) == {(0, 2), (1, 2)}
    live = LiveMatrix(world)
    live.update(walked)
    assert live.result.to_dict() == matrix(walked, evidence=False).to_dict()


def test_a_trooper_that_only_turns_changes_only_its_own_shots():
    """Turning moves no volume (sight reads volumes only: no search) and the arc is the shooter's (LoF 1): only the
    verdicts the turned trooper shoots are rebuilt; so are those of a trooper that turns to follow a mover
    (`facing_towards`)."""
    world = build_world([trooper("a", 100, 500), trooper("b", 900, 500), trooper("c", 500, 800),
                         trooper("d", 500, 100, facing=None, facing_towards="c")])
    turned = moved(world, 1, facing=180.0)
    assert searched(world, turned, sights_before(world)) == set()
    no_search = np.empty((0, 2), dtype=np.int64)
    assert {tuple(p) for p in affected_verdicts(world.troopers, turned.troopers, no_search).tolist()} == {
        (1, 0), (1, 2), (1, 3)}
    followed = moved(turned, 2, position=(700.0, 800.0))  # d turns to keep facing c
    searched_pairs = sight_may_change(turned.troopers, followed.troopers, sights_before(turned))
    verdicts = {tuple(p) for p in affected_verdicts(turned.troopers, followed.troopers, searched_pairs).tolist()}
    assert {(3, 0), (3, 1), (3, 2)} <= verdicts and (0, 3) not in verdicts and (1, 3) not in verdicts
    live = LiveMatrix(world)
    for changed in (turned, followed):
        live.update(changed)
        assert live.result.to_dict() == matrix(changed, evidence=False).to_dict()


def test_the_corridor_is_the_hull_of_both_volumes_not_their_box():
    """a stands 100 mm up (on a tower), b on the ground 800 mm away. Above c's footprint (50 mm from a) every
    segment between them is still 90 mm up or more, and c is 40 mm tall: it is out of their corridor, though
    inside the box around both volumes. d stands on the ground next to b, where segments come down to the ground."""
    world = build_world([trooper("a", 100, 500, z=100), trooper("b", 900, 500), trooper("c", 150, 500),
                         trooper("d", 850, 500)])
    v = world.troopers
    assert in_corridor(v, np.array([0, 0]), np.array([1, 1]), np.array([2, 3])).tolist() == [False, True]


def random_cylinders(rng, count: int):
    """`count` random trooper volumes, every one blocking LoF."""
    volumes = base_volumes(rng.uniform(0, 200, (count, 2)), rng.choice([0.0, 0.0, 20.0, 60.0], count),
                           rng.choice([12.5, 20.0, 27.5, 35.0], count), rng.choice([3.0, 25.0, 40.0, 70.0], count))
    return dataclasses.replace(volumes, blocks_lof=np.ones(count, dtype=bool))


def test_the_corridor_misses_no_trooper_that_meets_the_hull():
    """Soundness of `in_corridor` against the hull sampled finely: every trooper some blend of a's and b's
    cylinders ((1 - t) a + t b) overlaps is in their corridor, and only troopers that come within a whisker of
    one are."""
    rng = np.random.default_rng(11)
    count = 600
    v = random_cylinders(rng, 3 * count)
    a, b, other = np.arange(count), np.arange(count) + count, np.arange(count) + 2 * count
    t = np.linspace(0, 1, 2001)[None, :]
    centre = v.centre[a][:, None] * (1 - t[..., None]) + v.centre[b][:, None] * t[..., None]
    radius = v.radius[a][:, None] * (1 - t) + v.radius[b][:, None] * t
    bottom = v.z[a][:, None] * (1 - t) + v.z[b][:, None] * t
    top = v.top[a][:, None] * (1 - t) + v.top[b][:, None] * t
    gap = np.linalg.norm(centre - v.centre[other][:, None], axis=-1) - radius - v.radius[other][:, None]

    def meets(slack):
        return ((gap < slack) & (bottom < v.top[other][:, None] + slack) & (top > v.z[other][:, None] - slack)).any(1)

    found = in_corridor(v, a, b, other)
    assert not (meets(0.0) & ~found).any()
    assert not (found & ~meets(0.5)).any()
    assert 0 < meets(0.0).sum() < count


def test_comes_near_misses_no_segment_within_reach():
    """Soundness of `comes_near` against segments sampled finely: a segment some point of which is within `reach`
    of a cylinder comes near it."""
    rng = np.random.default_rng(12)
    count, reach = 2000, 2.4
    v = random_cylinders(rng, count)
    starts = np.column_stack([rng.uniform(0, 200, (count, 2)), rng.uniform(0, 120, count)])
    ends = np.column_stack([rng.uniform(0, 200, (count, 2)), rng.uniform(0, 120, count)])
    ends[::7, :2] = starts[::7, :2]  # straight up or down
    ends[::11, 2] = starts[::11, 2]  # level
    points = starts[:, None] + np.linspace(0, 1, 4001)[None, :, None] * (ends - starts)[:, None]
    across = np.maximum(np.linalg.norm(points[..., :2] - v.centre[:, None], axis=-1) - v.radius[:, None], 0.0)
    up = np.maximum(np.maximum(v.z[:, None] - points[..., 2], points[..., 2] - v.top[:, None]), 0.0)
    near = (np.hypot(across, up) < reach).any(axis=1)
    found = comes_near(v, starts, ends, np.arange(count), reach)
    assert not (near & ~found).any()
    assert 0 < near.sum() < count


@settings(max_examples=25, **SETTINGS)
@given(layouts(), st.data())
def test_after_moves_in_random_layouts_the_live_matrix_is_the_full_one(layout, data):
    """Two moves of random troopers in a small scene of terrain and 2-4 troopers (`tests.strategies.layouts`), far
    enough to step into or out of other pairs' corridors, each facing a new way (or turning only)."""
    world = scene(layout)
    live = LiveMatrix(world)
    for _ in range(2):
        k = data.draw(st.integers(0, len(world.troopers) - 1))
        x, y = world.scene.troopers[k].position
        dx, dy = (data.draw(st.floats(-250, 250)) for _ in range(2))
        world = moved(world, k, position=(x + dx, y + dy), facing=data.draw(st.floats(0, 360)))
        live.update(world)
        assert live.result.to_dict() == matrix(world, evidence=False).to_dict()


@pytest.mark.parametrize("table", ["rulebook_lof.yaml", pytest.param("tables/table-b.yaml", marks=pytest.mark.slow)])
@pytest.mark.parametrize("reach", [None, 150.0])
def test_after_random_moves_the_live_matrix_is_the_full_one(table, reach):
    """Moves anywhere on the table, or up to `reach` mm away (staying in many corridors), each to a new facing."""
    world = World.from_scene(load_scene(REPO / "examples" / table))
    live = LiveMatrix(world)
    rng = np.random.default_rng(7)
    v = world.troopers
    width, depth = world.scene.table.width, world.scene.table.depth
    for _ in range(4):
        k = int(rng.integers(len(v)))
        r = float(v.radius[k])
        low, high = np.array([r, r]), np.array([width - r, depth - r])
        if reach is not None:
            here = world.troopers.centre[k]
            low, high = np.maximum(low, here - reach), np.minimum(high, here + reach)
        position = tuple(float(c) for c in rng.uniform(low, high))
        world = moved(world, k, position=position, facing=float(rng.uniform(0, 360)), facing_towards=None)
        live.update(world)
        assert live.result.to_dict() == matrix(world, evidence=False).to_dict()


def with_terrain(world, terrain) -> World:
    """The world with its terrain replaced by `terrain` (scene-file entries), its troopers kept."""
    return World.from_scene(scene_from_data({**scene_file_data(world.scene), "terrain": list(terrain)},
                                            world.scene.source))


def terrain_of(world) -> list[dict]:
    return scene_file_data(world.scene)["terrain"]


def searched_with(before, after, sights) -> set:
    return {tuple(p) for p in sight_may_change_with(before.troopers, after.troopers, sights,
                                                    *changed_pieces(before, after)).tolist()}


def test_a_wall_put_down_searches_only_the_pairs_that_saw_across_it_and_taken_away_those_it_hid():
    """a and b see each other across open ground, c and d too, 400 mm further up the table. A wall (y 150 to 650)
    put down across a-b's line meets a-b's corridor and those of the pairs crossing it (a-d and b-c cross it at
    y = 500), not c-d's (at y = 700): those three saw, and are searched again. A crate then put down in a-d's
    corridor is not searched for: the wall hides that pair already, and more terrain can hide no pair less. Taken
    away, the wall's pairs that it hid are searched."""
    world = build_world([trooper("a", 100, 300), trooper("b", 900, 300), trooper("c", 100, 700),
                         trooper("d", 900, 700)])
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]  # np.triu_indices order
    wall = {"id": "wall", "box": {"size": [20, 500, 100]}, "position": [500, 400, 0]}
    walled = with_terrain(world, [wall])
    assert changed_pieces(world, walled)[0] == [] and [p.id for p in changed_pieces(world, walled)[1]] == ["wall"]
    sights = sights_before(world)
    assert all(s.seen for s in sights)
    assert searched_with(world, walled, sights) == {(0, 1), (0, 3), (1, 2)}
    live = LiveMatrix(world)
    assert live.update(walled).searched == 3
    assert live.result.to_dict() == matrix(walled, evidence=False).to_dict()
    hidden = sights_before(walled)
    assert [s.seen for s in hidden] == [False, True, False, False, True, True]

    crate = {"id": "crate", "box": {"size": [30, 30, 60]}, "position": [300, 380, 0]}
    crated = with_terrain(walled, [wall, crate])
    assert [pair for pair, meets in zip(pairs, corridors_meeting(walled.troopers, [crated.pieces[1]])) if meets] \
        == [(0, 3)]
    assert searched_with(walled, crated, hidden) == set()
    assert live.update(crated).searched == 0
    assert live.result.to_dict() == matrix(crated, evidence=False).to_dict()

    assert searched_with(walled, world, hidden) == {(0, 1), (0, 3), (1, 2)}
    live.update(world)
    assert live.result.to_dict() == matrix(world, evidence=False).to_dict()


def test_a_piece_moved_is_taken_away_and_put_down_and_one_kept_is_neither():
    crate = {"id": "crate", "box": {"size": [60, 60, 60]}, "position": [300, 300, 0]}
    wall = {"id": "wall", "wall": {"from": [600, 100], "to": [600, 500], "thickness": 10, "height": 80}}
    world = build_world([trooper("a", 100, 100)], [crate, wall])
    moved_crate = with_terrain(world, [{**crate, "position": [320, 300, 0]}, wall])
    taken, put = changed_pieces(world, moved_crate)
    assert [p.id for p in taken] == [p.id for p in put] == ["crate"] and taken[0] is world.pieces[0]
    assert changed_pieces(world, with_terrain(world, [wall, crate])) == ([], [])  # the same pieces, in another order


TERRAIN_EDITS = ("put", "take", "move")


def test_after_terrain_changes_in_random_layouts_the_live_matrix_is_the_full_one():
    """Boxes put down across the line between two troopers, pieces taken away and pieces moved, each with a
    trooper's move or none, in small scenes of terrain and 2-4 troopers (`tests.strategies.layouts`); over the run,
    edits search pairs again and change verdicts often (the test is not vacuous)."""
    searched, changed = [], []

    @settings(max_examples=25, **SETTINGS)
    @given(layouts(), st.data())
    def follows(layout, data):
        world = scene(layout)
        live = LiveMatrix(world)
        for step in range(3):
            terrain = terrain_of(world)
            edit = data.draw(st.sampled_from(TERRAIN_EDITS if terrain else ("put",)))
            if edit == "put":  # somewhere on the line between two troopers
                a, b = (np.array(world.scene.troopers[k].position[:2]) for k in
                        data.draw(st.permutations(range(len(world.troopers))))[:2])
                x, y = a + data.draw(st.floats(0.3, 0.7)) * (b - a) + [data.draw(st.floats(-15, 15)), 0]
                terrain.append({"id": f"put-{step}", "box": {"size": [data.draw(st.floats(10, 120)), 30,
                                                                      data.draw(st.floats(10, 90))]},
                                "position": [x, y, 0], "rotation": data.draw(st.floats(0, 180))})
            else:
                piece = terrain.pop(data.draw(st.integers(0, len(terrain) - 1)))
                if edit == "move" and "position" in piece:
                    x, y = piece["position"][:2]
                    terrain.append({**piece, "position": [x + data.draw(st.floats(-80, 80)),
                                                          y + data.draw(st.floats(-80, 80)), *piece["position"][2:]]})
            before = live.result.to_dict()
            world = with_terrain(world, terrain)
            if data.draw(st.booleans()):
                k = data.draw(st.integers(0, len(world.troopers) - 1))
                x, y = world.scene.troopers[k].position
                world = moved(world, k, position=(x + data.draw(st.floats(-100, 100)), y))
            searched.append(live.update(world).searched)
            assert live.result.to_dict() == matrix(world, evidence=False).to_dict()
            changed.append(live.result.to_dict() != before)

    follows()
    assert sum(n > 0 for n in searched) >= 20 and sum(changed) >= 8, (searched, changed)


@pytest.mark.slow
def test_after_random_terrain_changes_on_table_b_the_live_matrix_is_the_full_one():
    """Crates put down anywhere, and pieces of table-b taken away, as the workbench's forms do."""
    world = World.from_scene(load_scene(REPO / "examples" / "tables" / "table-b.yaml"))
    live = LiveMatrix(world)
    rng = np.random.default_rng(3)
    searched = []
    for step in range(2):
        terrain = terrain_of(world)
        if step % 2:
            del terrain[int(rng.integers(len(terrain)))]
        else:
            x, y = rng.uniform(200, 1000, 2)
            terrain.append({"id": f"crate-{step}", "box": {"size": [80, 40, 60]}, "position": [x, y, 0]})
        world = with_terrain(world, terrain)
        searched.append(live.update(world).searched)
        assert live.result.to_dict() == matrix(world, evidence=False).to_dict()
    pairs = len(world.troopers) * (len(world.troopers) - 1) // 2
    assert 0 < max(searched) < pairs / 2, searched  # the edits search some pairs, not the whole table again
