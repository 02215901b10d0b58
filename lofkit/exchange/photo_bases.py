"""Round bases on an orthophoto of a table, proposed as troopers.

Hough circles (`HOUGH_GRADIENT_ALT`) on a 0.5 mm-per-pixel orthophoto, on its brightness (a dark base on grey
terrain) and on its colour contrast with the mat around (`mat_contrast`: a sand-painted base on a green mat), each
refined by fitting a circle to the outermost strong edge around it (a model standing on the base has edges inside
it), then to the edges nearest that circle (a base in contact with another has the other's edges beyond it), and
again from the edges nearest the circle found (a figure leaning out past its base pulls the outermost edges). A base
hemmed in by others in contact, which the search misses, is guessed from the arcs of their outline (`photo_arcs`),
refined alike and kept only if judged a base. Bases are 20-120 mm wide: a diameter within 2 mm of a standard size
(25, 40, 55, 70 mm) is that size, any other is kept to the mm. A base past the table's edge by more than 3 mm is
dropped, by less it is moved onto the table. Of two fits of one outline (rims within 2 mm all round), the one
following more of its rim stays; of other overlapping circles, bases come first, then the largest.

A photo taken from aside gives the camera (`photo_table.camera_centre`): the orthophoto is true only at table
height, so a base shows its bottom rim towards the camera and its top rim, 3 mm up, pushed away from it; the fit
brings that rim down (`top_rim_down`), so the circle is the base where it stands. A round outline is proposed only
when it looks like a base on the table (`judge`, on the cues of `photo_cues`): round once brought down (a head or a
barrel is stretched away from the camera), the table showing beyond its near side where its rim shows (not a roof,
nor the side of a barrel or a body; a wall in front hides both), its far rim showing beside what stands on it (not a
barrel's side), a dark rim, an edge no lighter than its inside (not an open barrel's mouth), and a figure in its
middle (not a flat token or a lid). Where
it touches another round outline of a base's size (`photo_cues.touching_circles`: a base in base contact), that
one stands for the table beyond it, and its rim is not asked to show there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from lofkit.exchange.photo_arcs import arc_seeds, fit_circle
from lofkit.exchange.photo_cues import RIM_RAYS, cues, into_neighbours, mat_colour, rim_support, touching_circles
from lofkit.scene.silhouettes import BASE_SILHOUETTES
from lofkit.scene.table import base_overhang

BASE_DIAMETERS = tuple(BASE_SILHOUETTES)
"""The standard base sizes (mm): those of the silhouettes."""
BASE_RANGE = (20.0, 120.0)
"""Round bases are this wide (mm), from the smallest to a large vehicle's."""
BASE_TOLERANCE = 0.15
"""Circles are looked for this share beyond BASE_RANGE (a base measured at a slant)."""
STANDARD_SNAP = 2.0
"""A base measured within this (mm) of a standard size is that size: a base is measured to about 1 mm, and the
nearest other common sizes (28, 32, 50 mm) lie further off."""
BASE_SEARCH_MM_PER_PIXEL = 0.5
"""Bases are looked for on an orthophoto of this scale, whatever the scale of table.png."""
EDGE_SLACK = 3.0
"""A base reaching at most this far (mm) past the table's edge is moved onto the table; further, it is dropped."""
OVERLAP_SLACK = 3.0
"""Two circles overlapping by more than this (mm) are one base (bases do not overlap); the larger stays..."""
SAME_OUTLINE_MM = 2.0
"""...unless both are fits of one outline (centres and radii this close, mm: twice a base's measurement), when the
one that follows more of its rim stays."""

CONTRAST_GAIN = 3.0
"""Grey levels per unit of colour distance (CIE Lab) from the mat's colour in the picture bases are looked for on."""
MAT_SHRINK = 8
MAT_WINDOW_PX = 250
"""The mat's colour around a pixel is the median over this many pixels of the search picture (125 mm), computed
on the picture shrunk MAT_SHRINK times."""

# The circle search (cv2.HoughCircles with HOUGH_GRADIENT_ALT) on the blurred contrast of the orthophoto.
BLUR_MM = 0.6
"""Gaussian blur (sigma, mm) before the search, but at least BLUR_MIN_PX pixels: it smooths the mat's mottle and
the photo's noise, and keeps a base's rim sharp enough to find."""
BLUR_MIN_PX = 0.8
HOUGH_DP = 1.5
"""Inverse resolution of the Hough accumulator: 1.5 times coarser than the image (OpenCV's advice for this method)."""
HOUGH_MIN_GAP = 0.8
"""Two circles found are at least this share of the smallest base apart, centre to centre (two bases in base
contact are a whole base apart)."""
HOUGH_EDGE_THRESHOLD = 300
"""`param1`: the upper Canny threshold of the edge map. This method takes Scharr gradients, so it is high (300 is
OpenCV's advice for a normally exposed photo with contrast)."""
HOUGH_ROUNDNESS = 0.7
"""`param2`: how perfect a circle must be to count (1 = perfect). OpenCV advises 0.9, or lower for small circles;
0.7 also keeps a rim partly hidden by the model standing on it, or running into a base it touches."""

SEED_GROWTH = (1.0, 2.0, 4.0)
"""Each circle found is refined from its own radius and from these multiples of it: the search keeps one of
concentric circles, often a figure's head or body, and the base around it lies 1.2 to 6 times as far out."""

# Refining a circle to the base's rim: rays from its centre, the outermost strong edge on each, a least-squares fit.
RAYS = 120
"""Rays cast from a rough circle's centre."""
RAY_REACH = (0.6, 1.5)
"""Each ray looks for the rim between these multiples of the rough radius."""
RAY_STEP_PX = 0.5
"""Spacing of the brightness samples along a ray (pixels)."""
EDGE_SHARE = 0.4
"""An edge on a ray is strong when its brightness step is at least this share of the ray's strongest..."""
EDGE_MIN_STEP = 2.0
"""...and at least this many grey levels from one sample to the next (a flat mat has no rim)."""
NONZERO_CURVATURE = 1e-9
"""Keeps the divisor of the sub-pixel parabola away from zero where its result is not used."""
MISFIT_PX = 0.75
MISFIT_MEDIANS = 2.5
"""Rim points farther from the fitted circle than max(MISFIT_PX, MISFIT_MEDIANS x the median misfit) are dropped (a
neighbouring base, terrain), three times over."""
SUPPORT_PX = 2.0
"""A ray's edge within this of the fitted circle (pixels: 1 mm at the search scale) follows it: the scatter of a
rim's edge in a JPEG photo rectified at a slant."""
MIN_RADIUS_PX = 2.0
"""A circle smaller than this radius (pixels) has too few pixels to refine: it is dropped."""
REFINE_ROUNDS = 6
"""The fit is repeated from the new circle at most this many times..."""
SETTLED_PX = 0.25
"""...until it moves by less than this (pixels, centre shift plus radius change)."""
JITTER_PX = 1.0
"""A circle still moving this much after the last round is dropped (a blurred base may jitter)."""

# Judging a circle found (`judge`).
BASE_HEIGHT = 3.0
"""Height (mm) of a base's top rim above the table (Infinity's bases are about 3 mm thick)."""
STRETCH_SLACK = 0.06
"""A base's outline, its top rim brought down, is round; one longer than wide by more than this share stands taller:
a ball (a head) or an upright cylinder (a barrel), whose side the orthophoto stretches away from the camera."""
MIN_GROUND = 0.5
"""A base shows the table beyond at least this share of its near side (a neighbour or a wall may hide the rest)."""
DARK_RIM = 0.4
"""A base's rim is at most this share of the mat's lightness: black plastic shows under 0.35 of it in light or
shade, through the blur of a slanted photo; a face, a painted barrel, a coloured token show more."""
HOLLOW_EDGE = 0.3
"""A base's edge is not lighter than its inside by more than this share of the mat's lightness (`photo_cues`; bases
in light or shade: 0.11 at most but a few, 0.21): its black rim is its darkest part, and its figure or painted top
shows in its middle. A hollow's lit wall round its dark mouth is 0.45 and more lighter."""
MIN_FIGURE = 7.0
"""A base's middle differs from its top by at least this colour distance (`photo_cues`): a figure stands there. A
flat token or a lid, one colour, differs by under 5 (light, noise, JPEG); a figure by 10 and more."""
MIN_FAR_RIM = 0.1
"""A barrel's side, seen from low down, hides all of its far rim (under 0.05 of it shows); a base's figure hides it
only as wide as the figure is, though a broad one seen from low down may leave little (0.15 and more, but a few)."""
FAR_SIDE_DEGREES = 60.0
"""The far side: rays within this angle of the direction away from the camera (clear of where a barrel's sides
meet its rim)."""
MIN_SUPPORT = 0.6
"""A circle whose fit follows less of its rim than this is only a "possible" base (the rim not running into a base
it touches, when that leaves at least `photo_cues.MIN_FREE_RIM` of it)."""


@dataclass(frozen=True)
class FoundBase:
    """A round base found on an orthophoto: centre (mm), diameter snapped to a base size, and as found."""

    position: tuple[float, float]
    diameter_mm: float
    found_diameter_mm: float
    confidence: float = 1.0
    """The share of its rim the fit follows (`rim_support`)."""
    status: str = "base"
    """"base" (proposed as a trooper), "possible" or "raised" (listed, not proposed: see `judge`)."""
    reason: str = ""
    rim: float = 0.0
    """Its rim's lightness as a share of the mat's (`photo_cues`)."""
    ground: float = 1.0
    """The share of its near side beyond which the table shows."""
    figure: float = 0.0
    """How far the colour of its middle is from its top's."""
    hollow: float = 0.0
    """How much lighter its edge is than its inside, as a share of the mat's lightness."""
    stretch: float = 1.0
    """How much longer than wide its outline is, its top rim brought down (`refine_circle`)."""
    far_rim: float = 1.0
    """The share of its far rim (away from the camera) the fit follows (`refine_circle`)."""


class RimFit(NamedTuple):
    """A circle fitted to a base's rim (`refine_circle`, pixels)."""

    x: float
    y: float
    radius: float
    follows: np.ndarray
    """(rays,) bool: on each ray from the centre (from angle 0), whether the outermost strong edge (the silhouette:
    what stands on the base or beside it shows there) lies within SUPPORT_PX of the circle."""
    stretch: float
    """How stretched the rim those edges follow is (`_stretch`)."""
    far_rim: float
    """How much of its far side the fit follows (`_far_support`)."""


def _outline_points(gray: np.ndarray, x: float, y: float, radius: float, rays: int,
                    expected: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """On each ray from (x, y), the outermost strong edge within RAY_REACH radii; and, given the reach `expected` on
    each ray (rays,), the strong edge nearest to it (else the outermost again). Sub-pixel, by a parabola; rays with
    no strong edge are left out: the third array says which rays the points are on."""
    angles = np.linspace(0.0, 2 * np.pi, rays, endpoint=False)
    steps = np.arange(RAY_REACH[0] * radius, RAY_REACH[1] * radius, RAY_STEP_PX)
    xs = (x + np.cos(angles)[:, None] * steps).astype(np.float32)
    ys = (y + np.sin(angles)[:, None] * steps).astype(np.float32)
    profile = cv2.remap(gray, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    slope = np.abs(np.diff(profile, axis=1))  # slope[:, i] lies half-way between steps i and i + 1
    peak = np.zeros_like(slope, dtype=bool)
    peak[:, 1:-1] = (slope[:, 1:-1] >= slope[:, :-2]) & (slope[:, 1:-1] > slope[:, 2:])
    peak &= (slope >= EDGE_SHARE * slope.max(axis=1, keepdims=True)) & (slope >= EDGE_MIN_STEP)
    any_edge = peak.any(axis=1)

    def edge_points(index: np.ndarray) -> np.ndarray:
        left, mid, right = (slope[np.arange(rays), np.clip(index + k, 0, slope.shape[1] - 1)] for k in (-1, 0, 1))
        curvature = left - 2 * mid + right
        vertex = 0.5 * (left - right) / np.minimum(curvature, -NONZERO_CURVATURE)  # in samples from the peak
        offset = np.clip(np.where(curvature < 0, vertex, 0.0), -0.5, 0.5)
        reach = steps[0] + RAY_STEP_PX * (index + 0.5 + offset)
        return np.column_stack([x + np.cos(angles) * reach, y + np.sin(angles) * reach])[any_edge]

    outermost = edge_points(slope.shape[1] - 1 - np.argmax(peak[:, ::-1], axis=1))
    if expected is None:
        return outermost, outermost, np.flatnonzero(any_edge)
    gap = np.abs(steps[0] + RAY_STEP_PX * (np.arange(slope.shape[1]) + 0.5) - expected[:, None])
    return outermost, edge_points(np.argmin(np.where(peak, gap, np.inf), axis=1)), np.flatnonzero(any_edge)


def _stretch(points: np.ndarray) -> float:
    """How stretched an outline (N, 2) is: the ratio of the longest to the shortest axis of the ellipse fitted to it
    (1: round)."""
    if len(points) < 6:
        return 1.0
    _, (a, b), _ = cv2.fitEllipse(points.astype(np.float32))
    return max(a, b) / max(min(a, b), NONZERO_CURVATURE)


def top_rim_down(points: np.ndarray, x: float, y: float, view: tuple[np.ndarray, float] | None) -> np.ndarray:
    """Outline points (pixels) of a base centred near (x, y), its top rim brought down to the table. Seen at a
    slant, a base shows its bottom rim on the side towards the camera and its top rim, raised BASE_HEIGHT, on the
    far side: pushed away from the point under the camera (`view` = that point, pixels, and k = h / (h -
    BASE_HEIGHT), h the camera's height) k times as far. Points on the far side are brought back, so one circle
    fits all: the base's bottom, where it stands."""
    if view is None:
        return points
    foot, k = view
    away = np.array([x, y]) - foot
    far = (points - [x, y]) @ away > 0
    points = points.copy()
    points[far] = foot + (points[far] - foot) / k
    return points


def _raw_reach(x: float, y: float, radius: float, rays: int, view: tuple[np.ndarray, float] | None) -> np.ndarray:
    """How far along each ray from (x, y) the rim of the circle (x, y, radius) shows on the orthophoto: its far side
    raised to the base's top rim (`top_rim_down` by the inverse factor)."""
    angles = np.linspace(0.0, 2 * np.pi, rays, endpoint=False)
    ways = np.column_stack([np.cos(angles), np.sin(angles)])
    raised = top_rim_down(np.array([x, y]) + radius * ways, x, y, None if view is None else (view[0], 1 / view[1]))
    return np.einsum("ij,ij->i", raised - [x, y], ways)


def refine_circle(gray: np.ndarray, x: float, y: float, radius: float, rays: int = RAYS, rounds: int = REFINE_ROUNDS,
                  view: tuple[np.ndarray, float] | None = None, nearest_first: bool = False) -> RimFit | None:
    """The base's outline near a rough circle (pixels): a circle fitted to the outermost strong edge on rays from the
    centre (a model standing on the base has edges inside it; with `nearest_first`, to the edge nearest the rough
    circle, as in the later rounds), its top rim brought down (`top_rim_down`, when the `view` is known), dropping
    points far from it (a neighbouring base, terrain); repeated from the new circle until it settles, at most
    `rounds` times, each time on the strong edge nearest to the circle on each ray (a base in contact with another:
    on the rays into it, the outermost edge is the other's far rim or figure); a blurred base may jitter: one still
    moving by JITTER_PX or more is dropped. None when fewer than half the rays agree."""
    moved = math.inf
    for round_ in range(rounds):
        if radius < MIN_RADIUS_PX:
            return None
        expected = _raw_reach(x, y, radius, rays, view) if round_ > 0 or nearest_first else None
        outermost, nearest, on_rays = _outline_points(gray, x, y, radius, rays, expected)
        points = outline = top_rim_down(nearest, x, y, view)
        silhouette = top_rim_down(outermost, x, y, view)
        for _ in range(3):
            if len(points) < rays // 2:
                return None
            cx, cy, r = fit_circle(points)
            misfit = np.abs(np.hypot(points[:, 0] - cx, points[:, 1] - cy) - r)
            points = points[misfit <= max(MISFIT_PX, MISFIT_MEDIANS * float(np.median(misfit)))]
        moved = math.hypot(cx - x, cy - y) + abs(r - radius)
        x, y, radius = cx, cy, r
        if moved < SETTLED_PX:
            break
    if moved >= JITTER_PX:
        return None
    follows = np.abs(np.hypot(outline[:, 0] - x, outline[:, 1] - y) - radius) <= SUPPORT_PX
    on_rim = np.abs(np.hypot(silhouette[:, 0] - x, silhouette[:, 1] - y) - radius) <= SUPPORT_PX
    rim_rays = np.zeros(rays, dtype=bool)
    rim_rays[on_rays[on_rim]] = True
    far_rim = _far_support(outline[follows], x, y, rays, view)
    return RimFit(x, y, radius, rim_rays, _stretch(silhouette[on_rim]), far_rim)


def _far_support(points: np.ndarray, x: float, y: float, rays: int, view: tuple[np.ndarray, float] | None) -> float:
    """The share of the rays on the far side of a circle (within FAR_SIDE_DEGREES of the direction away from the
    camera) whose edge it follows (`points`): what stands on a base leans that way on the orthophoto and hides the
    far rim only as wide as it is. 1 when the camera is straight above."""
    if view is None or not np.hypot(x - view[0][0], y - view[0][1]) > 0:
        return 1.0
    away = math.atan2(y - view[0][1], x - view[0][0])
    off = np.abs((np.arctan2(points[:, 1] - y, points[:, 0] - x) - away + np.pi) % (2 * np.pi) - np.pi)
    return float(np.count_nonzero(off <= math.radians(FAR_SIDE_DEGREES)) / (rays * FAR_SIDE_DEGREES / 180))


def mat_contrast(ortho: np.ndarray) -> np.ndarray:
    """How far each pixel's colour lies from the mat's around it (CIE Lab; the mat's colour is the median over
    MAT_WINDOW_PX, wider than any base), as grey levels: a black base and a sand-painted one stand out alike, from a
    mottled, unevenly lit mat of any colour (a grey picture is its own contrast)."""
    if ortho.ndim == 2:
        return ortho
    lab = cv2.cvtColor(ortho, cv2.COLOR_BGR2LAB)
    rows, columns = lab.shape[:2]
    small = cv2.resize(lab, (max(1, columns // MAT_SHRINK), max(1, rows // MAT_SHRINK)), interpolation=cv2.INTER_AREA)
    window = 2 * (MAT_WINDOW_PX // (2 * MAT_SHRINK)) + 1
    mat = cv2.resize(cv2.medianBlur(small, window), (columns, rows), interpolation=cv2.INTER_LINEAR)
    distance = np.linalg.norm(lab.astype(np.float32) - mat.astype(np.float32), axis=2)
    return np.clip(CONTRAST_GAIN * distance, 0, 255).astype(np.uint8)


def _circles(gray: np.ndarray, scale: float, view: tuple[np.ndarray, float] | None
             ) -> tuple[list[RimFit], list[RimFit]]:
    """Circles of base sizes on one blurred picture (pixels; `scale` mm per pixel), each refined to its rim
    (`refine_circle`, from the outermost edges and from the nearest ones), and to the rims of any base around it
    (SEED_GROWTH); and, apart, those refined from circles fitted to the arcs of the outlines of bases in contact
    (`photo_arcs.arc_seeds`), guesses for bases the search misses."""
    smallest, largest = min(BASE_RANGE), max(BASE_RANGE)
    circles = cv2.HoughCircles(
        gray, cv2.HOUGH_GRADIENT_ALT, dp=HOUGH_DP, minDist=HOUGH_MIN_GAP * smallest / scale,
        param1=HOUGH_EDGE_THRESHOLD, param2=HOUGH_ROUNDNESS,
        minRadius=max(2, int((1 - BASE_TOLERANCE) * smallest / 2 / scale)),
        maxRadius=int(math.ceil((1 + BASE_TOLERANCE) * largest / 2 / scale)),
    )
    if circles is None:
        return [], []
    most = (1 + BASE_TOLERANCE) * largest / 2 / scale
    searched = [(x, y, r * grow) for x, y, r in circles.reshape(-1, 3).astype(float) for grow in SEED_GROWTH
                if r * grow <= most]
    guessed = arc_seeds(gray, scale, (1 - BASE_TOLERANCE) * smallest / 2 / scale, most)
    gray = gray.astype(np.float32)

    def refined(seeds):
        fits = [refine_circle(gray, *seed, view=view, nearest_first=first) for seed in seeds for first in (False, True)]
        return [fit for fit in fits if fit is not None]

    return refined(searched), refined(guessed)


def base_size(measured: np.ndarray) -> np.ndarray:
    """The base size a measured diameter (mm) is: the standard size within STANDARD_SNAP of it, else itself to the
    nearest mm."""
    sizes = np.array(BASE_DIAMETERS)
    nearest = sizes[np.abs(measured[:, None] - sizes[None, :]).argmin(axis=1)]
    return np.where(np.abs(measured - nearest) <= STANDARD_SNAP, nearest, np.round(measured))


def judge(support: float, stretch: float, rim: float, ground: float, figure: float, far_rim: float = 1.0,
          hollow: float = 0.0) -> tuple[str, str]:
    """A circle's status and why (the cues: `photo_cues`). "raised" when it is not on the table: its outline is
    stretched (a head, a barrel: taller than a base, whose outline, its top rim brought down, is round), the table
    does not show beyond its near side (a roof, a barrel's or a body's side, a head's body), or its far rim is hidden
    across its width (a barrel's side seen from low down). Then "possible" when it
    has no dark rim, its edge is lighter than its inside (an open barrel's mouth), nothing stands in its middle (a
    token, a lid), or the fit follows too little of its rim; else "base"."""
    if stretch - 1 > STRETCH_SLACK:
        return "raised", (f"{stretch:.2f} times as long as wide, a base on the table is round: taller than a base "
                          "(a head, a barrel)")
    if ground < MIN_GROUND:
        return "raised", f"the table shows beyond only {ground:.0%} of its near side: above the table"
    if far_rim < MIN_FAR_RIM:
        return "raised", (f"only {far_rim:.0%} of its far rim shows: what stands on it is as wide as it (a barrel, "
                          "a crate)")
    if rim > DARK_RIM:
        return "possible", f"its rim is {rim:.0%} as light as the mat: no dark base rim"
    if hollow > HOLLOW_EDGE:
        return "possible", f"its edge is lighter than its inside ({hollow:.2f}): something hollow, not a black rim"
    if figure < MIN_FIGURE:
        return "possible", f"its middle is the colour of its top ({figure:.0f}): nothing stands on it"
    if support < MIN_SUPPORT:
        return "possible", f"the fit follows only {support:.0%} of its rim"
    return "base", ""


def weaker_fits(x: np.ndarray, y: np.ndarray, radius: np.ndarray, support: np.ndarray, status: np.ndarray
                ) -> np.ndarray:
    """Which circles (mm) are a second fit of an outline another fits better: their rims lie within SAME_OUTLINE_MM of
    each other all round (centres' distance plus radii's difference), both have one `status`, and the other follows
    more of its rim (`support`)."""
    apart = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :]) + np.abs(radius[:, None] - radius[None, :])
    better = (apart <= SAME_OUTLINE_MM) & (status[:, None] == status[None, :]) & (support[None, :] > support[:, None])
    return better.any(axis=1)


def find_bases(ortho: np.ndarray, width: float, depth: float, camera: np.ndarray | None = None) -> list[FoundBase]:
    """Round bases on an orthophoto of a `width` x `depth` table, far edge first (rules in the module docstring);
    `camera` (table mm, from `photo_table.camera_centre`) corrects for the slant of a photo taken from aside."""
    if ortho.ndim == 2:
        ortho = cv2.cvtColor(ortho, cv2.COLOR_GRAY2BGR)
    rows, columns = ortho.shape[:2]
    sx, sy = width / columns, depth / rows
    scale = (sx + sy) / 2
    blur = max(BLUR_MIN_PX, BLUR_MM / scale)
    brightness = cv2.cvtColor(ortho, cv2.COLOR_BGR2GRAY)
    foot = None if camera is None else np.array([camera[0] / sx - 0.5, (depth - camera[1]) / sy - 0.5])
    view = None if camera is None else (foot, camera[2] / (camera[2] - BASE_HEIGHT))
    searched, guessed = [], []
    for picture in (brightness, mat_contrast(ortho)):  # a dark base on grey terrain, a sand base on the mat
        found_by_search, found_from_arcs = _circles(cv2.GaussianBlur(picture, (0, 0), blur), scale, view)
        searched, guessed = searched + found_by_search, guessed + found_from_arcs
    fits = searched + guessed
    circles = np.array([(fit.x, fit.y, fit.radius, fit.stretch, fit.far_rim) for fit in fits]).reshape(-1, 5)
    found = 2 * circles[:, 2] * scale
    keep = (found >= (1 - BASE_TOLERANCE) * min(BASE_RANGE)) & (found <= (1 + BASE_TOLERANCE) * max(BASE_RANGE))
    touching = touching_circles(circles[:, :3], foot, scale, None if camera is None else camera[2])
    touching &= keep[:, None] & keep[None, :]  # a circle of no base's size stands for no base in contact
    follows = np.array([fit.follows for fit in fits], dtype=bool).reshape(-1, RAYS)
    support = rim_support(follows, into_neighbours(circles[:, :3], touching, scale, RAYS))
    x, y = (circles[:, 0] + 0.5) * sx, depth - (circles[:, 1] + 0.5) * sy
    diameter = base_size(found)
    radius = diameter / 2
    overhang = base_overhang(np.column_stack([x, y]), radius, width, depth)
    keep &= overhang <= EDGE_SLACK
    x, y = np.clip(x, radius, width - radius), np.clip(y, radius, depth - radius)
    lab = cv2.cvtColor(ortho, cv2.COLOR_BGR2LAB)
    wall = np.zeros(len(x))
    if camera is not None:  # how far a base's side shows inside its near rim (`top_rim_down`), pixels
        wall = BASE_HEIGHT * np.hypot(x - camera[0], y - camera[1]) / (camera[2] - BASE_HEIGHT) / scale
    shows = follows[:, np.round(np.arange(RIM_RAYS) * RAYS / RIM_RAYS).astype(int) % RAYS]  # on the cues' rays
    rim, ground, figure, hollow = cues(lab, mat_colour(lab), circles[:, :3], foot, wall, scale, touching, shows)
    verdicts = [judge(support[i], circles[i, 3], rim[i], ground[i], figure[i], circles[i, 4], hollow[i])
                for i in range(len(x))]
    rank = {"base": 0, "possible": 1, "raised": 2}
    status = np.array([rank[verdict[0]] for verdict in verdicts], dtype=int)
    kept = np.flatnonzero(keep & ((np.arange(len(fits)) < len(searched)) | (status == rank["base"])))  # guesses: bases
    kept = kept[~weaker_fits(x[kept], y[kept], found[kept] / 2, support[kept], status[kept])]
    accepted: list[int] = []
    for i in sorted(kept, key=lambda i: (status[i], -found[i])):
        gap = np.hypot(x[accepted] - x[i], y[accepted] - y[i]) - radius[accepted] - radius[i]
        if not (gap < -OVERLAP_SLACK).any():  # bases do not overlap: bases first, then the largest, stay
            accepted.append(i)
    accepted.sort(key=lambda i: (-y[i], x[i]))
    return [FoundBase((float(x[i]), float(y[i])), float(diameter[i]), float(found[i]), round(float(support[i]), 3),
                      *verdicts[i], rim=round(float(rim[i]), 3), ground=round(float(ground[i]), 3),
                      figure=round(float(figure[i]), 1), stretch=round(float(circles[i, 3]), 3),
                      far_rim=round(float(circles[i, 4]), 3), hollow=round(float(hollow[i]), 3)) for i in accepted]
