"""Circles from outlines: a least-squares circle through points, and seeds for bases in contact from the arcs of a
picture's blobs.

Bases in base contact make one blob on the picture, and a base between two others shows only part of its rim, too
little for the circle search (`photo_bases.HOUGH_ROUNDNESS`). The blob's outline (Otsu's threshold) is cut at its
notches deeper than NOTCH_MM (`notches`), where two bases meet, and a circle fitted to each arc between notches that
turns through at least ARC_TURN of a full turn and has a base's radius is one more seed for
`photo_bases.refine_circle`, refined and judged as any other.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from scipy.signal import find_peaks

NOTCH_MM = 3.0
"""A notch in a blob's outline at least this deep (mm, from the blob's convex hull) is where two outlines meet: two
bases in contact, each round, leave a notch of several millimetres; a base's own outline, blurred, has none."""
ARC_TURN = 0.25
"""An arc between notches is fitted when it turns through at least this share of a full turn about its circle: a
base between two others in a row shows two arcs, one on either side, of somewhat under half a turn each."""
MIN_ARC_POINTS = 10
"""An arc of fewer outline points (pixels) is too short to fit."""


def fit_circle(points: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle (x, y, radius) through (N, 2) points: x^2 + y^2 + a x + b y + c = 0 (Kasa)."""
    x, y = points[:, 0], points[:, 1]
    (a, b, c), *_ = np.linalg.lstsq(np.column_stack([x, y, np.ones_like(x)]), -(x * x + y * y), rcond=None)
    return -a / 2, -b / 2, math.sqrt(max(a * a / 4 + b * b / 4 - c, 0.0))


def notches(outline: np.ndarray, least_depth: float) -> np.ndarray:
    """Indices of the notches of a closed outline (N, 2), in order: the points where it dips below its convex hull
    deepest, by at least `least_depth` below the shallower of the points that part it from the next deeper notch on
    either side (the peaks of the depth along the outline, by their prominence). One gap under the hull may hold
    several notches: a row of bases in contact leaves one on either side of each touch."""
    hull = outline[cv2.convexHull(outline.astype(np.float32), returnPoints=False).ravel()]
    if len(hull) < 3:
        return np.zeros(0, dtype=int)
    start, edge = hull, np.roll(hull, -1, axis=0) - hull
    normal = np.column_stack([edge[:, 1], -edge[:, 0]]) / np.maximum(np.linalg.norm(edge, axis=1), 1e-12)[:, None]
    depth = np.abs(((outline[:, None, :] - start[None, :, :]) * normal[None, :, :]).sum(axis=2)).min(axis=1)
    first = int(np.argmin(depth))  # a point on the hull: no notch spans the start of the rolled depth
    peaks, _ = find_peaks(np.concatenate([np.roll(depth, -first), [0.0]]), prominence=least_depth)
    return np.sort((peaks + first) % len(outline))


def arc_seeds(gray: np.ndarray, scale: float, least: float, most: float) -> list[tuple[float, float, float]]:
    """Circles (x, y, radius in pixels, from `least` to `most`) fitted to the arcs between the notches (`notches`,
    NOTCH_MM deep) of the outlines of the blobs of `gray` (uint8, `scale` mm per pixel); a blob with no notch is left
    to the circle search."""
    _, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    seeds = []
    for contour in contours:
        if len(contour) < 2 * MIN_ARC_POINTS or cv2.contourArea(contour) < math.pi * least**2 / 2:
            continue
        points = contour.reshape(-1, 2).astype(float)
        cuts = notches(points, NOTCH_MM / scale).tolist()
        for start, stop in zip(cuts, cuts[1:] + cuts[:1]):
            arc = points[np.arange(start, stop + (len(points) if stop <= start else 0)) % len(points)]
            if len(arc) < MIN_ARC_POINTS:
                continue
            x, y, r = fit_circle(arc)
            turn = np.unwrap(np.arctan2(arc[:, 1] - y, arc[:, 0] - x))
            if least <= r <= most and abs(turn[-1] - turn[0]) >= ARC_TURN * 2 * math.pi:
                seeds.append((x, y, r))
    return seeds
