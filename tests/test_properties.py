"""Property tests (hypothesis): measurements are symmetric and do not depend on where the table is, how it is turned, or the
unit the scene is written in."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lofkit import base_distance, in_arc, in_zoc
from lofkit.rules.measure import ZOC_RADIUS
from lofkit.scene.silhouettes import SILHOUETTES
from tests.helpers import build_world, trooper

TABLE = {"width": 4000, "depth": 4000}
CENTRE = 2000.0
"""The scene turns about the table's centre, (CENTRE, CENTRE)."""
SPREAD = 300.0
"""Base centres are drawn within SPREAD mm of the centre along x and y."""
LARGEST_RADIUS = max(base for base, _ in SILHOUETTES.values()) / 2
MAX_SHIFT = CENTRE - math.hypot(SPREAD, SPREAD) - LARGEST_RADIUS - 1.0
"""How far the turned scene may move along x and y and keep every base on the table: a base centre within SPREAD of
the centre along both axes is within SPREAD * sqrt(2) of it after any turn, its base reaches LARGEST_RADIUS further,
and the edges are CENTRE away (2000 - 424.3 - 35 - 1 mm to spare for rounding = 1539.7 mm)."""

coordinate = st.floats(CENTRE - SPREAD, CENTRE + SPREAD, allow_nan=False)
placement = st.tuples(coordinate, coordinate, st.floats(0, 250), st.floats(0, 360), st.integers(1, 8))
placements = st.lists(placement, min_size=2, max_size=6)
shifts = st.floats(-MAX_SHIFT, MAX_SHIFT)


def _world(items, shift=(0.0, 0.0), turn=0.0, units="mm"):
    """The same troopers, the whole scene rotated by `turn` degrees about the table's centre and moved by `shift`."""
    angle = math.radians(turn)
    cos, sin = math.cos(angle), math.sin(angle)
    scale = 25.4 if units == "in" else 1.0
    troopers = []
    for i, (x, y, z, facing, silhouette) in enumerate(items):
        dx, dy = x - CENTRE, y - CENTRE
        rx, ry = CENTRE + cos * dx - sin * dy + shift[0], CENTRE + sin * dx + cos * dy + shift[1]
        troopers.append(trooper(f"t{i}", rx / scale, ry / scale, z=z / scale, facing=facing + turn,
                                silhouette=silhouette))
    table = {key: value / scale for key, value in TABLE.items()}
    return build_world(troopers, table=table, units=units)


def _all_pairs(n):
    a, b = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    return a.ravel(), b.ravel()


def _answers(world):
    """Distances, ZoC and arc membership of every ordered pair, and which pairs sit within 1e-6 mm of a boundary
    (there rounding of the moved coordinates may flip an answer)."""
    a, b = _all_pairs(len(world.troopers))
    v = world.troopers
    d_xy = np.linalg.norm(v.centre[a] - v.centre[b], axis=1)
    zoc_margin = d_xy - v.radius[a] - v.radius[b] - ZOC_RADIUS
    arc_margin = np.einsum("nk,nk->n", v.centre[b] - v.centre[a], v.facing_vector[a]) + v.radius[b]
    near_boundary = (np.abs(zoc_margin) < 1e-6) | (np.abs(arc_margin) < 1e-6)
    return base_distance(v, a, b), in_zoc(v, a, b), in_arc(v, a, b), near_boundary


@settings(max_examples=40, deadline=None)
@given(placements)
def test_distance_is_symmetric(items):
    world = _world(items)
    a, b = _all_pairs(len(items))
    assert np.array_equal(base_distance(world.troopers, a, b), base_distance(world.troopers, b, a))


@settings(max_examples=40, deadline=None)
@given(placements, shifts, shifts, st.floats(0, 360))
def test_moving_and_turning_the_whole_scene_changes_nothing(items, dx, dy, turn):
    d0, zoc0, arc0, edge = _answers(_world(items))
    d1, zoc1, arc1, _ = _answers(_world(items, (dx, dy), turn))
    assert np.allclose(d0, d1, atol=1e-6)
    assert np.array_equal(zoc0[~edge], zoc1[~edge]) and np.array_equal(arc0[~edge], arc1[~edge])


@settings(max_examples=30, deadline=None)
@given(placements)
def test_writing_the_scene_in_inches_changes_nothing(items):
    d0, zoc0, arc0, edge = _answers(_world(items))
    d1, zoc1, arc1, _ = _answers(_world(items, units="in"))
    assert np.allclose(d0, d1, atol=1e-6)
    assert np.array_equal(zoc0[~edge], zoc1[~edge]) and np.array_equal(arc0[~edge], arc1[~edge])
