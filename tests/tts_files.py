"""Tabletop Simulator test files, shared by the tests of `lofkit import-tts`, `lofkit serve` and `lofkit.load`: mesh
URLs (one in the cache, one not), an asymmetric block as a cached OBJ, and a tiny save with its cache
(`tiny_tts_save`)."""

import json
from pathlib import Path

CACHED_URL = "http://cloud-3.steamusercontent.com/ugc/1234/ABCD5678/"
MISSING_URL = "https://example.com/models/ruin_01.obj"
# an asymmetric block 4 x 2 x 1 TTS units (OBJ x, y up, z), so a mirror or a wrong turn would show
BLOCK = [(x, y, z) for x in (0, 4) for y in (0, 2) for z in (0, 1)]
BLOCK_OBJ = "\n".join(f"v {x} {y} {z}" for x, y, z in BLOCK) + """
f 1 3 4
f 1 4 2
f 5 6 8
f 5 8 7
f 1 2 6
f 1 6 5
f 3 7 8
f 3 8 4
f 1 5 7
f 1 7 3
f 2 4 8
f 2 8 6
"""


def tiny_tts_save(folder: Path) -> tuple[Path, Path]:
    """A tiny TTS save (two troopers, a cached container, a ruin not in the cache, a plain block) and its cache."""
    def placed(guid: str, name: str, x: float, z: float, **more) -> dict:
        transform = {"posX": x, "posY": 1.0, "posZ": z, "rotX": 0, "rotY": 0, "rotZ": 0, "scaleX": 1, "scaleY": 1,
                     "scaleZ": 1}
        return {"Name": "Custom_Model", "Nickname": name, "GUID": guid, "Transform": transform, **more}

    objects = [placed("a00001", "Scout S2", -10, 5, Description="side: blue"),
               placed("a00002", "Heavy S3", 10, -5, Description="side: red"),
               placed("a00003", "Container", 0, 0, CustomMesh={"MeshURL": CACHED_URL}),
               placed("a00004", "Ruin", 5, 15, CustomMesh={"MeshURL": MISSING_URL}),
               placed("a00005", "Block", 15, 15)]
    save = folder / "map.json"
    save.write_text(json.dumps({"SaveName": "tiny", "ObjectStates": objects}), encoding="utf-8")
    models = folder / "Mods" / "Models"
    models.mkdir(parents=True)
    (models / "httpcloud3steamusercontentcomugc1234ABCD5678.obj").write_text(BLOCK_OBJ, encoding="utf-8")
    return save, folder / "Mods"
