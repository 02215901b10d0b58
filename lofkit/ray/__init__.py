"""Ray casting behind one interface (`RayBackend`) with one chooser (`backend`), as trimesh.ray does.

- `embree`: `EmbreeRays`, Embree via embreex (float32), the fast path every query uses by default;
- `numpy`: `NumpyRays` (`moller_trumbore`), Möller-Trumbore in plain numpy (float64), slow but independent: the
  cross-check.
"""

from __future__ import annotations

from lofkit.ray.base import RayBackend, RayFactory, set_threads, threads

BACKENDS = ("embree", "numpy")
"""Back-end names `backend` takes; the first is the default."""


def backend(name: str = BACKENDS[0]) -> RayFactory:
    """The back-end class called `name` (one of `BACKENDS`); it is imported only when chosen, so the numpy one
    works without embreex."""
    if name == "embree":
        from lofkit.ray.embree import EmbreeRays

        return EmbreeRays
    if name == "numpy":
        from lofkit.ray.moller_trumbore import NumpyRays

        return NumpyRays
    raise ValueError(f"unknown ray back-end {name!r}; use one of {', '.join(BACKENDS)}")


__all__ = ["BACKENDS", "RayBackend", "RayFactory", "backend", "set_threads", "threads"]
