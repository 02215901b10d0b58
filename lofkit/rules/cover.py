"""Partial Cover and visibility-zone MODs: what the terrain around a ruling adds to the roll.

docs/rules.md (Cover, N4): "A target is in Partial Cover against an attacker when its base is in contact with a piece of
scenery that obscures part of its silhouette template as seen from the attacker. Cover gives -3 to the attacker's
BS and +3 to the target's ARM." docs/rules.md (LoF 3): Low/Poor Visibility zones do not block; they add MODs (-3 / -6,
not cumulative, the worst applies) when a witness segment passes from, into or through them.
"""

from __future__ import annotations

import numpy as np
import trimesh

from lofkit.sight.evidence import evidence_segments
from lofkit.units import EPS

CONTACT_HEIGHT = 1.0
"""Base contact with scenery is measured from the base's rim this far (mm) above its underside plus the contact
tolerance, so the surface the base stands on is never scenery it touches."""
RIM_SAMPLES = 72
"""Points of the base's rim measured first (5 degrees apart); `rim_within` refines between them where needed."""
CONTACT_PRECISION = 1e-4
"""mm: how closely the rim's distance to scenery is known when deciding contact."""
PARTIAL_COVER_BS_MOD = -3
"""docs/rules.md (Cover): "Cover gives -3 to the attacker's BS"."""
LOW_VISIBILITY_MOD = -3
"""A Low Visibility zone on the witness segments: -3 (not cumulative with Poor Visibility; the worst applies)."""
POOR_VISIBILITY_MOD = -6
"""A Poor Visibility zone on the witness segments: -6."""
ZONE_MODS = {"low_visibility": LOW_VISIBILITY_MOD, "poor_visibility": POOR_VISIBILITY_MOD}


def scenery_in_contact(world, trooper: int) -> list[int]:
    """Solid pieces that block LoF whose surface comes within the base contact tolerance of the trooper's base rim
    (or that hold the rim inside them). A piece marked `blocks_lof: false` obstructs no segment (docs/rules.md,
    LoF 3), so it obscures no part of a template and gives no cover."""
    v = world.troopers
    tolerance = world.scene.base_contact_tolerance
    reach = v.radius[trooper] + tolerance + 1.0
    x, y = v.centre[trooper]
    lift = v.z[trooper] + CONTACT_HEIGHT + tolerance
    box = (x - reach, y - reach, v.z[trooper], x + reach, y + reach, lift + tolerance)
    touching = []
    scenery = set(world.solid_pieces.tolist()) & set(world.blocking_pieces.tolist())
    for piece in sorted(set(world.piece_index.intersection(box)) & scenery):
        mesh = world.pieces[piece].mesh
        if rim_within(mesh, (x, y, lift), float(v.radius[trooper]), tolerance):
            touching.append(piece)
    return touching


def rim_within(mesh: trimesh.Trimesh, centre, radius: float, tolerance: float) -> bool:
    """Whether the surface of `mesh` comes within `tolerance` of the horizontal circle of `radius` about `centre`
    (x, y, z), to `CONTACT_PRECISION`; or, for a watertight mesh, holds the circle inside.

    The distance from a point of the circle to the surface changes by at most the arc between two points, so an arc
    whose middle lies d from the surface comes no nearer than d less half its length. Arcs that bound leaves open
    are halved until they are shorter than the precision: a corner pointing at the rim between two samples is not
    missed."""
    x, y, z = centre
    middles, half = np.linspace(0, 2 * np.pi, RIM_SAMPLES, endpoint=False), np.pi / RIM_SAMPLES
    near = _faces_near(mesh, centre, radius, tolerance + radius * half + 1.0)
    first = True
    while len(middles):
        rim = np.column_stack([x + radius * np.cos(middles), y + radius * np.sin(middles), np.full(len(middles), z)])
        distance = trimesh.proximity.closest_point(near, rim)[1] if near is not None else np.full(len(rim), np.inf)
        if (distance <= tolerance + EPS).any() or (first and mesh.is_watertight and mesh.contains(rim).any()):
            return True
        first = False
        open_arcs = middles[distance - radius * half <= tolerance + EPS]
        if radius * half <= CONTACT_PRECISION:
            return len(open_arcs) > 0
        half /= 2
        middles = np.concatenate([open_arcs - half, open_arcs + half])
    return False


def _faces_near(mesh: trimesh.Trimesh, centre, radius: float, margin: float) -> trimesh.Trimesh | None:
    """The faces of `mesh` whose bounding boxes come within `margin` of the circle's (None: none do). Every other
    face lies farther than `margin` from the circle, beyond any distance `rim_within` weighs, so its answers stay
    the same on a large mesh at a fraction of the cost."""
    x, y, z = centre
    low = np.array([x - radius - margin, y - radius - margin, z - margin])
    high = np.array([x + radius + margin, y + radius + margin, z + margin])
    triangles = mesh.triangles
    close = (triangles.min(axis=1) <= high).all(axis=1) & (triangles.max(axis=1) >= low).all(axis=1)
    if not close.any():
        return None
    return trimesh.Trimesh(mesh.vertices, mesh.faces[close], process=False)


def partial_cover(world, attacker: int, target: int, contact: list[int] | None = None) -> str | None:
    """The id of a piece of scenery in base contact with the target that hides part of its silhouette template
    from the attacker's key eyes (None: no Partial Cover)."""
    contact = scenery_in_contact(world, target) if contact is None else contact
    if not contact:
        return None
    segments, _ = evidence_segments(world, attacker, target)
    for piece in contact:
        if world.piece_rays(piece).occluded(segments.origins, segments.directions, segments.lengths).any():
            return world.pieces[piece].id
    return None


def visibility_mod(world, witness) -> tuple[int, str | None]:
    """The worst Low/Poor Visibility MOD over the zones that the witness segments start in, end in or cross."""
    if witness is None:
        return 0, None
    eye = np.array(witness.eye)
    ends = np.vstack([witness.corners, witness.centre])
    span = ends - eye
    length = np.linalg.norm(span, axis=1)
    worst, zone = 0, None
    for index, rays in world.zone_rays:
        piece = world.pieces[index]
        mod = ZONE_MODS[piece.kind]
        if mod >= worst:
            continue
        crossed = rays.occluded(np.tile(eye, (len(ends), 1)), span / length[:, None], length)
        inside = piece.mesh.is_watertight and piece.mesh.contains(np.vstack([eye, ends])).any()
        if crossed.any() or inside:
            worst, zone = mod, piece.id
    return worst, zone
