"""`lofkit import-scan`: a 3D scan of a table (GLB/GLTF/OBJ/PLY/STL/OFF mesh) becomes a terrain mesh and a scene.

Steps, each a function below:
1. **Level** — the table top is the largest flat surface: a RANSAC plane fit (thousands of 3-point hypotheses
   scored at once, in numpy) on points sampled evenly over the surface area, refined by least squares (SVD) on
   its inliers. The normal is turned so that most of the surface off the plane lies above it (terrain stands on
   the table), then rotated to +z by the smallest turn, with the plane at z = 0; the tilt reported is the angle
   between that normal and the file's up axis (y for glTF, which is how phone scans arrive; z otherwise). A scan
   must not hold a larger flat surface than the table top (a floor, the table's underside): crop those away first.
2. **Find the table** — the plane's inliers are grouped into connected regions (occupied cells of a grid about
   two sample spacings wide, 8-connected); the largest region's minimum-area rectangle is the table. It is turned
   about z (by the smallest angle, plus `turn` quarter turns) so its sides run along x and y, the long side along
   the table's long side, and its corner moved to (0, 0).
3. **Scale** — `auto`: uniformly, so the rectangle matches the given table (the mean of the two side ratios; a
   warning when the two ratios differ by more than 2 %); `true`: the scan's own units (`scan_units`).
4. **Crop** — faces whose centroid lies outside the table rectangle or below the table top (by more than the
   plane tolerance) are dropped, and so is the table top itself (faces with every corner within the tolerance of
   z = 0): the terrain mesh is only what stands on the table, and the scene's z = 0 plane is the table top.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph
import shapely
import trimesh
from scipy.spatial import cKDTree

from lofkit.errors import LofkitError
from lofkit.exchange.messages import Message, SettingError
from lofkit.exchange.output import check_output_folder, make_folder, write_scene_file
from lofkit.geometry.terrain import MESH_SUFFIXES, MeshFileError, load_mesh_file
from lofkit.units import EPS, MM_PER_UNIT

SAMPLES = 30_000
SCORE_POINTS = 6_000
HYPOTHESES = 4_096
BATCH = 512
MIN_TABLE_SHARE = 0.10
"""The table top must hold at least this share of the scan's surface area."""
ASPECT_TOLERANCE = 0.02
DEFAULT_PLANE_TOLERANCE = 0.002
"""Plane tolerance as a share of the scan's size (the diagonal of its 1st-99th percentile box)."""
OUTPUT_NAMES = ("terrain.ply", "scene.yaml")
DEGENERATE = 1e-9
"""Three sampled points spanning less area than this share of the scan's spread squared are on a line: no plane."""
RECTANGULAR_SHARE = 0.8
"""A table top found that fills less of its bounding rectangle than this is worth a warning."""
GLTF_SUFFIXES = (".glb", ".gltf")
"""glTF is y up and in metres (glTF 2.0); other scans are taken as z up."""


@dataclass(frozen=True)
class Plane:
    """The plane {p: normal . p + offset = 0} (unit normal), with the share of the surface area on it."""

    normal: np.ndarray
    offset: float
    inlier_share: float


@dataclass(frozen=True)
class ScanImport:
    """What `import-scan` found and wrote; `to_dict()` is the CLI's JSON (lengths in mm)."""

    scene: str
    mesh: str
    tilt_deg: float
    scale: float
    table_found: tuple[float, float]
    table_found_mm: tuple[float, float]
    inlier_share: float
    faces_kept: int
    faces_dropped: dict
    table_normal_in_scan: tuple[float, float, float]
    transform: np.ndarray = field(repr=False)
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "scene": self.scene,
            "mesh": self.mesh,
            "tilt_deg": round(self.tilt_deg, 6),
            "scale": self.scale,
            "table_found": [round(v, 6) for v in self.table_found],
            "table_found_mm": [round(v, 6) for v in self.table_found_mm],
            "inlier_share": round(self.inlier_share, 6),
            "faces_kept": self.faces_kept,
            "faces_dropped": self.faces_dropped,
            "table_normal_in_scan": [round(v, 9) for v in self.table_normal_in_scan],
            "transform": np.round(self.transform, 9).tolist(),
            "warnings": list(self.warnings),
        }


def load_scan(path: Path) -> trimesh.Trimesh:
    """The scan as one triangle mesh in its own units and axes (a glTF scene's nodes are placed and merged)."""
    if path.suffix.lower() not in MESH_SUFFIXES:
        raise LofkitError(f"{path}: not a scan mesh; use one of {', '.join(MESH_SUFFIXES)}")
    if not path.is_file():
        raise LofkitError(f"{path}: file not found")
    try:
        mesh = load_mesh_file(path, units="mm", up_axis="z")  # as the file has it: no turn, no scale
    except MeshFileError as exc:
        raise LofkitError(f"{exc}; import-scan needs a triangle mesh: export the scan as GLB, OBJ, PLY or STL (a "
                          "point cloud must be meshed first, e.g. by Poisson reconstruction in MeshLab)") from None
    mesh.remove_unreferenced_vertices()
    if mesh.area <= 0 or not np.isfinite(mesh.vertices).all():
        raise LofkitError(f"{path}: the mesh has no area or holds non-finite coordinates")
    return mesh


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
        counts = (np.abs(score @ normals.T + offsets) <= tolerance).sum(axis=0)
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
    envelope = shapely.minimum_rotated_rectangle(shapely.MultiPoint(xy).convex_hull)
    if envelope.geom_type != "Polygon" or envelope.area <= 0:
        raise LofkitError("the table plane found has no area (its points lie on a line); is this a scan of a table?")
    corners = np.asarray(envelope.exterior.coords)[:4]
    first, second = corners[1] - corners[0], corners[2] - corners[1]
    angle = math.degrees(math.atan2(first[1], first[0])) % 180.0
    lengths = (float(np.linalg.norm(first)), float(np.linalg.norm(second)))
    if angle >= 90.0:
        angle, lengths = angle - 90.0, lengths[::-1]
    return angle, lengths[0], lengths[1]


def _rotation_z(degrees: float) -> np.ndarray:
    return trimesh.transformations.rotation_matrix(math.radians(degrees), [0, 0, 1])


def _scan_size(points: np.ndarray) -> float:
    low, high = np.percentile(points, [1, 99], axis=0)
    return float(np.linalg.norm(high - low))


def check_settings(table: tuple[float, float], scale: str, turn: int, plane_tolerance: float) -> None:
    """Refuse settings `import_scan` cannot use, before any work."""
    if scale not in ("auto", "true"):
        raise SettingError("{scale} '{value}': use auto (fit the given table size) or true (the scan's own units)",
                           value=scale)
    if turn % 90 != 0:
        raise SettingError("{turn} {value}: give a multiple of 90 degrees", value=turn)
    width, depth = table
    if turn % 180 and abs(width - depth) > EPS:
        raise SettingError("{turn} {value}: the table is not square, so only 0 or 180 keeps its long side in place",
                           value=turn)
    if not 0 < plane_tolerance < 0.1:
        raise SettingError("{plane_tolerance} {value}: give a small share of the scan's size, e.g. 0.002",
                           value=plane_tolerance)


def table_plane(scan: Path, samples: np.ndarray, plane_tolerance: float, rng: np.random.Generator
                ) -> tuple[Plane, float]:
    """Step 1: the table top's plane among the surface samples, and the plane tolerance in scan units."""
    tolerance = plane_tolerance * _scan_size(samples)
    plane = fit_plane(samples, tolerance, rng)
    if plane.inlier_share < MIN_TABLE_SHARE:
        raise SettingError(
            "{path}: no table plane found: the largest flat surface holds {share:.1%} of the scan's surface (the table "
            "top needs at least {least:.0%}); is this a scan of a table? A rough scan may need a larger "
            "{plane_tolerance}", path=scan, share=plane.inlier_share, least=MIN_TABLE_SHARE)
    return plane, tolerance


def tilt_deg(plane: Plane, gltf: bool) -> float:
    """The angle between the table's normal and the file's own up axis (y for glTF, z otherwise)."""
    up = np.array([0.0, 1.0, 0.0] if gltf else [0.0, 0.0, 1.0])
    return math.degrees(math.acos(float(np.clip(plane.normal @ up, -1.0, 1.0))))


def table_region(mesh: trimesh.Trimesh, samples: np.ndarray, levelled: np.ndarray, tolerance: float) -> np.ndarray:
    """Step 2a: the table top's points (levelled x, y): the plane's inliers among the surface samples (even by area)
    and the mesh vertices (exact edges), in the largest connected region."""
    sample_xyz = trimesh.transform_points(samples, levelled)
    vertex_xyz = trimesh.transform_points(mesh.vertices, levelled)
    on_plane_samples = np.abs(sample_xyz[:, 2]) <= tolerance
    on_plane_vertices = np.abs(vertex_xyz[:, 2]) <= tolerance
    xy_samples = sample_xyz[on_plane_samples, :2]
    spacing = float(np.median(cKDTree(xy_samples).query(xy_samples, k=2)[0][:, 1]))
    xy = np.vstack([xy_samples, vertex_xyz[on_plane_vertices, :2]])
    weights = np.concatenate([np.ones(len(xy_samples)), np.zeros(int(on_plane_vertices.sum()))])
    return xy[largest_region(xy, weights, max(2.0 * spacing, tolerance))]


def square_up(region: np.ndarray, table: tuple[float, float], turn: int) -> tuple[float, tuple[float, float], list]:
    """Step 2b: the turn about z (degrees) that lays the region's rectangle along x and y, its long side along the
    table's, plus `turn`; the rectangle's sides along x and y after it (scan units); and warnings."""
    width, depth = table
    angle, side_a, side_b = rectangle(region)
    yaw = -angle if angle <= 45.0 else 90.0 - angle
    found = (side_a, side_b) if angle <= 45.0 else (side_b, side_a)  # sizes along x, y after turning by `yaw`
    if abs(width - depth) > EPS and (width > depth) != (found[0] > found[1]):
        yaw, found = yaw + 90.0, found[::-1]
    yaw += turn
    if turn % 180:
        found = found[::-1]
    warnings = []
    hull_share = shapely.MultiPoint(region).convex_hull.area / (side_a * side_b)
    if hull_share < RECTANGULAR_SHARE:
        warnings.append(f"the table top found is not rectangular (it fills {hull_share:.0%} of its rectangle)")
    return yaw, found, warnings


def scale_factor(found: tuple[float, float], table: tuple[float, float], scale: str, scan_units: str | None,
                 gltf: bool) -> tuple[float, list]:
    """Step 3: mm per scan unit, fitted to the table (`auto`) or from the scan's units (`true`); and warnings."""
    width, depth = table
    warnings = []
    if scale == "auto":
        factor = (width / found[0] + depth / found[1]) / 2
        ratios = (width / found[0], depth / found[1])
        if abs(ratios[0] / ratios[1] - 1) > ASPECT_TOLERANCE:
            warnings.append(f"the table found ({found[0]:.4g} x {found[1]:.4g} scan units) is not the shape of the "
                            f"given table ({width:g} x {depth:g} mm): side ratios {ratios[0]:.4g} and "
                            f"{ratios[1]:.4g}; scaled by their mean")
        return factor, warnings
    units = scan_units or ("m" if gltf else "mm")
    if units not in MM_PER_UNIT:
        raise SettingError("{scan_units} '{units}': use mm, cm, in or m", units=units)
    factor = MM_PER_UNIT[units]
    size = (found[0] * factor, found[1] * factor)
    if abs(size[0] / width - 1) > ASPECT_TOLERANCE or abs(size[1] / depth - 1) > ASPECT_TOLERANCE:
        warnings.append(Message("read in {units}, the table found is {w:.1f} x {d:.1f} mm, the given table "
                                "{width:g} x {depth:g} mm: check {scan_units}, or use {scale} auto", units=units,
                                w=size[0], d=size[1], width=width, depth=depth))
    return factor, warnings


def placement(region: np.ndarray, levelled: np.ndarray, yaw: float, factor: float) -> np.ndarray:
    """The 4x4 transform from the scan to table mm: level, turn by `yaw`, scale, and move the rectangle's low corner
    to the table's (0, 0)."""
    turned = np.diag([factor, factor, factor, 1.0]) @ _rotation_z(yaw)  # after levelling
    corner = trimesh.transform_points(np.column_stack([region, np.zeros(len(region))]), turned)[:, :2].min(axis=0)
    return trimesh.transformations.translation_matrix([-corner[0], -corner[1], 0.0]) @ turned @ levelled


def write_scan_scene(output: Path, terrain: trimesh.Trimesh, table: tuple[float, float], comment: str,
                     overwrite: bool) -> tuple[Path, Path]:
    """The terrain mesh and a scene naming it, written into `output` (checked before); returns their paths."""
    make_folder(output)
    mesh_path, scene_path = output / OUTPUT_NAMES[0], output / OUTPUT_NAMES[1]
    scene = {
        "lofkit": 1,
        "units": "mm",
        "table": {"width": float(table[0]), "depth": float(table[1])},
        "terrain": [{"id": "scan", "mesh": mesh_path.name, "mesh_units": "mm", "up_axis": "z"}],
        "troopers": [],
    }
    terrain.export(str(mesh_path))  # the mesh first: the scene never names a mesh that is not there
    write_scene_file(scene, scene_path, comment=comment, overwrite=overwrite)
    return mesh_path, scene_path


def import_scan(
    scan: Path | str,
    table: tuple[float, float],
    output: Path | str,
    *,
    scale: str = "auto",
    scan_units: str | None = None,
    turn: int = 0,
    plane_tolerance: float = DEFAULT_PLANE_TOLERANCE,
    seed: int = 0,
    overwrite: bool = False,
) -> ScanImport:
    """Level, find, scale and crop the table in `scan`; write `terrain.ply` and `scene.yaml` into `output`.

    `table` is (width, depth) in mm; `scale` is `auto` or `true` (then `scan_units`: mm, cm, in or m; default m
    for glTF, mm otherwise); `turn` adds quarter turns (0, 90, 180, 270) about the table's centre, since a scan
    does not say which edge is the first player's.
    """
    scan, output = Path(scan), Path(output)
    check_settings(table, scale, turn, plane_tolerance)
    check_output_folder(output, OUTPUT_NAMES, overwrite, inputs=[scan])
    mesh = load_scan(scan)
    rng = np.random.default_rng(seed)
    samples, _ = trimesh.sample.sample_surface(mesh, SAMPLES, seed=rng)
    plane, tolerance = table_plane(scan, samples, plane_tolerance, rng)
    levelled = level_transform(plane)
    gltf = scan.suffix.lower() in GLTF_SUFFIXES
    region = table_region(mesh, samples, levelled, tolerance)
    yaw, found, warnings = square_up(region, table, turn)
    factor, scale_warnings = scale_factor(found, table, scale, scan_units, gltf)
    transform = placement(region, levelled, yaw, factor)
    terrain, dropped = crop_to_table(mesh, transform, *table, tolerance * factor)
    if len(terrain.faces) == 0:
        raise LofkitError(f"{scan}: nothing stands on the table: all {len(mesh.faces)} faces are the table top or "
                          "lie outside the table")
    tilt = tilt_deg(plane, gltf)
    comment = (f"imported by `lofkit import-scan` from {scan.name}: levelled by {tilt:.2f} degrees, scaled by "
               f"{factor:.6g}, {len(terrain.faces)} faces kept")
    mesh_path, scene_path = write_scan_scene(output, terrain, table, comment, overwrite)
    return ScanImport(
        scene=str(scene_path),
        mesh=str(mesh_path),
        tilt_deg=tilt,
        scale=float(factor),
        table_found=(float(found[0]), float(found[1])),
        table_found_mm=(float(found[0] * factor), float(found[1] * factor)),
        inlier_share=plane.inlier_share,
        faces_kept=len(terrain.faces),
        faces_dropped=dropped,
        table_normal_in_scan=tuple(float(v) for v in plane.normal),
        transform=transform,
        warnings=tuple(warnings + scale_warnings),
    )


def crop_to_table(mesh: trimesh.Trimesh, transform: np.ndarray, width: float, depth: float,
                  tolerance: float) -> tuple[trimesh.Trimesh, dict]:
    """The mesh in table mm with only what stands on the table: faces whose centroid lies over the table and not
    below its top, except the table top itself (every corner within `tolerance` of z = 0)."""
    placed = mesh.copy()
    placed.apply_transform(transform)
    centroid = placed.triangles_center
    outside = ((centroid[:, 0] < -tolerance) | (centroid[:, 0] > width + tolerance)
               | (centroid[:, 1] < -tolerance) | (centroid[:, 1] > depth + tolerance))
    below = ~outside & (centroid[:, 2] < -tolerance)
    table_top = ~outside & ~below & (np.abs(placed.vertices[placed.faces][:, :, 2]) <= tolerance).all(axis=1)
    keep = ~(outside | below | table_top)
    placed.update_faces(keep)
    placed.remove_unreferenced_vertices()
    dropped = {"outside": int(outside.sum()), "below": int(below.sum()), "table_top": int(table_top.sum())}
    return placed, dropped
