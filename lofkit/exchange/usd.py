"""Reading a USD scan (USDZ is what Apple's Object Capture and RoomPlan and other phone apps export) with Pixar's own
reader, `usd-core`: every mesh of the stage placed by its world transform and cut into triangles, and the stage's
up axis and metres per unit, which a USD file states.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trimesh

from lofkit.errors import LofkitError

USD_SUFFIXES = (".usdz", ".usd", ".usda", ".usdc")


@dataclass(frozen=True)
class UsdScan:
    """A USD stage's meshes as one triangle mesh (stage units), its up axis ("y" or "z") and metres per unit."""

    mesh: trimesh.Trimesh
    up: str
    metres_per_unit: float


def read_usd(path: Path) -> UsdScan:
    """Every `UsdGeom.Mesh` of the stage at `path`, placed (its local-to-world transform) and triangulated: a
    polygon of n corners becomes the n - 2 triangles of a fan (scanners write flat, convex faces)."""
    from pxr import Tf, Usd, UsdGeom  # the `scan` extra; a missing one is named by the CLI (OPTIONAL_EXTRAS)

    try:
        stage = Usd.Stage.Open(str(path))
    except Tf.ErrorException as exc:
        raise LofkitError(f"{path}: not a USD file lofkit can read ({str(exc).strip().splitlines()[-1]})") from None
    cache = UsdGeom.XformCache()
    parts = []
    for prim in stage.Traverse():
        if not prim.IsA(UsdGeom.Mesh):
            continue
        mesh = UsdGeom.Mesh(prim)
        points, counts, indices = (mesh.GetPointsAttr().Get(), mesh.GetFaceVertexCountsAttr().Get(),
                                   mesh.GetFaceVertexIndicesAttr().Get())
        if not points or not counts:
            continue
        world = np.array(cache.GetLocalToWorldTransform(prim), dtype=float)  # row vectors: p' = p @ world
        placed = np.column_stack([np.asarray(points, dtype=float), np.ones(len(points))]) @ world
        parts.append(trimesh.Trimesh(placed[:, :3], fans(np.asarray(counts), np.asarray(indices)), process=False))
    if not parts:
        raise LofkitError(f"{path}: the USD file holds no mesh with faces; export the scan as a mesh")
    up = "z" if UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.z else "y"
    return UsdScan(trimesh.util.concatenate(parts), up, float(UsdGeom.GetStageMetersPerUnit(stage)))


def fans(counts: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Polygons (`counts` corners each, their corners one after another in `indices`) as triangle fans.

    >>> fans(np.array([3, 4]), np.array([0, 1, 2, 3, 4, 5, 6])).tolist()
    [[0, 1, 2], [3, 4, 5], [3, 5, 6]]
    """
    counts = counts.astype(np.int64)
    keep = counts >= 3
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])[keep]
    per_face = counts[keep] - 2
    first = np.repeat(starts, per_face)
    step = np.arange(per_face.sum()) - np.repeat(np.cumsum(per_face) - per_face, per_face)
    return np.column_stack([indices[first], indices[first + step + 1], indices[first + step + 2]])
