"""Ray casting behind one small interface, with Embree as the fast path and numpy as an independent check.

Both back-ends take batches: `origins` and unit `directions` of shape (n, 3) and `lengths` of shape (n,).
`occluded` says whether anything lies on each segment; `first_hit` gives the distance to, and the index of the
mesh at, the first surface along each ray (inf and -1 on a miss); `first_face` the mesh and the face of it hit.
No Python loop runs per ray.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, Sequence

import numpy as np
import trimesh
from embreex import rtcore_scene
from embreex.mesh_construction import TriangleMesh


class RayBackend(Protocol):
    def occluded(self, origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray) -> np.ndarray: ...

    def first_hit(
        self, origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]: ...

    def first_face(
        self, origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]: ...


def _batch(origins, directions, lengths, dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    origins = np.ascontiguousarray(np.reshape(origins, (-1, 3)), dtype=dtype)
    directions = np.ascontiguousarray(np.reshape(directions, (-1, 3)), dtype=dtype)
    if lengths is None:
        lengths = np.full(len(origins), np.inf)
    lengths = np.array(np.broadcast_to(lengths, (len(origins),)), dtype=dtype)  # a writable copy: embreex needs one
    return origins, directions, lengths


THREADED_BATCH = 200_000
"""Batches at least this large are split over `THREADS` threads (Embree releases the GIL)."""
THREADS = min(4, os.cpu_count() or 1)
"""Threads an occlusion query may use: one per core, or 1 in a worker process that has a core of its own."""
_POOL = ThreadPoolExecutor(max_workers=THREADS)


class EmbreeRays:
    """Embree (via embreex) over a list of meshes; mesh i is Embree geometry i."""

    def __init__(self, meshes: Sequence[trimesh.Trimesh]):
        self.count = len(meshes)
        self._scene = rtcore_scene.EmbreeScene()
        for mesh in meshes:
            TriangleMesh(
                scene=self._scene,
                vertices=np.ascontiguousarray(mesh.vertices, dtype=np.float32),
                indices=np.ascontiguousarray(mesh.faces, dtype=np.int32),
            )

    def occluded(self, origins, directions, lengths) -> np.ndarray:
        o, d, t = _batch(origins, directions, lengths, np.float32)
        if len(o) == 0 or self.count == 0:
            return np.zeros(len(o), dtype=bool)
        if len(o) < THREADED_BATCH or THREADS < 2:
            return self._scene.run(o, d, dists=t, query="OCCLUDED") != -1
        parts = np.array_split(np.arange(len(o)), THREADS)
        runs = [_POOL.submit(self._scene.run, o[p], d[p], dists=t[p], query="OCCLUDED") for p in parts]
        return np.concatenate([run.result() for run in runs]) != -1

    def _intersect(self, origins, directions, lengths) -> dict | None:
        o, d, t = _batch(origins, directions, lengths, np.float32)
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

    def first_face(self, origins, directions, lengths) -> tuple[np.ndarray, np.ndarray]:
        """The mesh and the face of it first hit along each segment (-1, -1 on a miss)."""
        out = self._intersect(origins, directions, lengths)
        if out is None:
            n = len(np.reshape(origins, (-1, 3)))
            return np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)
        mesh = out["geomID"].astype(np.int64)
        return mesh, np.where(mesh >= 0, out["primID"].astype(np.int64), -1)


class NumpyRays:
    """Möller-Trumbore ray/triangle tests in numpy, chunked; slow but independent of Embree (for cross-checks)."""

    def __init__(self, meshes: Sequence[trimesh.Trimesh], chunk: int = 2_000_000):
        triangles = [m.triangles for m in meshes]
        self._triangles = np.concatenate(triangles) if triangles else np.zeros((0, 3, 3))
        self._owner = np.repeat(np.arange(len(meshes)), [len(t) for t in triangles])
        self._first = np.concatenate([[0], np.cumsum([len(t) for t in triangles])])[:-1].astype(np.int64)
        self._chunk = chunk

    def _hits(self, origins: np.ndarray, directions: np.ndarray) -> np.ndarray:
        """Distance along each ray to each triangle, inf where it misses: shape (rays, triangles)."""
        v0, v1, v2 = self._triangles[:, 0], self._triangles[:, 1], self._triangles[:, 2]
        e1, e2 = v1 - v0, v2 - v0
        p = np.cross(directions[:, None, :], e2[None])
        det = np.einsum("rtk,tk->rt", p, e1)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / det
            s = origins[:, None, :] - v0[None]
            u = np.einsum("rtk,rtk->rt", s, p) * inv
            q = np.cross(s, e1[None])
            v = np.einsum("rk,rtk->rt", directions, q) * inv
            t = np.einsum("rtk,tk->rt", q, e2) * inv
            hit = (np.abs(det) > 1e-12) & (u >= 0) & (v >= 0) & (u + v <= 1) & (t >= 0)
        return np.where(hit, t, np.inf)

    def first_hit(self, origins, directions, lengths=None) -> tuple[np.ndarray, np.ndarray]:
        distance, triangle = self._nearest(origins, directions, lengths)
        return distance, self._mesh_and_face(triangle)[0]

    def first_face(self, origins, directions, lengths) -> tuple[np.ndarray, np.ndarray]:
        return self._mesh_and_face(self._nearest(origins, directions, lengths)[1])

    def _mesh_and_face(self, triangle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mesh, face = np.full(len(triangle), -1, dtype=np.int64), np.full(len(triangle), -1, dtype=np.int64)
        hit = triangle >= 0
        mesh[hit] = self._owner[triangle[hit]]
        face[hit] = triangle[hit] - self._first[mesh[hit]]
        return mesh, face

    def _nearest(self, origins, directions, lengths) -> tuple[np.ndarray, np.ndarray]:
        """Distance to and index (over all meshes) of the first triangle hit by each segment (inf, -1: none)."""
        o, d, t = _batch(origins, directions, lengths, np.float64)
        distance = np.full(len(o), np.inf)
        triangle = np.full(len(o), -1, dtype=np.int64)
        if len(self._triangles) == 0:
            return distance, triangle
        step = max(1, self._chunk // len(self._triangles))
        for start in range(0, len(o), step):  # loop over chunks of rays, not rays
            sl = slice(start, start + step)
            hits = self._hits(o[sl], d[sl])
            nearest = np.argmin(hits, axis=1)
            near = hits[np.arange(len(nearest)), nearest]
            inside = np.isfinite(near) & (near <= t[sl])
            distance[sl] = np.where(inside, near, np.inf)
            triangle[sl] = np.where(inside, nearest, -1)
        return distance, triangle

    def occluded(self, origins, directions, lengths) -> np.ndarray:
        return np.isfinite(self.first_hit(origins, directions, lengths)[0])
