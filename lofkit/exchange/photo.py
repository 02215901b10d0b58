"""A top-down photo of a table becomes a table map: the homography from photo pixels to table millimetres, a
rectified orthophoto in table coordinates, and the round bases on it proposed as troopers.

Table frame (as in scene files): x to the right, y away from the photographer, origin at the table's bottom-left
corner. Corners are given, and markers numbered, in the order (0, 0), (W, 0), (W, D), (0, D): bottom-left,
bottom-right, top-right, top-left as seen in the photo.

Markers: ArUco `DICT_4X4_50`, id k on corner k, lying flat inside the corner with their sides along the table's
edges, the black square `size` mm on a side and `inset` mm from both edges (lay a printed sheet's corner on the
table's corner and `inset` is its white margin); they may be turned any way. All 16 marker corners go into one
least-squares homography.

Orthophoto: row 0 is the far edge (y = D), column 0 the left edge (x = 0). It covers exactly the table, so a pixel
is W / columns by D / rows mm, with columns = round(W / mm_per_pixel) and rows = round(D / mm_per_pixel).

Bases: Hough circles (`HOUGH_GRADIENT_ALT`) on the brightness of a 0.5 mm-per-pixel orthophoto, each refined by
fitting a circle to the outermost strong edge around it (a model standing on the base has edges inside it); a
circle whose diameter is within 15% of 25, 40, 55 or 70 mm is snapped to it; of overlapping circles the largest
stays; a base past the table's edge by more than 3 mm is dropped, by less it is moved onto the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from lofkit.errors import LofkitError
from lofkit.exchange.messages import Message, SettingError
from lofkit.exchange.output import check_output_folder, make_folder, write_scene_file
from lofkit.scene.silhouettes import BASE_SILHOUETTES, silhouette_for_base

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
MARKER_DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)
CORNER_NAMES = ("bottom-left (0, 0)", "bottom-right (W, 0)", "top-right (W, D)", "top-left (0, D)")
MAX_ORTHO_PIXELS = 60_000_000
FILES = ("table.png", "scene.yaml")
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


def read_photo(path: Path | str) -> np.ndarray:
    """The photo as a BGR array (EXIF orientation applied, as image viewers show it)."""
    path = Path(path)
    if not path.is_file():
        raise LofkitError(f"{path}: photo not found")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise LofkitError(f"{path}: cannot read it as an image; give a JPEG, PNG or TIFF photo")
    return image


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
    if (turns < -1e-6 * scale).all():
        return
    where = "{corners_px}" if source is None else "{source}"
    if (turns > 1e-6 * scale).all():
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


@dataclass(frozen=True)
class FoundBase:
    """A round base found on an orthophoto: centre (mm), diameter snapped to a base size, and as found."""

    position: tuple[float, float]
    diameter_mm: float
    found_diameter_mm: float


def fit_circle(points: np.ndarray) -> tuple[float, float, float]:
    """Least-squares circle (x, y, radius) through (N, 2) points: x^2 + y^2 + a x + b y + c = 0 (Kasa)."""
    x, y = points[:, 0], points[:, 1]
    (a, b, c), *_ = np.linalg.lstsq(np.column_stack([x, y, np.ones_like(x)]), -(x * x + y * y), rcond=None)
    return -a / 2, -b / 2, math.sqrt(max(a * a / 4 + b * b / 4 - c, 0.0))


def _outline_points(gray: np.ndarray, x: float, y: float, radius: float, rays: int) -> np.ndarray:
    """On each ray from (x, y), the outermost strong edge between 0.6 and 1.5 radii (sub-pixel, by a parabola)."""
    angles = np.linspace(0.0, 2 * np.pi, rays, endpoint=False)
    steps = np.arange(0.6 * radius, 1.5 * radius, 0.5)
    xs = (x + np.cos(angles)[:, None] * steps).astype(np.float32)
    ys = (y + np.sin(angles)[:, None] * steps).astype(np.float32)
    profile = cv2.remap(gray, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    slope = np.abs(np.diff(profile, axis=1))  # slope[:, i] lies half-way between steps i and i + 1
    peak = np.zeros_like(slope, dtype=bool)
    peak[:, 1:-1] = (slope[:, 1:-1] >= slope[:, :-2]) & (slope[:, 1:-1] > slope[:, 2:])
    peak &= (slope >= 0.4 * slope.max(axis=1, keepdims=True)) & (slope >= 2.0)
    last = slope.shape[1] - 1 - np.argmax(peak[:, ::-1], axis=1)
    left, mid, right = (slope[np.arange(rays), np.clip(last + k, 0, slope.shape[1] - 1)] for k in (-1, 0, 1))
    curvature = left - 2 * mid + right
    offset = np.clip(np.where(curvature < 0, 0.5 * (left - right) / np.minimum(curvature, -1e-9), 0.0), -0.5, 0.5)
    reach = steps[0] + 0.5 * (last + 0.5 + offset)
    points = np.column_stack([x + np.cos(angles) * reach, y + np.sin(angles) * reach])
    return points[peak.any(axis=1)]


def refine_circle(gray: np.ndarray, x: float, y: float, radius: float, rays: int = 120, rounds: int = 6
                  ) -> tuple[float, float, float] | None:
    """The base's outline near a rough circle (pixels): a circle fitted to the outermost strong edge on rays from the
    centre (a model standing on the base has edges inside it), dropping points far from it (a neighbouring base,
    terrain); repeated from the new circle until it moves by less than 0.25 px, at most `rounds` times (a blurred
    base may jitter: one still moving by 1 px or more is dropped). None when too few points agree."""
    moved = math.inf
    for _ in range(rounds):
        if radius < 2.0:
            return None
        points = _outline_points(gray, x, y, radius, rays)
        for _ in range(3):
            if len(points) < rays // 2:
                return None
            cx, cy, r = fit_circle(points)
            misfit = np.abs(np.hypot(points[:, 0] - cx, points[:, 1] - cy) - r)
            points = points[misfit <= max(0.75, 2.5 * float(np.median(misfit)))]
        moved = math.hypot(cx - x, cy - y) + abs(r - radius)
        x, y, radius = cx, cy, r
        if moved < 0.25:
            break
    return (x, y, radius) if moved < 1.0 else None


def find_bases(ortho: np.ndarray, width: float, depth: float) -> list[FoundBase]:
    """Round bases on an orthophoto of a `width` x `depth` table, far edge first (rules in the module docstring)."""
    rows, columns = ortho.shape[:2]
    sx, sy = width / columns, depth / rows
    scale = (sx + sy) / 2
    gray = cv2.cvtColor(ortho, cv2.COLOR_BGR2GRAY) if ortho.ndim == 3 else ortho
    gray = cv2.GaussianBlur(gray, (0, 0), max(0.8, 0.6 / scale))
    smallest, largest = min(BASE_DIAMETERS), max(BASE_DIAMETERS)
    circles = cv2.HoughCircles(
        gray, cv2.HOUGH_GRADIENT_ALT, dp=1.5, minDist=0.8 * smallest / scale, param1=300, param2=0.8,
        minRadius=max(2, int((1 - BASE_TOLERANCE) * smallest / 2 / scale)),
        maxRadius=int(math.ceil((1 + BASE_TOLERANCE) * largest / 2 / scale)),
    )
    if circles is None:
        return []
    gray = gray.astype(np.float32)
    refined = [refine_circle(gray, *circle) for circle in circles.reshape(-1, 3).astype(float)]
    circles = np.array([circle for circle in refined if circle is not None], dtype=float).reshape(-1, 3)
    found = 2 * circles[:, 2] * scale
    sizes = np.array(BASE_DIAMETERS)
    nearest = sizes[np.abs(found[:, None] - sizes[None, :]).argmin(axis=1)]
    keep = np.abs(found - nearest) <= BASE_TOLERANCE * nearest
    x, y = (circles[:, 0] + 0.5) * sx, depth - (circles[:, 1] + 0.5) * sy
    radius = nearest / 2
    overhang = np.max([radius - x, x + radius - width, radius - y, y + radius - depth], axis=0)
    keep &= overhang <= EDGE_SLACK
    x, y = np.clip(x, radius, width - radius), np.clip(y, radius, depth - radius)
    accepted: list[int] = []
    for i in sorted(np.flatnonzero(keep), key=lambda i: -found[i]):  # bases do not overlap: the largest stays
        gap = np.hypot(x[accepted] - x[i], y[accepted] - y[i]) - radius[accepted] - radius[i]
        if not (gap < -OVERLAP_SLACK).any():
            accepted.append(i)
    accepted.sort(key=lambda i: (-y[i], x[i]))
    return [FoundBase((float(x[i]), float(y[i])), float(nearest[i]), float(found[i])) for i in accepted]


@dataclass(frozen=True)
class PhotoImport:
    """What `lofkit photo` did: the table's fit in the photo, the orthophoto, the proposed bases, the files."""

    photo: str
    table_mm: tuple[float, float]
    fit: TableFit
    image_px: tuple[int, int]
    bases: tuple[FoundBase, ...]
    image: str
    scene: str
    warnings: tuple[str, ...] = ()

    @property
    def mm_per_pixel(self) -> tuple[float, float]:
        return self.table_mm[0] / self.image_px[0], self.table_mm[1] / self.image_px[1]

    def to_dict(self) -> dict:
        return {
            "photo": self.photo,
            "method": self.fit.method,
            "table_mm": [round(length, 3) for length in self.table_mm],
            "mm_per_pixel": [round(s, 6) for s in self.mm_per_pixel],
            "image_px": list(self.image_px),
            "corners_px": np.round(self.fit.corners_px, 2).tolist(),
            "residual_mm": round(self.fit.residual_mm, 3),
            "markers_found": list(self.fit.markers_found),
            "marker_size_mm": self.fit.marker_size_mm,
            "marker_inset_mm": self.fit.marker_inset_mm,
            "homography": self.fit.homography.tolist(),
            "bases": [{"id": f"base-{k + 1}", "position": [round(c, 2) for c in base.position],
                       "diameter_mm": base.diameter_mm, "found_diameter_mm": round(base.found_diameter_mm, 2),
                       "radius_px_found": round(base.found_diameter_mm / 2 / np.mean(self.mm_per_pixel), 2)}
                      for k, base in enumerate(self.bases)],
            "image": self.image,
            "scene": self.scene,
            "warnings": list(self.warnings),
        }


def _warnings(fit: TableFit, photo: np.ndarray) -> list[str]:
    height, width = photo.shape[:2]
    notes = []
    outside = [CORNER_NAMES[k] for k, (x, y) in enumerate(fit.corners_px)
               if not (-0.5 <= x <= width - 0.5 and -0.5 <= y <= height - 0.5)]
    if outside:
        notes.append(f"corner(s) {', '.join(outside)} lie outside the photo: that part of table.png is black")
    if fit.residual_mm > 2.0:
        notes.append(Message("the marker corners fit the table only within {residual:.1f} mm (RMS); check "
                             "{marker_size}, {marker_inset} and {table_mm}, and that the markers lie flat in the "
                             "corners", residual=fit.residual_mm))
    return notes


def scene_stub(table_mm: tuple[float, float], bases: list[FoundBase], image: str = "table.png") -> dict:
    """Scene data (mm) with the table, its photo as texture, and every base proposed as a trooper `base-N`.

    Lengths are written to 0.001 mm (the table) and 0.1 mm (positions), each base still wholly on the table."""
    width, depth = round(table_mm[0], 3), round(table_mm[1], 3)

    def on_table(value: float, radius: float, length: float) -> float:
        return min(max(round(value, 1), math.ceil(radius * 10) / 10), math.floor((length - radius) * 10) / 10)

    troopers = [{"id": f"base-{k + 1}", "side": "unknown", "silhouette": silhouette_for_base(base.diameter_mm),
                 "position": [on_table(base.position[0], base.diameter_mm / 2, width),
                              on_table(base.position[1], base.diameter_mm / 2, depth)]}
                for k, base in enumerate(bases)]
    return {"lofkit": 1, "units": "mm", "table": {"width": width, "depth": depth, "image": image}, "troopers": troopers}


STUB_COMMENT = """Made by `lofkit photo {photo}`: the table, with the rectified photo as its texture.
The troopers base-1 ... are PROPOSALS, one per round base found in the photo (silhouette guessed from the base:
{guesses}): give each its real id, side, silhouette and facing, and delete the
ones that are not troopers. Add the terrain."""


def import_photo(photo_path: Path | str, folder: Path | str, table_mm: tuple[float, float],
                 corners_px: np.ndarray | None = None, marker_size: float | None = None, marker_inset: float = 0.0,
                 mm_per_pixel: float = 0.5, bases: bool = True, force: bool = False) -> PhotoImport:
    """Rectify a top-down photo into `folder`/table.png and write `folder`/scene.yaml (a stub with the bases).

    The table is found from `corners_px` (photo pixels, bottom-left, bottom-right, top-right, top-left) or, when
    `marker_size` is given instead, from the four ArUco markers. Nothing is written until everything is known."""
    folder = Path(folder)
    width, depth = table_mm
    if (corners_px is None) == (marker_size is None):
        raise SettingError("give the table's corners ({corners_px}) or the size of its markers ({marker_size}), one of "
                           "the two")
    check_output_folder(folder, FILES, force)
    columns, rows = ortho_size(width, depth, mm_per_pixel)
    photo = read_photo(photo_path)
    if corners_px is not None:
        fit = fit_corners(corners_px, width, depth)
    else:
        fit = fit_markers(photo, width, depth, marker_size, marker_inset, source=str(photo_path))
    ortho = rectify(photo, fit, width, depth, mm_per_pixel)
    found = []
    if bases:
        same = abs(mm_per_pixel - BASE_SEARCH_MM_PER_PIXEL) < 1e-9
        found = find_bases(ortho if same else rectify(photo, fit, width, depth, BASE_SEARCH_MM_PER_PIXEL), width, depth)
    make_folder(folder)
    image_path, scene_path = folder / FILES[0], folder / FILES[1]
    if not cv2.imwrite(str(image_path), ortho):
        raise LofkitError(f"cannot write {image_path}")
    write_scene_file(scene_stub(table_mm, found), scene_path, STUB_COMMENT.format(
        photo=Path(photo_path).name, guesses=", ".join(f"{base:g} mm S{s}" for base, s in BASE_SILHOUETTES.items())),
                     overwrite=force)
    return PhotoImport(str(photo_path), (width, depth), fit, (columns, rows), tuple(found), str(image_path),
                       str(scene_path), tuple(_warnings(fit, photo)))


# --- A synthetic photo with a known answer, for tests and examples ----------------------------------------------


@dataclass(frozen=True)
class SyntheticPhoto:
    """A photo of a drawn table: `table_to_photo` maps table mm to photo pixels exactly."""

    image: np.ndarray
    table_mm: tuple[float, float]
    table_to_photo: np.ndarray

    @property
    def corners_px(self) -> np.ndarray:
        """Where the table's corners (0, 0), (W, 0), (W, D), (0, D) are in the photo, exactly."""
        return map_points(self.table_to_photo, table_corners(*self.table_mm))


def synthetic_photo(
    table_mm: tuple[float, float],
    corners_px: np.ndarray,
    photo_size: tuple[int, int] = (1600, 1200),
    bases: tuple[tuple[float, float, float], ...] = (),
    boxes: tuple[tuple[float, float, float, float], ...] = (),
    markers: tuple[float, float] | None = None,
    marker_turns: tuple[int, int, int, int] = (0, 0, 0, 0),
    marker_ids: tuple[int, int, int, int] = MARKER_IDS,
    noise: float = 4.0,
    seed: int = 0,
) -> SyntheticPhoto:
    """Draw a table seen from above and photograph it: the table's corners land on `corners_px`.

    `bases` are (x, y, diameter) mm: dark discs with a lighter model on top; `boxes` (x0, y0, x1, y1) mm are grey
    terrain footprints; `markers` = (size, inset) puts a marker on each corner k, id `marker_ids[k]`, on a white
    sheet with a margin of `inset`, turned `marker_turns[k]` quarter turns. The mat is mottled green-grey, the floor
    around the table dark; Gaussian noise of `noise` grey levels is added to the photo."""
    width, depth = table_mm
    rng = np.random.default_rng(seed)
    corners_px = np.asarray(corners_px, dtype=float)
    table_to_photo, _ = cv2.findHomography(table_corners(width, depth), corners_px, 0)
    sides = np.linalg.norm(np.roll(corners_px, -1, axis=0) - corners_px, axis=1) / np.array([width, depth] * 2)
    density = 2.0 * float(sides.max())  # top-view pixels per mm: twice the photo's finest
    columns, rows = round(width * density), round(depth * density)
    sx = width / columns
    to_top = table_to_ortho(width, depth, columns, rows)
    mottle = cv2.resize(rng.normal(0, 12, (12, 12)), (columns, rows), interpolation=cv2.INTER_CUBIC)
    top = np.clip(np.array([92.0, 122.0, 104.0]) + mottle[..., None], 0, 255).astype(np.uint8)
    for x0, y0, x1, y1 in boxes:
        outline = map_points(to_top, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        cv2.fillPoly(top, [np.round(outline * 16).astype(np.int32)], (150, 150, 150), cv2.LINE_AA, shift=4)
    for x, y, diameter in bases:
        (c, r), = map_points(to_top, [[x, y]])
        for radius, colour, dx in ((diameter / 2, (38, 36, 34), 0.0), (0.35 * diameter, (70, 150, 205), 0.06)):
            centre = (round((c + dx * diameter / sx) * 16), round(r * 16))
            cv2.circle(top, centre, round((radius / sx - 0.5) * 16), colour, -1, cv2.LINE_AA, shift=4)
    if markers is not None:
        size, inset = markers
        dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICTIONARY)
        cells = 32
        mm = size / (6 * cells)  # sheet pixels are this many mm
        margin = round(inset / mm)
        for k, square in enumerate(marker_squares(width, depth, size, inset)):
            bits = cv2.aruco.generateImageMarker(dictionary, marker_ids[k], 6 * cells, borderBits=1)
            sheet = cv2.copyMakeBorder(np.rot90(bits, marker_turns[k]).copy(), margin, margin, margin, margin,
                                       cv2.BORDER_CONSTANT, value=255)
            n = sheet.shape[0]
            lo = square[3] - margin * mm
            sheet_to_table = np.array([[mm, 0, lo[0] + mm / 2], [0, -mm, lo[1] + n * mm - mm / 2], [0, 0, 1]])
            cv2.warpAffine(cv2.cvtColor(sheet, cv2.COLOR_GRAY2BGR), (to_top @ sheet_to_table)[:2], (columns, rows),
                           dst=top, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    top = cv2.GaussianBlur(top, (0, 0), 1.0)
    width_px, height_px = photo_size
    floor = np.clip(55 + rng.normal(0, 6, (height_px, width_px, 1)), 0, 255).repeat(3, axis=2).astype(np.uint8)
    photo = cv2.warpPerspective(top, table_to_photo @ np.linalg.inv(to_top), (width_px, height_px), dst=floor,
                                flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    photo = np.clip(photo + rng.normal(0, noise, photo.shape), 0, 255).astype(np.uint8)
    return SyntheticPhoto(photo, (width, depth), table_to_photo)
