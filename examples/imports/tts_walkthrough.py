"""A tiny Tabletop Simulator save, imported with `import-tts`, then exported to one glTF with `export`.

The save holds what community Infinity maps hold: a bag whose LuaScript lays out its contents as
`--GUID,x,y,z,rx,ry,rz` lines (here two troopers, named with their silhouettes), a custom model whose mesh is in
the local model cache (named after its URL with every non-alphanumeric character removed), and one whose mesh is
not: the import reports that one instead of guessing.

Run: python examples/imports/tts_walkthrough.py
(writes out/imports/tts/: map.json, Mods/Models/<cached>.obj, scene.yaml and table.glb)
Same from the shell: lofkit import-tts out/imports/tts/map.json --mesh-cache out/imports/tts/Mods -o scene.yaml
"""

import json
import re
from pathlib import Path

import lofkit
from lofkit.exchange.gltf import export_table
from lofkit.exchange.tts import import_tts

OUT = Path("out/imports/tts")
MODELS = OUT / "Mods" / "Models"
MODELS.mkdir(parents=True, exist_ok=True)
URL = "http://cloud-3.steamusercontent.com/ugc/9876543210/CONTAINER01/"


def transform(x, y, z, rot_y=0.0, scale=1.0):
    return {"posX": x, "posY": y, "posZ": z, "rotX": 0, "rotY": rot_y, "rotZ": 0,
            "scaleX": scale, "scaleY": scale, "scaleZ": scale}


# a shipping container, 6 x 2.5 x 2.5 TTS units (inches), origin at the middle of its footprint, Y up
corners = [(x, y, z) for x in (-3, 3) for y in (0, 2.5) for z in (-1.25, 1.25)]
faces = ["1 3 4", "1 4 2", "5 6 8", "5 8 7", "1 2 6", "1 6 5", "3 7 8", "3 8 4", "1 5 7", "1 7 3", "2 4 8", "2 8 6"]
obj = "\n".join([f"v {x} {y} {z}" for x, y, z in corners] + [f"f {f}" for f in faces]) + "\n"
(MODELS / (re.sub(r"[^A-Za-z0-9]", "", URL) + ".obj")).write_text(obj, encoding="utf-8")

dummy = transform(70, 100, 70, scale=0.775)  # what a bag's contents carry; the LuaScript has the real layout
save = {
    "SaveName": "lofkit walkthrough",
    "ObjectStates": [
        {"Name": "Bag", "Nickname": "Deployment", "GUID": "bag001", "Transform": transform(-30, 1, -30),
         "LuaScript": "--f00001,-12,1.0,-14,0,0,0\n--f00002,8,1.0,15,0,180,0\n",
         "ContainedObjects": [
             {"Name": "Figurine_Custom", "Nickname": "Fusilier S2", "Description": "side: blue", "GUID": "f00001",
              "Transform": dummy},
             {"Name": "Figurine_Custom", "Nickname": "Remote S3", "Description": "side: red, 40mm", "GUID": "f00002",
              "Transform": dummy},
         ]},
        {"Name": "Custom_Model", "Nickname": "Container", "GUID": "c00001", "Transform": transform(-2, 1.0, 0, 90),
         "CustomMesh": {"MeshURL": URL}},
        {"Name": "Custom_Model", "Nickname": "Ruined tower", "GUID": "c00002", "Transform": transform(10, 1.0, -6),
         "CustomMesh": {"MeshURL": "https://example.com/never-downloaded/tower.obj"}},
    ],
}
(OUT / "map.json").write_text(json.dumps(save, indent=1), encoding="utf-8")

result = import_tts(OUT / "map.json", OUT / "scene.yaml", mesh_cache=OUT / "Mods", overwrite=True)
for t in result.troopers:
    print(f"trooper {t['id']}: S{t['silhouette']} {t['side']} at ({t['position_mm'][0]:.1f}, "
          f"{t['position_mm'][1]:.1f}) mm facing {t['facing_deg']:.0f}")
for piece in result.terrain:
    print(f"terrain {piece['id']}: at {piece['position_mm']} mm, turned {piece['rotation_deg']:.0f} degrees")
for item in result.unresolved:
    print(f"unresolved {item['name']}: {item['url']} ({item['reason']})")

world = lofkit.World.from_scene(lofkit.load_scene(result.scene))
print(lofkit.check(world, "fusilier-s2", "remote-s3").reason)
summary = export_table(world, OUT / "table.glb", overwrite=True)
print(f"exported {summary.output}: " + ", ".join(n["name"] for n in summary.nodes))
