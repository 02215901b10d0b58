"""Circles from outlines (`photo_arcs`) and which circles stand for a base in contact (`touching_circles`), on
constructed pictures whose circles are known by hand."""

import math

import cv2
import numpy as np
import pytest

from lofkit.exchange.photo_arcs import NOTCH_MM, arc_seeds, fit_circle, notches
from lofkit.exchange.photo_cues import TALLEST_MM, touching_circles

MM_PER_PIXEL = 0.5


def _blob(discs: list[tuple[float, float, float]], size: tuple[int, int] = (400, 600)) -> np.ndarray:
    """A grey picture (mat 40) with white discs (x, y, radius in pixels) drawn anti-aliased and blurred a little,
    as the contrast picture shows bases."""
    image = np.full(size, 40, np.uint8)
    for x, y, r in discs:
        cv2.circle(image, (round(x * 16), round(y * 16)), round(r * 16), 230, -1, cv2.LINE_AA, shift=4)
    return cv2.GaussianBlur(image, (0, 0), 1.2)


def _nearest(seeds, disc):
    return min(seeds, key=lambda s: math.hypot(s[0] - disc[0], s[1] - disc[1]) + abs(s[2] - disc[2]))


def test_a_least_squares_circle_through_points_on_a_circle_is_that_circle():
    angles = np.linspace(0.3, 2.0, 40)  # a third of a turn is enough
    points = np.column_stack([17.5 + 31.0 * np.cos(angles), -4.0 + 31.0 * np.sin(angles)])
    assert np.allclose(fit_circle(points), (17.5, -4.0, 31.0))


@pytest.mark.parametrize("middle", [20.0, 12.5], ids=["40-40-40", "40-25-40"])
def test_each_base_of_a_row_in_contact_gets_a_seed_from_its_arcs(middle):
    """Three bases in a row, each touching the next (0.5 px apart; 0.5 mm a pixel): one blob, whose outline dips
    under its hull in one gap above the row and one below, each holding two notches (one at each touch). The arcs
    between notches belong to one base each, and the circle fitted to each lies within a pixel of that base's,
    the middle one's too (two arcs, above and below), whether it is as wide as the others or narrower."""
    discs = [(140.0, 200.0, 40.0), (180.5 + middle, 200.0, middle), (221.0 + 2 * middle, 200.0, 40.0)]
    seeds = arc_seeds(_blob(discs), MM_PER_PIXEL, 10.0, 60.0)
    for disc in discs:
        x, y, r = _nearest(seeds, disc)
        assert math.hypot(x - disc[0], y - disc[1]) < 1.0 and abs(r - disc[2]) < 1.0, (disc, (x, y, r))
    assert len([s for s in seeds if math.hypot(s[0] - discs[1][0], s[1] - discs[1][1]) < 1.0]) == 2
    assert len(seeds) == 4


def test_a_blob_with_no_notch_or_of_no_base_size_gives_no_seed():
    """A base standing alone has no notch (the circle search finds it whole); two discs of 5 mm radius in contact
    notch deep enough, but their arcs are of no base's size."""
    assert arc_seeds(_blob([(200.0, 200.0, 40.0)]), MM_PER_PIXEL, 30.0, 60.0) == []
    assert arc_seeds(_blob([(200.0, 200.0, 10.0), (220.5, 200.0, 10.0)]), MM_PER_PIXEL, 30.0, 60.0) == []


def test_a_notch_is_as_deep_as_its_dip_below_the_hull():
    """A square 100 px across with a V cut into its top edge, 8 px deep: at 0.5 mm a pixel, 4 mm, one notch at the
    V's tip; a 2 mm (4 px) V is no notch."""
    for depth, found in ((8, 1), (4, 0)):
        outline = np.array([[0, 0], [45, 0], [50, depth], [55, 0], [100, 0], [100, 100], [0, 100]], float)
        corners = zip(outline, np.roll(outline, -1, axis=0))
        dense = np.concatenate([np.linspace(a, b, 50, endpoint=False) for a, b in corners])
        cuts = notches(dense, NOTCH_MM / MM_PER_PIXEL)
        assert len(cuts) == found, depth
        if found:
            assert np.allclose(dense[cuts[0]], [50, depth])


def test_a_wider_circle_in_line_towards_the_camera_is_a_neighbour_when_no_figure_stands_that_tall():
    """Circle 0 (40 mm) touches circle 1 (55 mm), which lies straight towards the point under the camera, 1,000 mm
    off: circle 0 could be the top of what stands on circle 1, pushed away from the camera, only at the height h
    where h d / (H - h) = 48 mm (d = 1,000 mm, H the camera's height): h = 48 H / 1,048. From 1,000 mm up that is
    46 mm (a figure's head: not a neighbour); from 3,000 mm up, 137 mm (taller than any figure: a neighbour)."""
    circles = np.array([[0.0, 48.0, 20.0], [0.0, 0.0, 27.5]])  # 1 mm a pixel; 0.5 mm apart rim to rim
    foot = np.array([0.0, -1000.0])
    for height, neighbour in ((1000.0, False), (3000.0, True)):
        assert (height * 48 / 1048 > TALLEST_MM) == neighbour
        assert touching_circles(circles, foot, 1.0, height)[0, 1] == neighbour, height
        assert touching_circles(circles, foot, 1.0, height)[1, 0]  # circle 0 lies away from circle 1's camera
    assert not touching_circles(circles, foot, 1.0)[0, 1]  # the camera's height not known: it may be a top
