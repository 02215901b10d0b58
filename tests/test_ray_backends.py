"""README.md, Ray casting: back-ends behind one interface, one chooser, and an explicit thread setting; a
World casts every ray through the back-end it was built with."""

import os
import subprocess
import sys

import numpy as np
import pytest
import trimesh
from threadpoolctl import threadpool_info

from lofkit import World, check, ray, scene_from_data
from lofkit.design.executors import open_executor
from lofkit.ray.embree import THREADED_BATCH, EmbreeRays
from lofkit.ray.moller_trumbore import NumpyRays
from tests.helpers import REPO, scene_data, trooper


def test_the_chooser_names_each_back_end():
    assert ray.backend() is EmbreeRays
    assert ray.backend("embree") is EmbreeRays
    assert ray.backend("numpy") is NumpyRays
    with pytest.raises(ValueError, match="unknown ray back-end"):
        ray.backend("optix")


def test_the_numpy_back_end_needs_no_embreex():
    """`import lofkit` and the numpy back-end work where embreex cannot be imported."""
    code = ("import sys; sys.modules['embreex'] = None\n"
            "import lofkit, trimesh\n"
            "rays = lofkit.ray.backend('numpy')([trimesh.creation.box((10, 10, 10))])\n"
            "print(rays.occluded([[0, 0, 100.0]], [[0, 0, -1.0]], [200.0]).tolist())\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "[True]"


def _cover_and_haze_scene():
    """docs/rules.md "Cover" and LoF 3: a low wall touching the target (Partial Cover) and a Low Visibility zone the
    witness crosses (-3)."""
    wall = {"id": "low-wall", "wall": {"from": [500, 582.5], "to": [700, 582.5], "thickness": 10, "height": 20}}
    haze = {"id": "haze", "cylinder": {"diameter": 60, "height": 200}, "position": [600, 450],
            "kind": "low_visibility"}
    red = trooper("b", 600, 600, side="red", facing=270)
    return scene_from_data(scene_data([trooper("a", 600, 300), red], [wall, haze]))


def test_a_world_casts_every_ray_through_its_own_back_end():
    """Blocking and solid terrain, each visibility zone and each single piece get their ray scene from the
    World's back-end, and the verdict is the one Embree gives."""
    built = []

    class Counting(NumpyRays):
        def __init__(self, meshes):
            super().__init__(meshes)
            self.queries = 0
            built.append(self)

        def occluded(self, origins, directions, lengths):
            self.queries += 1
            return super().occluded(origins, directions, lengths)

    world = World.from_scene(_cover_and_haze_scene(), backend=Counting)
    verdict = check(world, "a", "b")
    assert verdict.to_dict() == check(World.from_scene(_cover_and_haze_scene()), "a", "b").to_dict()
    assert verdict.cover and verdict.visibility_mod == -3
    (_, zone), = world.zone_rays
    wall = world.piece_rays(0)
    assert all(isinstance(rays, Counting) for rays in (world.blocking_rays, world.solid_rays, zone, wall))
    assert zone.queries and wall.queries and world.blocking_rays.queries
    assert world.solid_rays is world.blocking_rays  # the same pieces (haze neither blocks LoF nor holds a base)
    assert len(built) == 3 and world.backend is Counting


def test_a_thread_count_gives_the_same_answers():
    """An occlusion batch split over threads answers as one thread does (`threads` per back-end, or the process
    setting)."""
    rng = np.random.default_rng(4)
    box = trimesh.creation.box((200, 200, 50))
    origins = rng.uniform(-300, 300, (THREADED_BATCH + 10, 3))
    directions = rng.normal(size=origins.shape)
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    lengths = np.full(len(origins), 400.0)
    one = EmbreeRays([box], threads=1).occluded(origins, directions, lengths)
    assert 0.05 < one.mean() < 0.95
    assert np.array_equal(EmbreeRays([box], threads=3).occluded(origins, directions, lengths), one)
    before = ray.threads()
    try:
        ray.set_threads(2)
        assert ray.threads() == 2
        assert np.array_equal(EmbreeRays([box]).occluded(origins, directions, lengths), one)
    finally:
        ray.set_threads(before)
    with pytest.raises(ValueError):
        ray.set_threads(0)


def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_worker_processes_cast_and_multiply_in_one_thread():
    """Each worker has a core: neither its ray casts nor numpy's BLAS start threads that would fight the others."""
    with open_executor("processes:1") as pool:
        assert pool.submit(ray.threads).result() == 1
        blas = pool.submit(_blas_threads).result()
    assert blas and set(blas) == {1}
