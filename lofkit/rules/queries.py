"""Questions about a World, answered as frozen results. Queries never print, render or read files."""

from __future__ import annotations

from collections import Counter

import numpy as np

from lofkit.errors import LofkitError
from lofkit.geometry.world import World
from lofkit.rules.measure import ZOC_RADIUS, base_contact, base_distance, in_zoc, neighbours, range_band
from lofkit.rules.results import DistanceResult, PieceRow, SceneInfo, TrooperRow, ZocResult


def distance(world: World, a: str, b: str) -> DistanceResult:
    """Distance between two troopers: "the shortest distance between their two bases", its range band, base contact.

    Bases are horizontal discs at their own `z`: ``sqrt(max(0, d_xy - r_a - r_b)^2 + dz^2)``.

    Parameters
    ----------
    world : World
        The table.
    a, b : str
        Trooper ids.

    Returns
    -------
    DistanceResult
        The distance in mm, its 8" range band, and whether the bases are in contact.

    Raises
    ------
    UnknownTrooperError
        An id the scene does not have.
    LofkitError
        `a` and `b` are the same trooper.

    Examples
    --------
    >>> import lofkit
    >>> result = lofkit.distance(lofkit.load("examples/rulebook_lof.yaml"), "fusilier", "alguacil")
    >>> result.distance_mm, result.range_band, result.base_contact
    (225.0, '8-16in', False)
    """
    v = world.troopers
    i, j = v.index(a), v.index(b)
    if i == j:
        raise LofkitError("a trooper and itself: a distance runs between two different troopers")
    d = float(base_distance(v, i, j))
    return DistanceResult(
        a=a,
        b=b,
        distance_mm=d,
        range_band=str(range_band(d)[1]),
        base_contact=bool(base_contact(v, i, j, world.scene.base_contact_tolerance)),
    )


def zoc(world: World, a: str) -> ZocResult:
    """Zone of Control both ways: who is inside `a`'s ZoC, and inside whose ZoC `a` stands.

    The ZoC "starts at the base edge, 8 inches, drawn horizontally and vertically": radius base radius + 8", from 8"
    below the underside of the base to 8" above it; another trooper is inside when any part of its base disc is.

    Parameters
    ----------
    world : World
        The table.
    a : str
        A trooper id.

    Returns
    -------
    ZocResult
        Both lists of ids, in scene order.

    Raises
    ------
    UnknownTrooperError
        An id the scene does not have.

    Examples
    --------
    >>> import lofkit
    >>> result = lofkit.zoc(lofkit.load("examples/quickstart.yaml"), "hacker")
    >>> result.inside_zoc_of_a, result.a_inside_zoc_of
    (('remote',), ('remote',))
    """
    v = world.troopers
    i = v.index(a)
    others = neighbours(world, i, ZOC_RADIUS)
    inside_a = others[in_zoc(v, i, others)]
    a_inside = others[in_zoc(v, others, i)]
    return ZocResult(
        trooper=a,
        inside_zoc_of_a=tuple(v.ids[k] for k in inside_a),
        a_inside_zoc_of=tuple(v.ids[k] for k in a_inside),
    )


def info(world: World) -> SceneInfo:
    """A summary of the scene for people: table, zones, terrain by kind and piece by piece, every trooper's volume.

    Parameters
    ----------
    world : World
        The table.

    Returns
    -------
    SceneInfo
        What `lofkit info` prints.

    Examples
    --------
    >>> import lofkit
    >>> info = lofkit.info(lofkit.load("examples/quickstart.yaml"))
    >>> info.terrain_by_kind, [(row.id, row.silhouette) for row in info.troopers[-3:]]
    ({'solid': 4, 'zero_visibility': 1}, [('prone-sniper', 'S2 as S0'), ('remote', 'S3'), ('camo-1', 'marker')])
    """
    scene, v = world.scene, world.troopers
    rows = tuple(
        TrooperRow(
            id=t.id,
            side="neutral" if t.neutral else str(t.side),
            silhouette=("marker" if t.marker else "custom" if t.silhouette is None else f"S{t.silhouette}")
            + (" as S0" if t.prone else ""),
            base_mm=2 * v.radius[i],
            height_mm=v.height[i],
            position=(*v.centre[i], v.z[i]),
            facing=float(np.mod(v.facing[i], 360.0)),
            state=t.state,
        )
        for i, t in enumerate(scene.troopers)
    )
    return SceneInfo(
        table_mm=(scene.table.width, scene.table.depth),
        deployment_zones=tuple(z.side for z in scene.deployment_zones),
        terrain_by_kind=dict(Counter(t.kind for t in scene.terrain)),
        triangles=sum(len(p.mesh.faces) for p in world.pieces),
        troopers=rows,
        pieces=tuple(_piece_row(piece) for piece in world.pieces),
    )


def _piece_row(piece) -> PieceRow:
    parts = piece.parts if piece.blocks_lof else None
    return PieceRow(piece.id, piece.kind, len(piece.mesh.faces), piece.closed,
                    *((parts.parts, parts.coverage, parts.holes, parts.skipped_faces) if parts else (None,) * 4))
