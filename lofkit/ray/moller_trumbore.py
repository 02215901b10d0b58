"""The reference ray back-end: Möller-Trumbore ray/triangle tests in plain numpy (float64), in chunks of rays.

Slow, but independent of Embree and of embreex: tests cross-check `EmbreeRays` against it.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import trimesh

from lofkit.ray.base import batch

FLAT = 1e-12
"""|det| at or below which a ray runs parallel to a triangle's plane (Möller-Trumbore's determinant)."""
CHUNK = 2_000_000
"""(ray, triangle) tests held at once."""


class NumpyRays:
    """Möller-Trumbore ray/triangle tests in numpy, chunked; mesh i is hit index i."""

    def __init__(self, meshes: Sequence[trimesh.Trimesh], chunk: int = CHUNK):
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
            hit = (np.abs(det) > FLAT) & (u >= 0) & (v >= 0) & (u + v <= 1) & (t >= 0)
        return np.where(hit, t, np.inf)

    def first_hit(self, origins, directions, lengths=None) -> tuple[np.ndarray, np.ndarray]:
        distance, triangle = self._nearest(origins, directions, lengths)
        return distance, self._mesh_and_face(triangle)[0]

    def first_face(self, origins, directions, lengths) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        distance, triangle = self._nearest(origins, directions, lengths)
        return (distance, *self._mesh_and_face(triangle))

    def _mesh_and_face(self, triangle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mesh, face = np.full(len(triangle), -1, dtype=np.int64), np.full(len(triangle), -1, dtype=np.int64)
        hit = triangle >= 0
        mesh[hit] = self._owner[triangle[hit]]
        face[hit] = triangle[hit] - self._first[mesh[hit]]
        return mesh, face

    def _nearest(self, origins, directions, lengths) -> tuple[np.ndarray, np.ndarray]:
        """Distance to and index (over all meshes) of the first triangle hit by each segment (inf, -1: none)."""
        o, d, t = batch(origins, directions, lengths, np.float64)
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
