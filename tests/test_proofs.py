"""The cheap proofs of "hidden" that spare rays (blockers.hiding_parts, blockers.blind) are sound, and the
face-level ray query they use agrees between back-ends (RULES.md LoF 2: sight needs a clear segment; a proof must
never hide a pair or an eye that sees something)."""

from __future__ import annotations

import itertools

import numpy as np
import trimesh
from hypothesis import given, settings

from lofkit.blockers import Segments, blind, blocked, hiding_parts, prisms
from lofkit.lattice import END_TRIM, Lattice, dense_eyes, template_axis, template_points, to_world
from lofkit.raycast import EmbreeRays, NumpyRays
from lofkit.sight import seen_pairs, sight_brute_force
from tests.helpers import build_world, trooper
from tests.test_lof_properties import SETTINGS, layouts, scene


def _towards(v, s: int, t: int) -> np.ndarray:
    towards = v.centre[t] - v.centre[s]
    return towards / np.linalg.norm(towards)


def _blind_rows(world, s: int, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Shooter s's dense eyes towards t, and which of them `blind` proves blind to t's template (its corners)."""
    v = world.troopers
    eyes = to_world(dense_eyes(float(v.radius[s]), float(v.height[s])), v.centre[s], v.z[s], _towards(v, s, t))
    lattice = Lattice(2 * float(v.radius[t]), float(v.height[t]))
    centres = np.broadcast_to(v.centre[t], (len(eyes), 2))
    axis = template_axis(eyes, centres, np.broadcast_to(_towards(v, s, t), (len(eyes), 2)))
    corners = template_points(lattice, axis, centres, np.full(len(eyes), v.z[t]), np.array([0, lattice.cells[0]]),
                              np.array([0, lattice.cells[1]]))
    return eyes, blind(world, eyes[:, None, :], corners.reshape(-1, 4, 3), END_TRIM)


def _every_segment_blocked(world, eyes: np.ndarray, s: int, t: int) -> bool:
    """Segments from each eye to every lattice point of t's template facing it are all obstructed."""
    v = world.troopers
    lattice = Lattice(2 * float(v.radius[t]), float(v.height[t]))
    centres = np.broadcast_to(v.centre[t], (len(eyes), 2))
    axis = template_axis(eyes, centres, np.broadcast_to(_towards(v, s, t), (len(eyes), 2)))
    cols, rows = np.arange(lattice.cells[0] + 1), np.arange(lattice.cells[1] + 1)
    points = template_points(lattice, axis, centres, np.full(len(eyes), v.z[t]), cols, rows)
    starts = np.repeat(eyes, points.shape[1] * points.shape[2], axis=0)
    segments = Segments.between(starts, points.reshape(-1, 3))
    return bool(blocked(world, segments, np.zeros((len(starts), 0), dtype=int)).all())


def test_a_wall_blinds_the_eyes_behind_it_but_not_those_looking_over_it():
    """A 60 mm wall between two S5 troopers (45 mm): every eye is blind; at 30 mm, the eyes above it are not."""
    for height, all_blind in ((60.0, True), (30.0, False)):
        world = build_world(
            [trooper("a", 300, 100, silhouette=5), trooper("b", 300, 500, silhouette=5)],
            [{"id": "wall", "wall": {"from": [100, 300], "to": [500, 300], "thickness": 10, "height": height}}],
        )
        eyes, blind = _blind_rows(world, 0, 1)
        assert blind.all() == all_blind
        assert blind.any()  # the low eyes are behind the wall either way
        assert _every_segment_blocked(world, eyes[blind], 0, 1)


@settings(max_examples=8, **SETTINGS)
@given(layouts(max_troopers=3, big=False))
def test_eyes_proved_blind_see_no_lattice_point(layout):
    """Every segment from an eye `blind` proves blind to every lattice point of the target is obstructed."""
    world = scene(layout)
    for s, t in itertools.permutations(range(len(world.troopers)), 2):
        eyes, blind = _blind_rows(world, s, t)
        if blind.any():
            assert _every_segment_blocked(world, eyes[blind][::7], s, t)


def _crosses(starts: np.ndarray, ends: np.ndarray, normals: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Reference for the compiled test: whether each segment runs through the inside of {x: normals @ x <= offsets}
    (clip the segment's parameter interval by every plane, in plain numpy)."""
    span = ends - starts
    rate = span @ normals.T
    gap = offsets[None] - starts @ normals.T
    with np.errstate(divide="ignore", invalid="ignore"):
        at = gap / rate
    enter = np.maximum(np.max(np.where(rate < 0, at, -np.inf), axis=1), 0.0)
    leave = np.minimum(np.min(np.where(rate > 0, at, np.inf), axis=1), 1.0)
    parallel_outside = np.any((rate == 0) & (gap <= 0), axis=1)
    return ~parallel_outside & ((leave - enter) * np.linalg.norm(span, axis=1) > 1e-9)


def _cylinder_points(v, i: int, count: int, rng) -> np.ndarray:
    angle, radius = rng.uniform(0, 2 * np.pi, count), v.radius[i] * np.sqrt(rng.uniform(0, 1, count))
    up = v.z[i] + END_TRIM + rng.uniform(0, 1, count) * (v.height[i] - END_TRIM)
    return np.column_stack([v.centre[i] + radius[:, None] * np.column_stack([np.cos(angle), np.sin(angle)]), up])


@settings(max_examples=15, **SETTINGS)
@given(layouts())
def test_a_pair_proof_holds_for_every_segment_between_the_volumes(layout):
    """When `hiding_parts` names a part for a pair, random segments between points of the two volumes all cross it
    (checked by a plain-numpy reference) and Embree finds every one of them blocked."""
    world = scene(layout)
    v, parts = world.troopers, world.convex_parts
    pairs = np.array(list(itertools.combinations(range(len(v)), 2)))
    rng = np.random.default_rng(5)
    for (a, b), part in zip(pairs.tolist(), hiding_parts(world, pairs).tolist()):
        if part < 0:
            continue
        starts, ends = _cylinder_points(v, a, 400, rng), _cylinder_points(v, b, 400, rng)
        planes = int(parts.faces[part])
        assert _crosses(starts, ends, parts.normals[part, :planes], parts.offsets[part, :planes]).all()
        assert blocked(world, Segments.between(starts, ends), np.zeros((400, 0), dtype=int)).all()


@settings(max_examples=10, **SETTINGS)
@given(layouts(max_troopers=3, big=False))
def test_seen_pairs_equals_the_brute_force_reference(layout):
    """The analyses' yes/no sight (with every proof) answers as the exhaustive reference."""
    world = scene(layout)
    pairs = list(itertools.combinations(range(len(world.troopers)), 2))
    brute = sight_brute_force(world, pairs)
    assert seen_pairs(world, pairs).tolist() == [brute[p].seen for p in pairs]


def test_first_face_agrees_between_embree_and_numpy():
    rng = np.random.default_rng(3)
    meshes = [trimesh.creation.box((40, 30, 20)), trimesh.creation.icosphere(2, 15).apply_translation((60, 0, 0))]
    origins = rng.uniform(-80, 140, (2000, 3))
    ends = rng.uniform([-20, -15, -10], [75, 15, 10], (2000, 3))  # inside or past the box and the ball
    segments = Segments.between(origins, ends, trim=0.0)
    fast = EmbreeRays(meshes).first_face(segments.origins, segments.directions, segments.lengths)
    slow = NumpyRays(meshes).first_face(segments.origins, segments.directions, segments.lengths)
    agree = (fast[0] == slow[0]) & (fast[1] == slow[1])
    assert (fast[0] >= 0).sum() > 1000
    assert agree.mean() > 0.995  # float32 against float64 where a segment meets an edge shared by two faces


def test_a_proof_needs_room_for_the_trimmed_ends():
    """With a margin, a part touching the eye's end of the segments proves nothing: trimmed segments could miss it."""
    world = build_world([trooper("a", 300, 100), trooper("b", 300, 500)],
                        [{"id": "wall", "wall": {"from": [100, 300], "to": [500, 300], "thickness": 10, "height": 80}}])
    eye = np.array([[[300.0, 290.0, 20.0]]])  # 5 mm in front of the wall's face (it spans 295 < y < 305)
    patch = np.array([[[290.0, 500.0, 5.0], [310.0, 500.0, 5.0], [310.0, 500.0, 35.0], [290.0, 500.0, 35.0]]])
    assert blind(world, eye, patch, margin=1.0)[0]
    assert not blind(world, eye, patch, margin=6.0)[0]


def test_prisms_contain_their_volumes():
    world = build_world([trooper("a", 100, 100, silhouette=8), trooper("b", 300, 100, z=40)])
    v = world.troopers
    for i, vertices in enumerate(prisms(v, np.arange(2))):
        assert np.linalg.norm(vertices[:, :2] - v.centre[i], axis=1).min() > v.radius[i]
        assert vertices[:, 2].max() == v.top[i]
