"""`geometry.flat.convex_hull`: the hull GEOS gives of every point, from only the extreme points Qhull finds."""

import numpy as np
import pytest
import shapely

from lofkit.geometry.flat import convex_hull

GRID = np.stack(np.meshgrid(np.arange(20.0), np.arange(9.0)), -1).reshape(-1, 2)
CASES = {
    "scattered": np.random.default_rng(3).normal(0, 100, (5000, 2)),
    "a grid, many points on the hull's edges": GRID,
    "one line": np.column_stack([np.arange(10.0), 2 * np.arange(10.0)]),
    "two points": np.array([[0.0, 0.0], [3.0, 4.0]]),
    "one point, three times": np.zeros((3, 2)),
}


@pytest.mark.parametrize("xy", CASES.values(), ids=CASES.keys())
def test_the_hull_is_the_one_geos_gives_of_every_point(xy):
    expected = shapely.MultiPoint(xy).convex_hull
    found = convex_hull(xy)
    assert found.geom_type == expected.geom_type
    assert shapely.equals_exact(found, expected, tolerance=0.0), (found, expected)
