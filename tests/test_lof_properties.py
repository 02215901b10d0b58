"""Property tests (hypothesis) of the LoF engine on random small scenes (RULES.md "Line of Fire").

A scene is drawn in a 600 x 600 mm square. 0-5 terrain pieces (boxes, walls, 1-6 mm slits between two walls,
cylinders that are solid, Zero Visibility, or Low Visibility and so never block) stand in the band 130 < y < 470 mm
across the middle, most of them near the line between two troopers on opposite sides of it, so that partly hidden
pairs are common. 2-4 troopers (S1-S8, some prone, moving or engaged, half of them raised, any facing) stand in the
strips y < 120 mm and y > 480 mm, each in its own slot: no two volumes overlap and no trooper stands inside scenery.
The square is placed on a 4000 x 4000 mm table so that the whole scene can be moved and turned and stay on the table.

Every test is derandomized, so CI sees the same scenes on every run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lofkit.rules.lof import check, matrix
from lofkit.sight.search import sight, sight_brute_force
from lofkit.units import INCH
from tests.helpers import build_world

SIDE = 600.0
"""The scene square, mm."""
CENTRE = (SIDE / 2, SIDE / 2)
HOME = (2000.0, 2000.0)
"""Where the square's centre stands on the table before any move."""
TABLE = 4000.0
SLOTS = (75.0, 225.0, 375.0, 525.0)
"""Slot centres along x in each trooper strip; a base (radius <= 35 mm) moved by up to 35 mm stays in its slot."""


@dataclass(frozen=True)
class Piece:
    kind: str  # box | wall | cylinder
    id: str
    points: tuple[tuple[float, float], ...]  # box/cylinder: (centre,); wall: (from, to)
    size: tuple[float, ...]  # box: (w, d, h); wall: (thickness, h); cylinder: (diameter, h)
    rotation: float = 0.0
    visibility: str = "solid"


@dataclass(frozen=True)
class Soldier:
    id: str
    at: tuple[float, float]
    z: float
    facing: float
    silhouette: int
    side: str
    state: tuple[str, ...]


@dataclass(frozen=True)
class Layout:
    troopers: tuple[Soldier, ...]
    terrain: tuple[Piece, ...]


# --- strategies ----------------------------------------------------------------------------------------------------

height = st.floats(5, 120)
band_x = st.floats(60, 540)


@st.composite
def spot(draw, lines, low: float, high: float, slack: float = 30) -> tuple[float, float]:
    """A point in the band with low <= y <= high: anywhere, or (more often) within `slack` mm of the line between
    two troopers on opposite sides of the band, so that pieces often hide troopers partly."""
    y = draw(st.floats(low, high))
    if not lines or draw(st.integers(0, 2)) == 0:
        return draw(band_x), y
    (xa, ya), (xb, yb) = draw(st.sampled_from(lines))
    return xa + (xb - xa) * (y - ya) / (yb - ya) + draw(st.floats(-slack, slack)), y


@st.composite
def pieces(draw, index: int, lines) -> tuple[Piece, ...]:
    """A box (up to 150 x 150 mm), a wall (2-12 mm thick), a cylinder (up to 150 mm across; solid, Zero or Low
    Visibility), or a slit: two walls in line with a 1-6 mm gap between them, usually near a line between two
    troopers (where the 3 x 3 mm rule's precision matters). 5-120 mm tall, wholly inside the band 130 < y < 470 mm."""
    kind = draw(st.sampled_from(["box", "box", "wall", "wall", "cylinder", "slit"]))
    name = f"{kind}{index}"
    if kind == "slit":  # half-length <= 156 mm at most 30 degrees off the x axis
        (x, y), turn, gap = draw(spot(lines, 220, 380, slack=4)), draw(st.floats(-30, 30)), draw(st.floats(1, 6))
        ux, uy = math.cos(math.radians(turn)), math.sin(math.radians(turn))
        size = (draw(st.floats(2, 12)), draw(height))
        ends = (-gap / 2 - draw(st.floats(20, 150)), -gap / 2, gap / 2, gap / 2 + draw(st.floats(20, 150)))
        (a, b, c, d) = ((x + t * ux, y + t * uy) for t in ends)
        return Piece("wall", f"{name}a", (a, b), size), Piece("wall", f"{name}b", (c, d), size)
    if kind == "box":  # half-diagonal <= 107 mm
        size = (draw(st.floats(10, 150)), draw(st.floats(10, 150)), draw(height))
        return (Piece(kind, name, (draw(spot(lines, 240, 360)),), size, draw(st.floats(0, 360))),)
    if kind == "wall":  # half-length <= 150 mm at most 30 degrees off the x axis, or any two points of the band
        if draw(st.booleans()):
            (x, y), half, turn = draw(spot(lines, 220, 380)), draw(st.floats(5, 150)), draw(st.floats(-30, 30))
            dx, dy = half * math.cos(math.radians(turn)), half * math.sin(math.radians(turn))
            ends = ((x - dx, y - dy), (x + dx, y + dy))
        else:
            ends = ((draw(st.floats(0, 600)), draw(st.floats(140, 460))),
                    (draw(st.floats(0, 600)), draw(st.floats(140, 460))))
            if math.dist(*ends) < 5:
                ends = (ends[0], (ends[0][0] + 50, ends[0][1]))
        return (Piece(kind, name, ends, (draw(st.floats(2, 12)), draw(height))),)
    visibility = draw(st.sampled_from(["solid", "solid", "zero_visibility", "low_visibility"]))
    size = (draw(st.floats(10, 150)), draw(height))
    return (Piece(kind, name, (draw(spot(lines, 210, 390)),), size, draw(st.floats(0, 360)), visibility),)


@st.composite
def soldiers(draw, index: int, slot: tuple[int, int], big: bool) -> Soldier:
    """A trooper in its slot: S1-S8 (only S1/S2 standing when not `big`), a quarter of them prone, a sixth moving
    (360 degree arc, blocks nothing), some engaged (360 degree arc, but never in base contact here), half of them
    raised up to 80 mm (standing on nothing: elevation is data)."""
    side_of_band, column = slot
    y0 = 60.0 if side_of_band == 0 else 540.0  # base centres: y in [35, 85] or [515, 565]
    at = (SLOTS[column] + draw(st.floats(-35, 35)), y0 + draw(st.floats(-25, 25)))
    prone = draw(st.integers(0, 3)) == 0
    state = ["prone"] if prone else []
    if draw(st.integers(0, 5)) == 0:
        state.append("moving")
    elif draw(st.integers(0, 7)) == 0:
        state.append("engaged")
    silhouette = draw(st.integers(1, 8) if big or prone else st.integers(1, 2))
    raised = draw(st.one_of(st.just(0.0), st.floats(0, 80)))
    return Soldier(f"t{index}", at, raised, draw(st.floats(0, 360)), silhouette,
                   draw(st.sampled_from(["blue", "red"])), tuple(state))


@st.composite
def layouts(draw, max_troopers: int = 4, max_pieces: int = 5, big: bool = True) -> Layout:
    count = draw(st.integers(2, max_troopers))
    slots = draw(st.permutations([(s, c) for s in (0, 1) for c in range(4)]))[:count]
    troopers = tuple(draw(soldiers(i, slot, big)) for i, slot in enumerate(slots))
    near = [t.at for t in troopers if t.at[1] < SIDE / 2]
    far = [t.at for t in troopers if t.at[1] > SIDE / 2]
    lines = [(a, b) for a in near for b in far]
    terrain = tuple(p for i in range(draw(st.integers(0, max_pieces))) for p in draw(pieces(i, lines)))
    return Layout(troopers, terrain)


# --- scenes ----------------------------------------------------------------------------------------------------------


def _turn(point, quarter_turns: int, angle: float | None):
    """`point` (in the scene square) turned about the square's centre: by `angle` degrees, or exactly by quarter
    turns (no trigonometry, so the turned coordinates are exact up to the move's rounding)."""
    x, y = point[0] - CENTRE[0], point[1] - CENTRE[1]
    if angle is not None:
        c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        return c * x - s * y, s * x + c * y
    for _ in range(quarter_turns % 4):
        x, y = -y, x
    return x, y


def scene(layout: Layout, quarter_turns: int = 0, shift=(0.0, 0.0), angle: float | None = None, units: str = "mm"):
    """The layout on the table, turned about its centre (quarter turns, or `angle` degrees), moved by `shift`, and
    written in `units` ("mm" or "in": every length divided by 25.4)."""
    turn = angle if angle is not None else 90.0 * quarter_turns
    scale = INCH if units == "in" else 1.0

    def place(point):
        x, y = _turn(point, quarter_turns, angle)
        return [(HOME[0] + shift[0] + x) / scale, (HOME[1] + shift[1] + y) / scale]

    troopers = [
        {"id": t.id, "side": t.side, "silhouette": t.silhouette, "position": place(t.at), "z": t.z / scale,
         "facing": t.facing + turn, "state": list(t.state)}
        for t in layout.troopers
    ]
    terrain = []
    for p in layout.terrain:
        if p.kind == "wall":
            w = {"from": place(p.points[0]), "to": place(p.points[1]), "thickness": p.size[0] / scale,
                 "height": p.size[1] / scale}
            terrain.append({"id": p.id, "wall": w})
            continue
        shape = ({"box": {"size": [s / scale for s in p.size]}} if p.kind == "box"
                 else {"cylinder": {"diameter": p.size[0] / scale, "height": p.size[1] / scale}})
        terrain.append({"id": p.id, **shape, "position": place(p.points[0]), "rotation": p.rotation + turn,
                        "kind": p.visibility})
    table = {"width": TABLE / scale, "depth": TABLE / scale}
    return build_world(troopers, terrain, table=table, units=units)


def answers(world) -> dict:
    """(lof, sight, in_arc) for every ordered pair, by ids."""
    return {(v.shooter, v.target): (v.lof, v.sight, v.in_arc) for v in matrix(world).verdicts}


SETTINGS = {"deadline": None, "derandomize": True, "suppress_health_check": [HealthCheck.too_slow]}


# --- LoF 4 and LoF 1 --------------------------------------------------------------------------------------------------


@settings(max_examples=20, **SETTINGS)
@given(layouts())
def test_sight_is_mutual_and_lof_needs_sight_and_arc(layout):
    """RULES.md LoF 4 ("If you can see me, I can see you ... it holds both ways"): `check(A, B).sight ==
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
@given(layouts(), st.integers(1, 3), st.floats(-1400, 1400), st.floats(-1400, 1400))
def test_turning_the_scene_by_quarter_turns_and_moving_it_changes_no_verdict(layout, quarter_turns, dx, dy):
    """Invariance (RULES.md LoF 1-4 are stated in the troopers' own frames): turning the whole scene (troopers,
    facings, terrain with its `rotation`) about z by a multiple of 90 degrees and moving it anywhere on the table
    changes no (lof, sight, in_arc) verdict.

    Quarter turns take no trigonometry here (coordinates are swapped and negated), so the turned scene differs from
    the original only by the rounding of the move (and of cos/sin of the facings and terrain rotations, which the
    engine computes); the search samples in frames built from the line between the two troopers, so its samples turn
    with the scene and the verdicts must be equal, not merely close."""
    assert answers(scene(layout)) == answers(scene(layout, quarter_turns, (dx, dy)))


@settings(max_examples=25, **SETTINGS)
@given(layouts(), st.floats(0, 360), st.floats(-1400, 1400), st.floats(-1400, 1400))
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
    """Invariance under units (RULES.md Units: "Every length in a scene file may be a number (in the scene's
    `units` ...)"; 1 inch = 25.4 mm exactly): the same scene with `units: in` and every length divided by 25.4
    gives the same verdicts (silhouette sizes stay in mm: they are not written in the scene)."""
    assert answers(scene(layout)) == answers(scene(layout, units="in"))


# --- the fast search against the reference ---------------------------------------------------------------------------


@settings(max_examples=15, **SETTINGS)
@given(layouts(max_troopers=3, big=False))
def test_fast_sight_equals_the_brute_force_reference(layout):
    """RULES.md LoF 2 (3 x 3 mm rule) and LoF 4 (either direction): the coarse-to-fine search (with its proofs of
    "hidden" and its skipped blocks) answers exactly as the exhaustive reference (`sight_brute_force`: every eye,
    both ways, against every lattice block) on every pair.

    The reference costs about (eyes x lattice points) segments per hidden pair: 1-2 s for S1/S2, 5-15 s for S3-S6,
    over a minute for S8. So standing troopers here are S1 or S2, while prone ones (S0 on any base S1-S8) keep the
    other bases in play; terrain heights cover the standing heights, so partly hidden pairs are common."""
    world = scene(layout)
    n = len(world.troopers)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    fast, brute = sight(world, pairs), sight_brute_force(world, pairs)
    assert {k: s.seen for k, s in fast.items()} == {k: s.seen for k, s in brute.items()}


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
    """RULES.md LoF 2: a YES carries "one witness (E and the centre and corners of Q)": E lies in one trooper's
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
