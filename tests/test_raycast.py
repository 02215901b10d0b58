"""docs/architecture.md, ray back-ends: two independent back-ends behind one interface give identical answers."""

import numpy as np
import pytest
import trimesh

from lofkit.ray.embree import EmbreeRays
from lofkit.ray.moller_trumbore import NumpyRays


def _random_boxes(rng, count=12) -> list[trimesh.Trimesh]:
    boxes = []
    for _ in range(count):
        box = trimesh.creation.box(rng.uniform(20, 150, size=3))
        box.apply_transform(trimesh.transformations.rotation_matrix(rng.uniform(0, np.pi), [0, 0, 1]))
        box.apply_translation(rng.uniform([0, 0, 0], [1000, 1000, 100]))
        boxes.append(box)
    return boxes


def _random_segments(rng, count):
    start = rng.uniform([0, 0, 0], [1000, 1000, 200], size=(count, 3))
    end = rng.uniform([0, 0, 0], [1000, 1000, 200], size=(count, 3))
    length = np.linalg.norm(end - start, axis=1)
    return start, (end - start) / length[:, None], length


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_embree_and_numpy_agree_on_random_segments(seed):
    rng = np.random.default_rng(seed)
    meshes = _random_boxes(rng)
    origins, directions, lengths = _random_segments(rng, 3000)
    fast, slow = EmbreeRays(meshes), NumpyRays(meshes)
    distance, mesh = slow.first_hit(origins, directions)
    clear_cut = np.abs(distance - lengths) > 1e-3  # segments ending on a surface are float32-vs-float64 ties
    assert clear_cut.mean() > 0.99
    blocked = slow.occluded(origins, directions, lengths)
    assert 0.1 < blocked.mean() < 0.9  # the set tests both answers
    assert np.array_equal(fast.occluded(origins, directions, lengths)[clear_cut], blocked[clear_cut])
    fast_distance, fast_mesh = fast.first_hit(origins, directions)
    hit = np.isfinite(distance)
    assert np.array_equal(np.isfinite(fast_distance), hit)
    assert np.allclose(fast_distance[hit], distance[hit], atol=1e-3)
    assert np.array_equal(fast_mesh, mesh)


def test_segment_length_is_respected():
    box = trimesh.creation.box((10, 10, 10))
    origins = np.array([[0, 0, 100.0]] * 3)
    down = np.array([[0, 0, -1.0]] * 3)
    for backend in (EmbreeRays([box]), NumpyRays([box])):
        assert backend.occluded(origins, down, [94.0, 96.0, 200.0]).tolist() == [False, True, True]
        distance, mesh = backend.first_hit(origins[:1], down[:1])
        assert np.isclose(distance[0], 95.0) and mesh[0] == 0


def test_empty_scene_and_empty_batches():
    for backend in (EmbreeRays([]), NumpyRays([])):
        assert backend.occluded(np.zeros((2, 3)), np.tile([1.0, 0, 0], (2, 1)), [1, 1]).tolist() == [False, False]
        assert backend.first_hit(np.zeros((0, 3)), np.zeros((0, 3)))[0].shape == (0,)


def test_float32_inputs_are_accepted():
    box = trimesh.creation.box((10, 10, 10))
    origins = np.array([[0, 0, 100.0]], dtype=np.float32)
    down = np.array([[0, 0, -1.0]], dtype=np.float32)
    for backend in (EmbreeRays([box]), NumpyRays([box])):
        assert backend.occluded(origins, down, np.float32([200.0])).tolist() == [True]
