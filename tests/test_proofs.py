"""The cheap proofs of "hidden" that spare rays (`hidden.parts_hiding_pairs` for pairs,
`screen.prove_hidden_before_casting` for eyes, patches and coarse segments) are sound, and the face-level ray query the search learns its candidates from agrees between
back-ends (docs/rules.md LoF 2: sight needs a clear segment; a proof must never hide a pair, an eye or a segment that
sees something)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
import trimesh
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.spatial import ConvexHull, Delaunay, cKDTree

from lofkit import World, check, load_scene
from lofkit.ray.embree import EmbreeRays
from lofkit.ray.moller_trumbore import NumpyRays
from lofkit.scene.silhouettes import SILHOUETTES
from lofkit.sight import fine_pass_kernels, kernels
from lofkit.sight.eye_batch import EyeBatch as _Rows
from lofkit.sight.eye_batch import eye_batch
from lofkit.sight.fine_pass import (
    block_points,
    central_blocks,
    central_order,
    clear_blocks,
    clear_blocks_again,
    clear_blocks_near,
    pick_blocks,
    spread_order,
)
from lofkit.sight.glimpse import seen_pairs
from lofkit.sight.hidden import (
    PRISM_SIDES,
    candidates_of,
    hidden_eye_tiles,
    hidden_half_by_half,
    line_candidates,
    parts_hiding_pairs,
    prisms,
)
from lofkit.sight.kernel_args import Templates
from lofkit.sight.kernels import templates_hull
from lofkit.sight.lattice import (
    COARSE_STRIDES,
    Lattice,
    dense_eyes,
    dense_tiles,
    headings,
    template_axis,
    template_points,
    to_world,
)
from lofkit.sight.learning import LEARNED_PARTS, LINE_PARTS, LearnedParts
from lofkit.sight.screen import in_patches, prove_hidden_before_casting
from lofkit.sight.search import run_search
from lofkit.sight.segments import Segments, blocked
from lofkit.sight.tolerances import END_TRIM
from lofkit.testing import sight_brute_force
from tests.helpers import REPO, build_world, trooper
from tests.strategies import SETTINGS, layouts, scene, screened_layouts


def _screened(world, rows: _Rows, candidates: np.ndarray | None = None):
    """`prove_hidden_before_casting` of `rows` at the first coarse stride, with every convex part of the world as every row's candidate
    (by default): (lattice, axis, hidden, proved patches, blocked, segments to cast)."""
    v = world.troopers
    target = int(rows.target[0])
    lattice = Lattice(2 * float(v.radius[target]), float(v.height[target]))
    towards = v.centre[rows.target] - v.centre[rows.shooter]
    axis = template_axis(rows.eye, v.centre[rows.target], towards / np.linalg.norm(towards, axis=1, keepdims=True))
    cols, lines = lattice.strided(COARSE_STRIDES[0])
    if candidates is None:
        candidates = np.arange(len(world.convex_parts.piece))
    candidates = np.broadcast_to(candidates, (len(rows.pair), len(candidates)))
    return (lattice, axis, *prove_hidden_before_casting(world, lattice, rows, axis, cols, lines, candidates))


def _dense_rows(world, s: int, t: int) -> _Rows:
    """Shooter s's dense eyes, looking at t."""
    return eye_batch(world, np.array([[s, t]]), np.array([0]), True, dense_eyes)


ROWS_AT_ONCE = 32
"""Eyes whose segments are cast together: a dense S5's eyes to every lattice point are millions of segments."""


def _blocked_points(world, rows: _Rows, axis: np.ndarray, lattice: Lattice, cols, lines) -> np.ndarray:
    """Embree's answer for the segments from each row's eye to its lattice points cols x lines: (n, c, r)."""
    v = world.troopers
    answer = np.empty((len(rows.eye), len(cols), len(lines)), dtype=bool)
    for first in range(0, len(rows.eye), ROWS_AT_ONCE):
        at = slice(first, first + ROWS_AT_ONCE)
        target = rows.target[at]
        points = template_points(lattice, axis[at], v.centre[target], v.z[target], cols, lines)
        starts = np.repeat(rows.eye[at], points.shape[1] * points.shape[2], axis=0)
        segments = Segments.between(starts, points.reshape(-1, 3))
        answer[at] = blocked(world, segments, np.zeros((len(starts), 0), dtype=int)).reshape(points.shape[:3])
    return answer


def _check_screen(world, rows: _Rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`prove_hidden_before_casting`'s claims for rows, checked by Embree at every lattice point: a hidden eye sees none, a proved patch
    none of its points, a blocked coarse segment is blocked; the segments left to cast are the others. Returns
    (hidden, proved, blocked)."""
    lattice, axis, hidden, proved, blocked_coarse, segments = _screened(world, rows)
    cw, ch = lattice.cells
    every = _blocked_points(world, rows, axis, lattice, np.arange(cw + 1), np.arange(ch + 1))
    assert every[hidden].all()
    assert every[in_patches(lattice, proved, np.arange(cw + 1), np.arange(ch + 1))].all()
    cols, lines = lattice.strided(COARSE_STRIDES[0])
    coarse = every[:, cols[:, None], lines[None, :]]
    assert coarse[blocked_coarse].all()
    assert len(segments.lengths) == (~blocked_coarse[~hidden]).sum()
    return hidden, proved, blocked_coarse


@pytest.mark.slow
def test_a_wall_blinds_the_eyes_behind_it_but_not_those_looking_over_it():
    """A 60 mm wall between two S5 troopers (45 mm): every eye is blind; at 30 mm, the eyes above it are not."""
    for height, all_blind in ((60.0, True), (30.0, False)):
        world = build_world(
            [trooper("a", 300, 100, silhouette=5), trooper("b", 300, 500, silhouette=5)],
            [{"id": "wall", "wall": {"from": [100, 300], "to": [500, 300], "thickness": 10, "height": height}}],
        )
        hidden, _, blocked_coarse = _check_screen(world, _dense_rows(world, 0, 1))
        assert hidden.all() == all_blind
        assert hidden.any()  # the low eyes are behind the wall either way
        if not all_blind:  # the eyes above the wall: the wall blocks their segments to the template's bottom only
            assert blocked_coarse[~hidden].any() and not blocked_coarse[~hidden].all()


@pytest.mark.slow
def test_what_the_screen_proves_is_blocked():
    """Eyes, patches and coarse segments `prove_hidden_before_casting` proves blocked are blocked at every lattice point (Embree); over
    the run, it proves many of each."""
    claims = np.zeros(3, dtype=int)

    @settings(max_examples=8, **SETTINGS)
    @given(layouts(max_troopers=3, big=False))
    def holds(layout):
        world = scene(layout)
        for s, t in itertools.permutations(range(len(world.troopers)), 2):
            hidden, proved, blocked_coarse = _check_screen(world, _dense_rows(world, s, t).take(slice(None, None, 5)))
            claims[:] += hidden.sum(), proved[~hidden].sum(), blocked_coarse[~hidden].sum()

    holds()
    assert (claims >= (100, 10, 500)).all(), f"proved hidden eyes, patches and coarse segments: {claims}"


def _eyes_of_hidden_tiles(world, s: int, t: int) -> tuple[np.ndarray, np.ndarray]:
    """Shooter s's dense eyes towards t, and which of them lie in tiles `hidden_eye_tiles` proves hidden, with every
    convex part of the world as the pair's candidates."""
    v = world.troopers
    tile, grouped, counts = dense_tiles(float(v.radius[s]), float(v.height[s]))
    towards = headings(v, np.array([s]), np.array([t]))
    candidates = np.arange(len(world.convex_parts.piece))[None]
    hidden = hidden_eye_tiles(world, grouped, counts, np.array([0]), np.array([s]), np.array([t]), towards, candidates)
    eyes = to_world(dense_eyes(float(v.radius[s]), float(v.height[s])), v.centre[s], v.z[s], towards[0])
    return eyes, hidden[0, tile]


@pytest.mark.parametrize(("radius", "height"), [(12.5, 40.0), (27.5, 32.0), (12.5, 3.0)])
def test_every_eye_of_a_tile_lies_in_the_hull_of_its_corners(radius, height):
    """`dense_tiles` gives each tile only its corners, eyes of that tile whose convex hull holds all of its eyes: a
    proof for every segment from the corners then holds for every eye (the lemma of `covering_parts`)."""
    eyes = dense_eyes(radius, height)
    tile, corners, counts = dense_tiles(radius, height)
    assert counts.sum() < 0.75 * len(eyes)
    for t in range(len(counts)):
        kept, everyone = corners[t, : counts[t]], eyes[tile == t]
        assert (kept[:, None] == everyone[None]).all(axis=2).any(axis=1).all()
        for eye in everyone:  # eye = kept.T @ w for some weights w >= 0 summing to 1
            mix = linprog(np.zeros(len(kept)), A_eq=np.vstack([kept.T, np.ones(len(kept))]), b_eq=np.r_[eye, 1.0])
            assert mix.status == 0 and np.allclose(mix.x @ kept, eye)


def test_a_wall_hides_whole_tiles_of_eyes_but_not_those_looking_over_it():
    for height, all_hidden in ((60.0, True), (30.0, False)):
        world = build_world(
            [trooper("a", 300, 100, silhouette=5), trooper("b", 300, 500, silhouette=5)],
            [{"id": "wall", "wall": {"from": [100, 300], "to": [500, 300], "thickness": 10, "height": height}}],
        )
        eyes, hidden = _eyes_of_hidden_tiles(world, 0, 1)
        assert hidden.all() == all_hidden and hidden.any()
        assert eyes[~hidden, 2].min(initial=np.inf) > 14  # tiles of eyes up to 12.5 mm high are all hidden


def _clear_blocks(blocked: np.ndarray, lattice: Lattice) -> np.ndarray:
    """Which blocks of lattice cells (windows of block + 1 points a side) hold no blocked point, for each row of
    `blocked` (n, c, r): the rule's "every segment from E to Q is unobstructed", sampled."""
    bw, bh = lattice.block
    windows = np.lib.stride_tricks.sliding_window_view(~blocked, (bw + 1, bh + 1), axis=(1, 2))
    return windows.all(axis=(-2, -1))


def _no_block_seen(world, s: int, t: int, eyes: np.ndarray) -> bool:
    """Whether Embree finds no eye of `eyes` (shooter s's, looking at t) seeing a whole block of t's lattice."""
    v = world.troopers
    rows = _Rows(np.zeros(len(eyes), dtype=int), np.full(len(eyes), s), np.full(len(eyes), t), eyes,
                 np.zeros(len(eyes), dtype=bool))
    lattice = Lattice(2 * float(v.radius[t]), float(v.height[t]))
    axis = template_axis(eyes, v.centre[rows.target], headings(v, rows.shooter, rows.target))
    cw, ch = lattice.cells
    return not _clear_blocks(_blocked_points(world, rows, axis, lattice, np.arange(cw + 1), np.arange(ch + 1)),
                             lattice).any()


def test_two_overlapping_walls_hide_tiles_of_eyes_together():
    """Two 60 mm walls that overlap by 10 mm in front of the target: neither hides a whole template from the tiles
    looking across their overlap, but each hides the points of it on its side (`kernels._fused_cover`), so every
    tile is hidden; and every segment from those eyes to every lattice point is obstructed (Embree)."""
    world = build_world(
        [trooper("a", 300, 100, silhouette=5), trooper("b", 300, 500, silhouette=5)],
        [{"id": "left", "wall": {"from": [100, 300], "to": [305, 300], "thickness": 10, "height": 60}},
         {"id": "right", "wall": {"from": [295, 300], "to": [500, 300], "thickness": 10, "height": 60}}],
    )
    eyes, hidden = _eyes_of_hidden_tiles(world, 0, 1)
    assert hidden.all()
    v = world.troopers
    eyes = eyes[::3]
    rows = _Rows(np.zeros(len(eyes), dtype=int), np.zeros(len(eyes), dtype=int), np.ones(len(eyes), dtype=int), eyes,
                 np.zeros(len(eyes), dtype=bool))
    lattice = Lattice(2 * float(v.radius[1]), float(v.height[1]))
    axis = template_axis(eyes, v.centre[rows.target], headings(v, rows.shooter, rows.target))
    cw, ch = lattice.cells
    assert _blocked_points(world, rows, axis, lattice, np.arange(cw + 1), np.arange(ch + 1)).all()


def _staggered_posts(slit: bool) -> list[dict]:
    """Posts 7 mm wide across the line between the troopers of `test_staggered_posts_...`, 5 mm apart, in two rows
    10 mm apart in depth, so that each overlaps its neighbours by 2 mm as seen along the line; with a `slit`, the
    middle one is left out, and there the screen has a 3 mm slit."""
    return [{"id": f"post{k + 12}", "box": {"size": [7, 10, 60]}, "position": [300 + 5 * k, 295 if k % 2 else 305]}
            for k in range(-12, 13) if k or not slit]


@pytest.mark.parametrize("slit", [False, True])
def test_staggered_posts_hide_tiles_of_eyes_only_together(slit):
    """A screen of narrow posts, each overlapping the next by 2 mm as the shooter sees them, stands halfway between
    two troopers: no post hides a whole template, nor (for almost every tile) any of the 4 x 2 pieces a template was
    once cut into, but together they hide every sampled lattice point (occluder fusion, `kernels._fused_cover`), so
    every tile of eyes is proved hidden, and Embree finds no eye seeing a block. Through a slit in the screen, eyes
    see blocks, and not every tile is proved hidden."""
    world = build_world([trooper("a", 300, 100, silhouette=1), trooper("b", 300, 500, silhouette=1)],
                        _staggered_posts(slit))
    eyes, hidden = _eyes_of_hidden_tiles(world, 0, 1)
    assert hidden.all() != slit
    assert _no_block_seen(world, 0, 1, eyes[::4]) != slit


def _wall(name: str, start: float, end: float, y: float) -> dict:
    return {"id": name, "wall": {"from": [start, y], "to": [end, y], "thickness": 10, "height": 60}}


@pytest.mark.parametrize(("terrain", "decided"), [
    ([], "witness"),
    ([_wall("wall", 100, 500, 300)], "one_blocker"),
    ([_wall("near", 100, 310, 250), _wall("far", 290, 500, 350)], "blocker_per_half"),
    (_staggered_posts(False), "search"),
])
def test_check_says_what_settled_sight(terrain, decided):
    """`check --json`'s `sight_decided_by`, on scenes whose answer is known by hand: an open table (a witness); one
    wall across the line (one blocker); a wall ending just past the line between the troopers with another beyond it
    starting just before it (one for each half of each volume, as the rule's convexity argument goes: every segment
    joins a half of each); the staggered posts, which only tiles of eyes proved hidden by posts together settle."""
    world = build_world([trooper("a", 300, 100, silhouette=1), trooper("b", 300, 500, silhouette=1)], terrain)
    verdict = check(world, "a", "b").to_dict()
    assert (verdict["sight"], verdict["sight_decided_by"]) == (decided == "witness", decided)


@pytest.mark.slow
def test_eyes_of_hidden_tiles_see_no_block():
    """No eye of a tile `hidden_eye_tiles` proves hidden sees a whole block of the template it looks at: each block
    holds a lattice point whose segment from the eye is obstructed (Embree); over the run, tiles of hundreds of eyes
    are proved hidden."""
    checked = []

    @settings(max_examples=8, **SETTINGS)
    @given(layouts(max_troopers=3, big=False))
    def holds(layout):
        world = scene(layout)
        for s, t in itertools.permutations(range(len(world.troopers)), 2):
            eyes, hidden = _eyes_of_hidden_tiles(world, s, t)
            eyes = eyes[hidden][::5]
            if len(eyes):
                assert _no_block_seen(world, s, t, eyes)
                checked.append(len(eyes))

    holds()
    assert len(checked) >= 5 and sum(checked) >= 200, f"eyes of hidden tiles checked, pair by pair: {checked}"


def test_the_templates_hull_holds_every_template_its_eyes_look_at():
    """Eyes around a target (up to a quarter turn apart, some far, some at base contact): the corners of each
    eye's template lie in the hull `templates_hull` gives their tile; eyes around it by more get none."""
    world = build_world([trooper("a", 300, 100, silhouette=5), trooper("b", 300, 300)])
    v, rng = world.troopers, np.random.default_rng(2)
    lattice = Lattice(2 * float(v.radius[1]), float(v.height[1]))
    centre, low, high = v.centre[1], float(v.z[1]) + END_TRIM, float(v.top[1])
    hull = np.empty((12, 3))
    for spread, distance in ((0.02, 200.0), (0.5, 40.0), (1.5, 13.0), (1.7, 13.0)):
        for _ in range(20):
            angle = rng.uniform(0, spread, 9) + rng.uniform(0, 2 * np.pi)
            eyes = np.column_stack([centre + distance * np.column_stack([np.cos(angle), np.sin(angle)]),
                                    rng.uniform(0, 60, 9)])
            made = templates_hull(eyes, centre, low, high, float(v.radius[1]), hull)
            assert made == (np.ptp(angle) <= np.pi / 2)
            if made:
                axis = template_axis(eyes, np.broadcast_to(centre, (9, 2)), np.zeros((9, 2)))
                corners = template_points(lattice, axis, np.broadcast_to(centre, (9, 2)), np.full(9, v.z[1]),
                                          np.array([0, lattice.cells[0]]), np.array([0, lattice.cells[1]]))
                middle = hull.mean(axis=0)
                inward = middle + (corners.reshape(-1, 3) - middle) * (1 - 1e-9)  # corners on the hull's faces
                assert (Delaunay(hull).find_simplex(inward) >= 0).all()


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


SKIN = 1e-3
"""How far inside its volume (mm) a point on the volume's surface is drawn: Embree works in float32 (about 1e-4 mm at
these coordinates), and cannot tell a segment that runs along a blocker's face from one just inside it."""


def _cylinder_points(v, i: int, count: int, rng) -> np.ndarray:
    """`count` random points of trooper i's volume (from `END_TRIM` up): half anywhere in it, half on its side (a
    `SKIN` inside), a quarter on the edges of its top and bottom faces, where the segments that pass closest to a
    blocker start."""
    angle, rim = rng.uniform(0, 2 * np.pi, count), rng.random(count) < 0.5
    radius = np.where(rim, v.radius[i] - SKIN, v.radius[i] * np.sqrt(rng.uniform(0, 1, count)))
    level = rng.uniform(0, 1, count)
    level = np.where(rim & (rng.random(count) < 0.5), np.round(level), level)
    low, high = v.z[i] + END_TRIM + SKIN, v.top[i] - SKIN
    return np.column_stack([v.centre[i] + radius[:, None] * np.column_stack([np.cos(angle), np.sin(angle)]),
                            low + level * (high - low)])


def _rim_points(v, i: int) -> np.ndarray:
    """Points on trooper i's volume (a `SKIN` inside): its side every 15 degrees, at the bottom, middle and top."""
    angle = np.radians(np.arange(0, 360, 15))
    ring = v.centre[i] + (v.radius[i] - SKIN) * np.column_stack([np.cos(angle), np.sin(angle)])
    levels = (v.z[i] + END_TRIM + SKIN, (v.z[i] + v.top[i]) / 2, v.top[i] - SKIN)
    return np.vstack([np.column_stack([ring, np.full(len(ring), z)]) for z in levels])


def _random_segments(world, a: int, b: int, count: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """`count` segments between random points of the volumes of troopers a and b (`_cylinder_points`), and every
    segment between their `_rim_points`, those that pass closest to a blocker's edges: (starts, ends)."""
    v = world.troopers
    rim_a, rim_b = _rim_points(v, a), _rim_points(v, b)
    return (np.vstack([_cylinder_points(v, a, count, rng), np.repeat(rim_a, len(rim_b), axis=0)]),
            np.vstack([_cylinder_points(v, b, count, rng), np.tile(rim_b, (len(rim_a), 1))]))


def _each_half_by_one_part(world, a: int, b: int, starts: np.ndarray, ends: np.ndarray) -> bool:
    """What a proof by halves claims, checked on segments from a's volume to b's: cut both along the vertical plane
    through their axes; for each half of a and each half of b, one convex part is crossed by every segment between
    them (plain-numpy reference, `_crosses`)."""
    v, parts = world.troopers, world.convex_parts
    across = v.centre[b] - v.centre[a]
    side = [np.sign(across[0] * (p[:, 1] - v.centre[k, 1]) - across[1] * (p[:, 0] - v.centre[k, 0]))
            for k, p in ((a, starts), (b, ends))]
    for first, second in itertools.product((-1, 1), repeat=2):
        rows = (side[0] * first >= 0) & (side[1] * second >= 0)
        if not any(_crosses(starts[rows], ends[rows], parts.normals[p, : parts.faces[p]],
                            parts.offsets[p, : parts.faces[p]]).all() for p in range(len(parts.piece))):
            return False
    return True


def _all_blocked(world, starts: np.ndarray, ends: np.ndarray) -> bool:
    """Whether Embree finds every segment from starts[k] to ends[k] blocked by the terrain."""
    return bool(blocked(world, Segments.between(starts, ends), np.zeros((len(starts), 0), dtype=int)).all())


def test_a_pair_proof_holds_for_every_segment_between_the_volumes():
    """When `parts_hiding_pairs` names a part for a pair, random segments between points of the two volumes all cross it
    (checked by a plain-numpy reference) and Embree finds every one of them blocked. The scenes hold a screen as wide
    and as high as a line needs, give or take a few mm, so that the proof often holds and often only just fails."""
    proved = []

    @settings(max_examples=30, **SETTINGS)
    @given(screened_layouts(kind="wall"))
    def holds(layout):
        world = scene(layout)
        v, parts = world.troopers, world.convex_parts
        pairs = np.array(list(itertools.combinations(range(len(v)), 2)))
        rng = np.random.default_rng(5)
        for (a, b), part in zip(pairs.tolist(), parts_hiding_pairs(world, pairs).tolist()):
            if part < 0:
                continue
            starts, ends = _random_segments(world, a, b, 400, rng)
            planes = int(parts.faces[part])
            assert _crosses(starts, ends, parts.normals[part, :planes], parts.offsets[part, :planes]).all()
            assert _all_blocked(world, starts, ends)
            proved.append((a, b))

    holds()
    assert len(proved) >= 8, f"pairs proved hidden by one part: {len(proved)}"


def test_a_proof_by_halves_holds_for_every_segment_between_the_volumes():
    """When `hidden_half_by_half` proves a pair hidden, random segments between points of the two volumes cross, half
    by half, one part each (`_each_half_by_one_part`), and Embree finds them all blocked. The scenes hold two
    staggered walls across a line, each covering one side and reaching past the middle by more or less than the
    proof needs, so that it often holds where no one part does, and often fails."""
    proved = []

    @settings(max_examples=30, **SETTINGS)
    @given(screened_layouts(kind="staggered"))
    def holds(layout):
        world = scene(layout)
        pairs = np.array(list(itertools.combinations(range(len(world.troopers)), 2)))
        rng = np.random.default_rng(7)
        halves, single = hidden_half_by_half(world, pairs), parts_hiding_pairs(world, pairs) >= 0
        for (a, b), one_part in zip(pairs[halves].tolist(), single[halves]):
            starts, ends = _random_segments(world, a, b, 400, rng)
            assert _each_half_by_one_part(world, a, b, starts, ends)
            assert _all_blocked(world, starts, ends)
            proved.append(not one_part)

    holds()
    assert len(proved) >= 8 and sum(proved) >= 3, f"pairs proved by halves (and by halves only): {len(proved)}, " \
                                                   f"{sum(proved)}"


def _same_proofs_from_the_middle_lines(world) -> int:
    """Assert that the pair proof and the halves give the same answers with the pairs' `line_candidates` (every
    other pair's, for the halves) as with the parts along their hulls' own middles; returns how many pairs they
    prove."""
    pairs = np.array(list(itertools.combinations(range(len(world.troopers)), 2)))
    line = line_candidates(world, pairs)
    single = parts_hiding_pairs(world, pairs, line)
    assert np.array_equal(single, parts_hiding_pairs(world, pairs))
    some = np.arange(0, len(pairs), 2)
    halves = hidden_half_by_half(world, pairs[some], candidates_of(line, some))
    assert np.array_equal(halves, hidden_half_by_half(world, pairs[some]))
    return int((single >= 0).sum() + halves.sum())


def test_proofs_from_the_middle_lines_are_the_proofs_from_the_hulls_middles():
    """A part that every segment between two hulls crosses also meets the segment between the volumes' middles, which
    runs between the prisms and between any two of their halves: so one lookup along that segment
    (`line_candidates`), shared by the pair proof, the halves and the learned parts, proves what each proof's own
    lookup proves; on screened scenes, where both often prove pairs hidden."""
    proved = []

    @settings(max_examples=20, **SETTINGS)
    @given(screened_layouts())
    def holds(layout):
        proved.append(_same_proofs_from_the_middle_lines(scene(layout)))

    holds()
    assert sum(proved) >= 6, f"pairs proved, scene by scene: {proved}"


def test_proofs_from_the_middle_lines_on_real_terrain():
    """The same on table-c's troopers, among its real pieces' thousands of inner boxes, where some pairs are proved."""
    world = World.from_scene(load_scene(REPO / "examples" / "tables" / "table-c.yaml"))
    assert _same_proofs_from_the_middle_lines(world) > 0


def _staggered_walls(middle: bool, near: float = 303, far: float = 297, gap=(292, 308), at: float = 300,
                     silhouette: int = 2):
    """Troopers 400 mm apart along y at x = 300, and 80 mm walls across the line: one 100 mm from a covering
    x <= `near`, one 100 mm from b covering x >= `far`, and (`middle`) one at y = `at` covering x in `gap`."""
    walls = [("near", 240, near, 200), ("far", far, 360, 400)] + ([("middle", *gap, at)] if middle else [])
    return build_world([trooper("a", 300, 100, silhouette=silhouette), trooper("b", 300, 500, silhouette=silhouette)],
                       [{"id": name, "wall": {"from": [x0, y], "to": [x1, y], "thickness": 10, "height": 80}}
                        for name, x0, x1, y in walls])


def test_a_proof_by_halves_among_staggered_walls_holds_for_every_segment():
    """Staggered walls about the line between two troopers (as in the test below, where the proof needs all three),
    the middle one anywhere from 40 to 360 mm along it (where the segments between opposite halves need it to reach
    unequally far to each side), each wall placed up to 10 mm past what the proof needs (the near wall reaching
    x = 300, the far one too, the middle one the prisms' reach from the line where it stands, on both sides), or
    (one time in four, each) as much short of it: when `hidden_half_by_half` proves the pair hidden, random segments
    between points of the two volumes cross, half by half, one part each (`_each_half_by_one_part`), and Embree
    finds them all blocked; over the run, it often does, some of them by less than a millimetre."""
    proved = []
    margin = st.tuples(st.floats(0.01, 10), st.sampled_from([1, 1, 1, -1])).map(lambda m: m[0] * m[1])

    @settings(max_examples=30, **SETTINGS)
    @given(margin, margin, margin, margin, st.floats(140, 460), st.sampled_from([1, 2, 5]))
    def holds(near, far, left, right, at, silhouette):
        reach = SILHOUETTES[silhouette][0] / 2 / np.cos(np.pi / PRISM_SIDES) * max(at - 100, 500 - at) / 400
        world = _staggered_walls(True, 300 + near, 300 - far, (300 - reach - left, 300 + reach + right), at,
                                 silhouette)
        if hidden_half_by_half(world, np.array([[0, 1]]))[0]:
            starts, ends = _random_segments(world, 0, 1, 2000, np.random.default_rng(9))
            assert _each_half_by_one_part(world, 0, 1, starts, ends)
            assert _all_blocked(world, starts, ends)
            proved.append(min(near, far, left, right))

    holds()
    assert len(proved) >= 8 and min(proved) < 1, f"least margins of the proofs: {sorted(proved)}"


def test_three_staggered_walls_hide_a_pair_half_by_half():
    """No wall alone crosses every segment between the volumes, so there is no one-part proof. Cut along the line
    between them (x = 300; the prisms reach 12.9 mm from it), segments between the halves at x <= 300 cross the near
    wall, those between the halves at x >= 300 the far wall, and those between opposite halves cross y = 300 between
    x = 293.1 and 306.9 mm, inside the middle wall: a proof by halves, which the brute force confirms. Without the
    middle wall there is none."""
    world = _staggered_walls(middle=True)
    assert parts_hiding_pairs(world, np.array([[0, 1]]))[0] == -1
    assert hidden_half_by_half(world, np.array([[0, 1]]))[0]
    assert not sight_brute_force(world, [(0, 1)])[0, 1].seen
    search, proofs = run_search(world, np.array([[0, 1]]))
    assert not search.findings.has_witness[0] and proofs == {}  # hidden, with no single blocker to name
    assert not hidden_half_by_half(_staggered_walls(middle=False), np.array([[0, 1]]))[0]


@pytest.mark.slow
def test_seen_pairs_equals_the_brute_force_reference():
    """The analyses' yes/no sight (with every proof) answers as the exhaustive reference, on screened scenes where
    pairs are often hidden, by a proof or only by the search, and often only just seen."""
    hidden, proved = [], []

    @settings(max_examples=8, **SETTINGS)
    @given(screened_layouts(max_troopers=3, big=False))
    def holds(layout):
        world = scene(layout)
        pairs = list(itertools.combinations(range(len(world.troopers)), 2))
        brute = sight_brute_force(world, pairs)
        assert seen_pairs(world, pairs).tolist() == [brute[p].seen for p in pairs]
        hidden.append(sum(not brute[p].seen for p in pairs))
        proved.append(int((parts_hiding_pairs(world, pairs) >= 0).sum() + hidden_half_by_half(world, pairs).sum()))

    holds()
    assert sum(hidden) >= 3 and sum(proved) >= 2, f"hidden pairs, and proofs, scene by scene: {hidden}, {proved}"


@pytest.mark.parametrize("table", ["table-a", "table-c"])
def test_analyses_find_the_same_sight_without_keeping_witnesses(table):
    """`seen_pairs` searches without building witnesses, trying blocks far apart in turn (`fine_pass.spread_order`; on
    table-c's real meshes that order matters most): the same pairs see, and no witness is kept."""
    world = World.from_scene(load_scene(REPO / "examples" / "tables" / f"{table}.yaml"))
    pairs = np.array(list(itertools.combinations(range(len(world.troopers)), 2)))
    full, _ = run_search(world, pairs)
    bare, _ = run_search(world, pairs, witnesses=False)
    assert full.findings.has_witness.any() and not full.findings.has_witness.all()
    assert bare.findings.has_witness.tolist() == full.findings.has_witness.tolist()
    assert sorted(full.findings.found) == np.flatnonzero(full.findings.has_witness).tolist()
    assert bare.findings.found == {}


def test_first_face_agrees_between_embree_and_numpy():
    rng = np.random.default_rng(3)
    meshes = [trimesh.creation.box((40, 30, 20)), trimesh.creation.icosphere(2, 15).apply_translation((60, 0, 0))]
    origins = rng.uniform(-80, 140, (2000, 3))
    ends = rng.uniform([-20, -15, -10], [75, 15, 10], (2000, 3))  # inside or past the box and the ball
    segments = Segments.between(origins, ends, trim=0.0)
    fast = EmbreeRays(meshes).first_face(segments.origins, segments.directions, segments.lengths)
    slow = NumpyRays(meshes).first_face(segments.origins, segments.directions, segments.lengths)
    agree = (fast[1] == slow[1]) & (fast[2] == slow[2])
    assert np.allclose(fast[0][agree], slow[0][agree], rtol=1e-4, atol=1e-3)
    assert (fast[1] >= 0).sum() > 1000
    assert agree.mean() > 0.995  # float32 against float64 where a segment meets an edge shared by two faces


def test_a_proof_needs_room_for_the_trimmed_ends():
    """A part closer to the eye than the segments' end trim proves nothing: trimmed segments could miss it."""
    world = build_world([trooper("a", 300, 100), trooper("b", 300, 500)],
                        [{"id": "wall", "wall": {"from": [100, 300], "to": [500, 300], "thickness": 10, "height": 80}}])
    for gap, proved in ((5.0, True), (END_TRIM / 2, False)):  # the wall's face is at y = 295
        rows = _Rows(np.array([0]), np.array([0]), np.array([1]), np.array([[300.0, 295.0 - gap, 20.0]]),
                     np.array([False]))
        assert _screened(world, rows)[2][0] == proved


def test_prisms_contain_their_volumes():
    """Every point of each volume the proofs stand for (the cylinder from `END_TRIM` above the underside to the top)
    lies in its prism, whatever the ring's heading: the rim (with the middles of the polygon's edges, where the
    prism comes closest to it) and the axis, at the bottom, middle and top levels."""
    world = build_world([trooper("a", 100, 100, silhouette=8), trooper("b", 300, 100, z=40),
                         trooper("c", 500, 100, silhouette=4, state=["prone"])])
    v, rng = world.troopers, np.random.default_rng(4)
    spokes = np.r_[np.linspace(0, 2 * np.pi, 720, endpoint=False), (np.arange(PRISM_SIDES) + 0.5) * 2 * np.pi /
                   PRISM_SIDES]
    for heading in (0.0, rng.uniform(-np.pi, np.pi, 3)):
        for i, vertices in enumerate(prisms(v, np.arange(3), heading)):
            turn = np.broadcast_to(heading, (3,))[i]
            rim = v.radius[i] * np.column_stack([np.cos(spokes + turn), np.sin(spokes + turn)])
            flat = np.vstack([v.centre[i] + rim, v.centre[i][None]])
            levels = (v.z[i] + END_TRIM, (v.z[i] + END_TRIM + v.top[i]) / 2, v.top[i])
            points = np.vstack([np.column_stack([flat, np.full(len(flat), z)]) for z in levels])
            faces = ConvexHull(vertices).equations  # inside: normal @ x + offset <= 0
            outside = (points @ faces[:, :3].T + faces[:, 3]).max()  # mm beyond the prism's faces
            assert outside <= 1e-9, (v.ids[i], heading, outside)


@pytest.mark.parametrize("width, height", [(25, 40), (25, 25), (40, 32), (55, 32), (40, 45), (40, 55), (55, 67),
                                           (70, 70), (3, 3), (7.3, 12.9)])
def test_every_block_holds_a_point_of_each_coarse_stride(width, height):
    """The coarse passes drop an eye when every point of the first stride is blocked: that is sound only if every
    block (by lower-left point) holds one. The strides nest, so the second reuses the first's casts."""
    lattice = Lattice(width, height)
    (cw, ch), (bw, bh) = lattice.cells, lattice.block
    samples = [lattice.strided(stride) for stride in COARSE_STRIDES]
    for cols, lines in samples:
        for c0 in range(cw - bw + 1):
            assert ((cols >= c0) & (cols <= c0 + bw)).any()
        for l0 in range(ch - bh + 1):
            assert ((lines >= l0) & (lines <= l0 + bh)).any()
    assert set(samples[0][0]) <= set(samples[1][0]) and set(samples[0][1]) <= set(samples[1][1])
    if (width, height) == (25, 40):
        assert (len(samples[0][0]), len(samples[0][1])) == (7, 11)


@given(st.integers(0, 2**32 - 1))
def test_block_points_are_the_points_of_candidate_blocks(seed):
    """The stride-5 pass casts only points in some candidate block: exactly the union of the blocks' points."""
    rng = np.random.default_rng(seed)
    candidates = rng.random((3, 12, 17)) < rng.uniform(0, 0.1)
    block = (int(rng.integers(1, 6)), int(rng.integers(1, 6)))
    expected = np.zeros((3, 12 + block[0], 17 + block[1]), dtype=bool)
    for r, c, line in zip(*np.nonzero(candidates)):
        expected[r, c : c + block[0] + 1, line : line + block[1] + 1] = True
    rows, cols, lines = np.array([2, 0]), np.arange(12 + block[0]), np.arange(17 + block[1])[::-3]
    found = block_points(candidates, block, rows, cols, lines)
    assert np.array_equal(found, expected[rows][:, cols][:, :, lines])


@given(st.integers(0, 2**32 - 1))
def test_clear_blocks_found_again_in_place_equal_them_found_afresh(seed):
    """The search keeps its candidate blocks up to date in place, after a block's points are cast (near it only) and
    after the stride-5 pass (within the box of those still clear): always what `clear_blocks` finds afresh, with
    a block of no blocked point counted clear by brute force."""
    rng = np.random.default_rng(seed)
    block = (int(rng.integers(1, 6)), int(rng.integers(1, 6)))
    known = rng.random((4, 20, 26)) < rng.uniform(0, 0.05)
    candidates = clear_blocks(known, block)
    brute = np.array([[[not known[r, c : c + block[0] + 1, line : line + block[1] + 1].any()
                        for line in range(26 - block[1])] for c in range(20 - block[0])] for r in range(4)])
    assert np.array_equal(candidates, brute)
    rows = np.array([0, 2, 3])
    c0, r0 = rng.integers(0, 20 - block[0], 3), rng.integers(0, 26 - block[1], 3)
    for r, c, line in zip(rows, c0, r0):
        known[r, c : c + block[0] + 1, line : line + block[1] + 1] |= rng.random((block[0] + 1, block[1] + 1)) < 0.3
    clear_blocks_near(known, candidates, rows, c0, r0, block)
    assert np.array_equal(candidates, clear_blocks(known, block))
    known[rows] |= rng.random((3, 20, 26)) < 0.02
    clear_blocks_again(known, candidates, rows, block)
    assert np.array_equal(candidates, clear_blocks(known, block))


@given(st.integers(0, 2**32 - 1))
def test_the_fine_pass_picks_the_first_open_rows_of_each_pair_at_their_central_blocks(seed):
    """Each round of the fine pass casts, for the first `most` rows of each open pair that have a candidate block,
    the candidate nearest the template's middle (ties: lowest column, then line), as brute force finds them, round
    after round while blocks stop being candidates; when no more than `most` rows are picked in all, they take
    their next candidates too, in the same order, up to `most` blocks a pair."""
    rng = np.random.default_rng(seed)
    rows, most = int(rng.integers(1, 13)), int(rng.integers(1, 4))
    candidates = rng.random((rows, 7, 10)) < rng.uniform(0, 0.2)
    pair, done = rng.integers(0, 4, rows), rng.random(4) < rng.uniform(0, 0.6)
    offset = np.add.outer((np.arange(7) - 3) ** 2, (np.arange(10) - 4.5) ** 2)
    cursor = np.zeros(rows, dtype=np.int64)
    for _ in range(3):
        picked, cols, lines = pick_blocks(candidates, cursor, pair, done, most, central_order(7, 10))
        ranked, seen = {}, {}
        for r in range(rows):
            if candidates[r].any() and not done[pair[r]] and seen.get(pair[r], 0) < most:
                seen[pair[r]] = seen.get(pair[r], 0) + 1
                ranked[r] = sorted(zip(*np.nonzero(candidates[r])), key=lambda cl: (offset[cl], cl))
        expected = [(r, *blocks[0]) for r, blocks in ranked.items()]
        if len(expected) <= most:
            for r, blocks in ranked.items():
                more = max(0, min(most - seen[pair[r]], len(blocks) - 1))
                seen[pair[r]] += more
                expected += [(r, *block) for block in blocks[1 : 1 + more]]
        assert [tuple(map(int, k)) for k in zip(picked, cols, lines)] == [tuple(map(int, k)) for k in expected]
        first = len(ranked)
        assert np.array_equal(np.column_stack(central_blocks(candidates[picked[:first]])),
                              np.column_stack([cols[:first], lines[:first]]))
        candidates[picked, cols, lines] = rng.random(len(picked)) < 0.3  # a picked block may stay a candidate
        candidates &= rng.random(candidates.shape) < 0.8


@pytest.mark.parametrize("shape", [(1, 1), (1, 6), (7, 10), (13, 22), (64, 107)])
def test_the_spread_order_visits_every_block_once_from_the_middle_and_spread_out(shape):
    """When no witness is kept, the fine pass tries each row's blocks in `spread_order`: all of them, once each, the
    middle one first, and its first quarter already spread over the whole template (64 x 107 are an S2 template's
    blocks): every block lies within a few blocks of one of them, where the centre-most first quarter is a disc."""
    spread, central = spread_order(*shape), central_order(*shape)
    assert sorted(spread.tolist()) == list(range(shape[0] * shape[1])) and spread[0] == central[0]
    points = np.column_stack(np.unravel_index(np.arange(shape[0] * shape[1]), shape))

    def farthest(order):  # from any block to the nearest of the order's first quarter
        return cKDTree(points[order[: max(1, len(order) // 4)]]).query(points)[0].max()

    if min(shape) > 1:
        assert farthest(spread) <= 2.5 < farthest(central)


def test_lattice_segments_are_the_segments_numpy_makes_and_each_is_made_once():
    """The compiled gather of the stride-3 and fine passes writes exactly `Segments.between` the eyes and
    `template_points` (bit for bit), for the wanted points not tested yet, and marks them tested."""
    rng = np.random.default_rng(7)
    lattice, n = Lattice(25.0, 40.0), 5
    eyes = rng.uniform(-200, 200, (n, 3))
    centres, z = rng.uniform(-50, 50, (n, 2)), rng.uniform(0, 30, n)
    axis = template_axis(eyes, centres, np.tile([1.0, 0.0], (n, 1)))
    cols, lines = rng.integers(0, 73, (n, 6)), rng.integers(0, 116, (n, 4))
    wanted = rng.random((n, 6, 4)) < 0.7
    tested = rng.random((n + 2, 73, 116)) < 0.3
    which = np.array([1, 0, 4, 6, 2])
    before = tested.copy()
    templates = Templates(centres, z, axis, lattice.width / 2, np.array(lattice.pitch), np.array(lattice.cells))
    out = np.empty((120, 3)), np.empty((120, 3)), np.empty(120)
    count, flat = fine_pass_kernels.lattice_segments(eyes, templates, which, cols, lines, wanted, tested, END_TRIM, out)
    points = template_points(lattice, axis, centres, z, cols, lines)
    todo = wanted & ~before[which[:, None, None], cols[:, :, None], lines[:, None, :]]
    k, i, j = np.nonzero(todo)
    first = {}
    for a, b, c in zip(k, i, j):  # a point listed twice in a row's cols or lines is cast once
        first.setdefault((which[a], cols[a, b], lines[a, c]), (a, b, c))
    k, i, j = np.array(list(first.values())).T
    expected = Segments.between(eyes[k], points[k, i, j])
    assert count == len(k)
    assert np.array_equal(flat, np.ravel_multi_index((which[k], cols[k, i], lines[k, j]), tested.shape))
    for made, want in zip(out, (expected.origins, expected.directions, expected.lengths)):
        assert np.array_equal(made[:count], want)
    marked = before.copy()
    marked[which[k], cols[k, i], lines[k, j]] = True
    assert np.array_equal(tested, marked)


def test_parts_along_a_segment_are_those_whose_boxes_it_meets():
    """The pair proofs' first filter (`ConvexParts.along`) keeps exactly the parts whose boxes each segment meets,
    in order of row and part, on table-c's ten thousand parts."""
    world = World.from_scene(load_scene(REPO / "examples" / "tables" / "table-c.yaml"))
    parts = world.convex_parts
    rng = np.random.default_rng(8)
    starts = rng.uniform([0, 0, 0], [1219, 1219, 60], (40, 3))
    ends = rng.uniform([0, 0, 0], [1219, 1219, 60], (40, 3))
    rows, found = parts.along(starts, ends)
    d = ends - starts
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = (parts.bounds[None, :, :3] - starts[:, None]) / d[:, None]
        t1 = (parts.bounds[None, :, 3:] - starts[:, None]) / d[:, None]
    enter = np.maximum(np.nan_to_num(np.minimum(t0, t1), nan=-np.inf).max(axis=2), 0)
    leave = np.minimum(np.nan_to_num(np.maximum(t0, t1), nan=np.inf).min(axis=2), 1)
    expected_rows, expected_parts = np.nonzero(enter <= leave)
    assert len(rows) > 100 and rows.tolist() == expected_rows.tolist() and found.tolist() == expected_parts.tolist()


def test_a_part_crossed_by_a_segment_is_never_ruled_out_by_its_shadow():
    """`kernels._shadows` only spares exact tests that would fail: for random boxes near random sight lines, every
    segment from the eye to a template point that crosses the box lies inside the box's shadow (and the shadow does
    rule out points, so the test is not vacuous)."""
    rng = np.random.default_rng(7)
    crossed = ruled_out = 0
    for _ in range(400):
        eye = rng.uniform([-50, -50, 0], [50, 50, 60])
        centre = rng.uniform(-300, 300, 2)
        away = centre - eye[:2]
        axis = np.array([-away[1], away[0]]) / np.linalg.norm(away)
        z = rng.uniform(0, 20)
        u, h = rng.uniform(-15, 15, 40), rng.uniform(0, 40, 40)
        points = np.column_stack([centre + u[:, None] * axis, z + h])
        middle = eye + rng.uniform(-0.2, 1.2) * (points[0] - eye) + rng.normal(0, 5, 3)
        box = np.concatenate([middle - rng.uniform(0.5, 30, 3), middle + rng.uniform(0.5, 30, 3)])
        normals = np.vstack([-np.eye(3), np.eye(3)])
        offsets = np.concatenate([-box[:3], box[3:]])
        shadow = np.empty((1, 5))
        kernels._shadows(eye[None], np.array([0]), box[None], centre, z, axis, shadow)
        for k in range(len(points)):
            crosses = kernels._crosses(eye, points[k], normals, offsets, 6)
            outside = kernels._outside(shadow, 0, u[k], u[k], h[k], h[k])
            assert not (crosses and outside)
            crossed += crosses
            ruled_out += outside
    assert crossed > 1000 and ruled_out > 1000


def test_tile_candidates_are_the_learned_parts_then_the_lines_others_each_once():
    """A tile no part hides tries every candidate, so `LearnedParts.for_tiles` gives each part once: the pair's
    learned parts in their order, then the parts on its line that are not among them, largest first, -1 last."""
    line = (np.zeros(18, dtype=int), np.arange(10, 28))  # 18 parts on pair 0's line; part k is k mm^3
    learned = LearnedParts(np.zeros((2, 2), dtype=int), line, np.arange(30.0))
    learned.learn(SimpleNamespace(pair=np.array([0, 0])), np.array([0, 1]), np.array([4, 4]))
    assert learned.parts[0].tolist() == [4, *range(27, 12, -1)]  # part 12 fell off the learned list
    tiles = learned.for_tiles(np.array([1, 0]))
    assert tiles.shape == (2, LEARNED_PARTS + LINE_PARTS)
    assert (tiles[0] == -1).all()
    assert tiles[1].tolist() == [4, *range(27, 9, -1)] + [-1] * (LEARNED_PARTS + LINE_PARTS - 19)
