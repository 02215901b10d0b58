"""Finding a table's top in a 3D scan: its plane among the scan's flat surfaces, and which table it is.

A phone scan of a game holds more than the table: the room's floor (larger than the table), the table's legs,
terrain roofs (flat, higher). So the table top is not the largest plane but the one that fits the table:
1. **Planes** (`horizontal_planes`): RANSAC (thousands of 3-point hypotheses scored at once, in numpy) on points
   sampled evenly over the surface, refined by least squares (SVD) on its inliers; then its inliers are set aside
   and the next plane is looked for, `MAX_PLANES` times. A plane within `HORIZONTAL_DEG` of the file's up axis (y
   for glTF, as a USD stage states, z otherwise) is horizontal, its normal turned up.
2. **Each plane's top** (`table_region`, `rectangle`): its inliers' largest connected region and that region's
   minimum-area rectangle; and what stands on it: of the surface over that rectangle, off the plane and near it,
   the share above it (a table carries its terrain; a roof has only its own walls below it).
3. **The table** (`choose_table`): a plane fits a table when its rectangle has the table's shape (long side over
   short side within `SHAPE_TOLERANCE`), at least `MIN_STANDING` of what is near it stands on it, and its size is
   within a tolerance where the units are known: `SIZE_TOLERANCE` when a standard size is sought in a scan whose
   units are given (`--scale true`), `GLTF_SIZE_TOLERANCE` in a scan whose file states its units (glTF is in
   metres by its spec, a USD stage says; a scan is rough). Of the planes that fit, the highest is the table top
   (a floor fits too, and lies below it). With several tables to choose from (no `--table`: the standard sizes),
   the one it fits best: size first where the units are known, then shape. A terrain roof with a miniature on it
   can have a square table's shape: in a scan of unknown units only its size would tell it from the table, so
   crop such a scan or give it as glTF or USDZ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph
import shapely
import trimesh
from scipy.spatial import cKDTree

from lofkit.errors import LofkitError
from lofkit.exchange.messages import SettingError
from lofkit.geometry.flat import convex_hull
from lofkit.units import INCH

SCORE_POINTS = 6_000
HYPOTHESES = 4_096
BATCH = 512
DEGENERATE = 1e-9
"""Three sampled points spanning less area than this share of the scan's spread squared are on a line: no plane."""
MAX_PLANES = 8
"""How many planes are looked for, one after another."""
MIN_PLANE_SHARE = 0.02
"""A plane holding less of the scan's surface than this is not looked at (nor is any after it)."""
HORIZONTAL_DEG = 45.0
"""A plane whose normal is within this angle of the file's up axis is horizontal."""
SHAPE_TOLERANCE = 0.05
"""A rectangle has a table's shape when the ratios of their long to short sides differ by at most this share."""
SIZE_TOLERANCE = 0.10
"""With units given, a rectangle is a table's size when each side is within this share of the table's."""
GLTF_SIZE_TOLERANCE = 0.30
"""In a scan whose file states its units, a rectangle is a table's size when each side is within this share of the
table's."""
MIN_STANDING = 0.25
"""Of the surface over a plane's rectangle, off the plane and near it (`STANDING_BAND`), at least this share stands
on it for it to be a table top: a table carries its terrain, a roof has nothing but its own walls, below it."""
STANDING_BAND = 0.25
"""How near a plane what stands on it or hangs below it is counted, as a share of its rectangle's short side: the
terrain on a table rises a fraction of the table's width, and its legs and the floor below reach far further."""
STANDARD_TABLES = {"48x48in": (48 * INCH, 48 * INCH), "48x36in": (48 * INCH, 36 * INCH),
                   "48x32in": (48 * INCH, 32 * INCH), "32x24in": (32 * INCH, 24 * INCH)}
"""The table sizes tried when none is given, in this order of preference when the scan cannot tell them apart."""


@dataclass(frozen=True)
class Plane:
    """The plane {p: normal . p + offset = 0} (unit normal), with the share of the surface area on it."""

    normal: np.ndarray
    offset: float
    inlier_share: float


def fit_plane(points: np.ndarray, tolerance: float, rng: np.random.Generator) -> Plane:
    """RANSAC: the plane through 3 of `points` with the most points within `tolerance`, refined by SVD.

    `points` should sample the surface evenly by area, so the count of inliers measures the plane's area.
    All hypotheses of a batch are scored against the scoring points at once.
    """
    score = points[rng.choice(len(points), min(len(points), SCORE_POINTS), replace=False)]
    spread = float(np.ptp(points, axis=0).max())
    best_count, best = -1, None
    for _ in range(HYPOTHESES // BATCH):
        a, b, c = (points[rng.integers(0, len(points), BATCH)] for _ in range(3))
        normals = np.cross(b - a, c - a)
        length = np.linalg.norm(normals, axis=1)
        usable = length > DEGENERATE * spread**2
        normals = normals / np.where(usable, length, 1.0)[:, None]
        offsets = -np.einsum("ij,ij->i", normals, a)
        distances = score @ normals.T  # (scoring points, hypotheses), made absolute in place: no copies
        distances += offsets
        counts = np.count_nonzero(np.abs(distances, out=distances) <= tolerance, axis=0)
        counts[~usable] = -1
        k = int(np.argmax(counts))
        if counts[k] > best_count:
            best_count, best = counts[k], (normals[k], offsets[k])
    normal, offset = best
    for _ in range(3):  # least squares on the inliers, then inliers again
        inliers = points[np.abs(points @ normal + offset) <= tolerance]
        if len(inliers) < 3:
            break
        centre = inliers.mean(axis=0)
        normal = np.linalg.svd(inliers - centre, full_matrices=False)[2][2]
        offset = -float(normal @ centre)
    distance = points @ normal + offset
    above = distance > tolerance
    below = distance < -tolerance
    if below.sum() > above.sum():  # terrain stands on the table: most of what is off the plane is above it
        normal, offset = -normal, -offset
    share = float(np.mean(np.abs(distance) <= tolerance))
    return Plane(normal / np.linalg.norm(normal), float(offset), share)


def level_transform(plane: Plane) -> np.ndarray:
    """A rigid 4x4 transform turning the plane's normal to +z and putting the plane at z = 0."""
    transform = trimesh.geometry.align_vectors(plane.normal, [0.0, 0.0, 1.0])
    transform[2, 3] = plane.offset  # n . p + offset = 0 on the plane, and the rotated z is n . p
    return transform


def largest_region(xy: np.ndarray, weights: np.ndarray, cell: float) -> np.ndarray:
    """Mask of the points in the largest 8-connected region of occupied grid cells (by total weight)."""
    cells = np.floor((xy - xy.min(axis=0)) / cell).astype(np.int64)
    occupied, cell_of_point = np.unique(cells, axis=0, return_inverse=True)
    cell_of_point = cell_of_point.ravel()
    width = int(occupied[:, 1].max()) + 3
    keys = (occupied[:, 0] + 1) * width + (occupied[:, 1] + 1)  # sorted, as np.unique sorts rows
    rows, cols = [], []
    for dx, dy in ((1, -1), (1, 0), (1, 1), (0, 1)):
        wanted = (occupied[:, 0] + 1 + dx) * width + (occupied[:, 1] + 1 + dy)
        at = np.clip(np.searchsorted(keys, wanted), 0, len(keys) - 1)
        found = keys[at] == wanted
        rows.append(np.nonzero(found)[0])
        cols.append(at[found])
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    graph = scipy.sparse.coo_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(keys), len(keys)))
    _, labels = scipy.sparse.csgraph.connected_components(graph, directed=False)
    weight = np.bincount(labels[cell_of_point], weights=weights)
    return labels[cell_of_point] == int(np.argmax(weight))


def rectangle(xy: np.ndarray) -> tuple[float, float, float]:
    """The minimum-area rectangle around `xy`: (angle of one side in degrees, in [0, 90), that side, the other)."""
    envelope = shapely.minimum_rotated_rectangle(convex_hull(xy))
    if envelope.geom_type != "Polygon" or envelope.area <= 0:
        raise LofkitError("the table plane found has no area (its points lie on a line); is this a scan of a table?")
    corners = np.asarray(envelope.exterior.coords)[:4]
    first, second = corners[1] - corners[0], corners[2] - corners[1]
    angle = math.degrees(math.atan2(first[1], first[0])) % 180.0
    lengths = (float(np.linalg.norm(first)), float(np.linalg.norm(second)))
    if angle >= 90.0:
        angle, lengths = angle - 90.0, lengths[::-1]
    return angle, lengths[0], lengths[1]


def scan_size(points: np.ndarray) -> float:
    low, high = np.percentile(points, [1, 99], axis=0)
    return float(np.linalg.norm(high - low))


def table_region(mesh: trimesh.Trimesh, sample_xyz: np.ndarray, levelled: np.ndarray, tolerance: float
                 ) -> np.ndarray:
    """Step 2a: the table top's points (levelled x, y): the plane's inliers among the surface samples (even by area;
    `sample_xyz`, levelled) and the mesh vertices (exact edges), in the largest connected region."""
    vertex_xyz = trimesh.transform_points(mesh.vertices, levelled)
    on_plane_samples = np.abs(sample_xyz[:, 2]) <= tolerance
    on_plane_vertices = np.abs(vertex_xyz[:, 2]) <= tolerance
    xy_samples = sample_xyz[on_plane_samples, :2]
    spacing = float(np.median(cKDTree(xy_samples).query(xy_samples, k=2)[0][:, 1]))
    xy = np.vstack([xy_samples, vertex_xyz[on_plane_vertices, :2]])
    weights = np.concatenate([np.ones(len(xy_samples)), np.zeros(int(on_plane_vertices.sum()))])
    return xy[largest_region(xy, weights, max(2.0 * spacing, tolerance))]




@dataclass(frozen=True)
class TopCandidate:
    """A horizontal plane of the scan as a possible table top."""

    plane: Plane
    """Its normal turned to the file's up axis; `inlier_share` of the whole scan's surface."""
    levelled: np.ndarray
    """The transform that lays it at z = 0, normal up."""
    region: np.ndarray
    """Levelled x, y of its largest connected region."""
    sides: tuple[float, float]
    """Its region's rectangle, long side first (scan units)."""
    height: float
    """How high it lies along the file's up axis (scan units)."""
    standing: float
    """Of the surface over its rectangle, off the plane and near it, the share above it."""

    def describe(self) -> str:
        return (f"a plane at height {self.height:.4g} with a {self.sides[0]:.4g} x {self.sides[1]:.4g} rectangle "
                f"({self.plane.inlier_share:.0%} of the scan, {self.standing:.0%} of what is over it above it)")


@dataclass(frozen=True)
class TableChoice:
    """The table top chosen, which table it is (`name`: a standard size, or "given"), and how well it fits."""

    top: TopCandidate
    name: str
    size: tuple[float, float]
    shape_error: float
    size_error: float | None
    """The largest relative error of a side, when the scan's units are known."""


def horizontal_planes(mesh: trimesh.Trimesh, samples: np.ndarray, tolerance: float, up: np.ndarray,
                      rng: np.random.Generator) -> list[TopCandidate]:
    """Steps 1 and 2 (module docstring): the scan's horizontal planes, each with its top and what stands on it."""
    remaining, found = samples, []
    for _ in range(MAX_PLANES):
        if len(remaining) < 3:
            break
        plane = fit_plane(remaining, tolerance, rng)
        on_plane = np.abs(remaining @ plane.normal + plane.offset) <= tolerance
        share = float(on_plane.sum()) / len(samples)
        if share < MIN_PLANE_SHARE:
            break
        remaining = remaining[~on_plane]
        upward = float(plane.normal @ up)
        if abs(upward) < math.cos(math.radians(HORIZONTAL_DEG)):
            continue  # a wall
        sign = 1.0 if upward > 0 else -1.0
        plane = Plane(sign * plane.normal, sign * plane.offset, share)
        found.append(_top(mesh, samples, plane, tolerance, up))
    return found


def _top(mesh: trimesh.Trimesh, samples: np.ndarray, plane: Plane, tolerance: float, up: np.ndarray
         ) -> TopCandidate:
    levelled = level_transform(plane)
    xyz = trimesh.transform_points(samples, levelled)
    region = table_region(mesh, xyz, levelled, tolerance)
    _, side_a, side_b = rectangle(region)
    outline = shapely.minimum_rotated_rectangle(convex_hull(region))
    over = shapely.contains_xy(outline, xyz[:, 0], xyz[:, 1])
    near = over & (np.abs(xyz[:, 2]) <= STANDING_BAND * min(side_a, side_b))
    above, below = int((near & (xyz[:, 2] > tolerance)).sum()), int((near & (xyz[:, 2] < -tolerance)).sum())
    height = float(np.median(samples[np.abs(xyz[:, 2]) <= tolerance] @ up))
    return TopCandidate(plane, levelled, region, (max(side_a, side_b), min(side_a, side_b)), height,
                        above / (above + below) if above + below else 0.0)


def table_fit(top: TopCandidate, size: tuple[float, float], mm_per_unit: float | None) -> tuple[float, float | None]:
    """(shape error, size error) of a top against a table of `size` mm: the relative difference of their long to
    short side ratios, and (units known) the largest relative difference of a side.

    >>> top = TopCandidate(None, None, None, (1.2, 0.9), 0.0, 1.0)
    >>> [round(e, 6) for e in table_fit(top, (1200.0, 900.0), 1000.0)]
    [0.0, 0.0]
    """
    long, short = max(size), min(size)
    shape = abs((top.sides[0] / top.sides[1]) / (long / short) - 1.0)
    if mm_per_unit is None:
        return shape, None
    return shape, max(abs(top.sides[0] * mm_per_unit / long - 1.0), abs(top.sides[1] * mm_per_unit / short - 1.0))


def choose_table(scan, tops: list[TopCandidate], tables: dict[str, tuple[float, float]], mm_per_unit: float | None,
                 size_tolerance: float | None) -> TableChoice:
    """Step 3 (module docstring): `size_tolerance` None leaves size out of whether a plane fits (it still ranks
    the tables a plane fits when the units are known); refused with what was found when no plane fits a table."""
    fitting = []
    for top in tops:
        for name, size in tables.items():
            shape, error = table_fit(top, size, mm_per_unit)
            if shape <= SHAPE_TOLERANCE and top.standing >= MIN_STANDING and (
                    size_tolerance is None or error <= size_tolerance):
                fitting.append(TableChoice(top, name, size, shape, error))
    if not fitting:
        found = "; ".join(top.describe() for top in tops) or "no horizontal flat surface"
        wanted = ", ".join(f"{w:.1f} x {d:.1f} mm" for w, d in tables.values())
        raise SettingError("{path}: no table found: nothing flat has the shape of the table ({wanted}) with the "
                           "terrain standing on it. Found: {found}. Crop the scan to the table and what stands on "
                           "it, or give the table's size with {table}", path=scan, wanted=wanted, found=found)
    highest = max(choice.top.height for choice in fitting)
    on_top = [choice for choice in fitting if choice.top.height == highest]
    return min(on_top, key=lambda c: (c.size_error if c.size_error is not None else 0.0, c.shape_error))
