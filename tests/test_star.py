"""Kernels of closed solids as proof parts (lofkit/geometry/star.py): a rock that is nearly convex is one part, its
kernel, and every line through that kernel hits the rock (Embree); a rock dented deeply is left to boxes. The
kernel's points are found here as the rule defines them (on the inner side of every face's plane), independently of
the code that computes its volume."""

from __future__ import annotations

import numpy as np
import trimesh

from lofkit import check
from lofkit.geometry.inner import compute_mesh_parts
from tests.helpers import build_world, trooper
from tests.test_inner_parts import blocked


def dented_rock(depth: float, radius: float = 20.0) -> trimesh.Trimesh:
    """A ball of 80 faces with one vertex pushed `depth` mm towards its centre: not convex."""
    rock = trimesh.creation.icosphere(subdivisions=1, radius=radius)
    rock.vertices[0] *= (radius - depth) / radius
    return trimesh.Trimesh(rock.vertices, rock.faces)


def kernel_points(rock: trimesh.Trimesh, count: int, rng) -> np.ndarray:
    """Random points of the box around `rock` on the inner side of every face's plane."""
    points = rng.uniform(rock.bounds[0], rock.bounds[1], (count, 3))
    offsets = np.einsum("ij,ij->i", rock.face_normals, rock.triangles[:, 0])
    return points[(points @ rock.face_normals.T <= offsets).all(axis=1)]


def test_a_rock_nearly_convex_is_one_part_its_kernel_and_lines_through_it_hit_the_rock():
    rock = dented_rock(4.0)
    assert rock.is_watertight and not rock.is_convex
    parts = compute_mesh_parts(rock)
    assert parts.parts == 1 and len(parts.boxes) == 0 and (parts.component == 0).all() and parts.coverage > 0.9
    rng = np.random.default_rng(13)
    inside = kernel_points(rock, 100_000, rng)
    assert len(inside) > 10_000 and rock.contains(inside).all()
    directions = rng.normal(size=inside.shape)
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    assert blocked(rock, inside - 100 * directions, directions, np.full(len(inside), 200.0)).all()


def test_a_rock_dented_deeply_is_left_to_boxes():
    parts = compute_mesh_parts(dented_rock(15.0))
    assert (parts.component == -1).all() and len(parts.boxes) > 10


def test_a_rock_nearly_convex_between_two_troopers_is_the_one_blocker_that_proves_them_hidden(tmp_path):
    """A rock 120 mm wide, one vertex pushed in, on the line between two S1 troopers: its kernel, the table's one
    convex part, crosses every line between their volumes, so `check` says so (`one_blocker`), naming the rock."""
    dented_rock(12.0, radius=60.0).export(tmp_path / "rock.stl")
    world = build_world([trooper("a", 300, 100, silhouette=1), trooper("b", 300, 500, silhouette=1)],
                        [{"id": "rock", "mesh": str(tmp_path / "rock.stl"), "position": [300, 300, -20]}])
    assert len(world.convex_parts.piece) == 1
    verdict = check(world, "a", "b").to_dict()
    assert (verdict["sight"], verdict["sight_decided_by"], verdict["blockers"][0]["id"]) == (False, "one_blocker",
                                                                                             "rock")
