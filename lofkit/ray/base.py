"""What every ray back-end answers, the batch form it takes, and how many threads a query may use.

A back-end is built from a list of meshes (mesh i is hit index i) and takes batches: `origins` and unit `directions`
of shape (n, 3), and `lengths` of shape (n,) (None: rays without end). No Python loop runs per ray.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
import trimesh


class RayBackend(Protocol):
    def occluded(self, origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Whether anything lies on each segment."""
        ...

    def first_hit(
        self, origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Distance to, and index of the mesh at, the first surface along each ray (inf and -1 on a miss)."""
        ...

    def first_face(
        self, origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distance to, the mesh and the face of it first hit along each segment (inf, -1, -1 on a miss)."""
        ...


RayFactory = Callable[[Sequence[trimesh.Trimesh]], RayBackend]
"""What a World builds its ray scenes with: meshes in, a back-end out (a back-end class is one)."""


def batch(origins, directions, lengths, dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Origins (n, 3), directions (n, 3) and lengths (n,) as contiguous arrays of `dtype` (lengths a writable copy:
    embreex needs one; None becomes inf)."""
    origins = np.ascontiguousarray(np.reshape(origins, (-1, 3)), dtype=dtype)
    directions = np.ascontiguousarray(np.reshape(directions, (-1, 3)), dtype=dtype)
    if lengths is None:
        lengths = np.full(len(origins), np.inf)
    lengths = np.array(np.broadcast_to(lengths, (len(origins),)), dtype=dtype)
    return origins, directions, lengths


_threads = min(4, os.cpu_count() or 1)


def threads() -> int:
    """Threads one query may use in this process (see `set_threads`)."""
    return _threads


def set_threads(count: int) -> None:
    """Let each query in this process use up to `count` threads: one per core by default (at most 4); a worker
    process that has a core of its own sets 1 (`design.executors`)."""
    global _threads
    if count < 1:
        raise ValueError(f"a query needs at least one thread, got {count}")
    _threads = int(count)
