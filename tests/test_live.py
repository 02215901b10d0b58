"""A live LoF matrix (what the workbench keeps): after a trooper moves or turns, recomputing only the pairs that
include it and the pairs whose sight it may change gives exactly the full matrix."""

import numpy as np
import pytest

from lofkit import World, load_scene
from lofkit.rules.live import LiveMatrix, affected_pairs
from lofkit.rules.lof import matrix
from tests.helpers import REPO, build_world, trooper


def moved(world, index: int, **changes):
    """The world with trooper `index` changed (`position`, `facing`, `state`, ...), its terrain kept."""
    troopers = list(world.scene.troopers)
    troopers[index] = troopers[index].model_copy(update=changes)
    return world.with_scene(world.scene.model_copy(update={"troopers": troopers}))


def test_a_trooper_in_a_corridor_makes_that_pair_affected():
    world = build_world([trooper("a", 100, 500), trooper("b", 900, 500), trooper("c", 500, 800),
                         trooper("d", 500, 100)])
    into = moved(world, 2, position=(500.0, 505.0))  # c steps between a and b
    pairs = {tuple(p) for p in affected_pairs(world.troopers, into.troopers).tolist()}
    assert pairs == {(0, 2), (1, 2), (2, 3), (0, 1)}
    away = moved(into, 2, position=(500.0, 800.0))
    assert {tuple(p) for p in affected_pairs(into.troopers, away.troopers).tolist()} == pairs


@pytest.mark.parametrize("table", ["rulebook_lof.yaml", pytest.param("tables/table-b.yaml", marks=pytest.mark.slow)])
def test_after_random_moves_the_live_matrix_is_the_full_one(table):
    world = World.from_scene(load_scene(REPO / "examples" / table))
    live = LiveMatrix(world)
    rng = np.random.default_rng(7)
    v = world.troopers
    width, depth = world.scene.table.width, world.scene.table.depth
    for _ in range(4):
        k = int(rng.integers(len(v)))
        r = float(v.radius[k])
        position = (float(rng.uniform(r, width - r)), float(rng.uniform(r, depth - r)))
        world = moved(world, k, position=position, facing=float(rng.uniform(0, 360)), facing_towards=None)
        live.update(world)
        assert live.result.to_dict() == matrix(world).to_dict()
