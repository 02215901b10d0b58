"""Compile lofkit's kernels once, into numba's cache beside the code, so that no later command waits for them:
`python -m lofkit.cli.warm_up` (`make setup` runs it after installing).

numba compiles each kernel the first time it is called, for the kinds of arrays it is called with, and keeps the
result beside the code. This asks lofkit's questions of a small made-up table that holds what a real table does (a
box, a ring of wall with a hole in it read from a mesh file, troopers that see each other whole, in part and not at
all, one inside the ring): the inner parts of the mesh (with a throwaway cache, so that they are computed), the
matrix with its evidence, and yes-or-no sight as the analyses ask it (exact, and the quick glimpse). Each kernel is
then compiled for the arrays lofkit passes it.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import numpy as np
import trimesh

RING = {"r_min": 40.0, "r_max": 55.0, "height": 120.0}
"""The mesh piece: a ring of wall (mm), open where two of its faces are taken out."""


def _ring_with_a_hole(path: Path) -> None:
    ring = trimesh.creation.annulus(**RING, sections=24)
    keep = np.ones(len(ring.faces), dtype=bool)
    keep[:2] = False
    trimesh.Trimesh(ring.vertices, ring.faces[keep], process=False).export(path)


def small_table(folder: Path) -> dict:
    """The made-up table, as scene data, with its mesh file written into `folder`."""
    _ring_with_a_hole(folder / "ring.stl")
    troopers = [("b1", "blue", 80, 80), ("b2", "blue", 300, 60), ("b3", "blue", 520, 90), ("b4", "blue", 300, 250),
                ("r1", "red", 90, 520), ("r2", "red", 300, 540), ("r3", "red", 510, 500), ("r4", "red", 300, 370),
                ("r5", "red", 150, 300), ("r6", "red", 150, 230)]  # r5 in the ring: hidden by no part alone
    return {
        "lofkit": 1, "units": "mm", "table": {"width": 600, "depth": 600},
        "terrain": [{"id": "block", "box": {"size": [120, 40, 70]}, "position": [300, 300, 0], "rotation": 10},
                    {"id": "ring", "mesh": "ring.stl", "position": [150, 300, 0]},
                    {"id": "low-wall", "wall": {"from": [380, 420], "to": [560, 420], "thickness": 8, "height": 20}}],
        "troopers": [{"id": name, "side": side, "silhouette": 2, "position": [x, y], "facing": 90 if side == "blue"
                      else 270} for name, side, x, y in troopers],
    }


def warm_up() -> float:
    """Compile every kernel (or load it from numba's cache); returns the seconds it took."""
    from lofkit.geometry.world import World
    from lofkit.rules.lof import matrix
    from lofkit.scene.loading import scene_from_data
    from lofkit.sight.glimpse import glimpse, seen_pairs

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lofkit-warm-up-") as folder:
        kept = os.environ.get("LOFKIT_CACHE")
        os.environ["LOFKIT_CACHE"] = str(Path(folder) / "cache")  # parts computed, not read from the user's cache
        try:
            world = World.from_scene(scene_from_data(small_table(Path(folder)), Path(folder) / "scene.yaml"))
            matrix(world)
            count = len(world.troopers)
            pairs = [(a, b) for a in range(count) for b in range(a + 1, count)]
            seen_pairs(world, pairs)
            glimpse(world, pairs)
        finally:
            if kept is None:
                del os.environ["LOFKIT_CACHE"]
            else:
                os.environ["LOFKIT_CACHE"] = kept
    return time.perf_counter() - start


def main() -> None:
    print("compiling lofkit's kernels once: numba keeps them beside the code for every later command")
    print(f"  done in {warm_up():.1f} s")


if __name__ == "__main__":
    main()
