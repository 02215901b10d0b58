"""Synthetic scans, shared by the tests of `lofkit import-scan`, of `lofkit serve` and `lofkit.load` on a scan: a
known table's turn, tilt, scale and offset into a scan (`scan_transform`), a game in progress on a 48" table in a
room (`game_in_progress`), and that game written as a phone app exports it (`write_game_scan`)."""

import math

import numpy as np
import trimesh

from tests.scan_simulation import Z_UP_TO_Y_UP

BOXES = [(300, 200, 100, 80, 60), (800, 600, 150, 150, 120), (600, 450, 40, 200, 90)]  # centre x, y, w, d, h (mm)
SCAN_SCALE = 0.00093  # scan units per mm: a scan with no true scale
TILT_DEG = 7.0
SQUARE = 48 * 25.4  # 1219.2 mm
BUILDING = (900.0, 300.0, 200.0, 200.0, 150.0)  # a square building: its roof has the table's shape


def scan_transform(yaw_deg: float, tilt_deg: float = TILT_DEG, scale: float = SCAN_SCALE) -> np.ndarray:
    """Known table (mm) -> scan: turn about z, tilt about a horizontal axis, scale, then offset."""
    turn = trimesh.transformations.rotation_matrix(math.radians(yaw_deg), [0, 0, 1])
    tilt = trimesh.transformations.rotation_matrix(math.radians(tilt_deg), [0.6, 0.8, 0])
    offset = trimesh.transformations.translation_matrix([3.0, -2.0, 0.7])
    return offset @ np.diag([scale, scale, scale, 1.0]) @ tilt @ turn


def _grid(x0, y0, width, depth, z, cells, rng) -> trimesh.Trimesh:
    """A flat grid of `cells` x `cells` squares (0.3 mm of noise in z)."""
    xs, ys = np.meshgrid(np.linspace(x0, x0 + width, cells + 1), np.linspace(y0, y0 + depth, cells + 1), indexing="ij")
    vertices = np.column_stack([xs.ravel(), ys.ravel(), z + rng.normal(0, 0.3, xs.size)])
    index = np.arange(xs.size).reshape(cells + 1, cells + 1)
    a, b, c, d = index[:-1, :-1].ravel(), index[1:, :-1].ravel(), index[1:, 1:].ravel(), index[:-1, 1:].ravel()
    return trimesh.Trimesh(vertices, np.vstack([np.column_stack([a, b, c]), np.column_stack([a, c, d])]), process=False)


def _box(x, y, z, w, d, h) -> trimesh.Trimesh:
    box = trimesh.creation.box(extents=(w, d, h))
    box.apply_translation((x, y, z + h / 2))
    return box


def game_in_progress(rng) -> trimesh.Trimesh:
    """A 48" square table (its top at z = 0) with the three boxes and a square building, a miniature (a 25 mm
    cylinder, 40 mm tall) on the building's roof, standing 750 mm up on four legs in a room: a 4 x 3 m floor (the
    shape of a 48" x 36" table, and far larger than the table)."""
    x, y, w, d, h = BUILDING
    miniature = trimesh.creation.cylinder(radius=12.5, height=40.0, sections=24)
    miniature.apply_translation((x, y, h + 20.0))
    legs = [_box(cx, cy, -750.0, 60, 60, 750) for cx in (30.0, SQUARE - 30.0) for cy in (30.0, SQUARE - 30.0)]
    return trimesh.util.concatenate([
        _grid(0, 0, SQUARE, SQUARE, 0.0, 48, rng), _grid(-1400, -900, 4000, 3000, -750.0, 40, rng),
        *[_box(bx, by, 0, bw, bd, bh) for bx, by, bw, bd, bh in BOXES], _box(x, y, 0, w, d, h), miniature, *legs])


def phone_game_scan() -> trimesh.Trimesh:
    """The game in progress as a phone app exports it: metres, y up, turned 23 degrees, tilted 2 and offset."""
    scan = game_in_progress(np.random.default_rng(5))
    scan.apply_transform(Z_UP_TO_Y_UP @ scan_transform(23.0, tilt_deg=2.0, scale=0.001))
    return scan


def write_game_scan(path):
    """A game in progress as a phone app exports it (`phone_game_scan`): a 48" table in a room, metres, y up."""
    phone_game_scan().export(str(path))
    return path
