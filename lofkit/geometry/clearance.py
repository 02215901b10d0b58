"""Which troopers' volumes cut into solid scenery.

README "Scene files": "a trooper whose volume intersects solid scenery" is a warning; docs/rules.md (Deployment):
"the volume intersects no scenery". A volume resting on a surface touches it without intersecting it, so the test runs on the
cylinder shrunk by `CLEARANCE` (0.01 mm) on every side. It finds scenery crossing the volume (segments sampled
inside it hit a surface), scenery poking into it (a mesh vertex inside it) and a volume buried whole in a piece (its
centre inside the mesh, or inside an open mesh closed by caps over its holes: `terrain.Piece.holds`).
"""

from __future__ import annotations

import numpy as np

CLEARANCE = 0.01
"""Touching is not overlapping: a base touching a piece's side neither stands on it nor cuts into it (mm)."""
_HEIGHTS = np.array([0.05, 0.5, 0.95])


def disc_pattern(rings: int = 3, per_ring: int = 12) -> np.ndarray:
    """Points of the unit disc: its centre and `rings` concentric rings, the last one on the rim; shape (k, 2)."""
    radii = np.repeat(np.arange(1, rings + 1) / rings, per_ring)
    angles = np.tile(np.arange(per_ring) * 2 * np.pi / per_ring, rings)
    ring = np.stack([radii * np.cos(angles), radii * np.sin(angles)], axis=-1)
    return np.vstack([[0.0, 0.0], ring])


def _sample_segments(v, troopers: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Vertical segments over a disc pattern and horizontal chords at three heights inside each shrunk volume."""
    r = v.radius[troopers] - CLEARANCE
    z0, z1 = v.z[troopers] + CLEARANCE, v.top[troopers] - CLEARANCE
    disc = disc_pattern(rings=2, per_ring=8)
    feet = v.centre[troopers][:, None, :] + r[:, None, None] * disc[None]
    vertical_o = np.concatenate([feet, np.broadcast_to(z0[:, None, None], feet.shape[:2] + (1,))], axis=-1)
    vertical_d = np.broadcast_to([0.0, 0.0, 1.0], vertical_o.shape)
    vertical_t = np.broadcast_to((z1 - z0)[:, None], feet.shape[:2])
    angles = np.arange(8) * np.pi / 8
    chord = np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=-1)  # (8, 3)
    heights = z0[:, None] + (z1 - z0)[:, None] * _HEIGHTS[None]  # (n, 3)
    start_xy = v.centre[troopers][:, None, :] - r[:, None, None] * chord[None, :, :2]  # (n, 8, 2)
    chord_o = np.concatenate(
        [
            np.broadcast_to(start_xy[:, None], (len(troopers), len(_HEIGHTS), 8, 2)),
            np.broadcast_to(heights[:, :, None, None], (len(troopers), len(_HEIGHTS), 8, 1)),
        ],
        axis=-1,
    ).reshape(len(troopers), -1, 3)
    chord_d = np.broadcast_to(np.tile(chord, (len(_HEIGHTS), 1))[None], chord_o.shape)
    chord_t = np.broadcast_to((2 * r)[:, None], chord_o.shape[:2])
    origins = np.concatenate([vertical_o, chord_o], axis=1)
    owner = np.repeat(troopers, origins.shape[1])
    return (
        origins.reshape(-1, 3),
        np.concatenate([vertical_d, chord_d], axis=1).reshape(-1, 3),
        np.concatenate([vertical_t, chord_t], axis=1).reshape(-1),
        owner,
    )


def scenery_overlaps(world, troopers: np.ndarray | None = None, volumes=None) -> dict[int, list[str]]:
    """Map trooper index -> ids of the solid pieces its volume intersects (troopers with none are left out); the
    volumes are the world's troopers unless `volumes` (geometry.volumes.Volumes) are given."""
    v = world.troopers if volumes is None else volumes
    troopers = np.arange(len(v)) if troopers is None else np.asarray(troopers)
    found: dict[int, set[int]] = {}
    if len(world.solid_pieces) == 0 or len(troopers) == 0:
        return {}
    origins, directions, lengths, owner = _sample_segments(v, troopers)
    distance, hit = world.solid_rays.first_hit(origins, directions, lengths)
    for trooper, piece in set(zip(owner[hit >= 0].tolist(), world.solid_pieces[hit[hit >= 0]].tolist())):
        found.setdefault(trooper, set()).add(piece)
    solid = set(world.solid_pieces.tolist())
    shrink = np.array([CLEARANCE] * 3 + [-CLEARANCE] * 3)
    near: dict[int, list[int]] = {}  # piece -> the troopers whose boxes meet its box, not yet found in it
    for trooper in troopers.tolist():
        for piece in set(world.piece_index.intersection(tuple(v.boxes[trooper] + shrink))) & solid:
            if piece not in found.get(trooper, ()):
                near.setdefault(piece, []).append(trooper)
    for piece, group in near.items():
        group = np.array(group)
        for trooper in group[_pokes_into(v, group, world.pieces[piece])].tolist():
            found.setdefault(trooper, set()).add(piece)
    return {t: sorted(world.pieces[p].id for p in pieces) for t, pieces in sorted(found.items())}


VERTEX_TESTS = 4_000_000
"""(volume, vertex) pairs tested at once by `_pokes_into`."""


def _pokes_into(v, troopers: np.ndarray, piece) -> np.ndarray:
    """Whether `piece` pokes into each of the shrunk volumes of `troopers` (k,): a vertex of it lies inside the
    volume, or the volume's middle lies inside the piece's solid (a volume buried whole)."""
    r = v.radius[troopers] - CLEARANCE
    z0, z1 = v.z[troopers] + CLEARANCE, v.top[troopers] - CLEARANCE
    vertices = piece.mesh.vertices
    poking = np.zeros(len(troopers), dtype=bool)
    step = max(1, VERTEX_TESTS // max(len(vertices), 1))
    for first in range(0, len(troopers), step):
        k = slice(first, first + step)
        gap = np.hypot(vertices[None, :, 0] - v.centre[troopers[k], 0, None],
                       vertices[None, :, 1] - v.centre[troopers[k], 1, None])
        poking[k] = ((gap < r[k, None]) & (vertices[None, :, 2] > z0[k, None])
                     & (vertices[None, :, 2] < z1[k, None])).any(axis=1)
    rest = np.flatnonzero(~poking)
    if len(rest):
        poking[rest] = piece.holds(np.column_stack([v.centre[troopers[rest]], (z0[rest] + z1[rest]) / 2]))
    return poking


def volume_overlaps(world, volumes) -> list[list[str]]:
    """docs/rules.md (Deployment): "the volume intersects no scenery": ids of the solid pieces each volume intersects.

    The clearance test of the scene's troopers (`scenery_overlaps`) run on `volumes` (geometry.volumes.Volumes); a
    vectorised box test first keeps only the volumes near some solid piece.
    """
    found: list[list[str]] = [[] for _ in range(len(volumes))]
    if len(world.solid_pieces) == 0 or len(volumes) == 0:
        return found
    bounds = np.array([np.ravel(world.pieces[p].bounds) for p in world.solid_pieces])  # (m, 6)
    boxes = volumes.boxes
    near = np.all(
        (boxes[:, None, :3] < bounds[None, :, 3:] - CLEARANCE) & (boxes[:, None, 3:] > bounds[None, :, :3] + CLEARANCE),
        axis=2,
    ).any(axis=1)
    chosen = np.flatnonzero(near)
    if len(chosen) == 0:
        return found
    for k, pieces in scenery_overlaps(world, chosen, volumes).items():
        found[k] = pieces
    return found
