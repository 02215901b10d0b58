"""Frozen result objects; `to_dict()` is exactly the JSON the CLI prints (lengths in mm unless `_in`)."""

from __future__ import annotations

from dataclasses import dataclass

from lofkit.errors import Problem
from lofkit.sight.evidence import Witness
from lofkit.units import reported, to_inches


@dataclass(frozen=True)
class DistanceResult:
    """Base-to-base distance between two troopers (`distance`): "the shortest distance between their two bases".

    Attributes
    ----------
    a, b : str
        The two troopers' ids.
    distance_mm : float
        The distance between the two bases, as horizontal discs at their own `z` (mm).
    range_band : str
        Its 8" band: ``"0-8in"``, ``"8-16in"``, ... ``"88-96in"``, or ``"over 96in"``; a distance exactly on a
        boundary belongs to the shorter band.
    base_contact : bool
        Whether the distance is at most the scene's `base_contact_tolerance` (default 0.5 mm).

    Examples
    --------
    >>> import lofkit
    >>> result = lofkit.distance(lofkit.load("examples/rulebook_lof.yaml"), "fusilier", "iguana")
    >>> result.distance_mm, result.range_band, result.base_contact
    (410.0, '16-24in', False)
    """

    a: str
    b: str
    distance_mm: float
    range_band: str
    base_contact: bool

    def to_dict(self) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "distance_mm": reported(self.distance_mm),
            "distance_in": reported(to_inches(self.distance_mm)),
            "range_band": self.range_band,
            "base_contact": self.base_contact,
        }


@dataclass(frozen=True)
class ZocResult:
    """Who is inside a trooper's Zone of Control, and inside whose ZoC it stands (`zoc`).

    Attributes
    ----------
    trooper : str
        The trooper asked about (A).
    inside_zoc_of_a : tuple of str
        Ids of the troopers with any part of their base disc inside A's ZoC, in scene order.
    a_inside_zoc_of : tuple of str
        Ids of the troopers whose ZoC holds part of A's base disc, in scene order.

    Examples
    --------
    >>> import lofkit
    >>> lofkit.zoc(lofkit.load("examples/rulebook_lof.yaml"), "alguacil").inside_zoc_of_a
    ('grenzer', 'iguana')
    """

    trooper: str
    inside_zoc_of_a: tuple[str, ...]
    a_inside_zoc_of: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "trooper": self.trooper,
            "inside_zoc_of_a": list(self.inside_zoc_of_a),
            "a_inside_zoc_of": list(self.a_inside_zoc_of),
        }


@dataclass(frozen=True)
class TrooperRow:
    """One trooper of `SceneInfo.troopers`: its side, silhouette, volume and where it stands.

    Attributes
    ----------
    id : str
        The trooper's id.
    side : str
        Its side, or ``"neutral"``.
    silhouette : str
        ``"S1"`` ... ``"S8"``, ``"marker"`` or ``"custom"`` (base and height given), with ``" as S0"`` when prone.
    base_mm, height_mm : float
        Base diameter and volume height (3 mm when prone), in mm.
    position : tuple of float
        Base centre x, y and the underside of the base z (mm; `z: auto` already resolved).
    facing : float
        Degrees counter-clockwise from +x, in [0, 360).
    state : tuple of str
        ``"moving"``, ``"engaged"``, ``"prone"``, as the scene gives them.

    Examples
    --------
    >>> import lofkit
    >>> row = lofkit.info(lofkit.load("examples/quickstart.yaml")).troopers[0]
    >>> row.id, row.silhouette, row.to_dict()["position"]  # `z: auto` on the hab-block's roof
    ('sniper', 'S2', [600.0, 560.0, 150.0])
    """

    id: str
    side: str
    silhouette: str
    base_mm: float
    height_mm: float
    position: tuple[float, float, float]
    facing: float
    state: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "side": self.side,
            "silhouette": self.silhouette,
            "base_mm": reported(self.base_mm),
            "height_mm": reported(self.height_mm),
            "position": [reported(c) for c in self.position],
            "facing": reported(self.facing),
            "state": list(self.state),
        }


@dataclass(frozen=True)
class PieceRow:
    """One terrain piece of `SceneInfo.pieces` and the convex parts that prove what it hides.

    Attributes
    ----------
    id, kind : str
        The piece's id and kind: ``"solid"``, ``"zero_visibility"``, ``"low_visibility"`` or ``"poor_visibility"``.
    triangles : int
        Triangles of its placed mesh.
    watertight : bool
        Whether the mesh is closed (has an inside).
    parts, covered, holes_closed, faces_skipped : int, float, int, int, or None
        The convex parts proofs of "hidden" use (JSON `proof_parts`), the share of the solid they cover (0-1,
        JSON `solid_covered`), holes closed by caps, faces no part could use; all None for a piece that blocks
        nothing.

    Examples
    --------
    >>> import lofkit
    >>> row = lofkit.info(lofkit.load("examples/quickstart.yaml")).pieces[0]
    >>> row.id, row.kind, row.triangles, row.parts, row.covered
    ('hab-block', 'solid', 12, 1, 1.0)
    """

    id: str
    kind: str
    triangles: int
    watertight: bool
    parts: int | None
    covered: float | None
    holes_closed: int | None
    faces_skipped: int | None

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "triangles": self.triangles,
            "watertight": self.watertight,
            "proof_parts": self.parts,
            "solid_covered": None if self.covered is None else round(self.covered, 3),
            "holes_closed": self.holes_closed,
            "faces_skipped": self.faces_skipped,
        }


@dataclass(frozen=True)
class SceneInfo:
    """What a scene holds: table, zones, terrain by kind and piece by piece, troopers (`info`).

    Attributes
    ----------
    table_mm : tuple of float
        Table width (x) and depth (y), mm.
    deployment_zones : tuple of str
        The side of each deployment zone polygon, in scene order.
    terrain_by_kind : dict of str to int
        How many pieces of each kind (``"solid"``, ``"zero_visibility"``, ``"low_visibility"``,
        ``"poor_visibility"``).
    triangles : int
        Triangles of all the placed terrain meshes.
    troopers : tuple of TrooperRow
        Every trooper and marker, in scene order.
    pieces : tuple of PieceRow
        Every terrain piece, in scene order.

    Examples
    --------
    >>> import lofkit
    >>> info = lofkit.info(lofkit.load("examples/quickstart.yaml"))
    >>> info.to_dict()["table_in"], info.deployment_zones, info.terrain_by_kind
    ([48.0, 48.0], ('blue', 'red'), {'solid': 4, 'zero_visibility': 1})
    """

    table_mm: tuple[float, float]
    deployment_zones: tuple[str, ...]
    terrain_by_kind: dict[str, int]
    triangles: int
    troopers: tuple[TrooperRow, ...]
    pieces: tuple[PieceRow, ...] = ()

    def to_dict(self) -> dict:
        return {
            "table_mm": [reported(v) for v in self.table_mm],
            "table_in": [reported(to_inches(v)) for v in self.table_mm],
            "deployment_zones": list(self.deployment_zones),
            "terrain": sum(self.terrain_by_kind.values()),
            "terrain_by_kind": dict(self.terrain_by_kind),
            "triangles": self.triangles,
            "pieces": [p.to_dict() for p in self.pieces],
            "troopers": [t.to_dict() for t in self.troopers],
        }


@dataclass(frozen=True)
class Validation:
    """Is the scene well-formed (`validate_file`): errors stop every query, warnings do not.

    Attributes
    ----------
    source : str
        The file validated, as given.
    errors : tuple of Problem
        What makes the scene unusable (a missing file, a bad key, a trooper off the table...), each at its place.
    warnings : tuple of Problem
        What does not stop queries: terrain past the table edge, a trooper with no facing, overlapping bases, a
        trooper inside scenery or below the table, one found in a scan and not confirmed.
    ok : bool
        No errors (a property).

    Examples
    --------
    >>> import lofkit
    >>> report, world = lofkit.validate_file("examples/quickstart.yaml")
    >>> report.ok, report.errors, report.warnings
    (True, (), ())
    """

    source: str
    errors: tuple[Problem, ...]
    warnings: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
        """No errors."""
        return not self.errors

    def to_dict(self) -> dict:
        return {
            "scene": self.source,
            "ok": self.ok,
            "errors": [p.to_dict() for p in self.errors],
            "warnings": [p.to_dict() for p in self.warnings],
        }


@dataclass(frozen=True)
class LofVerdict:
    """LoF from `shooter` to `target` with its evidence: the arc check, the witness of sight or what blocked it.

    Attributes
    ----------
    shooter, target : str
        The two troopers' ids.
    lof : bool
        LoF exists: `in_arc`, `sight`, and an engaged shooter traces it only to a target in base contact.
    in_arc : bool
        Any part of the target's volume is in the shooter's front 180° arc (360° when `moving` or `engaged`).
    sight : bool
        Either trooper sees a 3 x 3 mm patch of the other's silhouette template (the same both ways).
    can_target : bool
        `lof`, and the target is a valid target: neither friendly (same side) nor neutral.
    reason : str
        What decided, as a sentence starting ``"out of arc: "``, ``"<shooter> is engaged ..."``, ``"no sight: "``
        (naming the blockers or the one that provably cuts every line), ``"LoF: "`` or ``"LoF, but "`` (a friendly
        or neutral target).
    distance_mm : float
        Base-to-base distance (mm).
    range_band : str
        ``"0-8in"``, ``"8-16in"``, ... ``"88-96in"`` or ``"over 96in"``.
    in_zoc : bool
        The target's base is inside the shooter's Zone of Control.
    base_contact : bool
        The bases are within the scene's `base_contact_tolerance`.
    witness : Witness or None
        With sight: the eye point and the seen 3 x 3 mm square (centre and corners, table mm), and whose eye it is
        (`eye_of`: either trooper); None without sight.
    blockers : tuple of (str, int)
        Without sight: the blockers that stopped the most sampled segments, with their counts, or the one convex
        blocker that cuts every segment, with count 0; empty with sight (and with ``evidence=False``).
    sight_decided_by : str
        What settled `sight`: ``"witness"`` (an eye of one sees a square of the other), ``"one_blocker"`` (one
        convex blocker crosses every segment between the two volumes), ``"blocker_per_half"`` (one for each half of
        one volume and each half of the other), or ``"search"`` (no eye of either sees a square of the other's
        template: tiles of eyes proved hidden by one convex part of the terrain or several together, the other eyes
        searched).
    cover : bool
        Partial Cover: the target's base touches solid scenery that hides part of its template from the shooter.
    cover_from : str or None
        The id of that piece.
    visibility_mod : int
        The worst Low (-3) or Poor (-6) Visibility zone the witness segments start in, end in or cross; 0 if none.
    visibility_zone : str or None
        The id of that zone.

    Examples
    --------
    >>> import lofkit
    >>> verdict = lofkit.check(lofkit.load("examples/rulebook_lof.yaml"), "fusilier", "reverend-healer")
    >>> verdict.lof, verdict.reason, verdict.witness
    (False, 'no sight: building cuts every line between the two volumes', None)
    """

    shooter: str
    target: str
    lof: bool
    in_arc: bool
    sight: bool
    can_target: bool
    reason: str
    distance_mm: float
    range_band: str
    in_zoc: bool
    base_contact: bool
    witness: Witness | None
    blockers: tuple[tuple[str, int], ...]
    sight_decided_by: str = "search"
    cover: bool = False
    cover_from: str | None = None
    visibility_mod: int = 0
    visibility_zone: str | None = None

    def to_dict(self) -> dict:
        return {
            "shooter": self.shooter,
            "target": self.target,
            "lof": self.lof,
            "in_arc": self.in_arc,
            "sight": self.sight,
            "can_target": self.can_target,
            "reason": self.reason,
            "distance_mm": reported(self.distance_mm),
            "distance_in": reported(to_inches(self.distance_mm)),
            "range_band": self.range_band,
            "in_zoc": self.in_zoc,
            "base_contact": self.base_contact,
            "witness": self.witness.to_dict() if self.witness is not None else None,
            "blockers": [{"id": name, "segments": count} for name, count in self.blockers],
            "sight_decided_by": self.sight_decided_by,
            "cover": self.cover,
            "cover_from": self.cover_from,
            "visibility_mod": self.visibility_mod,
            "visibility_zone": self.visibility_zone,
        }


@dataclass(frozen=True)
class MatrixResult:
    """LoF for every ordered pair of troopers (`matrix`).

    Attributes
    ----------
    verdicts : tuple of LofVerdict
        One per ordered pair of distinct troopers, shooter by shooter in scene order, then target by target.

    Examples
    --------
    >>> import lofkit
    >>> result = lofkit.matrix(lofkit.load("examples/rulebook_lof.yaml"))
    >>> len(result.verdicts), result.to_dict()["pairs"][0]
    (72, {'shooter': 'fusilier', 'target': 'grenzer', 'lof': True, 'sight': True, 'in_arc': True, 'can_target': True})
    """

    verdicts: tuple[LofVerdict, ...]

    def to_dict(self) -> dict:
        keys = ("shooter", "target", "lof", "sight", "in_arc", "can_target")
        return {"pairs": [{key: getattr(v, key) for key in keys} for v in self.verdicts]}
