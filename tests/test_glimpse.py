"""The glimpse's segments (`sight.glimpse`, compiled): from each eye to points of its target's template, trimmed at
both ends, with every number as numpy's `Segments.between` gives it."""

import numpy as np

from lofkit.sight.glimpse import GLIMPSE_POINTS, _segments_to_templates
from lofkit.sight.lattice import template_axis
from lofkit.sight.segments import Segments
from lofkit.sight.tolerances import END_TRIM
from tests.helpers import build_world, trooper


def _by_numpy(v, eyes, target, towards, points) -> Segments:
    """The template's points placed with numpy arrays, then `Segments.between`."""
    axis = template_axis(eyes, v.centre[target], towards)
    across = points[None, :, 0] * 2 * v.radius[target][:, None]
    up = v.z[target][:, None] + np.maximum(points[None, :, 1] * v.height[target][:, None], END_TRIM)
    ends = np.concatenate([v.centre[target][:, None] + across[..., None] * axis[:, None], up[..., None]], axis=-1)
    return Segments.between(np.repeat(eyes, len(points), axis=0), ends.reshape(-1, 3))


def test_the_segments_end_on_the_template_and_are_numpys_bit_for_bit():
    rng = np.random.default_rng(11)
    world = build_world([trooper(f"t{k}", *rng.uniform(50, 550, 2), silhouette=int(s), z=float(z))
                         for k, (s, z) in enumerate(zip(rng.integers(1, 6, 12), rng.choice([0.0, 40.0], 12)))])
    v = world.troopers
    target = rng.integers(0, len(v.z), 3000)
    eyes = np.column_stack([rng.uniform(0, 600, (3000, 2)), rng.uniform(0, 120, 3000)])
    towards = rng.normal(size=(3000, 2))
    towards /= np.linalg.norm(towards, axis=1, keepdims=True)
    found = _segments_to_templates(v, eyes, target, towards, GLIMPSE_POINTS)
    expected = _by_numpy(v, eyes, target, towards, GLIMPSE_POINTS)
    for field in ("origins", "directions", "lengths"):
        assert np.array_equal(getattr(found, field), getattr(expected, field)), field
    ends = found.origins + found.directions * (found.lengths + END_TRIM)[:, None]
    of = np.repeat(target, len(GLIMPSE_POINTS))
    assert np.all(np.hypot(*(ends[:, :2] - v.centre[of]).T) <= v.radius[of] + 1e-6)
    assert np.all((ends[:, 2] >= v.z[of]) & (ends[:, 2] <= v.z[of] + v.height[of] + 1e-6))
