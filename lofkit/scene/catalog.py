"""Terrain catalogues: YAML lists of mesh pieces (`terrain_models/catalog.yaml` is lofkit's own), each entry a
`name`, its mesh `file` (relative to the catalogue), its `footprint` [x, y] and `height` in mm, and `notes`. A
catalogue's meshes stand on z = 0, centred on the origin, so a piece placed at a point stands centred on it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from lofkit.errors import LofkitError, SceneError
from lofkit.scene.loading import read_document

KEYS = ("name", "file", "footprint", "height", "notes", "levels", "triangles", "watertight", "bodies")
"""The keys of a catalogue entry: the first four are needed, the others describe the piece for people."""
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
    error naming the file, the entry and the key."""
    path = Path(path)
    try:
        entries = read_document(path)  # as a scene file is read: keys written twice, lines of errors
    except SceneError as exc:
        problems = "; ".join(f"{p.where}: {p.message}" for p in exc.problems)
        raise LofkitError(f"{path}: cannot read the terrain catalogue: {problems}") from None
    if not isinstance(entries, list):
        raise LofkitError(f"{path}: a terrain catalogue is a list of pieces (`- name: ...`)")
    pieces: dict[str, CatalogPiece] = {}
    for k, entry in enumerate(entries):
        piece = _piece(entry, f"{path}: piece {k + 1}", path.parent)
        if piece.name in pieces:
            raise LofkitError(f"{path}: piece {k + 1}: the name '{piece.name}' is used twice; give each piece its own")
        if not piece.mesh.is_file():
            raise LofkitError(f"{path}: piece '{piece.name}': mesh file '{piece.mesh}' not found")
        pieces[piece.name] = piece
    return pieces


def _piece(entry: object, where: str, folder: Path) -> CatalogPiece:
    """One entry of a catalogue, each key checked: `name`, `file`, `footprint: [x, y]` and `height` (positive mm)."""
    if not isinstance(entry, dict):
        raise LofkitError(f"{where}: give `name`, `file`, `footprint: [x, y]` and `height`")
    unknown = sorted(set(map(str, entry)) - set(KEYS))
    if unknown:
        raise LofkitError(f"{where}: unknown key '{unknown[0]}'; a piece has {', '.join(KEYS)}")
    missing = [key for key in KEYS[:4] if key not in entry]
    if missing:
        raise LofkitError(f"{where}: `{missing[0]}` is missing; a piece has `name`, `file`, `footprint: [x, y]` and "
                          "`height`")
    footprint = entry["footprint"]
    sizes = list(footprint) if isinstance(footprint, list | tuple) and len(footprint) == 2 else None
    for key, values in (("footprint", sizes), ("height", [entry["height"]])):
        if values is None or not all(_positive(v) for v in values):
            shape = "[x, y], two" if key == "footprint" else "a"
            raise LofkitError(f"{where}: {key} {entry[key]!r}: give {shape} positive number{'s' * (key == 'footprint')}"
                              " of mm")
    return CatalogPiece(str(entry["name"]), (folder / str(entry["file"])).resolve(), (float(sizes[0]), float(sizes[1])),
                        float(entry["height"]), str(entry.get("notes", "")))


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def load_catalogs(paths: list[Path]) -> dict[str, CatalogPiece]:
    """The pieces of several catalogues, by name (a later catalogue's piece replaces an earlier one's)."""
    return {name: piece for path in paths for name, piece in load_catalog(path).items()}
