"""Round bases on an orthophoto of a table, proposed as troopers.

Hough circles (`HOUGH_GRADIENT_ALT`) on a 0.5 mm-per-pixel orthophoto, on its brightness (a dark base on grey
terrain) and on its colour contrast with the mat around (`mat_contrast`: a sand-painted base on a green mat), each
refined by fitting a circle to the outermost strong edge around it (a model standing on the base has edges inside
it); a circle whose diameter is within 15% of a base size (25, 40, 55 or 70 mm) is snapped to it; a base past the
table's edge by more than 3 mm is dropped, by less it is moved onto the table. Of overlapping circles, bases come
first, then the largest.

A photo taken from aside gives the camera (`photo_table.camera_centre`): the orthophoto is true only at table
height, so a base shows its bottom rim towards the camera and its top rim pushed away from it (`on_the_table`
places it by both), and anything raised shows elsewhere, larger, and a ball stretched away from the camera: each
circle is judged against the base the camera would see there (`judge`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from lofkit.scene.silhouettes import BASE_SILHOUETTES
from lofkit.scene.table import base_overhang

BASE_DIAMETERS = tuple(BASE_SILHOUETTES)
"""The base sizes looked for (mm): those of the silhouettes."""
BASE_TOLERANCE = 0.15
"""A found circle is a base when its diameter is within this share of a base size."""
BASE_SEARCH_MM_PER_PIXEL = 0.5
"""Bases are looked for on an orthophoto of this scale, whatever the scale of table.png."""
EDGE_SLACK = 3.0
"""A base reaching at most this far (mm) past the table's edge is moved onto the table; further, it is dropped."""
OVERLAP_SLACK = 3.0
"""Two circles overlapping by more than this (mm) are one base (bases do not overlap); the larger stays."""

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
HOUGH_ROUNDNESS = 0.8
"""`param2`: how perfect a circle must be to count (1 = perfect). OpenCV advises 0.9, or lower for small circles;
0.8 also keeps a rim partly hidden by the model standing on it."""

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
SIZE_SLACK = 1.5
"""mm: a circle farther than this from the size a base shows at table level, seen from the camera, is "raised"..."""
STRETCH_SLACK = 0.06
"""...and so is one whose outline is stretched more than a base's would be there, by more than this."""
MIN_SUPPORT = 0.6
"""A circle whose fit follows less of its rim than this is only a "possible" base."""


@dataclass(frozen=True)
class FoundBase:
    """A round base found on an orthophoto: centre (mm), diameter snapped to a base size, and as found."""

    position: tuple[float, float]
    diameter_mm: float
    found_diameter_mm: float
    confidence: float = 1.0
    """The share of its rim the fit follows (`refine_circle`'s support)."""
    status: str = "base"
    """"base" (proposed as a trooper), "possible" or "raised" (listed, not proposed: see `judge`)."""
    reason: str = ""


def fit_circle(points: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle (x, y, radius) through (N, 2) points: x^2 + y^2 + a x + b y + c = 0 (Kasa)."""
    x, y = points[:, 0], points[:, 1]
    (a, b, c), *_ = np.linalg.lstsq(np.column_stack([x, y, np.ones_like(x)]), -(x * x + y * y), rcond=None)
    return -a / 2, -b / 2, math.sqrt(max(a * a / 4 + b * b / 4 - c, 0.0))


def _outline_points(gray: np.ndarray, x: float, y: float, radius: float, rays: int) -> np.ndarray:
    """On each ray from (x, y), the outermost strong edge within RAY_REACH radii (sub-pixel, by a parabola)."""
    angles = np.linspace(0.0, 2 * np.pi, rays, endpoint=False)
    steps = np.arange(RAY_REACH[0] * radius, RAY_REACH[1] * radius, RAY_STEP_PX)
    xs = (x + np.cos(angles)[:, None] * steps).astype(np.float32)
    ys = (y + np.sin(angles)[:, None] * steps).astype(np.float32)
    profile = cv2.remap(gray, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    slope = np.abs(np.diff(profile, axis=1))  # slope[:, i] lies half-way between steps i and i + 1
    peak = np.zeros_like(slope, dtype=bool)
    peak[:, 1:-1] = (slope[:, 1:-1] >= slope[:, :-2]) & (slope[:, 1:-1] > slope[:, 2:])
    peak &= (slope >= EDGE_SHARE * slope.max(axis=1, keepdims=True)) & (slope >= EDGE_MIN_STEP)
    last = slope.shape[1] - 1 - np.argmax(peak[:, ::-1], axis=1)
    left, mid, right = (slope[np.arange(rays), np.clip(last + k, 0, slope.shape[1] - 1)] for k in (-1, 0, 1))
    curvature = left - 2 * mid + right
    vertex = 0.5 * (left - right) / np.minimum(curvature, -NONZERO_CURVATURE)  # in samples from the peak
    offset = np.clip(np.where(curvature < 0, vertex, 0.0), -0.5, 0.5)
    reach = steps[0] + RAY_STEP_PX * (last + 0.5 + offset)
    points = np.column_stack([x + np.cos(angles) * reach, y + np.sin(angles) * reach])
    return points[peak.any(axis=1)]


def _stretch(points: np.ndarray) -> float:
    """How stretched an outline (N, 2) is: the ratio of the longest to the shortest axis of the ellipse fitted to it
    (1: round)."""
    if len(points) < 6:
        return 1.0
    _, (a, b), _ = cv2.fitEllipse(points.astype(np.float32))
    return max(a, b) / max(min(a, b), NONZERO_CURVATURE)


def refine_circle(gray: np.ndarray, x: float, y: float, radius: float, rays: int = RAYS, rounds: int = REFINE_ROUNDS
                  ) -> tuple[float, ...] | None:
    """The base's outline near a rough circle (pixels): a circle fitted to the outermost strong edge on rays from the
    centre (a model standing on the base has edges inside it), dropping points far from it (a neighbouring base,
    terrain); repeated from the new circle until it settles, at most `rounds` times (a blurred base may jitter: one
    still moving by JITTER_PX or more is dropped). Returns x, y, radius and the share of the rays whose edge the
    circle fits (its support), and how stretched the rim it follows is (`_stretch`); None when fewer than half the
    rays agree."""
    moved = math.inf
    for _ in range(rounds):
        if radius < MIN_RADIUS_PX:
            return None
        points = _outline_points(gray, x, y, radius, rays)
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
    return (x, y, radius, len(points) / rays, _stretch(points)) if moved < JITTER_PX else None


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


def _circles(gray: np.ndarray, scale: float) -> list[tuple[float, ...]]:
    """Circles of base sizes on one blurred picture (pixels; `scale` mm per pixel), each refined to its rim
    (`refine_circle`: x, y, radius, support, stretch)."""
    smallest, largest = min(BASE_DIAMETERS), max(BASE_DIAMETERS)
    circles = cv2.HoughCircles(
        gray, cv2.HOUGH_GRADIENT_ALT, dp=HOUGH_DP, minDist=HOUGH_MIN_GAP * smallest / scale,
        param1=HOUGH_EDGE_THRESHOLD, param2=HOUGH_ROUNDNESS,
        minRadius=max(2, int((1 - BASE_TOLERANCE) * smallest / 2 / scale)),
        maxRadius=int(math.ceil((1 + BASE_TOLERANCE) * largest / 2 / scale)),
    )
    if circles is None:
        return []
    gray = gray.astype(np.float32)
    refined = [refine_circle(gray, *circle) for circle in circles.reshape(-1, 3).astype(float)]
    return [circle for circle in refined if circle is not None]


def on_the_table(x: np.ndarray, y: np.ndarray, camera: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where bases whose outlines were fitted at (x, y) on the orthophoto stand. Seen at a slant, a base shows its
    bottom rim (on the table, where the orthophoto is true) on the side towards the camera and its top rim (raised by
    BASE_HEIGHT, so pushed away from the point under the camera by a factor k = h / (h - BASE_HEIGHT), h the camera's
    height) on the far side: the fitted centre lies half-way, (k - 1) / 2 of the way further out."""
    below = np.asarray(camera[:2], dtype=float)
    k = camera[2] / (camera[2] - BASE_HEIGHT)
    factor = 1 + (k - 1) / 2
    return below[0] + (x - below[0]) / factor, below[1] + (y - below[1]) / factor


def judge(found: float, diameter: float, support: float, stretch: float, expected: tuple[float, float] | None
          ) -> tuple[str, str]:
    """A circle's status and why. Seen from the camera, a base of `diameter` on the table shows `expected` = (its
    size, its outline's stretch): a circle of another size stands above the table (a token on terrain shows larger),
    and one stretched more is a ball (a model's head shows longer away from the camera): both are "raised". Then
    "possible" when the fit follows too little of its rim, else "base"."""
    if expected is not None and abs(found - expected[0]) > SIZE_SLACK:
        return "raised", (f"shows {found:.1f} mm, a {diameter:g} mm base on the table {expected[0]:.1f} mm: above "
                          "the table")
    if expected is not None and stretch - expected[1] > STRETCH_SLACK:
        return "raised", f"{stretch:.2f} times as long as wide, a base on the table {expected[1]:.2f}: a ball (a head)"
    if support < MIN_SUPPORT:
        return "possible", f"the fit follows only {support:.0%} of its rim"
    return "base", ""


def find_bases(ortho: np.ndarray, width: float, depth: float, camera: np.ndarray | None = None) -> list[FoundBase]:
    """Round bases on an orthophoto of a `width` x `depth` table, far edge first (rules in the module docstring);
    `camera` (table mm, from `photo_table.camera_centre`) corrects for the slant of a photo taken from aside."""
    rows, columns = ortho.shape[:2]
    sx, sy = width / columns, depth / rows
    scale = (sx + sy) / 2
    blur = max(BLUR_MIN_PX, BLUR_MM / scale)
    brightness = cv2.cvtColor(ortho, cv2.COLOR_BGR2GRAY) if ortho.ndim == 3 else ortho
    refined = _circles(cv2.GaussianBlur(brightness, (0, 0), blur), scale)  # a dark base on grey terrain
    refined += _circles(cv2.GaussianBlur(mat_contrast(ortho), (0, 0), blur), scale)  # a sand base on the mat
    circles = np.array(refined, dtype=float).reshape(-1, 5)
    found = 2 * circles[:, 2] * scale
    sizes = np.array(BASE_DIAMETERS)
    nearest = sizes[np.abs(found[:, None] - sizes[None, :]).argmin(axis=1)]
    keep = np.abs(found - nearest) <= BASE_TOLERANCE * nearest
    x, y = (circles[:, 0] + 0.5) * sx, depth - (circles[:, 1] + 0.5) * sy
    expected = [None] * len(x)
    if camera is not None:
        x, y = on_the_table(x, y, camera)
        shift = BASE_HEIGHT * np.hypot(x - camera[0], y - camera[1]) / (camera[2] - BASE_HEIGHT)  # the top rim's
        expected = list(zip(nearest + shift / 2, 1 + shift / nearest))  # see `on_the_table`
    radius = nearest / 2
    overhang = base_overhang(np.column_stack([x, y]), radius, width, depth)
    keep &= overhang <= EDGE_SLACK
    x, y = np.clip(x, radius, width - radius), np.clip(y, radius, depth - radius)
    verdicts = [judge(found[i], nearest[i], circles[i, 3], circles[i, 4], expected[i]) for i in range(len(found))]
    rank = {"base": 0, "possible": 1, "raised": 2}
    accepted: list[int] = []
    for i in sorted(np.flatnonzero(keep), key=lambda i: (rank[verdicts[i][0]], -found[i])):
        gap = np.hypot(x[accepted] - x[i], y[accepted] - y[i]) - radius[accepted] - radius[i]
        if not (gap < -OVERLAP_SLACK).any():  # bases do not overlap: bases first, then the largest, stay
            accepted.append(i)
    accepted.sort(key=lambda i: (-y[i], x[i]))
    return [FoundBase((float(x[i]), float(y[i])), float(nearest[i]), float(found[i]), round(float(circles[i, 3]), 3),
                      *verdicts[i]) for i in accepted]
