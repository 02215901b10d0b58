"""Frozen result objects; `to_dict()` is exactly the JSON the CLI prints (lengths in mm unless `_in`)."""

from __future__ import annotations

from dataclasses import dataclass

from lofkit.errors import Problem
from lofkit.units import reported, to_inches


@dataclass(frozen=True)
class DistanceResult:
    """Base-to-base distance between two troopers."""

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
    """Who is inside A's Zone of Control, and inside whose ZoC A stands."""

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
    """A terrain piece and the convex parts that prove what it hides (None for the parts of a piece that blocks
    nothing): how many, the share of its solid they cover, holes closed by caps, faces that no part could use."""

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
    """What a scene holds: table, zones, terrain by kind and piece by piece, troopers."""

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
    """Is the scene well-formed: errors stop every query, warnings do not."""

    source: str
    errors: tuple[Problem, ...]
    warnings: tuple[Problem, ...]

    @property
    def ok(self) -> bool:
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
    """LoF from `shooter` to `target` with its evidence: the arc check, the witness of sight or what blocked it."""

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
    witness: object | None
    blockers: tuple[tuple[str, int], ...]
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
            "cover": self.cover,
            "cover_from": self.cover_from,
            "visibility_mod": self.visibility_mod,
            "visibility_zone": self.visibility_zone,
        }


@dataclass(frozen=True)
class MatrixResult:
    """LoF for every ordered pair of troopers."""

    verdicts: tuple[LofVerdict, ...]

    def to_dict(self) -> dict:
        keys = ("shooter", "target", "lof", "sight", "in_arc", "can_target")
        return {"pairs": [{key: getattr(v, key) for key in keys} for v in self.verdicts]}
