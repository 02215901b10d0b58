"""docs/rules.md, Units and frames: lengths in mm, 1 inch = 25.4 mm, strings carry their unit."""

import math

import numpy as np
import pytest

from lofkit import parse_length
from lofkit.units import lengths
from tests.helpers import build_world, trooper


@pytest.mark.parametrize(
    ("written", "unit", "mm"),
    [
        ("8in", "mm", 203.2),
        ('8"', "mm", 203.2),
        ("25mm", "in", 25.0),
        ("2.5cm", "mm", 25.0),
        (" 2.5 cm ", "mm", 25.0),
        (8, "in", 203.2),
        (2.5, "cm", 25.0),
        ("12", "in", 304.8),
        ("-3mm", "mm", -3.0),
        ("1e2mm", "in", 100.0),
    ],
)
def test_lengths_become_millimetres(written, unit, mm):
    assert math.isclose(parse_length(written, unit), mm, abs_tol=1e-9)


@pytest.mark.parametrize("bad", ["8 feet", "in", "", True, None, [1], float("nan"), float("inf"), "nan"])
def test_bad_lengths_are_refused(bad):
    with pytest.raises(ValueError):
        parse_length(bad)


def test_scene_units_apply_to_bare_numbers_only():
    world = build_world(
        [trooper("a", 10, 20), trooper("b", "100mm", "20in", z="1cm")],
        units="in",
    )
    assert world.troopers.centre.tolist() == [[254.0, 508.0], [100.0, 508.0]]
    assert world.troopers.z.tolist() == [0.0, 10.0]


@pytest.mark.parametrize("shape", [(1000, 3), (1000, 2), (20, 30, 3), (3,)])
def test_lengths_are_numpys_norms_bit_for_bit(shape):
    """Sight and distances take lengths from `lengths`: any last bit off could move a verdict at a tolerance."""
    rng = np.random.default_rng(5)
    for scale in (1e-4, 1.0, 1e5):
        vectors = rng.normal(size=shape) * scale
        assert np.array_equal(lengths(vectors), np.linalg.norm(vectors, axis=-1))
        assert np.array_equal(lengths(vectors, keepdims=True), np.linalg.norm(vectors, axis=-1, keepdims=True))
    strided = rng.normal(size=(500, 6))[:, ::2]  # a view, not contiguous
    assert np.array_equal(lengths(strided), np.linalg.norm(strided, axis=-1))
