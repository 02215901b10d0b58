"""`lofkit import-scan`: a 3D scan of a table (GLB/GLTF/USDZ/OBJ/PLY/STL/OFF mesh) becomes a terrain mesh and a scene.

The file says what it can: glTF is y up and in metres (its spec); a USD stage states its up axis and metres per
unit; OBJ, PLY, STL and OFF are taken as z up, in units unknown (`ScanFrame`).

Steps, each a function below:
1. **Find the table top** (`scan_planes`): the scan's horizontal planes, one after another (RANSAC on points
   sampled evenly over the surface, refined by least squares), each with its top (the largest connected region
   of its inliers and that region's minimum-area rectangle) and what stands on it. The table top is the highest
   plane whose rectangle has the table's shape (and size, when the units are known) with the terrain standing on
   it, so a room's floor below the table, the table's legs and terrain roofs are passed over. Without a table
   size, the standard sizes are tried (`STANDARD_TABLES`) when the scan states its units, and the one taken is said.
2. **Level and square up** — the plane's normal is rotated to +z by the smallest turn, with the plane at z = 0
   (the tilt reported is the angle between that normal and the file's up axis: y for glTF, which is how phone
   scans arrive; z otherwise); the rectangle is turned about z (by the smallest angle, plus `turn` quarter turns)
   so its sides run along x and y, the long side along the table's long side, and its corner moved to (0, 0).
3. **Scale** — `auto`: uniformly, so the rectangle matches the table (the mean of the two side ratios; a
   warning when the two ratios differ by more than 2 %); `true`: the scan's own units (`scan_units`).
4. **Crop** — faces whose centroid lies outside the table rectangle or below the table top (by more than the
   plane tolerance) are dropped, and so is the table top itself (faces with every corner within the tolerance of
   z = 0): the terrain mesh is only what stands on the table, and the scene's z = 0 plane is the table top.
5. **Miniatures** (`scan_heights`, `scan_bases`, `scan_troopers`) — round bases with a figure on them, on the
   table or on terrain, become proposed troopers, and their models are cut out of the terrain.
6. **Pieces** (`scan_pieces`) — each connected piece left is its own mesh file, closed where the scan is open.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import trimesh

from lofkit.errors import LofkitError
from lofkit.exchange.messages import Message, SettingError
from lofkit.exchange.scan_bases import find_bases
from lofkit.exchange.scan_heights import height_layers
from lofkit.exchange.scan_output import check_scan_folder, write_scan_scene
from lofkit.exchange.scan_pieces import Holes, close_holes, split_pieces
from lofkit.exchange.scan_planes import (
    GLTF_SIZE_TOLERANCE,
    SIZE_TOLERANCE,
    STANDARD_TABLES,
    Plane,
    TableChoice,
    choose_table,
    horizontal_planes,
    rectangle,
    scan_size,
)
from lofkit.exchange.scan_troopers import Proposal, cut_out, propose
from lofkit.exchange.usd import USD_SUFFIXES, UsdScan, read_usd
from lofkit.geometry.flat import convex_hull
from lofkit.geometry.terrain import MESH_SUFFIXES, MeshFileError, load_mesh_file
from lofkit.units import EPS, MM_PER_UNIT

SAMPLES = 30_000
ASPECT_TOLERANCE = 0.02
DEFAULT_PLANE_TOLERANCE = 0.002
"""Plane tolerance as a share of the scan's size (the diagonal of its 1st-99th percentile box)."""
TABLE_NOISE = 0.5
"""The least height (mm) over the table at which a surface is terrain, not the table top (`table_noise`)."""
HEIGHT_STEP = 1.0
"""The grid (mm) on which the scan is seen from above to find the bases (`scan_heights`)."""
HEIGHT_LAYERS = 3
"""Surfaces looked at under each cell: the top, and two under roofs, walkways or overhangs."""
RECTANGULAR_SHARE = 0.8
"""A table top found that fills less of its bounding rectangle than this is worth a warning."""
GLTF_SUFFIXES = (".glb", ".gltf")
"""glTF is y up and in metres (glTF 2.0); other scans are taken as z up."""
SCAN_SUFFIXES = MESH_SUFFIXES + USD_SUFFIXES


@dataclass(frozen=True)
class ScanFrame:
    """What a scan file says of itself: its up axis, and mm per unit when it states its units (else None)."""

    up: np.ndarray
    mm_per_unit: float | None
    units: str
    """The units it is read in by default (for messages): m, the stage's units, or mm."""


def frame_of(path: Path, usd: UsdScan | None) -> ScanFrame:
    """glTF: y up, metres; a USD stage: as it states; anything else: z up, units unknown (mm by default)."""
    if usd is not None:
        up = np.array([0.0, 0.0, 1.0] if usd.up == "z" else [0.0, 1.0, 0.0])
        return ScanFrame(up, 1000.0 * usd.metres_per_unit, f"the stage's units ({usd.metres_per_unit:g} m)")
    if path.suffix.lower() in GLTF_SUFFIXES:
        return ScanFrame(np.array([0.0, 1.0, 0.0]), MM_PER_UNIT["m"], "m")
    return ScanFrame(np.array([0.0, 0.0, 1.0]), None, "mm")


@dataclass(frozen=True)
class ScanImport:
    """What `import-scan` found and wrote; `to_dict()` is the CLI's JSON (lengths in mm)."""

    scene: str
    meshes: tuple[str, ...]
    tilt_deg: float
    scale: float
    table_found: tuple[float, float]
    table_found_mm: tuple[float, float]
    inlier_share: float
    faces_kept: int
    faces_dropped: dict
    table_normal_in_scan: tuple[float, float, float]
    transform: np.ndarray = field(repr=False)
    table: tuple[float, float] = (0.0, 0.0)
    """The table's size (mm): the one given, or the standard size taken."""
    table_choice: str = "given"
    """"given", or the standard size taken (e.g. "48x48in")."""
    fit: dict = field(default_factory=dict)
    """How well the table top's rectangle fits the table: `shape_error`, and `size_error` when the units are known."""
    troopers: tuple[Proposal, ...] = ()
    """The troopers proposed for the miniatures found."""
    holes: Holes = field(default_factory=Holes)
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "scene": self.scene,
            "meshes": list(self.meshes),
            "tilt_deg": round(self.tilt_deg, 6),
            "scale": self.scale,
            "table_found": [round(v, 6) for v in self.table_found],
            "table_found_mm": [round(v, 6) for v in self.table_found_mm],
            "inlier_share": round(self.inlier_share, 6),
            "faces_kept": self.faces_kept,
            "faces_dropped": self.faces_dropped,
            "table_normal_in_scan": [round(v, 9) for v in self.table_normal_in_scan],
            "transform": np.round(self.transform, 9).tolist(),
            "table_mm": [round(v, 6) for v in self.table],
            "table_choice": self.table_choice,
            "fit": self.fit,
            "troopers": [proposal.to_dict() for proposal in self.troopers],
            "holes": self.holes.to_dict(),
            "warnings": list(self.warnings),
        }


def load_scan(path: Path) -> tuple[trimesh.Trimesh, ScanFrame]:
    """The scan as one triangle mesh in its own units and axes (a glTF scene's nodes, a USD stage's meshes, placed
    and merged), and what the file says of its frame."""
    if path.suffix.lower() not in SCAN_SUFFIXES:
        raise LofkitError(f"{path}: not a scan mesh; use one of {', '.join(SCAN_SUFFIXES)}")
    if not path.is_file():
        raise LofkitError(f"{path}: file not found")
    usd = read_usd(path) if path.suffix.lower() in USD_SUFFIXES else None
    try:
        mesh = usd.mesh if usd is not None else load_mesh_file(path, units="mm", up_axis="z")  # no turn, no scale
    except MeshFileError as exc:
        raise LofkitError(f"{exc}; import-scan needs a triangle mesh: export the scan as GLB, USDZ, OBJ, PLY or STL "
                          "(a point cloud must be meshed first, e.g. by Poisson reconstruction in MeshLab)") from None
    mesh.remove_unreferenced_vertices()
    if mesh.area <= 0 or not np.isfinite(mesh.vertices).all():
        raise LofkitError(f"{path}: the mesh has no area or holds non-finite coordinates")
    return mesh, frame_of(path, usd)


def _rotation_z(degrees: float) -> np.ndarray:
    return trimesh.transformations.rotation_matrix(math.radians(degrees), [0, 0, 1])


def check_settings(table: tuple[float, float] | None, scale: str, turn: int, plane_tolerance: float) -> None:
    """Refuse settings `import_scan` cannot use, before any work (a table chosen among the standard sizes is
    checked against `turn` once chosen)."""
    if scale not in ("auto", "true"):
        raise SettingError("{scale} '{value}': use auto (fit the given table size) or true (the scan's own units)",
                           value=scale)
    if turn % 90 != 0:
        raise SettingError("{turn} {value}: give a multiple of 90 degrees", value=turn)
    if table is not None:
        check_turn(table, turn)
    if not 0 < plane_tolerance < 0.1:
        raise SettingError("{plane_tolerance} {value}: give a small share of the scan's size, e.g. 0.002",
                           value=plane_tolerance)


def check_turn(table: tuple[float, float], turn: int) -> None:
    width, depth = table
    if turn % 180 and abs(width - depth) > EPS:
        raise SettingError("{turn} {value}: the table is not square, so only 0 or 180 keeps its long side in place",
                           value=turn)


def known_units(scale: str, scan_units: str | None, frame: ScanFrame) -> float | None:
    """mm per scan unit when the scan's units are known: given (`--scale true`), or stated by the file (glTF is in
    metres, a USD stage says); None otherwise."""
    if scale != "true":
        return frame.mm_per_unit
    if scan_units is None:
        return frame.mm_per_unit or MM_PER_UNIT["mm"]
    if scan_units not in MM_PER_UNIT:
        raise SettingError("{scan_units} '{units}': use mm, cm, in or m", units=scan_units)
    return MM_PER_UNIT[scan_units]


def size_tolerance(scale: str, table: tuple[float, float] | None, frame: ScanFrame) -> float | None:
    """How far a table top's size may be from the table's (`scan_planes.choose_table`): a given table with units
    given is trusted (a mismatch is said as a warning, `scale_factor`)."""
    if scale == "true":
        return SIZE_TOLERANCE if table is None else None
    return GLTF_SIZE_TOLERANCE if frame.mm_per_unit is not None else None


def find_table(scan: Path, mesh: trimesh.Trimesh, samples: np.ndarray, table: tuple[float, float] | None,
               mm_per_unit: float | None, tolerance_of_size: float | None, plane_tolerance: float, up: np.ndarray,
               rng: np.random.Generator) -> tuple[TableChoice, float, list]:
    """Step 1: the table top and which table it is, the plane tolerance in scan units, and warnings."""
    tolerance = plane_tolerance * scan_size(samples)
    if table is None and mm_per_unit is None:
        raise SettingError("{path}: the scan does not say its units (OBJ, PLY, STL and OFF files do not), so its size "
                           "cannot tell which table it is: give the table's size with {table}, or the scan's units "
                           "with {scale} true {scan_units} mm (or cm, in, m)", path=scan)
    tops = horizontal_planes(mesh, samples, tolerance, up, rng)
    tables = {"given": table} if table is not None else STANDARD_TABLES
    choice = choose_table(scan, tops, tables, mm_per_unit, tolerance_of_size)
    warnings = []
    if table is None:
        fit = f"its shape within {choice.shape_error:.1%}" + (
            f", its size within {choice.size_error:.1%}" if choice.size_error is not None else "")
        warnings.append(Message("no {table} given: took the standard {name} table ({fit})", name=choice.name,
                                fit=fit))
    return choice, tolerance, warnings


def tilt_deg(plane: Plane, up: np.ndarray) -> float:
    """The angle between the table's normal and the file's own up axis."""
    return math.degrees(math.acos(float(np.clip(plane.normal @ up, -1.0, 1.0))))


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
    hull_share = convex_hull(region).area / (side_a * side_b)
    if hull_share < RECTANGULAR_SHARE:
        warnings.append(f"the table top found is not rectangular (it fills {hull_share:.0%} of its rectangle)")
    return yaw, found, warnings


def scale_factor(found: tuple[float, float], table: tuple[float, float], scale: str, scan_units: str | None,
                 frame: ScanFrame) -> tuple[float, list]:
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
    factor, units = known_units(scale, scan_units, frame), scan_units or frame.units
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


def import_scan(
    scan: Path | str,
    table: tuple[float, float] | None,
    output: Path | str,
    *,
    scale: str = "auto",
    scan_units: str | None = None,
    turn: int = 0,
    plane_tolerance: float = DEFAULT_PLANE_TOLERANCE,
    seed: int = 0,
    overwrite: bool = False,
    holes_closed: str = "sound",
    progress: Callable[[str], None] | None = None,
) -> ScanImport:
    """Find, level, scale and crop the table in `scan`, propose a trooper for every miniature on it, and write
    each terrain piece (`piece-01.ply`, ...) and `scene.yaml` into `output`.

    `table` is (width, depth) in mm, or None to take the standard size the scan fits; `scale` is `auto` or `true`
    (then `scan_units`: mm, cm, in or m; default m for glTF, mm otherwise); `turn` adds quarter turns (0, 90,
    180, 270) about the table's centre, since a scan does not say which edge is the first player's.
    `holes_closed`: "sound" closes the scan's holes where that is sound and leaves large ones open, named; "all"
    closes every one (`scan_pieces`). `progress` is told each stage as it starts.
    """
    scan, output = Path(scan), Path(output)
    say = progress or (lambda stage: None)
    check_settings(table, scale, turn, plane_tolerance)
    if holes_closed not in ("sound", "all"):
        raise SettingError("{holes} '{value}': use sound (close the holes it is sound to close) or all",
                           value=holes_closed)
    check_scan_folder(output, overwrite, scan)
    say("reading the scan")
    mesh, frame = load_scan(scan)
    rng = np.random.default_rng(seed)
    samples, _ = trimesh.sample.sample_surface(mesh, SAMPLES, seed=rng)
    say("finding the table")
    choice, tolerance, found_warnings = find_table(scan, mesh, samples, table, known_units(scale, scan_units, frame),
                                                   size_tolerance(scale, table, frame), plane_tolerance, frame.up, rng)
    table = choice.size
    check_turn(table, turn)
    plane, levelled, region = choice.top.plane, choice.top.levelled, choice.top.region
    yaw, found, warnings = square_up(region, table, turn)
    factor, scale_warnings = scale_factor(found, table, scale, scan_units, frame)
    transform = placement(region, levelled, yaw, factor)
    on_table, dropped = crop_to_table(mesh, transform, *table, tolerance * factor)
    flat = table_noise(on_table, tolerance * factor)
    say("finding the miniatures")
    bases = find_bases(height_layers(on_table, *table, HEIGHT_STEP, HEIGHT_LAYERS))
    proposals, trooper_warnings = propose(bases, *table, flat)
    terrain, dropped["miniatures"] = cut_out(on_table, bases)
    terrain, dropped["table_top"] = drop_table_top(terrain, flat)
    if len(terrain.faces) == 0 and not proposals:
        raise LofkitError(f"{scan}: nothing stands on the table: all {len(mesh.faces)} faces are the table top or "
                          "lie outside the table")
    say("splitting the terrain into pieces")
    pieces, dropped["crumbs"] = split_pieces(terrain, flat)
    holes = Holes()
    pieces = [close_holes(piece, f"scan-piece-{k + 1}", holes, flat, bases, close=holes_closed)
              for k, piece in enumerate(pieces)]
    tilt = tilt_deg(plane, frame.up)
    comment = (f"imported by `lofkit import-scan` from {scan.name}: levelled by {tilt:.2f} degrees, scaled by "
               f"{factor:.6g}, {len(terrain.faces)} faces kept in {len(pieces)} pieces"
               + (f"; scan-1 ... scan-{len(proposals)} are PROPOSED troopers (miniatures found in the scan, "
                  "silhouettes guessed from their height): give each its side and check its silhouette and facing, "
                  "then remove `proposed`" if proposals else ""))
    say("writing")
    mesh_paths, scene_path = write_scan_scene(output, pieces, [p.entry for p in proposals], table, comment, overwrite)
    return ScanImport(
        scene=str(scene_path),
        meshes=tuple(str(path) for path in mesh_paths),
        tilt_deg=tilt,
        scale=float(factor),
        table_found=(float(found[0]), float(found[1])),
        table_found_mm=(float(found[0] * factor), float(found[1] * factor)),
        inlier_share=plane.inlier_share,
        faces_kept=sum(len(piece.faces) for piece in pieces),
        faces_dropped=dropped,
        table_normal_in_scan=tuple(float(v) for v in plane.normal),
        transform=transform,
        table=(float(table[0]), float(table[1])),
        table_choice=choice.name,
        fit={"shape_error": round(choice.shape_error, 6),
             "size_error": None if choice.size_error is None else round(choice.size_error, 6)},
        troopers=tuple(proposals),
        holes=holes,
        warnings=tuple(found_warnings + warnings + scale_warnings + trooper_warnings + holes.warnings()),
    )


def crop_to_table(mesh: trimesh.Trimesh, transform: np.ndarray, width: float, depth: float,
                  tolerance: float) -> tuple[trimesh.Trimesh, dict]:
    """The mesh in table mm with only the table and what stands on it: faces whose centroid lies over the table and
    not below its top (by more than `tolerance`)."""
    placed = mesh.copy()
    placed.apply_transform(transform)
    centroid = placed.triangles_center
    outside = ((centroid[:, 0] < -tolerance) | (centroid[:, 0] > width + tolerance)
               | (centroid[:, 1] < -tolerance) | (centroid[:, 1] > depth + tolerance))
    below = ~outside & (centroid[:, 2] < -tolerance)
    placed.update_faces(~(outside | below))
    placed.remove_unreferenced_vertices()
    return placed, {"outside": int(outside.sum()), "below": int(below.sum())}


def table_noise(terrain: trimesh.Trimesh, tolerance: float) -> float:
    """How far (mm) the table top's surface strays from z = 0: five robust standard deviations (from the median
    absolute deviation) of the corners of the faces lying within the plane `tolerance`, weighted by the faces' area
    (the table's wide faces outweigh the feet of walls), at least `TABLE_NOISE`, at most `tolerance`."""
    corners = terrain.vertices[terrain.faces][:, :, 2]
    flat = (np.abs(corners) <= tolerance).all(axis=1)
    if not flat.any():
        return TABLE_NOISE
    z, weight = corners[flat].ravel(), np.repeat(terrain.area_faces[flat], 3)
    spread = 1.4826 * _weighted_median(np.abs(z - _weighted_median(z, weight)), weight)
    return float(min(tolerance, max(5.0 * spread, TABLE_NOISE)))


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, cumulative[-1] / 2)])


def drop_table_top(terrain: trimesh.Trimesh, tolerance: float) -> tuple[trimesh.Trimesh, int]:
    """`terrain` without the table top: faces with every corner within `tolerance` of z = 0."""
    table_top = (np.abs(terrain.vertices[terrain.faces][:, :, 2]) <= tolerance).all(axis=1)
    kept = terrain.copy()
    kept.update_faces(~table_top)
    kept.remove_unreferenced_vertices()
    return kept, int(table_top.sum())
