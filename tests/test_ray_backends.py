"""ARCHITECTURE.md, Ray casting: back-ends behind one interface, one chooser, and an explicit thread setting."""


import numpy as np
import pytest
import trimesh

from lofkit import ray
from lofkit.design.executors import open_executor
from lofkit.ray.embree import THREADED_BATCH, EmbreeRays
from lofkit.ray.numpy import NumpyRays


def test_the_chooser_names_each_back_end():
    assert ray.backend() is EmbreeRays
    assert ray.backend("embree") is EmbreeRays
    assert ray.backend("numpy") is NumpyRays
    with pytest.raises(ValueError, match="unknown ray back-end"):
        ray.backend("optix")


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


def test_worker_processes_cast_in_one_thread():
    with open_executor("processes:1") as pool:
        assert pool.submit(ray.threads).result() == 1
