"""Photos with a known answer for judging `lofkit photo`'s bases: random tables of miniatures (bases of every size
20-120 mm, heads and bodies round from above) among things that look like bases and are not (barrels, crates, flat
tokens on the table, tokens, tanks and troopers on roofs), photographed from many heights and sides, and a score
of what was proposed against where the bases really are (the generator's own record, not the detector's)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lofkit.testing.photo_synthetic import Miniature, PerspectivePhoto, Prop, perspective_photo

TABLE = (1219.2, 1219.2)
MARKERS = (70.0, 5.0)
"""Marker side and inset (mm): 70 mm stays readable on the far edge of a photo taken 25 degrees above the table."""
SIZE = (4000, 3000)
"""Photo pixels: a 12 MP phone photo."""
VIEW_ANGLE = 62.0
"""Vertical field of view (degrees): a phone's main camera held sideways."""
VIEWS = ((25, -90), (30, -60), (35, -125), (40, -90), (45, -20), (50, -150), (55, -75), (60, 180), (65, -105),
         (70, -40), (75, -90), (80, -130))
"""(elevation, azimuth) of each photo of the sweep, degrees: from 25 to 80 degrees above the table, from every side."""
SEEN = 0.6
"""A base counts as visible when the camera sees at least this share of its rim."""
PLACE_MM = 3.0
"""A proposal is right when within this of a base's true centre..."""
SIZE_MM = 1.0
"""...and its diameter within this of the base's."""
STANDARD = (25.0, 40.0, 55.0, 70.0)
OTHER = (20.0, 32.0, 45.0, 50.0, 60.0, 80.0, 100.0, 120.0)
CORNER_CLEAR = 260.0
"""Nothing stands this close (mm) to a corner, so no model hides a marker from a low camera; buildings keep twice
as far."""
BODY_COLOURS = ((60, 90, 160), (160, 50, 40), (90, 100, 60), (200, 200, 190), (110, 110, 120))
HEAD_COLOURS = ((210, 170, 140), (120, 80, 60), (35, 35, 38), (200, 200, 190))
"""Faces, and helmets (a black one too)."""
BARREL_COLOURS = ((40, 40, 44), (110, 70, 40), (60, 90, 60), (150, 40, 30))
TOKEN_COLOURS = ((30, 30, 32), (200, 40, 40), (40, 80, 200), (220, 200, 60))


@dataclass(frozen=True)
class SweepTable:
    """A table to photograph: `bases` stand on the table (the answer), `raised` troopers on roofs (not bases on the
    table), terrain `boxes` (x0, y0, x1, y1, height) and `props`."""

    bases: tuple[Miniature, ...]
    raised: tuple[Miniature, ...]
    boxes: tuple[tuple[float, float, float, float, float], ...]
    props: tuple[Prop, ...]


class _Floor:
    """Footprints taken on the table (x, y, radius), for placing things apart, `margin` from the edges."""

    def __init__(self, rng: np.random.Generator, margin: float = 110.0):
        self.rng, self.margin, self.taken = rng, margin, []

    def place(self, radius: float, gap: float = 8.0, tries: int = 200, clear: float = CORNER_CLEAR
              ) -> tuple[float, float] | None:
        """A free spot for a footprint of `radius`, `gap` from the others and `clear` from the table's corners."""
        corners = np.array([[0, 0], [TABLE[0], 0], [TABLE[0], TABLE[1]], [0, TABLE[1]]])
        for _ in range(tries):
            x, y = self.rng.uniform(self.margin, TABLE[0] - self.margin, 2)
            if np.hypot(*(corners - [x, y]).T).min() < clear + radius:
                continue
            if all(math.hypot(x - tx, y - ty) > radius + tr + gap for tx, ty, tr in self.taken):
                self.taken.append((x, y, radius))
                return float(x), float(y)
        return None

    def beside(self, radius: float, tries: int = 50) -> tuple[float, float] | None:
        """A free spot for a footprint of `radius` in base contact (0-1 mm apart) with the last one placed."""
        tx, ty, tr = self.taken[-1]
        for angle in self.rng.uniform(0, 2 * np.pi, tries):
            reach = tr + radius + float(self.rng.uniform(0, 1))
            x, y = tx + reach * math.cos(angle), ty + reach * math.sin(angle)
            inside = self.margin <= x <= TABLE[0] - self.margin and self.margin <= y <= TABLE[1] - self.margin
            if inside and all(math.hypot(x - ox, y - oy) >= radius + o_r for ox, oy, o_r in self.taken[:-1]):
                self.taken.append((x, y, radius))
                return x, y
        return None


def _miniature(rng: np.random.Generator, x: float, y: float, diameter: float, z: float = 0.0) -> Miniature:
    """A trooper: a body 0.2-0.6 of its base wide (a TAG's is broad), 20-60 mm tall, a head of 3-13 mm radius
    (a helmet, a cockpit: some as wide as a small base)."""
    body_radius = float(rng.uniform(0.1, 0.3)) * diameter
    head = float(rng.uniform(9, 13) if rng.random() < 0.25 else rng.uniform(3, 8))
    return Miniature(x, y, diameter, body=float(rng.uniform(20, 60)), head=min(head, 0.5 * diameter),
                     painted_base=bool(rng.random() < 0.4), z=z, body_radius=body_radius,
                     body_colour=BODY_COLOURS[int(rng.integers(len(BODY_COLOURS)))],
                     head_colour=HEAD_COLOURS[int(rng.integers(len(HEAD_COLOURS)))])


def sweep_table(seed: int, troopers: int = 16, contact: float = 0.0) -> SweepTable:
    """A random table: `troopers` miniatures on the table (most on 25-70 mm bases, one in four on another size
    20-120 mm; a share `contact` of them in base contact with the one before), three buildings with a trooper, a
    token or a tank on the roof (hiding what stands behind them); barrels (20-40 mm, 25-40 mm tall, some open),
    crates (some with a token on top) and a flat token on the table."""
    rng = np.random.default_rng(seed)
    floor = _Floor(rng)
    boxes, props, raised = [], [], []
    for k in range(3):
        side = float(rng.uniform(90, 140))
        spot = floor.place(side * 0.72, clear=2 * CORNER_CLEAR)
        if spot is None:
            continue
        x, y = spot
        height = float(rng.uniform(50, 140))
        boxes.append((x - side / 2, y - side / 2, x + side / 2, y + side / 2, height))
        if k == 0:
            raised.append(_miniature(rng, x, y, float(rng.choice([25.0, 40.0])), z=height))
        elif k == 1:
            props.append(Prop("cylinder", x, y, float(rng.choice([25.0, 40.0])), 2.0,
                              TOKEN_COLOURS[int(rng.integers(4))], z=height))
        else:
            props.append(Prop("cylinder", x, y, float(rng.uniform(40, 70)), float(rng.uniform(10, 30)),
                              (90, 90, 95), z=height))
    bases = []
    for _ in range(troopers):
        diameter = float(rng.choice(OTHER)) if rng.random() < 0.25 else float(rng.choice(STANDARD, p=[.4, .3, .2, .1]))
        touching = contact > 0 and bases and rng.random() < contact
        spot = floor.beside(diameter / 2) if touching else floor.place(diameter / 2)
        if spot is not None:
            bases.append(_miniature(rng, *spot, diameter))
    for _ in range(3):
        diameter, height = float(rng.uniform(20, 40)), float(rng.uniform(25, 40))
        spot = floor.place(diameter / 2)
        if spot is not None:
            colour = BARREL_COLOURS[int(rng.integers(4))]
            props.append(Prop("cylinder", *spot, diameter, height, colour))
            if rng.random() < 0.5:  # an open barrel: a dark mouth inside its rim
                props.append(Prop("cylinder", *spot, 0.85 * diameter, 0.3, (15, 15, 15), z=height))
    for _ in range(2):
        side, height = float(rng.uniform(30, 60)), float(rng.uniform(20, 40))
        spot = floor.place(side * 0.72)
        if spot is not None:
            props.append(Prop("box", *spot, side, height, (150, 110, 60)))
            if rng.random() < 0.5:
                props.append(Prop("cylinder", *spot, 0.8 * side, 1.5, TOKEN_COLOURS[int(rng.integers(4))],
                                  z=height))
    diameter = float(rng.choice([25.0, 40.0]))
    spot = floor.place(diameter / 2)
    if spot is not None:
        props.append(Prop("cylinder", *spot, diameter, 2.0, TOKEN_COLOURS[int(rng.integers(4))]))
    return SweepTable(tuple(bases), tuple(raised), tuple(boxes), tuple(props))


def view_distance(elevation: float, azimuth: float, size: tuple[int, int] = SIZE, view_angle: float = VIEW_ANGLE,
                  margin: float = 0.05) -> float:
    """The nearest camera distance (mm, from the table's centre, in steps of 50) at which the whole table fits in
    the photo with `margin` (a share of the photo) to spare."""
    width, depth = TABLE
    centre = np.array([width / 2, depth / 2, 0.0])
    e, a = math.radians(elevation), math.radians(azimuth)
    towards = np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])
    right = np.cross(-towards, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, -towards)
    corners = np.array([[0, 0, 0], [width, 0, 0], [width, depth, 0], [0, depth, 0]], dtype=float)
    f = size[1] / 2 / math.tan(math.radians(view_angle) / 2)
    for distance in np.arange(800.0, 4000.0, 50.0):
        rays = corners - (centre + distance * towards)
        ahead = rays @ -towards
        u, v = f * (rays @ right) / ahead, f * (rays @ up) / ahead
        if (np.abs(u) < (0.5 - margin) * size[0]).all() and (np.abs(v) < (0.5 - margin) * size[1]).all():
            return float(distance)
    return 4000.0


def sweep_photo(k: int, size: tuple[int, int] = SIZE, contact: float = 0.0) -> tuple[PerspectivePhoto, SweepTable]:
    """Photo k of the sweep (view VIEWS[k % len(VIEWS)], table and noise of seed 100 + k; `contact` as in
    `sweep_table`) and its table."""
    elevation, azimuth = VIEWS[k % len(VIEWS)]
    table = sweep_table(100 + k, contact=contact)
    shot = perspective_photo(TABLE, table.bases + table.raised, table.boxes, view_distance(elevation, azimuth, size),
                             elevation, azimuth, size=size, view_angle=VIEW_ANGLE, markers=MARKERS, seed=100 + k,
                             props=table.props)
    return shot, table


@dataclass(frozen=True)
class Score:
    """How proposals compare with the bases on a table: `visible` bases (rim seen), how many of those were proposed
    right (`found`), and the `false` proposals (not within PLACE_MM of a base on the table with its size), each
    with the nearest base's miss (mm) and size."""

    visible: int
    found: int
    false: tuple[tuple[tuple[float, float], float, float], ...]
    missed: tuple[Miniature, ...]
    worst_mm: float
    """The largest miss among the right proposals."""


def score(found, table: SweepTable, rim_seen) -> Score:
    """Compare the bases proposed among those `found` (`FoundBase`s of status "base") with `table.bases`; `rim_seen`
    is the photo's share of each base's rim seen (its first len(table.bases) entries are the bases on the table)."""
    proposed = [base for base in found if base.status == "base"]
    truth = np.array([[m.x, m.y, m.diameter] for m in table.bases]).reshape(-1, 3)
    right, false, worst = set(), [], 0.0
    for base in proposed:
        gaps = np.hypot(truth[:, 0] - base.position[0], truth[:, 1] - base.position[1])
        k = int(gaps.argmin()) if len(gaps) else -1
        if k >= 0 and gaps[k] <= PLACE_MM and abs(truth[k, 2] - base.diameter_mm) <= SIZE_MM:
            right.add(k)
            worst = max(worst, float(gaps[k]))
        else:
            false.append((tuple(base.position), float(gaps[k]) if k >= 0 else math.inf, base.diameter_mm))
    visible = {k for k in range(len(table.bases)) if rim_seen[k] >= SEEN}
    missed = tuple(table.bases[k] for k in sorted(visible - right))
    return Score(len(visible), len(visible & right), tuple(false), missed, worst)
