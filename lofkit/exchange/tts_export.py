"""Writing a Tabletop Simulator save of a table's mesh pieces (`lofkit generate`'s best layout), so that the
layout can be played online; `import-tts` reads it back to the same pieces.

The frames are `tts`'s, run backwards (its module docstring): TTS units are inches, the table is centred on the
origin, Y is up, a piece at scene (x, y) stands at (posX, posZ) = (x - W/2, y - D/2) and its pivot at posY
`TABLE_TOP`. Each mesh is written once as an OBJ in inches with Y up, read by TTS with X negated: a scene vertex
(x, y, z) mm of the piece's own frame is written as (x, z, -y) / 25.4, so that TTS's mirror and the axis swap
make the half turn `tts.HALF_TURN`, and a piece turned by `rotation` degrees counter-clockwise (seen from above)
gets rotY = 180 - rotation. Pieces are `Custom_Model` objects, locked (they do not fall or slide), their
`MeshURL` a file:/// URL of the OBJ: TTS loads it on this computer; to play online, upload the OBJ files (Steam
Cloud, from TTS's Modding > Cloud Manager) and replace the URLs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trimesh

from lofkit.errors import LofkitError
from lofkit.exchange.output import write_text
from lofkit.geometry.terrain import load_mesh_file
from lofkit.units import INCH

TABLE_TOP = 1.0
"""TTS height of the table top, where the pieces stand (as in the walkthrough's save)."""
OBJ_DIGITS = 10
"""Decimals of an OBJ coordinate (inches): far below the 1e-6 the round trip keeps."""
COLOUR = {"r": 0.55, "g": 0.57, "b": 0.6}


@dataclass(frozen=True)
class TtsPiece:
    """One mesh piece on the table: a name, its mesh file (mm, z up, in its own frame), its centre (mm, table
    frame) and its turn about the vertical (degrees, counter-clockwise)."""

    name: str
    mesh: Path
    x: float
    y: float
    rotation: float


def write_obj(mesh_file: Path, path: Path) -> None:
    """A mesh file as a TTS OBJ (module docstring): inches, Y up, its frame kept."""
    mesh = load_mesh_file(mesh_file)
    v = np.asarray(mesh.vertices, dtype=float) / INCH
    tts = trimesh.Trimesh(np.column_stack([v[:, 0], v[:, 2], -v[:, 1]]), mesh.faces, process=False)
    write_text(path, trimesh.exchange.obj.export_obj(tts, include_normals=False, include_texture=False,
                                                     digits=OBJ_DIGITS))


def _transform(piece: TtsPiece, table: tuple[float, float]) -> dict:
    return {"posX": round(piece.x / INCH - table[0] / INCH / 2, 6), "posY": TABLE_TOP,
            "posZ": round(piece.y / INCH - table[1] / INCH / 2, 6), "rotX": 0.0,
            "rotY": round((180.0 - piece.rotation) % 360.0, 6), "rotZ": 0.0, "scaleX": 1.0, "scaleY": 1.0,
            "scaleZ": 1.0}


def tts_save(pieces: list[TtsPiece], table: tuple[float, float], models: Path, name: str, note: str = "") -> dict:
    """The save (a dict) of `pieces` on a `table` (W, D mm), their OBJ files in the folder `models` (written by
    `write_tts_save`)."""
    objects = []
    for k, piece in enumerate(pieces):
        url = (models.resolve() / f"{piece.mesh.stem}.obj").as_uri()
        objects.append({
            "Name": "Custom_Model", "GUID": f"{k + 1:06x}", "Nickname": piece.name, "Description": "",
            "Locked": True, "Transform": _transform(piece, table), "ColorDiffuse": COLOUR,
            "CustomMesh": {"MeshURL": url, "DiffuseURL": "", "NormalURL": "", "ColliderURL": "", "Convex": False,
                           "MaterialIndex": 0, "TypeIndex": 0, "CastShadows": True},
        })
    return {"SaveName": name, "GameMode": "", "Gravity": 0.5, "PlayArea": 0.5, "Date": "", "Table": "Table_Custom",
            "Sky": "", "Note": note, "Rules": "", "XmlUI": "", "LuaScript": "", "ObjectStates": objects,
            "TabStates": {}, "VersionNumber": ""}


def write_tts_save(path: Path | str, pieces: list[TtsPiece], table: tuple[float, float], models: Path | str,
                   name: str, note: str = "") -> dict:
    """Write the save to `path` and one OBJ per mesh file into `models` (named after the mesh); returns the save."""
    path, models = Path(path), Path(models)
    meshes = {piece.mesh.stem: piece.mesh for piece in pieces}
    clash = sorted(stem for stem in meshes if len({p.mesh for p in pieces if p.mesh.stem == stem}) > 1)
    if clash:
        raise LofkitError(f"meshes named alike ({', '.join(clash)}) would share one OBJ file; rename one")
    for stem, mesh in meshes.items():
        write_obj(mesh, models / f"{stem}.obj")
    save = tts_save(pieces, table, models, name, note)
    write_text(path, json.dumps(save, indent=1))
    return save
