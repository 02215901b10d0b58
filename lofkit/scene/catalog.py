"""Terrain catalogues: YAML lists of mesh pieces (`terrain_models/catalog.yaml` is lofkit's own), each entry a
`name`, its mesh `file` (relative to the catalogue), its `footprint` [x, y] and `height` in mm, and `notes`. A
catalogue's meshes stand on z = 0, centred on the origin, so a piece placed at a point stands centred on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from lofkit.errors import LofkitError

BUNDLED = Path(__file__).resolve().parents[2] / "terrain_models"
"""Where lofkit's own catalogues are, beside the package in a clone of the project."""


@dataclass(frozen=True)
class CatalogPiece:
    name: str
    mesh: Path
    footprint: tuple[float, float]
    height: float
    notes: str = ""


def bundled_catalogs() -> list[Path]:
    """lofkit's own catalogues, when the package runs from a clone of the project (none otherwise)."""
    return sorted(BUNDLED.glob("catalog*.yaml")) if BUNDLED.is_dir() else []


def load_catalog(path: Path | str) -> dict[str, CatalogPiece]:
    """The pieces of the catalogue at `path`, by name; a missing file, a missing mesh or a malformed entry is an
    error naming the file and the entry."""
    path = Path(path)
    try:
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise LofkitError(f"{path}: cannot read the terrain catalogue ({exc})") from None
    if not isinstance(entries, list):
        raise LofkitError(f"{path}: a terrain catalogue is a list of pieces (`- name: ...`)")
    pieces = {}
    for k, entry in enumerate(entries):
        try:
            piece = CatalogPiece(str(entry["name"]), (path.parent / entry["file"]).resolve(),
                                 (float(entry["footprint"][0]), float(entry["footprint"][1])), float(entry["height"]),
                                 str(entry.get("notes", "")))
        except (KeyError, TypeError, ValueError, IndexError):
            raise LofkitError(f"{path}: piece {k + 1}: give `name`, `file`, `footprint: [x, y]` and `height`") from None
        if not piece.mesh.is_file():
            raise LofkitError(f"{path}: piece '{piece.name}': mesh file '{piece.mesh}' not found")
        pieces[piece.name] = piece
    return pieces


def load_catalogs(paths: list[Path]) -> dict[str, CatalogPiece]:
    """The pieces of several catalogues, by name (a later catalogue's piece replaces an earlier one's)."""
    return {name: piece for path in paths for name, piece in load_catalog(path).items()}
