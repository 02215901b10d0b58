"""Make the corpus's terrain meshes from their sources (see SOURCES.md): each piece's geometry only, in millimetres,
z up, its footprint centred on the origin and its lowest point on z = 0, written as binary PLY into `meshes/`, with
`meshes/catalog.yaml` (footprint, height, triangles, bodies, whether watertight, source) for `make_corpus.py`.

The sources are not kept here (textures, other formats): fetch them as SOURCES.md says, convert the FBX files to GLB
(`assimp export X.fbx X.glb`) and decode the meshopt-compressed scenes (glTF-Transform), then run
`python benchmarks/corpus/normalize.py SOURCE_FOLDER` with SOURCE_FOLDER holding `kenney/`, `quaternius/` and
`sketchfab/` as the table below names them. Nothing is repaired: holes, loose triangles and inner faces stay as the
kits have them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import trimesh
import yaml

HERE = Path(__file__).resolve().parent
PIECES = {  # name: (source file under SOURCE_FOLDER, mm per unit of the file)
    "kenney_building_a": ("kenney/city-builder/building-small-a.glb", 150),
    "kenney_building_b": ("kenney/city-builder/building-small-b.glb", 150),
    "kenney_building_c": ("kenney/city-builder/building-small-c.glb", 150),
    "kenney_building_d": ("kenney/city-builder/building-small-d.glb", 150),
    "kenney_garage": ("kenney/city-builder/building-garage.glb", 150),
    "kenney_trees": ("kenney/city-builder/grass-trees-tall.glb", 150),
    "kenney_fountain": ("kenney/city-builder/pavement-fountain.glb", 150),
    "kenney_crate": ("kenney/platformer-kit/crate.glb", 150),
    "kenney_fence": ("kenney/platformer-kit/fence.glb", 150),
    "kenney_fence_broken": ("kenney/platformer-kit/fenceBroken.glb", 150),
    "kenney_fence_corner": ("kenney/platformer-kit/fenceCorner.glb", 150),
    "kenney_hedge": ("kenney/platformer-kit/hedge.glb", 150),
    "kenney_rocks": ("kenney/platformer-kit/rocks.glb", 150),
    "kenney_tree": ("kenney/platformer-kit/tree.glb", 150),
    "kenney_cliff": ("kenney/platformer-kit/blockCliff.glb", 150),
    "kenney_bridge": ("kenney/platformer-kit/bridge.glb", 150),
    "quaternius_wall": ("quaternius/Medieval_Wall.glb", 0.8),
    "quaternius_wall_bricks": ("quaternius/Medieval_WallBricks.glb", 0.8),
    "quaternius_wall_entrance": ("quaternius/Medieval_WallEntrance.glb", 0.8),
    "quaternius_tall_wall_entrance": ("quaternius/Medieval_TallWallEntrance.glb", 0.8),
    "quaternius_tower": ("quaternius/Medieval_Tower.glb", 0.8),
    "quaternius_small_tower": ("quaternius/Medieval_SmallSquareTower.glb", 0.8),
    "quaternius_watchtower": ("quaternius/Medieval_WatchTowerWRoof.glb", 0.8),
    "quaternius_well": ("quaternius/Medieval_Well.glb", 0.8),
    "quaternius_bridge": ("quaternius/Medieval_Bridge.glb", 0.8),
    "quaternius_tunnel": ("quaternius/Medieval_Tunnel.glb", 0.8),
    "quaternius_rock_1": ("quaternius/NatureEss_Rock1.glb", 0.5),
    "quaternius_rock_2": ("quaternius/NatureEss_Rock2.glb", 0.5),
    "quaternius_rock_3": ("quaternius/NatureEss_Rock3.glb", 0.5),
    "quaternius_tree": ("quaternius/NatureEss_Tree1.glb", 0.6),
    "quaternius_boulder_1": ("quaternius/Platformer_Rock1.glb", 1.0),
    "quaternius_boulder_4": ("quaternius/Platformer_Rock4.glb", 1.0),
    "sketchfab_pagoda": ("sketchfab/japanese-temple.glb", 250 / 37.38),
    "sketchfab_macross_diorama": ("sketchfab/sd-macross-city-standoff-diorama.glb", 200),
    "sketchfab_bridge_garden": ("sketchfab/japanese-bridge-garden.glb", 100),
}
Y_UP = trimesh.transformations.rotation_matrix(np.pi / 2, [1, 0, 0])
"""Every source is a glTF binary, y up: turned so that y goes to z."""


def normalized(path: Path, scale: float) -> trimesh.Trimesh:
    """The file's meshes as one (its node transforms applied), z up, in mm, centred over the origin on z = 0."""
    mesh = trimesh.load(path, force="mesh")
    mesh.apply_transform(Y_UP)
    mesh.apply_scale(scale)
    low, high = mesh.bounds
    mesh.apply_translation([-(low[0] + high[0]) / 2, -(low[1] + high[1]) / 2, -low[2]])
    return trimesh.Trimesh(mesh.vertices, mesh.faces, process=True)


def main(sources: Path) -> None:
    catalog = []
    for name, (file, scale) in PIECES.items():
        mesh = normalized(sources / file, scale)
        folder = HERE / "meshes" / file.split("/")[0]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.ply").write_bytes(mesh.export(file_type="ply", encoding="binary"))
        catalog.append({"name": name, "file": f"{folder.name}/{name}.ply",
                        "footprint": [round(float(v), 1) for v in mesh.extents[:2]],
                        "height": round(float(mesh.extents[2]), 1), "triangles": len(mesh.faces),
                        "bodies": int(mesh.body_count), "watertight": bool(mesh.is_watertight), "source": file})
        print(f"{name}: {len(mesh.faces):,} triangles, {mesh.extents.round(1).tolist()} mm")
    text = yaml.safe_dump(catalog, sort_keys=False, default_flow_style=None, width=120)
    (HERE / "meshes" / "catalog.yaml").write_text("# Written by normalize.py; sizes in mm.\n" + text, encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
