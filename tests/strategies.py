"""Hypothesis strategies shared by the property tests, and the builders that place what they draw on a table.

`layouts()` draws a small LoF scene in a 600 x 600 mm square. 0-5 terrain pieces (boxes, walls, 1-6 mm slits between
two walls, cylinders that are solid, Zero Visibility, or Low Visibility and so never block) stand in the band
130 < y < 470 mm across the middle, most of them near the line between two troopers on opposite sides of it, so that
partly hidden pairs are common. 2-4 troopers (S1-S8, some prone, moving or engaged, half of them raised, any facing)
stand in the strips y < 120 mm and y > 480 mm, each in its own slot: no two volumes overlap and no trooper stands
inside scenery. `scene()` puts the square on a 4000 x 4000 mm table, turned and moved as asked.

Room on the table: every trooper stands within 265 mm of the square's centre along x and y (slot centres 75-525 mm
moved by up to 35 mm; y in 35-85 or 515-565 mm), so within 265 * sqrt(2) < 375 mm of it after any turn, and its base
(radius <= 35 mm) within 410 mm. The square's centre stands at the table's centre, 2000 mm from every edge, so it may
be moved by up to 2000 - 410 = 1590 mm along x and y: the +-1400 mm the tests draw keeps every base on the table.

`screened_layouts()` draws the same, with a screen across the line between a trooper on each side of the band: one
wall, two staggered ones, or a slit, about as high and as wide as that line needs, so that proofs of "hidden" (one
blocker, or one per half) often hold and often only just fail, and pairs are often only just seen or hidden.

Settings: tests/conftest.py loads the `ci` profile by default (derandomized: the same scenes on every run);
`SETTINGS` adds only what scene-drawing tests need on top of the profile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import HealthCheck
from hypothesis import strategies as st

from lofkit.scene.silhouettes import PRONE_HEIGHT, SILHOUETTES
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
MOVE = 1400.0
"""How far tests move the square along x and y, mm (at most 1590 keeps every base on the table: see above)."""
SETTINGS = {"suppress_health_check": [HealthCheck.too_slow]}
"""Extra settings for tests that draw whole scenes (building a World takes a while); deadline and derandomization
come from the profile (tests/conftest.py)."""


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

moves = st.floats(-MOVE, MOVE)
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


def _reach(t: Soldier) -> tuple[float, float]:
    """A drawn trooper's base radius and the height of its top, mm."""
    base, height = SILHOUETTES[t.silhouette]
    return base / 2, t.z + (PRONE_HEIGHT if "prone" in t.state else height)


@st.composite
def screens(draw, a: Soldier, b: Soldier, index: int, kind: str | None = None) -> tuple[Piece, ...]:
    """Walls 2-12 mm thick across the line from a (y < 300) to b (y > 300), 220-380 mm up the square, turned up to
    20 degrees off square to it, each from 6 mm lower to 30 mm higher than the line's top where it stands. `kind`
    (else one drawn): "wall", one wall reaching across the line's width there (the prisms' half width, `half`) on
    each side, from 3 mm short to 15 mm past: a one-part proof, or none; "staggered", two walls 5-40 mm apart
    along the line, each covering one side and reaching past the middle by 0.45-0.95 `half`: a proof half by
    half, by one of them, or none; "slit", two walls in line, 10-30 mm higher than the line's top, leaving a
    1-6 mm gap within 3 mm of it: hidden by the 3 x 3 mm rule, or only just seen, and no proof."""
    (ra, top_a), (rb, top_b) = _reach(a), _reach(b)
    y = draw(st.floats(220, 380))
    t = (y - a.at[1]) / (b.at[1] - a.at[1])
    along = ((b.at[0] - a.at[0]) / (b.at[1] - a.at[1]), 1.0)
    along = (along[0] / math.hypot(*along), along[1] / math.hypot(*along))
    turn = math.radians(draw(st.floats(-20, 20)))
    side = (-along[1] * math.cos(turn) - along[0] * math.sin(turn),
            along[0] * math.cos(turn) - along[1] * math.sin(turn))
    half = ((1 - t) * ra + t * rb) / math.cos(math.radians(15))  # the prisms' half width where the screen stands

    def wall(name: str, at: float, start: float, stop: float, higher=st.floats(-6, 30)) -> Piece:
        centre = (a.at[0] + (y + at - a.at[1]) * along[0] / along[1], y + at)
        u = (y + at - a.at[1]) / (b.at[1] - a.at[1])
        height = max(5.0, (1 - u) * top_a + u * top_b + draw(higher))
        ends = tuple((centre[0] + k * side[0], centre[1] + k * side[1]) for k in (start, stop))
        return Piece("wall", name, ends, (draw(st.floats(2, 12)), height))

    kind = kind or draw(st.sampled_from(["wall", "wall", "staggered", "slit"]))
    far = half + 40
    if kind == "wall":
        return (wall(f"screen{index}", 0.0, -half - draw(st.floats(-3, 15)), half + draw(st.floats(-3, 15))),)
    if kind == "staggered":
        gap = draw(st.floats(5, 40))
        return (wall(f"screen{index}a", 0.0, -far, half * draw(st.floats(0.45, 0.95))),
                wall(f"screen{index}b", gap, -half * draw(st.floats(0.45, 0.95)), far))
    middle, width = draw(st.floats(-3, 3)), draw(st.floats(1, 6))
    return (wall(f"screen{index}a", 0.0, -far, middle - width / 2, st.floats(10, 30)),
            wall(f"screen{index}b", 0.0, middle + width / 2, far, st.floats(10, 30)))


@st.composite
def screened_layouts(draw, max_troopers: int = 4, max_pieces: int = 2, big: bool = True,
                     kind: str | None = None) -> Layout:
    """`layouts()` with troopers t0 (y < 300) and t1 (y > 300) and `screens` (of `kind`) across the line between
    them (the pieces drawn besides may cover other lines)."""
    count = draw(st.integers(2, max_troopers))
    first = [(0, draw(st.integers(0, 3))), (1, draw(st.integers(0, 3)))]
    others = draw(st.permutations([(s, c) for s in (0, 1) for c in range(4) if (s, c) not in first]))
    troopers = tuple(draw(soldiers(i, slot, big)) for i, slot in enumerate(first + others[: count - 2]))
    near = [t.at for t in troopers if t.at[1] < SIDE / 2]
    far = [t.at for t in troopers if t.at[1] > SIDE / 2]
    lines = [(a, b) for a in near for b in far]
    terrain = tuple(p for i in range(draw(st.integers(0, max_pieces))) for p in draw(pieces(i, lines)))
    return Layout(troopers, terrain + draw(screens(troopers[0], troopers[1], 0, kind)))


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
