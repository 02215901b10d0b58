"""Where the table is in a photo, and the table seen from straight above: the homography from photo pixels to table
millimetres (from the table's corners given in pixels, or from ArUco markers on its corners) and the orthophoto.

Table frame (as in scene files): x to the right, y away from the photographer, origin at the table's bottom-left
corner. Corners are given, and markers numbered, in the order (0, 0), (W, 0), (W, D), (0, D): bottom-left,
bottom-right, top-right, top-left as seen in the photo.

Markers: ArUco `DICT_4X4_50`, id k on corner k, lying flat inside the corner with their sides along the table's
edges, the black square `size` mm on a side and `inset` mm from both edges (lay a printed sheet's corner on the
table's corner and `inset` is its white margin); they may be turned any way. All 16 marker corners go into one
least-squares homography.

Orthophoto: row 0 is the far edge (y = D), column 0 the left edge (x = 0). It covers exactly the table, so a pixel
is W / columns by D / rows mm, with columns = round(W / mm_per_pixel) and rows = round(D / mm_per_pixel).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from lofkit.errors import LofkitError
from lofkit.exchange.messages import SettingError

MARKER_DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)
CORNER_NAMES = ("bottom-left (0, 0)", "bottom-right (W, 0)", "top-right (W, D)", "top-left (0, D)")
MAX_ORTHO_PIXELS = 60_000_000
"""The largest orthophoto made (pixels)."""
STRAIGHT_TURN = 1e-6
"""A turn between two sides of the table's outline smaller than this share of the outline's size squared is no
turn: the corners lie on a line."""
CORNER_ORDER = "give the corners as bottom-left, bottom-right, top-right, top-left, as seen in the photo"
MARKER_ORDER = ("markers 0, 1, 2, 3 go on the bottom-left, bottom-right, top-right and top-left corners, as seen "
                "from the near edge")


def parse_corners(text: str) -> np.ndarray:
    """'x,y;x,y;x,y;x,y' (photo pixels) -> a (4, 2) array, in the order (0, 0), (W, 0), (W, D), (0, D)."""
    parts = [part for part in text.split(";") if part.strip()]
    usage = "give four photo pixels 'x,y;x,y;x,y;x,y': bottom-left, bottom-right, top-right, top-left"
    if len(parts) != 4:
        raise SettingError("{corners_px} '{text}': {count} points; {usage}", text=text, count=len(parts), usage=usage)
    corners = []
    for k, part in enumerate(parts, start=1):
        try:
            point = [float(value) for value in part.split(",")]
        except ValueError:
            raise SettingError("{corners_px} '{text}': point {k} '{point}' is not numbers; {usage}", text=text, k=k,
                               point=part.strip(), usage=usage) from None
        if len(point) != 2 or not all(math.isfinite(value) for value in point):
            raise SettingError("{corners_px} '{text}': point {k} '{point}' is not two finite numbers x,y; {usage}",
                               text=text, k=k, point=part.strip(), usage=usage)
        corners.append(point)
    return np.array(corners, dtype=float)


def table_corners(width: float, depth: float) -> np.ndarray:
    return np.array([[0.0, 0.0], [width, 0.0], [width, depth], [0.0, depth]])


def map_points(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homography to (N, 2) points."""
    points = np.asarray(points, dtype=float).reshape(-1, 2)
    mapped = np.column_stack([points, np.ones(len(points))]) @ np.asarray(homography, dtype=float).T
    return mapped[:, :2] / mapped[:, 2:]


def _turn_signs(quad: np.ndarray) -> np.ndarray:
    """The z of the cross product of consecutive edges at each corner of a quadrilateral."""
    edges = np.roll(quad, -1, axis=0) - quad
    following = np.roll(edges, -1, axis=0)
    return edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]


def check_table_outline(corners_px: np.ndarray, source: str | None = None, order: str = CORNER_ORDER) -> None:
    """The table's corners in the photo must form a convex quadrilateral going bottom-left, bottom-right, top-right,
    top-left, which in image coordinates (y down) turns clockwise: every turn is negative. A camera cannot mirror.
    Errors name `source`, or the setting `corners_px` when the corners were given (None)."""
    turns = _turn_signs(np.asarray(corners_px, dtype=float))
    scale = float(np.ptp(corners_px, axis=0).max()) ** 2
    if (turns < -STRAIGHT_TURN * scale).all():
        return
    where = "{corners_px}" if source is None else "{source}"
    if (turns > STRAIGHT_TURN * scale).all():
        raise SettingError(where + ": the table comes out mirrored; {order}", source=source, order=order)
    raise SettingError(where + ": the four corners do not outline a table (not a convex quadrilateral: two swapped, "
                       "or all on a line); {order}", source=source, order=order)


@dataclass(frozen=True)
class TableFit:
    """Where the table is in the photo: `homography` maps photo pixels to table mm."""

    method: str
    homography: np.ndarray
    corners_px: np.ndarray
    residual_mm: float
    markers_found: tuple[int, ...] = ()
    marker_size_mm: float | None = None
    marker_inset_mm: float | None = None


def fit_corners(corners_px: np.ndarray, width: float, depth: float) -> TableFit:
    """The homography taking the four given corners to (0, 0), (W, 0), (W, D), (0, D)."""
    check_table_outline(corners_px)
    homography, _ = cv2.findHomography(np.asarray(corners_px, float), table_corners(width, depth), 0)
    return TableFit("corners", homography, np.asarray(corners_px, dtype=float), 0.0)


def marker_squares(width: float, depth: float, size: float, inset: float) -> np.ndarray:
    """Table positions (mm) of the four markers' black squares, (4, 4, 2), each in ArUco's corner order for a marker
    lying upright as seen from the photographer: top-left, top-right, bottom-right, bottom-left."""
    if size <= 0 or inset < 0:
        raise SettingError("{marker_size} must be positive and {marker_inset} not negative")
    if 2 * (inset + size) > min(width, depth):
        raise SettingError("markers of {size:g} mm, {inset:g} mm from the edges, do not fit four to a {width:g} x "
                           "{depth:g} mm table; check {marker_size}, {marker_inset} and {table_mm}",
                           size=size, inset=inset, width=width, depth=depth)
    far_x, far_y = width - inset - size, depth - inset - size
    origins = np.array([[inset, inset], [far_x, inset], [far_x, far_y], [inset, far_y]])
    square = np.array([[0.0, size], [size, size], [size, 0.0], [0.0, 0.0]])
    return origins[:, None, :] + square[None, :, :]


def detect_markers(photo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ArUco markers in the photo: ids (N,) and corners (N, 4, 2) in the marker's own order, sub-pixel refined."""
    parameters = cv2.aruco.DetectorParameters()
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(MARKER_DICTIONARY), parameters)
    gray = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY) if photo.ndim == 3 else photo
    corners, ids, _ = detector.detectMarkers(gray)
    ids = np.asarray(ids if ids is not None else [], dtype=int).reshape(-1)
    return ids, np.asarray(corners, dtype=float).reshape(-1, 4, 2)


def _missing_markers(ids: np.ndarray, source: str) -> SettingError:
    found = sorted({int(i) for i in ids if i in MARKER_IDS})
    others = sorted({int(i) for i in ids if i not in MARKER_IDS})
    missing = ", ".join(f"id {k} ({CORNER_NAMES[k].split(' (')[0]})" for k in MARKER_IDS if k not in found)
    seen = f"found ids {', '.join(map(str, found))}" if found else "found none"
    if others:
        seen += f" (and ids {', '.join(map(str, others))}, which mark no corner)"
    return SettingError("{source}: no table found: {seen} of the four corner markers (ArUco DICT_4X4_50, ids 0 "
                        "bottom-left, 1 bottom-right, 2 top-right, 3 top-left); missing {missing}. Make sure all four "
                        "are in the photo, flat, lit and uncovered, or give the table's corners in pixels with "
                        "{corners_px}", source=source, seen=seen, missing=missing)


def _projective_centre(quads: np.ndarray) -> np.ndarray:
    """Where the diagonals of each (4, 2) quadrilateral cross: the image of the square's centre."""
    h = np.concatenate([quads, np.ones((*quads.shape[:2], 1))], axis=2)
    point = np.cross(np.cross(h[:, 0], h[:, 2]), np.cross(h[:, 1], h[:, 3]))
    return point[:, :2] / point[:, 2:]


def fit_markers(photo: np.ndarray, width: float, depth: float, size: float, inset: float,
                source: str = "photo") -> TableFit:
    """Find the four corner markers and fit the homography to all 16 of their corners (least squares).

    A first homography from the markers' centres says how each marker is turned, so each detected corner is
    paired with the right corner of its square on the table."""
    squares = marker_squares(width, depth, size, inset)
    ids, quads = detect_markers(photo)
    for k in MARKER_IDS:
        if np.count_nonzero(ids == k) > 1:
            raise LofkitError(f"{source}: marker id {k} appears {np.count_nonzero(ids == k)} times; keep one, on the "
                              f"{CORNER_NAMES[k]} corner")
    if not all((ids == k).any() for k in MARKER_IDS):
        raise _missing_markers(ids, source)
    quads = np.stack([quads[ids == k][0] for k in MARKER_IDS])
    rough, _ = cv2.findHomography(_projective_centre(quads), squares.mean(axis=1), 0)
    if rough is None:
        raise LofkitError(f"{source}: the four markers do not outline a table; {MARKER_ORDER}")
    turns = np.stack([np.roll(squares, -r, axis=1) for r in range(4)])  # (turn, marker, corner, 2)
    seen_on_table = map_points(rough, quads.reshape(-1, 2)).reshape(1, 4, 4, 2)
    best = np.linalg.norm(turns - seen_on_table, axis=3).sum(axis=2).argmin(axis=0)
    targets = turns[best, np.arange(4)]
    homography, _ = cv2.findHomography(quads.reshape(-1, 2), targets.reshape(-1, 2), 0)
    if homography is None:
        raise LofkitError(f"{source}: the four markers do not outline a table; {MARKER_ORDER}")
    residual = np.linalg.norm(map_points(homography, quads.reshape(-1, 2)) - targets.reshape(-1, 2), axis=1)
    corners_px = map_points(np.linalg.inv(homography), table_corners(width, depth))
    check_table_outline(corners_px, source, MARKER_ORDER)
    return TableFit("markers", homography, corners_px, float(np.sqrt(np.mean(residual**2))), MARKER_IDS, size, inset)


def ortho_size(width: float, depth: float, mm_per_pixel: float) -> tuple[int, int]:
    """(columns, rows) of the orthophoto."""
    if not (math.isfinite(mm_per_pixel) and mm_per_pixel > 0):
        raise SettingError("{mm_per_pixel} {value}: give a positive number, e.g. 0.5", value=mm_per_pixel)
    columns, rows = max(1, round(width / mm_per_pixel)), max(1, round(depth / mm_per_pixel))
    if columns * rows > MAX_ORTHO_PIXELS:
        raise SettingError("{mm_per_pixel} {value:g} makes a {columns} x {rows} picture; give a larger value (at most "
                           "{most} million pixels)", value=mm_per_pixel, columns=columns, rows=rows,
                           most=MAX_ORTHO_PIXELS // 1_000_000)
    return columns, rows


def table_to_ortho(width: float, depth: float, columns: int, rows: int) -> np.ndarray:
    """The 3x3 map from table mm to orthophoto pixel coordinates (pixel centres at whole numbers, row 0 at y = D)."""
    sx, sy = width / columns, depth / rows
    return np.array([[1 / sx, 0.0, -0.5], [0.0, -1 / sy, depth / sy - 0.5], [0.0, 0.0, 1.0]])


def rectify(photo: np.ndarray, fit: TableFit, width: float, depth: float, mm_per_pixel: float) -> np.ndarray:
    """The orthophoto: the table seen from straight above, to scale (see the module docstring)."""
    columns, rows = ortho_size(width, depth, mm_per_pixel)
    warp = table_to_ortho(width, depth, columns, rows) @ fit.homography
    return cv2.warpPerspective(photo, warp, (columns, rows), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def camera_centre(homography: np.ndarray, image_size: tuple[int, int]) -> np.ndarray | None:
    """Where the camera was (table mm, z above the table top), from the homography taking photo pixels to the table,
    for square pixels and the principal point at the photo's centre (a phone's): the focal length is the one that
    makes the table's x and y axes perpendicular and equally long in space (Zhang's constraints, least squares).
    None when the photo looks straight down (the focal length is then not determined, and not needed)."""
    to_photo = np.linalg.inv(np.asarray(homography, dtype=float))
    centre = np.array([(image_size[0] - 1) / 2, (image_size[1] - 1) / 2])
    shifted = to_photo.copy()
    shifted[:2] -= centre[:, None] * to_photo[2]  # columns of K^-1 G, but for the division of rows 0-1 by f
    (ax, ay, az), (bx, by, bz) = shifted[:, 0], shifted[:, 1]
    # f^2 (az bz) = -(ax bx + ay by) and f^2 (az^2 - bz^2) = -(ax^2 + ay^2 - bx^2 - by^2): one unknown, f^2
    weights = np.array([az * bz, az * az - bz * bz])
    targets = -np.array([ax * bx + ay * by, ax * ax + ay * ay - bx * bx - by * by])
    if np.abs(weights).max() < 1e-12 * np.abs(targets).max():
        return None
    focal_squared = float(weights @ targets / (weights @ weights))
    if not focal_squared > 0:
        return None
    f = math.sqrt(focal_squared)
    columns = shifted / np.array([[f], [f], [1.0]])
    scale = 2.0 / (np.linalg.norm(columns[:, 0]) + np.linalg.norm(columns[:, 1]))
    r1, r2, t = (columns[:, k] * scale for k in range(3))
    rotation = np.column_stack([r1, r2, np.cross(r1, r2)])
    u, _, vt = np.linalg.svd(rotation)  # the nearest true rotation
    rotation = u @ vt
    camera = -rotation.T @ t
    return camera if camera[2] > 0 else camera * np.array([1.0, 1.0, -1.0])
