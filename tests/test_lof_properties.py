"""Property tests (hypothesis) of the LoF engine on random small scenes (docs/rules.md, "Line of Fire").

The scenes come from `tests.strategies.layouts` (2-4 troopers on both sides of a band of terrain, partly hidden
pairs common), placed on a 4000 x 4000 mm table by `tests.strategies.scene`, which can move and turn them.
The `ci` profile (tests/conftest.py, loaded by default) derandomizes every test, so CI sees the same scenes on every
run; `--hypothesis-profile=random` explores new ones.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lofkit.rules.lof import check, matrix
from lofkit.sight.hidden import hidden_half_by_half, parts_hiding_pairs
from lofkit.sight.search import sight
from lofkit.testing import sight_brute_force
from tests.strategies import SETTINGS, Layout, Piece, Soldier, layouts, moves, scene, screened_layouts


def answers(world) -> dict:
    """(lof, sight, in_arc) for every ordered pair, by ids."""
    return {(v.shooter, v.target): (v.lof, v.sight, v.in_arc) for v in matrix(world).verdicts}


# --- LoF 4 and LoF 1 --------------------------------------------------------------------------------------------------


@settings(max_examples=20, **SETTINGS)
@given(layouts())
def test_sight_is_mutual_and_lof_needs_sight_and_arc(layout):
    """docs/rules.md LoF 4 ("If you can see me, I can see you ... it holds both ways"): `check(A, B).sight ==
    check(B, A).sight`; it equals the pair's sight in the full matrix (searched alongside every other pair) and does
    not depend on which of the two is listed first in the scene. LoF 1-3, 5: LoF implies sight and arc, an engaged
    shooter has LoF only to troopers in base contact, and `can_target` implies LoF."""
    world = scene(layout)
    ids = [t.id for t in layout.troopers]
    together = answers(world)
    assert answers(scene(Layout(layout.troopers[::-1], layout.terrain))) == together
    for a in ids:
        for b in ids:
            if a == b:
                continue
            forward, backward = check(world, a, b), check(world, b, a)
            assert forward.sight == backward.sight, (a, b)
            assert (forward.lof, forward.sight, forward.in_arc) == together[a, b], (a, b)
            assert not forward.lof or (forward.sight and forward.in_arc), (a, b)
            assert not forward.can_target or forward.lof, (a, b)
            engaged = world.troopers.engaged[world.troopers.index(a)]
            assert not forward.lof or forward.base_contact or not engaged, (a, b)


# --- invariance ------------------------------------------------------------------------------------------------------


@settings(max_examples=30, **SETTINGS)
@given(layouts(), st.integers(1, 3), moves, moves)
def test_turning_the_scene_by_quarter_turns_and_moving_it_changes_no_verdict(layout, quarter_turns, dx, dy):
    """Invariance (docs/rules.md LoF 1-4 are stated in the troopers' own frames): turning the whole scene (troopers,
    facings, terrain with its `rotation`) about z by a multiple of 90 degrees and moving it anywhere on the table
    changes no (lof, sight, in_arc) verdict.

    Quarter turns take no trigonometry here (coordinates are swapped and negated), so the turned scene differs from
    the original only by the rounding of the move (and of cos/sin of the facings and terrain rotations, which the
    engine computes); the search samples in frames built from the line between the two troopers, so its samples turn
    with the scene and the verdicts must be equal, not merely close."""
    assert answers(scene(layout)) == answers(scene(layout, quarter_turns, (dx, dy)))


@pytest.mark.slow
@settings(max_examples=25, **SETTINGS)
@given(layouts(), st.floats(0, 360), moves, moves)
def test_turning_the_scene_by_any_angle_and_moving_it_changes_no_verdict(layout, angle, dx, dy):
    """Invariance under any rotation about z: as the quarter-turn test, with cos/sin rounding (about 1e-13 mm at
    these coordinates) added to the move's. Arbitrary angles are kept because they are no less exact than the
    quarter-turn test: there the move already changes every coordinate's rounding, and Embree works in float32
    (about 1e-4 mm at these coordinates), so both tests rely on the same margin. The samples (eyes, template
    lattices) are built in frames taken from the line between the two troopers, so they turn with the scene; a
    verdict could flip only if its decisive segment passed within about 1e-4 mm of a blocker's edge, which random
    scenes essentially never do (1200 random scenes each for quarter turns and any angles showed no flip)."""
    assert answers(scene(layout)) == answers(scene(layout, angle=angle, shift=(dx, dy)))


@settings(max_examples=25, **SETTINGS)
@given(layouts())
def test_writing_the_scene_in_inches_changes_no_verdict(layout):
    """Invariance under units (docs/rules.md Units: "Every length in a scene file may be a number (in the scene's
    `units` ...)"; 1 inch = 25.4 mm exactly): the same scene with `units: in` and every length divided by 25.4
    gives the same verdicts (silhouette sizes stay in mm: they are not written in the scene)."""
    assert answers(scene(layout)) == answers(scene(layout, units="in"))


# --- the fast search against the reference ---------------------------------------------------------------------------


WALLED_OFF = Layout(
    troopers=(Soldier("t0", (300.0, 60.0), 0.0, 90.0, 2, "blue", ()),
              Soldier("t1", (250.0, 540.0), 0.0, 270.0, 2, "red", ()),
              Soldier("t2", (350.0, 540.0), 0.0, 270.0, 1, "red", ())),
    terrain=(Piece("wall", "w0", ((60.0, 300.0), (540.0, 300.0)), (10.0, 80.0)),))
"""A wall far wider and taller than the troopers between one of one side and two of the other."""


@pytest.mark.slow
def test_fast_sight_equals_the_brute_force_reference():
    """docs/rules.md LoF 2 (3 x 3 mm rule) and LoF 4 (either direction): the coarse-to-fine search (with its proofs of
    "hidden" and its skipped blocks) answers exactly as the exhaustive reference (`sight_brute_force`: every eye,
    both ways, against every lattice block) on every pair.

    The reference costs about (eyes x lattice points) segments per hidden pair: well under a second for S1/S2, far
    more for the larger silhouettes. So standing troopers here are S1 or S2, while prone ones (S0 on any base S1-S8)
    keep the other bases in play. Each scene screens one line as high and as wide as it needs give or take a few mm
    (`screened_layouts`), so hidden pairs (by a proof, or found by the search) and pairs only just seen are common:
    over the run, both answers come up, and the proofs hide some pairs."""
    answers, proved = [], []

    @settings(max_examples=6, **SETTINGS)
    @given(screened_layouts(max_troopers=3, big=False))
    @example(WALLED_OFF)  # two pairs a single wall hides: the proofs fire, whatever else is drawn
    def holds(layout):
        world = scene(layout)
        n = len(world.troopers)
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        fast, brute = sight(world, pairs), sight_brute_force(world, pairs)
        assert {k: s.seen for k, s in fast.items()} == {k: s.seen for k, s in brute.items()}
        answers.extend(s.seen for s in brute.values())
        proved.append(int((parts_hiding_pairs(world, pairs) >= 0).sum() + hidden_half_by_half(world, pairs).sum()))

    holds()
    assert answers.count(False) >= 3 and answers.count(True) >= 3 and sum(proved) >= 2, \
        f"pairs seen and hidden: {answers.count(True)}, {answers.count(False)}; proofs, scene by scene: {proved}"


# --- the witness ------------------------------------------------------------------------------------------------------


def _crossed_depth(origins, ends, normals, offsets):
    """Length (mm) of each segment origins[i] -> ends[i] strictly inside the convex polytope {x: normals @ x <=
    offsets} shrunk by 1e-6 mm (touching a face does not count); 0 where it misses."""
    span = ends - origins
    length = np.linalg.norm(span, axis=1)
    towards = span @ normals.T  # (n, f): d(normal . x)/dt for t in [0, 1]
    gap = (offsets - 1e-6)[None, :] - origins @ normals.T
    with np.errstate(divide="ignore", invalid="ignore"):
        t = gap / towards
    enter = np.max(np.where(towards < 0, t, -np.inf), axis=1, initial=0.0)
    leave = np.min(np.where(towards > 0, t, np.inf), axis=1, initial=1.0)
    never = np.any((towards == 0) & (gap <= 0), axis=1)
    return np.where(never, 0.0, np.maximum(np.minimum(leave, 1.0) - np.maximum(enter, 0.0), 0.0) * length)


def _cylinder_depth(origins, ends, centre, radius, bottom, top):
    """Length (mm) of each segment strictly inside a vertical cylinder shrunk by 1e-6 mm."""
    depth = np.zeros(len(origins))
    radius, bottom, top = radius - 1e-6, bottom + 1e-6, top - 1e-6
    for k, (o, e) in enumerate(zip(origins, ends)):
        d = e - o
        rel = o[:2] - centre
        a, b, c = d[0] ** 2 + d[1] ** 2, 2 * rel @ d[:2], rel @ rel - radius**2
        if a < 1e-18:
            lo, hi = (0.0, 1.0) if c < 0 else (1.0, 0.0)
        else:
            disc = b * b - 4 * a * c
            if disc <= 0:
                continue
            lo, hi = (-b - math.sqrt(disc)) / (2 * a), (-b + math.sqrt(disc)) / (2 * a)
        if abs(d[2]) < 1e-18:
            zlo, zhi = (0.0, 1.0) if bottom < o[2] < top else (1.0, 0.0)
        else:
            zlo, zhi = sorted(((bottom - o[2]) / d[2], (top - o[2]) / d[2]))
        depth[k] = max(0.0, min(hi, zhi, 1.0) - max(lo, zlo, 0.0)) * np.linalg.norm(d)
    return depth


@settings(max_examples=40, **SETTINGS)
@given(layouts())
def test_every_witness_is_a_clear_three_mm_square_on_the_template_facing_the_eye(layout):
    """docs/rules.md LoF 2: a YES carries "one witness (E and the centre and corners of Q)": E lies in one trooper's
    volume, Q is a 3 x 3 mm square on the other's template ("the flat rectangle (base width x silhouette height)
    standing on B's base, through B's base centre, facing E horizontally"), and "every segment from E to Q is
    unobstructed" (LoF 3). Checked independently of the search: segments from E to a 7 x 7 grid over Q, clipped
    exactly against every blocking piece's convex mesh and every other non-moving trooper's cylinder."""
    world = scene(layout)
    v = world.troopers
    blocking = [p.mesh for p in world.pieces if p.blocks_lof]
    for verdict in matrix(world).verdicts:
        if not verdict.sight:
            continue
        w = verdict.witness
        assert {w.eye_of, w.patch_of} == {verdict.shooter, verdict.target}
        e, q = v.index(w.eye_of), v.index(w.patch_of)
        eye, mid, corners = np.array(w.eye), np.array(w.centre), np.array(w.corners)
        assert np.linalg.norm(eye[:2] - v.centre[e]) <= v.radius[e] + 1e-9 and v.z[e] <= eye[2] <= v.top[e]
        facing_eye = eye[:2] - v.centre[q]
        assert np.allclose((corners[:, :2] - v.centre[q]) @ facing_eye, 0, atol=1e-6 * np.linalg.norm(facing_eye))
        assert np.all(np.linalg.norm(corners[:, :2] - v.centre[q], axis=1) <= v.radius[q] + 1e-9)
        assert np.all((corners[:, 2] >= v.z[q] - 1e-9) & (corners[:, 2] <= v.top[q] + 1e-9))
        sides = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
        assert np.allclose(sides, 3.0) and np.allclose(corners.mean(axis=0), mid)
        u, t = (g.reshape(-1, 1) for g in np.meshgrid(np.linspace(0, 1, 7), np.linspace(0, 1, 7)))
        points = corners[0] + u * (corners[1] - corners[0]) + t * (corners[3] - corners[0])
        starts = np.broadcast_to(eye, points.shape)
        for mesh in blocking:
            assert mesh.is_convex
            depth = _crossed_depth(starts, points, mesh.face_normals,
                                   np.einsum("ij,ij->i", mesh.face_normals, mesh.triangles[:, 0]))
            assert depth.max() <= 1e-6, (verdict.shooter, verdict.target, "terrain", depth.max())
        for other in range(len(v)):
            if other in (e, q) or v.moving[other] or v.marker[other]:
                continue
            depth = _cylinder_depth(starts, points, v.centre[other], v.radius[other], v.z[other], v.top[other])
            assert depth.max() <= 1e-6, (verdict.shooter, verdict.target, v.ids[other], depth.max())
