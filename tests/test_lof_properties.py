"""Property tests (hypothesis) of the LoF engine on random small scenes (RULES.md "Line of Fire").

A scene is drawn in a 600 x 600 mm square: 0-4 terrain pieces (boxes, walls, solid or Zero Visibility cylinders,
now and then a Low Visibility one that must not block) stand in the band 175 mm <= y <= 425 mm across the middle,
and 2-4 troopers (S1-S8, some prone, some raised, any facing) stand in the strips y <= 165 mm and y >= 435 mm on
either side of it, in separate slots so that no two volumes overlap and no trooper stands inside scenery. The square
is placed on a 4000 x 4000 mm table so that the whole scene can be moved and turned and stay on the table.

Every example is deterministic (`derandomize=True`), so CI sees the same scenes on every run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lofkit.lof import check, matrix
from lofkit.sight import sight, sight_brute_force
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
band_y = st.floats(250, 350)


@st.composite
def pieces(draw, index: int) -> Piece:
    kind = draw(st.sampled_from(["box", "box", "wall", "wall", "cylinder"]))
    name = f"{kind}{index}"
    if kind == "box":  # half-diagonal <= 71 mm: stays inside the band
        size = (draw(st.floats(10, 100)), draw(st.floats(10, 100)), draw(height))
        return Piece(kind, name, ((draw(band_x), draw(band_y)),), size, draw(st.floats(0, 360)))
    if kind == "wall":
        start = (draw(st.floats(0, 600)), draw(st.floats(200, 400)))
        end = (draw(st.floats(0, 600)), draw(st.floats(200, 400)))
        if math.dist(start, end) < 5:
            end = (start[0] + 50 if start[0] < 300 else start[0] - 50, start[1])
        return Piece(kind, name, (start, end), (draw(st.floats(2, 12)), draw(height)))
    visibility = draw(st.sampled_from(["solid", "solid", "zero_visibility", "low_visibility"]))
    size = (draw(st.floats(10, 100)), draw(height))
    return Piece(kind, name, ((draw(band_x), draw(band_y)),), size, draw(st.floats(0, 360)), visibility)


@st.composite
def soldiers(draw, count: int, index: int, slot: tuple[int, int]) -> Soldier:
    side_of_band, column = slot
    y0 = 90.0 if side_of_band == 0 else 510.0  # strip centres: y in [55, 125] or [475, 545]
    at = (SLOTS[column] + draw(st.floats(-35, 35)), y0 + draw(st.floats(-35, 35)))
    state = []
    if draw(st.integers(0, 3)) == 0:
        state.append("prone")
    if draw(st.integers(0, 5)) == 0:
        state.append("moving")
    raised = draw(st.one_of(st.just(0.0), st.floats(0, 80)))
    return Soldier(f"t{index}", at, raised, draw(st.floats(0, 360)), draw(st.integers(1, 8)),
                   draw(st.sampled_from(["blue", "red"])), tuple(state))


@st.composite
def layouts(draw, max_troopers: int = 4, max_pieces: int = 4) -> Layout:
    count = draw(st.integers(2, max_troopers))
    slots = draw(st.permutations([(s, c) for s in (0, 1) for c in range(4)]))[:count]
    troopers = tuple(draw(soldiers(count, i, slot)) for i, slot in enumerate(slots))
    terrain = tuple(draw(pieces(i)) for i in range(draw(st.integers(0, max_pieces))))
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


@settings(max_examples=15, **SETTINGS)
@given(layouts())
def test_sight_is_mutual_and_lof_needs_sight_and_arc(layout):
    """RULES.md LoF 4 ("if you can see me, I can see you"): `check(A, B).sight == check(B, A).sight`, and it equals
    the sight of the pair in the full matrix (computed with every other pair alongside). LoF 1-3: LoF implies sight
    and arc, and `can_target` implies LoF."""
    world = scene(layout)
    ids = [t.id for t in layout.troopers]
    together = answers(world)
    for a in ids:
        for b in ids:
            if a == b:
                continue
            forward, backward = check(world, a, b), check(world, b, a)
            assert forward.sight == backward.sight, (a, b)
            assert forward.sight == together[a, b][1], (a, b)
            assert (not forward.lof) or (forward.sight and forward.in_arc), (a, b)
            assert (not forward.can_target) or forward.lof, (a, b)
