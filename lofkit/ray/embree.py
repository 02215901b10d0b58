"""The fast ray back-end: Embree via embreex, in float32, large occlusion batches split over threads."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Sequence

import numpy as np
import trimesh
from embreex import rtcore_scene
from embreex.mesh_construction import TriangleMesh

from lofkit.ray import base

THREADED_BATCH = 200_000
"""Batches at least this large are split over the query's threads (Embree releases the GIL)."""


@lru_cache(maxsize=None)
def _pool(workers: int) -> ThreadPoolExecutor:
    """One shared pool per thread count (its threads start on first use)."""
    return ThreadPoolExecutor(max_workers=workers)


class EmbreeRays:
    """Embree over a list of meshes; mesh i is Embree geometry i. `threads`: threads an occlusion query may use
    (None: the process setting, `ray.set_threads`)."""

    def __init__(self, meshes: Sequence[trimesh.Trimesh], threads: int | None = None):
        self.count = len(meshes)
        self.threads = threads
        self._scene = rtcore_scene.EmbreeScene()
        for mesh in meshes:
            TriangleMesh(
                scene=self._scene,
                vertices=np.ascontiguousarray(mesh.vertices, dtype=np.float32),
                indices=np.ascontiguousarray(mesh.faces, dtype=np.int32),
            )

    def occluded(self, origins, directions, lengths) -> np.ndarray:
        o, d, t = base.batch(origins, directions, lengths, np.float32)
        if len(o) == 0 or self.count == 0:
            return np.zeros(len(o), dtype=bool)
        workers = self.threads or base.threads()
        if len(o) < THREADED_BATCH or workers < 2:
            return self._scene.run(o, d, dists=t, query="OCCLUDED") != -1
        parts = np.array_split(np.arange(len(o)), workers)
        runs = [_pool(workers).submit(self._scene.run, o[p], d[p], dists=t[p], query="OCCLUDED") for p in parts]
        return np.concatenate([run.result() for run in runs]) != -1

    def _intersect(self, origins, directions, lengths) -> dict | None:
        o, d, t = base.batch(origins, directions, lengths, np.float32)
        if len(o) == 0 or self.count == 0:
            return None
        return self._scene.run(o, d, dists=t, query="INTERSECT", output=True)

    def first_hit(self, origins, directions, lengths=None) -> tuple[np.ndarray, np.ndarray]:
        out = self._intersect(origins, directions, lengths)
        if out is None:
            n = len(np.reshape(origins, (-1, 3)))
            return np.full(n, np.inf), np.full(n, -1, dtype=np.int64)
        mesh = out["geomID"].astype(np.int64)
        distance = np.where(mesh >= 0, out["tfar"].astype(np.float64), np.inf)
        return distance, mesh

    def first_face(self, origins, directions, lengths) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distance to, the mesh and the face of it first hit along each segment (inf, -1, -1 on a miss)."""
        out = self._intersect(origins, directions, lengths)
        if out is None:
            n = len(np.reshape(origins, (-1, 3)))
            return np.full(n, np.inf), np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)
        mesh = out["geomID"].astype(np.int64)
        distance = np.where(mesh >= 0, out["tfar"].astype(np.float64), np.inf)
        return distance, mesh, np.where(mesh >= 0, out["primID"].astype(np.int64), -1)
