"""`lofkit import-tts`: a Tabletop Simulator save (JSON) becomes a scene. Reading the save and finding cached
meshes is `tts_save`'s job; this module turns what stands on the table into scene troopers and mesh terrain.

Frames. TTS (Unity) is left-handed, Y up, X to the right and Z forward (away from the player at -Z), one unit is
one inch (the wargaming convention), and the table is centred on the origin. Taking scene x = X, y = Z, z = Y swaps
two axes, which turns Unity's left-handed frame into the scene's right-handed one without mirroring anything:
seen from above, +X stays to the right and +Z stays away from the first player's edge. So a position becomes
(posX + W/2, posZ + D/2, posY - table_top) inches. Unity turns an object by +rotY clockwise seen from above
(Euler(0, 90, 0) takes forward +Z to right +X), so the scene's counter-clockwise rotation is -rotY. The full
Euler rotation (Unity applies Z, then X, then Y) is converted into the scene's turns about the table's fixed x, y
and z axes, in that order: tilted pieces (settled by the game's physics) and flipped ones (rotZ 180) keep their
orientation exactly, and an upright piece is written with the number form (degrees about z).

Meshes. A `CustomMesh.MeshURL` found in the TTS model cache (see `tts_save`) is read in inches with Y up
(`mesh_units: in`, `up_axis: y`)
and, as Unity's OBJ import does, with X negated (the OBJ's right-handed coordinates into Unity's left-handed ones;
assumed of TTS's own loader, and reported): that mirror plus the axis swap is a half turn about the vertical, so the
piece's turn is the Euler rotation after that half turn (180 - rotY for an upright piece), its scale (scaleX, scaleZ,
scaleY) and its z posY - table_top (the OBJ's origin).

Troopers. An object whose nickname or description shows a silhouette (`S2`, `S 2`, `Sil 2`, `silhouette: 2`) or
a base (`25mm`, `40 mm`) becomes a trooper at (posX, posZ); its `z` (the base's underside) is the lowest point
of its cached mesh above the table top, or, with no cached mesh, its pivot's (posY - table_top; reported); its
facing the direction of the model's +Z (90 degrees at rotY 0: facing = 90 - rotY), its side the word after
`side:` in the text, else `unknown`. With only a base, the silhouette is assumed from the base (25 mm: S2, 40 mm:
S3, 55 mm: S4, 70 mm: S8) and the assumption is reported; another base with no silhouette is skipped. `table_top`
(TTS units) defaults to the lowest point of everything imported: of a cached mesh, or of a pivot.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from trimesh.transformations import euler_from_matrix

from lofkit.exchange.messages import Message, SettingError
from lofkit.exchange.output import check_output_file, write_scene_file
from lofkit.exchange.tts_save import SCALE_KEYS, Placed, mesh_url, placed_objects, read_save, resolve_mesh
from lofkit.geometry.terrain import load_mesh_file
from lofkit.scene.silhouettes import SILHOUETTES, silhouette_for_base
from lofkit.scene.table import base_on_table
from lofkit.units import EPS, INCH

SAME_SCALE = 1e-9
"""Scales (scaleX, scaleZ, scaleY) closer than this are one uniform scale."""
_SILHOUETTE = (re.compile(r"(?<![A-Za-z0-9])S\s?([1-8])(?![0-9])"),
               re.compile(r"(?i)\bsil(?:houette)?\.?\s*[:=]?\s*([1-8])(?![0-9])"))
_BASE = re.compile(r"(?i)(?<![\d.])(\d{2,3})\s*mm\b")
_SIDE = re.compile(r"(?i)\bside\s*[:=]\s*([A-Za-z0-9_-]+)")


@dataclass(frozen=True)
class TtsImport:
    """What `import-tts` wrote and what it could not use; `to_dict()` is the CLI's JSON (lengths in mm)."""

    scene: str
    table_top: float
    troopers: tuple[dict, ...]
    terrain: tuple[dict, ...]
    unresolved: tuple[dict, ...]
    skipped: tuple[dict, ...]
    assumptions: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict:
        return {
            "scene": self.scene,
            "table_top": self.table_top,
            "troopers": list(self.troopers),
            "terrain": list(self.terrain),
            "unresolved": list(self.unresolved),
            "skipped": list(self.skipped),
            "assumptions": list(self.assumptions),
        }


def trooper_profile(text: str) -> tuple[int | None, float | None]:
    """(silhouette, base mm) shown in an object's nickname and description, each None when absent."""
    silhouette = next((int(m.group(1)) for p in _SILHOUETTE for m in [p.search(text)] if m), None)
    base = _BASE.search(text)
    return silhouette, float(base.group(1)) if base else None


def scene_rotation(rot_x: float, rot_y: float, rot_z: float) -> np.ndarray:
    """A TTS Euler rotation (degrees; Unity applies Z, then X, then Y) as a 3x3 rotation of the scene frame."""
    rx, ry, rz = (math.radians(a) for a in (rot_x, rot_y, rot_z))
    cx, sx, cy, sy, cz, sz = math.cos(rx), math.sin(rx), math.cos(ry), math.sin(ry), math.cos(rz), math.sin(rz)
    r_x = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    r_y = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    r_z = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    swap = np.array([[1, 0, 0], [0, 0, 1], [0, 1, 0]])  # Unity (X, Y, Z) -> scene (x, y, z) = (X, Z, Y)
    return swap @ r_y @ r_x @ r_z @ swap


HALF_TURN = np.diag([-1.0, -1.0, 1.0])
"""Unity's mirrored OBJ x with the axis swap: a half turn about the vertical (the module docstring's "Meshes")."""


def scene_turn(rotation: np.ndarray) -> float | dict[str, float]:
    """A 3x3 rotation as a scene `rotation`: degrees about z when it keeps the vertical, else {x, y, z}, turns about
    the table's fixed x, then y, then z axis (to 1e-6 degrees)."""
    matrix = np.eye(4)
    matrix[:3, :3] = rotation
    x, y, z = (round(math.degrees(a), 6) + 0.0 for a in euler_from_matrix(matrix, axes="sxyz"))
    return round(z % 360.0, 6) if x == 0 and y == 0 else {"x": x, "y": y, "z": z}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40]


def _unique_id(wanted: str, guid: str, taken: set[str]) -> str:
    candidate = wanted or f"object-{guid}".rstrip("-")
    if candidate in taken:
        candidate = f"{candidate}-{guid}" if guid else candidate
    base, k = candidate, 2
    while candidate in taken:
        candidate, k = f"{base}-{k}", k + 1
    taken.add(candidate)
    return candidate


def _transform_numbers(transform: dict) -> dict[str, float]:
    """The Transform's nine numbers; a missing rotation is 0 and a missing scale 1. ValueError(key) names a position
    that is missing, or any value that is not a finite number; ValueError(why) a scale of 0 or less."""
    numbers = {}
    for keys, default in ((("posX", "posY", "posZ"), None), (("rotX", "rotY", "rotZ"), 0.0), (SCALE_KEYS, 1.0)):
        for key in keys:
            value = transform.get(key, default)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(key)
            if key in SCALE_KEYS and value <= 0:
                raise ValueError(f"{key} is {value:g}: a piece scaled to nothing or mirrored has no place in a scene")
            numbers[key] = float(value)
    return numbers


def _vertices_or_none(path: Path | None) -> np.ndarray | None:
    """A cached OBJ's vertices as a scene piece reads it (z up), in its own units (TTS inches); None without a
    readable mesh."""
    if path is None:
        return None
    try:
        return load_mesh_file(path, units="in", up_axis="y").vertices / INCH
    except ValueError:  # the mesh file cannot be read or has no faces
        return None


@dataclass(frozen=True)
class Candidate:
    """An object that may go into the scene: its Transform's numbers, its rotation in the scene frame, and its
    cached mesh with that mesh's vertices (`_vertices_or_none`; None when there is none)."""

    obj: Placed
    t: dict
    rotation: np.ndarray
    mesh: Path | None = None
    vertices: np.ndarray | None = None

    @property
    def bottom(self) -> float:
        """TTS height of the object's lowest point: its mesh's, turned, flipped and scaled as it lies, or else its
        pivot's."""
        if self.vertices is None:
            return self.t["posY"]
        scale = np.array([self.t["scaleX"], self.t["scaleZ"], self.t["scaleY"]])
        return self.t["posY"] + float(((self.vertices * scale) @ self.turn[2]).min())

    @property
    def turn(self) -> np.ndarray:
        """How its cached mesh (read as `_vertices_or_none` reads it) is turned on the table: the Euler rotation after
        the OBJ's half turn (the module docstring's "Meshes")."""
        return self.rotation @ HALF_TURN

    def xy(self, table_in: tuple[float, float]) -> tuple[float, float]:
        """Scene (x, y) in inches: TTS X and Z with the table's corner, not its centre, at the origin."""
        return self.t["posX"] + table_in[0] / 2, self.t["posZ"] + table_in[1] / 2


def _skip(obj: Placed, reason: str) -> dict:
    return {"guid": obj.guid, "name": obj.name, "where": obj.where, "reason": reason}


def sort_objects(objects: list[Placed], cache: Path | None) -> tuple[list, list, list, list]:
    """(troopers, terrain pieces, unresolved, skipped): troopers are the objects that show a silhouette or base,
    pieces the objects whose mesh is in the cache, however they are turned; the rest is reported, never guessed."""
    troopers, pieces, unresolved, skipped = [], [], [], []
    for obj in objects:
        if obj.transform is None:
            skipped.append(_skip(obj, obj.reason))
            continue
        try:
            t = _transform_numbers(obj.transform)
        except ValueError as exc:
            why = str(exc)
            skipped.append(_skip(obj, f"Transform.{why}" if " " in why else f"Transform.{why} is missing or not a "
                                                                              "finite number"))
            continue
        rotation = scene_rotation(t["rotX"], t["rotY"], t["rotZ"])
        url = mesh_url(obj.state)
        path = resolve_mesh(url, cache) if url else None
        if any(value is not None for value in trooper_profile(obj.text)):
            troopers.append(Candidate(obj, t, rotation, path, _vertices_or_none(path)))
        elif not url:
            skipped.append(_skip(obj, "an AssetBundle, which lofkit cannot read" if obj.state.get("CustomAssetbundle")
                                 else "no silhouette or base in its name or description, and no custom mesh"))
        elif path is None:
            reason = "not in the mesh cache" if cache is not None else Message("no {mesh_cache} given")
            unresolved.append({"guid": obj.guid, "name": obj.name, "url": url, "reason": reason})
        elif (vertices := _vertices_or_none(path)) is None:
            unresolved.append({"guid": obj.guid, "name": obj.name, "url": url,
                               "reason": f"cached file {path.name} is not a readable OBJ mesh"})
        else:
            pieces.append(Candidate(obj, t, rotation, path, vertices))
    return troopers, pieces, unresolved, skipped


def terrain_entry(piece: Candidate, table_in: tuple[float, float], table_top: float, folder: Path,
                  piece_id: str) -> dict:
    """A scene mesh piece (inches) for a cached OBJ, read as TTS reads it (the module docstring's "Meshes")."""
    scale = [piece.t["scaleX"], piece.t["scaleZ"], piece.t["scaleY"]]
    try:
        mesh_ref = os.path.relpath(piece.mesh.resolve(), folder)
    except ValueError:  # another drive on Windows
        mesh_ref = str(piece.mesh.resolve())
    return {
        "id": piece_id,
        "mesh": Path(mesh_ref).as_posix(),
        "mesh_units": "in",
        "up_axis": "y",
        "position": [round(v, 6) for v in (*piece.xy(table_in), piece.t["posY"] - table_top)],
        "rotation": scene_turn(piece.turn),
        "scale": scale[0] if max(scale) - min(scale) <= SAME_SCALE else scale,
    }


def trooper_entry(trooper: Candidate, table_in: tuple[float, float], table_top: float, trooper_id: str,
                  silhouette: int, base: float | None) -> dict:
    """A scene trooper (inches) standing on its lowest point, facing its model's +Z."""
    forward = trooper.rotation[:, 1]  # the model's +Z (Unity forward) is the scene's local +y
    side = _SIDE.search(trooper.obj.text)
    entry = {"id": trooper_id, "side": side.group(1) if side else "unknown", "silhouette": silhouette,
             "position": [round(v, 6) for v in trooper.xy(table_in)],
             "z": round(max(0.0, trooper.bottom - table_top), 6),
             "facing": round(math.degrees(math.atan2(forward[1], forward[0])) % 360.0, 6)}
    if base is not None and abs(base - SILHOUETTES[silhouette][0]) > EPS:
        entry["base"] = f"{base:g}mm"
    return entry


def check_settings(save: Path, output: Path, mesh_cache: Path | str | None, overwrite: bool) -> Path | None:
    """Refuse an output that would replace a file (the save itself, even with `overwrite`) and a mesh cache that
    is not a folder; returns the cache."""
    check_output_file(output, overwrite, [save])
    cache = Path(mesh_cache) if mesh_cache is not None else None
    if cache is not None and not cache.is_dir():
        raise SettingError("{mesh_cache} {cache}: not a folder; give TTS's Mods folder or its Models folder",
                           cache=cache)
    return cache


def terrain_entries(pieces: list[Candidate], table_in: tuple[float, float], table_top: float, folder: Path,
                    taken: set[str]) -> tuple[list[dict], list[dict]]:
    """The scene's mesh pieces, and a report (mm) of each."""
    entries, report = [], []
    for piece in pieces:
        piece_id = _unique_id(_slug(piece.obj.name), piece.obj.guid, taken)
        entry = terrain_entry(piece, table_in, table_top, folder, piece_id)
        entries.append(entry)
        report.append({"id": entry["id"], "guid": piece.obj.guid, "name": piece.obj.name,
                       "mesh": str(piece.mesh), "position_mm": [round(v * INCH, 6) for v in entry["position"]],
                       "rotation_deg": entry["rotation"],
                       "scale": [piece.t["scaleX"], piece.t["scaleZ"], piece.t["scaleY"]]})
    return entries, report


def trooper_entries(troopers: list[Candidate], table_in: tuple[float, float], table_top: float, taken: set[str]
                    ) -> tuple[list[dict], list[dict], list[dict], list[str]]:
    """The scene's troopers, a report (mm) of each, the objects skipped and the silhouettes assumed."""
    entries, report, skipped, assumptions = [], [], [], []
    for trooper in troopers:
        obj = trooper.obj
        silhouette, base = trooper_profile(obj.text)
        if silhouette is None:
            silhouette = silhouette_for_base(base)
            if silhouette is None:
                skipped.append(_skip(obj, f"a {base:g} mm base and no silhouette: give it `S1`..`S8`"))
                continue
            assumptions.append(f"'{obj.name}' ({obj.guid}): silhouette S{silhouette} assumed from its {base:g} mm base")
        diameter = base if base is not None else SILHOUETTES[silhouette][0]
        x, y = trooper.xy(table_in)
        if not base_on_table((x * INCH, y * INCH), diameter / 2, table_in[0] * INCH, table_in[1] * INCH)[0]:
            skipped.append(_skip(obj, f"its base is off the table (at {x:.2f}, {y:.2f} in)"))
            continue
        entry = trooper_entry(trooper, table_in, table_top, _unique_id(_slug(obj.name), obj.guid, taken),
                              silhouette, base)
        entries.append(entry)
        report.append({"id": entry["id"], "guid": obj.guid, "name": obj.name,
                       "position_mm": [round(v * INCH, 6) for v in entry["position"]],
                       "z_mm": round(entry["z"] * INCH, 6),
                       "z_from": "pivot" if trooper.vertices is None else "mesh",
                       "silhouette": silhouette, "base_mm": diameter, "side": entry["side"],
                       "facing_deg": entry["facing"]})
    return entries, report, skipped, assumptions


def write_tts_scene(output: Path, table_in: tuple[float, float], terrain: list[dict], troopers: list[dict],
                    comment: str, overwrite: bool) -> None:
    """The scene, in inches, written to `output`."""
    scene = {
        "lofkit": 1,
        "units": "in",
        "table": {"width": round(table_in[0], 9), "depth": round(table_in[1], 9)},
        "terrain": terrain,
        "troopers": troopers,
    }
    write_scene_file(scene, output, comment=comment, overwrite=overwrite)


def import_tts(
    save: Path | str,
    output: Path | str,
    *,
    mesh_cache: Path | str | None = None,
    table: tuple[float, float] = (48 * INCH, 48 * INCH),
    table_top: float | None = None,
    overwrite: bool = False,
) -> TtsImport:
    """Read a TTS save and write a scene: troopers from silhouettes or bases, mesh terrain from cached models.

    `table` is (width, depth) in mm; `table_top` is the table top's height in TTS units (default: the lowest point
    of everything imported). Unresolved model URLs and unusable objects are reported, never guessed.
    """
    save, output = Path(save), Path(output)
    cache = check_settings(save, output, mesh_cache, overwrite)
    if table_top is not None and not math.isfinite(table_top):
        raise SettingError("{table_top} {value}: give the table top's height as a finite number of TTS units",
                           value=table_top)
    data = read_save(save)
    table_in = (table[0] / INCH, table[1] / INCH)
    troopers, pieces, unresolved, skipped = sort_objects(placed_objects(data["ObjectStates"]), cache)
    assumptions = []
    if table_top is None:
        table_top = min((c.bottom for c in troopers + pieces), default=0.0)
        assumptions.append(Message("table top at TTS height {height:g}: the lowest point of what was imported (give "
                                   "{table_top} to change it)", height=table_top))
    taken: set[str] = set()
    terrain, terrain_report = terrain_entries(pieces, table_in, table_top, output.parent.resolve(), taken)
    placed, trooper_report, not_placed, assumed = trooper_entries(troopers, table_in, table_top, taken)
    assumptions += assumed + _general_assumptions(trooper_report, terrain_report)
    comment = (f"imported by `lofkit import-tts` from {save.name}: TTS units are inches, table centred on the "
               f"origin, table top at TTS height {table_top:g}")
    write_tts_scene(output, table_in, terrain, placed, comment, overwrite)
    return TtsImport(str(output), float(table_top), tuple(trooper_report), tuple(terrain_report), tuple(unresolved),
                     tuple(skipped + not_placed), tuple(assumptions))


def _general_assumptions(troopers: list[dict], terrain: list[dict]) -> list[str]:
    """What the import took for granted about the reported troopers and pieces, to be said with the result."""
    notes = []
    if any(t["side"] == "unknown" for t in troopers):
        notes.append("troopers with no `side:` in their name or description are on side 'unknown': edit the scene "
                     "to set their sides")
    pivots = [t["id"] for t in troopers if t["z_from"] == "pivot"]
    if pivots:
        notes.append(f"{', '.join(pivots)}: no cached mesh, so the base's underside is taken at the model's pivot "
                     "(posY)")
    if troopers:
        notes.append("troopers face their model's +Z (Unity's forward)")
    if terrain:
        notes.append("cached OBJ meshes are read as Unity reads OBJ: inches, Y up and X negated (left-handed), so "
                     "each piece turns by 180 - rotY; if pieces come out mirrored, TTS did not negate X")
    return notes
