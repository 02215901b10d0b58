"""docs/rules.md (Units and frames): the table top spans 0 <= x <= width, 0 <= y <= depth, and lengths compare within
1e-6 mm. One rule, `scene.table.base_on_table`, decides whether a base lies on the table for every caller: a base
exactly touching an edge is on the table, one reaching 1e-3 mm past it is not."""

from __future__ import annotations

import numpy as np
import pytest

from lofkit import SceneError, World, scene_from_data
from lofkit.design.layout import place
from lofkit.rules.dispersion import DispersionError, disperse
from lofkit.scene.table import base_on_table, base_overhang, table_overhang
from tests.helpers import scene_data, trooper

W, D, R = 600.0, 400.0, 12.5  # an S2 base
TOUCHING = [(R, 200.0), (W - R, 200.0), (300.0, R), (300.0, D - R)]  # touching each edge from inside
OVER = 1e-3


def _past(centre: tuple[float, float], by: float) -> tuple[float, float]:
    """`centre` (touching an edge) moved `by` mm further out past that edge."""
    x, y = centre
    return (x - by if x == R else x + by if x == W - R else x, y - by if y == R else y + by if y == D - R else y)


@pytest.mark.parametrize("centre", TOUCHING)
def test_a_base_exactly_touching_an_edge_is_on_the_table(centre):
    assert base_on_table(centre, R, W, D).tolist() == [True]
    assert base_overhang(centre, R, W, D)[0] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("centre", TOUCHING)
def test_a_base_a_micrometre_past_an_edge_is_off_the_table(centre):
    past = _past(centre, OVER)
    assert base_on_table(past, R, W, D).tolist() == [False]
    assert base_overhang(past, R, W, D)[0] == pytest.approx(OVER)


def test_within_the_tolerance_is_on_the_table_beyond_it_is_not():
    centres = [(R - 0.9e-6, 200.0), (R - 1.1e-6, 200.0)]
    assert base_on_table(centres, R, W, D).tolist() == [True, False]


def test_vectorised_over_bases_and_radii():
    centres = np.array([[R, R], [W - 20.0, D - 20.0], [W / 2, D / 2]])
    assert base_on_table(centres, [R, 20.0, 300.0], W, D).tolist() == [True, True, False]
    assert base_on_table(np.zeros((0, 2)), R, W, D).shape == (0,)


def test_rectangles_and_points():
    assert table_overhang([[-2.0, 0.0]], [[10.0, 401.0]], W, D).tolist() == [2.0]
    assert base_on_table([(0.0, 0.0), (W, D), (W + OVER, 0.0)], 0.0, W, D).tolist() == [True, True, False]


# --- every caller applies that one rule -------------------------------------------------------------------------


@pytest.mark.parametrize("centre", TOUCHING)
def test_scene_validation_accepts_touching_rejects_past(centre):
    scene_from_data(scene_data([trooper("a", *centre)], table={"width": W, "depth": D}))
    with pytest.raises(SceneError, match="past the table edge"):
        scene_from_data(scene_data([trooper("a", *_past(centre, OVER))], table={"width": W, "depth": D}))


def test_terrain_touching_the_edge_is_no_warning_past_it_is():
    def warnings(x: float) -> list[str]:
        piece = {"id": "crate", "box": {"size": [20, 20, 20]}, "position": [x, 100, 0]}
        world = World.from_scene(scene_from_data(scene_data([], [piece], table={"width": W, "depth": D})))
        return [w.message for w in world.warnings]

    assert warnings(W - 10) == []
    assert warnings(W - 10 + OVER) == ["'crate' reaches 0.0 mm past the table edge"]


@pytest.mark.parametrize("centre", TOUCHING)
def test_where_bases_fit_touching_fits_past_does_not(centre):
    world = World.from_scene(scene_from_data(scene_data([], [], table={"width": W, "depth": D})))
    assert place(world, [centre, _past(centre, OVER)], 2).fits.tolist() == [True, False]


def test_dispersion_point_on_the_edge_is_on_the_table_past_it_is_not():
    world = World.from_scene(scene_from_data(scene_data(
        [trooper("a", 300, 200)], table={"width": W, "depth": D},
        deployment_zones=[{"side": "blue", "polygon": [[0, 0], [W, 0], [W, 100], [0, 100]]}])))
    assert disperse(world, "a", (W, D / 2), 1).at == (W, D / 2)
    with pytest.raises(DispersionError, match="off the table"):
        disperse(world, "a", (W + OVER, D / 2), 1)
