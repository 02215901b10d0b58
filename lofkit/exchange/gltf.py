"""`lofkit export`: the whole placed table as one glTF (GLB or GLTF) file with per-node extras.

Frame: glTF is metres with y up (glTF 2.0 spec), so a table point (x, y, z) in mm is written as
(x, z, -y) / 1000. That is exactly the inverse of how lofkit reads glTF terrain (metres, y up), so an exported
file placed as a `mesh:` piece at position [0, 0, 0] with the default `mesh_units`/`up_axis` lands where it came
from. Vertices are written already placed (every node's transform is the identity).

Nodes: `table` (a slab 20 mm thick whose top is the table top, z = 0), `terrain/<id>` (each placed piece),
`trooper/<id>` (each volume cylinder, markers too) and `zone/<side>/<k>` (deployment zones, flat, 0.2 mm above the
table). Each node's extras (and its mesh's extras) say what it is: `id`, `kind` (the terrain kind, `trooper`,
`marker`, `table` or `deployment_zone`), `silhouette` and `side` (null where they do not apply) and a few facts
more (`blocks_lof`, `base_mm`, `height_mm`, `facing_deg`, `neutral`). The scene's extras hold `lofkit`: the
frame, the table size and the source scene.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import shapely
import trimesh

from lofkit.errors import LofkitError
from lofkit.exchange.messages import SettingError
from lofkit.exchange.output import check_output_file, write_bytes
from lofkit.geometry.world import World
from lofkit.scene.palette import KIND_ALPHA, KIND_COLOURS, NEUTRAL_COLOUR, TABLE_COLOUR, rgb, side_colour

PARTS = ("terrain", "troopers", "table", "zones")
DEFAULT_PARTS = ("terrain", "troopers", "table")
TABLE_THICKNESS = 20.0
ZONE_LIFT = 0.2
CYLINDER_SECTIONS = 64
TABLE_TO_GLTF = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1000]], dtype=float) / 1000.0
"""Table mm, z up -> glTF metres, y up: (x, y, z) -> (x, z, -y) / 1000."""
FRAME = "glTF: metres, y up; table (x, y, z) mm = 1000 * (x, -z, y)"
ZONE_ALPHA = 70
MARKER_ALPHA = 160
"""Alpha (0-255) of deployment zones and of markers' volumes; everything else not terrain is opaque (255)."""


@dataclass(frozen=True)
class ExportSummary:
    """What `export` wrote: the file and one entry per node (name, id, kind)."""

    output: str
    nodes: tuple[dict, ...]

    def to_dict(self) -> dict:
        return {"output": self.output, "frame": FRAME, "nodes": list(self.nodes)}


def parse_parts(text: str) -> tuple[str, ...]:
    """'terrain,troopers' -> ('terrain', 'troopers'); unknown parts are an error naming the choices."""
    parts = tuple(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    unknown = [p for p in parts if p not in PARTS]
    if unknown or not parts:
        raise SettingError("{parts} '{text}': choose from {choices} (comma-separated)", text=text,
                           choices=", ".join(PARTS))
    return parts


def _coloured(mesh: trimesh.Trimesh, colour: str, alpha: int = 255) -> trimesh.Trimesh:
    mesh.visual.face_colors = np.tile(np.asarray((*rgb(colour), alpha), dtype=np.uint8), (len(mesh.faces), 1))
    return mesh


def _table_slab(world: World) -> trimesh.Trimesh:
    w, d = world.scene.table.width, world.scene.table.depth
    slab = trimesh.creation.box(extents=(w, d, TABLE_THICKNESS))
    slab.apply_translation((w / 2, d / 2, -TABLE_THICKNESS / 2))
    return slab


def _volume(centre, z: float, radius: float, height: float) -> trimesh.Trimesh:
    cylinder = trimesh.creation.cylinder(radius=radius, height=height, sections=CYLINDER_SECTIONS)
    cylinder.apply_translation((centre[0], centre[1], z + height / 2))
    return cylinder


def _zone(polygon) -> trimesh.Trimesh:
    vertices, faces = trimesh.creation.triangulate_polygon(shapely.Polygon(polygon))
    return trimesh.Trimesh(np.column_stack([vertices, np.full(len(vertices), ZONE_LIFT)]), faces, process=False)


def table_nodes(world: World, parts=DEFAULT_PARTS) -> list[tuple[str, trimesh.Trimesh, dict]]:
    """(node name, mesh in table mm, extras) for every exported part, in scene order."""
    nodes = []
    blank = {"silhouette": None, "side": None}
    if "table" in parts:
        extras = {"id": "table", "kind": "table", **blank, "width_mm": world.scene.table.width,
                  "depth_mm": world.scene.table.depth, "thickness_mm": TABLE_THICKNESS}
        nodes.append(("table", _coloured(_table_slab(world), TABLE_COLOUR), extras))
    if "zones" in parts:
        sides = list(dict.fromkeys(z.side for z in world.scene.deployment_zones))
        for k, zone in enumerate(world.scene.deployment_zones):
            extras = {"id": f"zone-{k}", "kind": "deployment_zone", "silhouette": None, "side": zone.side}
            colour = side_colour(sides.index(zone.side))
            nodes.append((f"zone/{zone.side}/{k}", _coloured(_zone(zone.polygon), colour, ZONE_ALPHA), extras))
    if "terrain" in parts:
        for piece in world.pieces:
            extras = {"id": piece.id, "kind": piece.kind, **blank, "blocks_lof": piece.blocks_lof}
            mesh = _coloured(piece.mesh.copy(), KIND_COLOURS[piece.kind], KIND_ALPHA[piece.kind])
            nodes.append((f"terrain/{piece.id}", mesh, extras))
    if "troopers" in parts:
        v = world.troopers
        sides = list(dict.fromkeys(s for s, n in zip(v.sides, v.neutral) if s and not n))
        for i, trooper in enumerate(world.scene.troopers):
            colour = NEUTRAL_COLOUR if v.neutral[i] else side_colour(sides.index(v.sides[i]))
            extras = {
                "id": v.ids[i],
                "kind": "marker" if v.marker[i] else "trooper",
                "silhouette": 0 if v.prone[i] else trooper.silhouette,
                "side": v.sides[i],
                "neutral": bool(v.neutral[i]),
                "base_mm": float(2 * v.radius[i]),
                "height_mm": float(v.height[i]),
                "facing_deg": float(v.facing[i]),
            }
            mesh = _volume(v.centre[i], float(v.z[i]), float(v.radius[i]), float(v.height[i]))
            nodes.append((f"trooper/{v.ids[i]}", _coloured(mesh, colour, MARKER_ALPHA if v.marker[i] else 255), extras))
    return nodes


def gltf_scene(world: World, nodes) -> trimesh.Scene:
    """The nodes as a trimesh Scene in glTF's frame (metres, y up); each node and its mesh carry the extras and
    nothing else (no leftover creation metadata in mm)."""
    scene = trimesh.Scene()
    for name, mesh, extras in nodes:
        mesh.apply_transform(TABLE_TO_GLTF)
        mesh.metadata = dict(extras)
        scene.add_geometry(mesh, node_name=name, geom_name=name, metadata=dict(extras))
    source = world.scene.source
    scene.metadata["lofkit"] = {
        "frame": FRAME,
        "table_mm": [world.scene.table.width, world.scene.table.depth],
        "source": source.name if source is not None else None,
    }
    return scene


def export_table(world: World, output: Path | str, parts=DEFAULT_PARTS, overwrite: bool = False) -> ExportSummary:
    """Write the placed table to `output` (.glb, or .gltf with its buffers embedded); never replaces a file
    unless `overwrite`, nor ever a file the scene reads."""
    output = Path(output)
    suffix = output.suffix.lower()
    if suffix not in (".glb", ".gltf"):
        raise LofkitError(f"{output}: export writes glTF; give a file name ending in .glb or .gltf")
    check_output_file(output, overwrite, world.scene.input_files())
    nodes = table_nodes(world, parts)
    if not nodes:
        raise SettingError("nothing to export: the scene has no {names}; change {parts}", names=" or ".join(parts))
    scene = gltf_scene(world, nodes)
    if suffix == ".glb":
        data = scene.export(file_type="glb")
    else:
        files = trimesh.exchange.gltf.export_gltf(scene, embed_buffers=True)
        data = files["model.gltf"]
    write_bytes(output, data)
    return ExportSummary(str(output), tuple({"name": name, "id": extras["id"], "kind": extras["kind"]}
                                            for name, _, extras in nodes))
