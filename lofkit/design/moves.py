"""The steps of `lofkit generate`'s search: how a layout changes (`propose`) and how the first one is made.

A step changes one primary piece (with symmetry its image follows): `add` a random piece, `remove` one, `move` one
(a short hop, or anywhere now and then), `rotate` it by 15 degree steps, `replace` it by another catalogue piece,
`attach` it beside another piece (how walls, rows and enclosures form, which random moves rarely line up), or
`shield`: set it between a spot the targets want hidden and one of the viewers that still see it, square to the
line between them (a spot seen by few viewers is the nearest to being hidden: one piece in the right place hides
it). The odds are `MOVE_ODDS`; a step that breaks a rule is dropped before it is evaluated (`tempering`).

First layouts are scattered (`first_layout`) or walled (`walled_layout`: rows of good screens across the band
between the zones with corridors between them, the shape that hides bases from both zones, which the steps above
would take thousands of moves to line up); each chain starts from the best of both kinds.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from lofkit.design.brief import Brief
from lofkit.design.placing import (
    TURN_STEP,
    TURNS,
    Layout,
    allowed,
    centre_mm,
    placed,
    snap_centre,
    snap_turn,
    turned_footprint,
    zone_spots,
)
from lofkit.design.targets import each
from lofkit.errors import LofkitError
from lofkit.units import INCH

if TYPE_CHECKING:
    from lofkit.design.incremental import Evaluator, Sight

MOVES = ("add", "move", "attach", "shield", "rotate", "replace", "remove")
MOVE_ODDS = (0.1, 0.24, 0.14, 0.2, 0.12, 0.1, 0.1)
ATTACH_GAPS = (0.0, INCH, 2 * INCH)
"""An attached piece stands this far beyond the least gap the rules allow (touching, or `tall_gap`): flush, or
leaving room for a base to stand between."""
MOVE_SPREAD = 4 * INCH
"""Standard deviation of a move, per axis; one move in `JUMP_ODDS` goes anywhere on the table instead."""
JUMP_ODDS = 0.1
TURN_STEPS = (-2, -1, 1, 2, 6, 12)
"""A rotation turns a piece by one of these many 15 degree steps."""
PLACE_TRIES = 400
"""Random spots tried for each piece of the first layout."""
GROW = 0.7
"""Share of a first layout's pieces set beside a piece already placed."""
SHIELD_CHOICES = 12
"""A shield goes to one of this many spots, the least watched of those the targets want hidden and still seen."""
WALL_SCREEN = 0.9
"""Pieces that stop at least this share of level sight lines (`placing.screen_share`) build `walled_layout`s."""
CORRIDORS = (2 * INCH, 2.5 * INCH)
"""Room left between two rows of a walled layout: a base stands between them, screened from both zones (2 in holds
a row of the 1 in grid's spots wherever the rows lie)."""


def random_piece(rng: np.random.Generator, brief: Brief) -> tuple[int, int, int, int]:
    nx, ny = brief.rules.grid
    kind = brief.usable[int(rng.integers(len(brief.usable)))]
    return kind, int(rng.integers(0, nx + 1)), int(rng.integers(0, ny + 1)), int(rng.integers(TURNS))


def first_layout(brief: Brief, rng: np.random.Generator, spots: list | None = None, start: tuple = ()) -> Layout:
    """A random layout with the fewest pieces the range allows, every rule kept, pieces added one at a time (to the
    primaries `start`, if given): most (`GROW`) set beside one already there (`attach`), so that first layouts hold
    rows and walls, the rest anywhere."""
    rules, kinds = brief.rules, brief.kinds
    spots = zone_spots(rules) if spots is None else spots
    per = rules.per_unit
    relaxed = replace(rules, pieces=(0, rules.pieces[1]))
    primaries: list = list(start)
    for _ in range(max(0, -(-rules.pieces[0] // per) - len(primaries))):
        for _ in range(PLACE_TRIES):
            piece = random_piece(rng, brief)
            if primaries and rng.random() < GROW:
                piece = attach(brief, primaries + [piece], len(primaries), rng)
            layout = Layout(tuple(primaries) + (piece,))
            n = len(placed(layout, rules, kinds))
            if allowed(layout, relaxed, kinds, list(range(n - per, n)), spots):
                primaries.append(piece)
                break
        else:
            raise LofkitError(f"no room for {rules.pieces[0]} pieces on a {rules.table[0] / INCH:g} x "
                              f"{rules.table[1] / INCH:g} in table under the placement rules; give fewer --pieces, "
                              f"smaller --edge-gap or --tall-gap, or a larger --table")
    return Layout(tuple(primaries))


def walled_layout(brief: Brief, rng: np.random.Generator, spots: list | None = None) -> Layout | None:
    """A first layout of walls, for targets that want the zones screened from each other: rows of the catalogue's
    good screens (`Kind.screen` at least `WALL_SCREEN`; one kind a row, slender and better ones likelier) across the band between
    the two zones, end to end at the least gap the rules allow, each row shifted at random so that its gaps do not
    line up with the next row's, rows one of `CORRIDORS` apart (room for bases to stand between), built from the
    first zone up until the band or the piece range is full; then topped up as `first_layout`. With symmetry only
    the half below the middle is built, down from it (the images make the rest). None when the zones leave no
    band between them or the catalogue holds no good screen."""
    rules, kinds = brief.rules, brief.kinds
    walls = [k for k in brief.usable if kinds[k].screen >= WALL_SCREEN]
    band = _band(rules)
    if band is None or not walls:
        return None
    spots = zone_spots(rules) if spots is None else spots
    odds = np.array([kinds[k].screen * _slenderness(kinds[k]) for k in walls]) ** 2
    odds /= odds.sum()
    relaxed = replace(rules, pieces=(0, rules.pieces[1]))
    if rules.per_unit == 2:  # down from the middle; the images rise from it
        way, edge = -1, rules.table[1] / 2 - CORRIDORS[int(rng.integers(len(CORRIDORS)))] / 2
    else:  # up from the first zone
        way, edge = 1, band[0] + rng.uniform(0, INCH)
    limit = band[1] if way > 0 else band[0]
    primaries: list = []
    while len(primaries) * rules.per_unit < rules.pieces[1]:
        row, far = _wall_row(brief, rng, walls, odds, edge, way, limit, primaries, relaxed, spots)
        if far is None:
            break
        primaries += row
        edge = far + way * CORRIDORS[int(rng.integers(len(CORRIDORS)))]
    return first_layout(brief, rng, spots, tuple(primaries))


def _slenderness(kind) -> float:
    """A piece's length over its depth (its footprint's x over its y extent): slender screens leave room for more
    rows between the zones."""
    x0, y0, x1, y1 = turned_footprint(kind, 0).bounds
    return (x1 - x0) / max(y1 - y0, 1.0)


def _band(rules) -> tuple[float, float] | None:
    """The span of y between the two zones (the first below the second), or None."""
    if len(rules.zones) != 2:
        return None
    (_, (_, _, _, low)), (_, (_, high, _, _)) = rules.zones
    return (low, high) if high > low else None


def _wall_row(brief: Brief, rng: np.random.Generator, walls: list, odds: np.ndarray, edge: float, way: int,
              limit: float, primaries: list, relaxed, spots) -> tuple[list, float | None]:
    """One row of screens (`walled_layout`) whose near edge lies on y = `edge` and which grows away from the middle
    (`way` -1: down, +1: up) but not past y = `limit`, left to right from a random start; the row's pieces, and its
    far edge (None: empty)."""
    rules, kinds = brief.rules, brief.kinds
    sx = rules.step[0]
    x = rules.edge_gap + rng.uniform(0, INCH * 3)
    row, far, last = [], None, None
    kind = walls[int(rng.choice(len(walls), p=odds))]
    while x < rules.table[0] - rules.edge_gap:
        turn = TURNS // 2 * int(rng.integers(2))
        x0, y0, x1, y1 = turned_footprint(kinds[kind], turn).bounds
        tall = last is not None and kinds[kind].height >= rules.tall and kinds[last].height >= rules.tall
        x += (rules.tall_gap if tall else 0.0) + 2 * sx
        cy = edge - y0 if way > 0 else edge - y1
        piece = (kind, *snap_centre(x - x0, cy, rules), turn)
        reach = (cy + y1) if way > 0 else (cy + y0)
        layout = Layout(tuple(primaries + row + [piece]))
        n = len(placed(layout, rules, kinds))
        if way * (limit - reach) >= 0 and len(primaries + row) * rules.per_unit < rules.pieces[1] and \
                allowed(layout, relaxed, kinds, list(range(n - rules.per_unit, n)), spots):
            row.append(piece)
            last = kind
            far = reach if far is None else (max(far, reach) if way > 0 else min(far, reach))
        x += x1 - x0
    return row, far


def propose(brief: Brief, layout: Layout, rng: np.random.Generator, shielding=None) -> Layout:
    """One random change to the primary pieces (module docstring); `shielding(pieces, i, rng)` makes a shield
    step (`shield`), or gives None when there is nothing to shield (then the piece moves)."""
    rules, per = brief.rules, brief.rules.per_unit
    pieces = list(layout.primaries)
    n = len(pieces)
    move = MOVES[int(rng.choice(len(MOVES), p=MOVE_ODDS))]
    if move == "add" and (n + 1) * per > rules.pieces[1]:
        move = "move"
    if move == "remove" and (n - 1) * per < rules.pieces[0]:
        move = "move"
    if move == "add" or n == 0:
        return Layout(tuple(pieces) + (random_piece(rng, brief),))
    i = int(rng.integers(n))
    kind, ix, iy, turn = pieces[i]
    if move == "shield" and shielding is not None and (shielded := shielding(pieces, i, rng)) is not None:
        pieces[i] = shielded
    elif move == "remove":
        del pieces[i]
    elif move in ("move", "shield"):
        nx, ny = rules.grid
        if rng.random() < JUMP_ODDS:
            ix, iy = int(rng.integers(0, nx + 1)), int(rng.integers(0, ny + 1))
        else:
            sx, sy = rules.step
            ix = int(np.clip(ix + round(rng.normal(0, MOVE_SPREAD / sx)), 0, nx))
            iy = int(np.clip(iy + round(rng.normal(0, MOVE_SPREAD / sy)), 0, ny))
        pieces[i] = (kind, ix, iy, turn)
    elif move == "attach":
        pieces[i] = attach(brief, pieces, i, rng)
    elif move == "rotate":
        pieces[i] = (kind, ix, iy, (turn + TURN_STEPS[int(rng.integers(len(TURN_STEPS)))]) % TURNS)
    else:
        others = [k for k in brief.usable if k != kind] or [kind]
        pieces[i] = (others[int(rng.integers(len(others)))], ix, iy, turn)
    return Layout(tuple(pieces))


def attach(brief: Brief, pieces: list, i: int, rng: np.random.Generator) -> tuple[int, int, int, int]:
    """Primary piece i set beside another piece (any, images too): turned square to it, against one of its sides
    (seen in its own frame) at the least allowed gap plus one of `ATTACH_GAPS`, slid along that side at random. This
    is how walls, rows and enclosures form, which random moves alone rarely line up."""
    rules, kinds = brief.rules, brief.kinds
    table = placed(Layout(tuple(pieces)), rules, kinds)
    mine = {k for k in range(len(table)) if k // rules.per_unit == i}
    others = [k for k in range(len(table)) if k not in mine]
    if not others:
        return pieces[i]
    other = table[others[int(rng.integers(len(others)))]]
    kind = pieces[i][0]
    relative = 6 * int(rng.integers(4))
    qx0, qy0, qx1, qy1 = turned_footprint(kinds[other[0]], 0).bounds
    px0, py0, px1, py1 = turned_footprint(kinds[kind], relative).bounds
    tall = kinds[kind].height >= rules.tall and kinds[other[0]].height >= rules.tall
    gap = (rules.tall_gap if tall else 0.0) + ATTACH_GAPS[int(rng.integers(len(ATTACH_GAPS)))] + 2 * max(rules.step)
    side = int(rng.integers(4))
    if side < 2:  # beyond +x or -x
        x = qx1 + gap - px0 if side == 0 else qx0 - gap - px1
        y = rng.uniform(qy0 - py1, qy1 - py0)
    else:
        y = qy1 + gap - py0 if side == 2 else qy0 - gap - py1
        x = rng.uniform(qx0 - px1, qx1 - px0)
    angle = math.radians(other[3] * TURN_STEP)
    cx, cy = centre_mm(other, rules)
    tx, ty = cx + x * math.cos(angle) - y * math.sin(angle), cy + x * math.sin(angle) + y * math.cos(angle)
    return (kind, *snap_centre(tx, ty, rules), (other[3] + relative) % TURNS)


def shield(brief: Brief, evaluator: Evaluator, sight: Sight, card: dict, margins, pieces: list, i: int,
           rng: np.random.Generator) -> tuple[int, int, int, int] | None:
    """Primary piece i set as a shield (module docstring): a target that wants spots hidden and is not met, one of
    its `SHIELD_CHOICES` least-watched spots still seen, one viewer that sees it; the piece goes between them,
    its side to the spot, just beyond the spot's base, turned square to the line. None when no target wants it."""
    wanted = [t for t, m in zip(brief.targets, each(brief.targets, margins))
              if t.wants_hidden and t.shortfall(card, m) > 0]
    if not wanted:
        return None
    target = wanted[int(rng.integers(len(wanted)))]
    found = _watched(evaluator, sight, target.key, card, rng)
    if found is None:
        return None
    spot, radius, watchers = found
    towards = watchers[int(rng.integers(len(watchers)))] - spot
    length = float(np.hypot(*towards))
    if length == 0:
        return None
    d = towards / length
    turn = snap_turn(math.degrees(math.atan2(d[1], d[0])) + 90)
    kind = pieces[i][0]
    corners = np.asarray(turned_footprint(brief.kinds[kind], turn).convex_hull.exterior.coords)
    reach = float((corners @ -d).max())
    distance = radius + reach + 2 * max(brief.rules.step) + rng.uniform(0, INCH / 2)
    x, y = spot + d * distance
    return (kind, *snap_centre(x, y, brief.rules), turn)


def _watched(evaluator: Evaluator, sight: Sight, key: str, card: dict, rng: np.random.Generator):
    """(a spot, its base radius, the centres of the viewers that see it) for a target on `key`: one of the least
    watched spots still seen (of the worst zone for a per-zone measure), or None."""
    heat = [(k, a) for k, (a, b) in enumerate(evaluator.blocks) if b == 0]
    if key in ("safe_share", "exposed_share"):
        if key == "exposed_share":
            worst = max(card["exposed_share"], key=card["exposed_share"].get)
            heat = [heat[evaluator.sides.index(worst)]]
        counts = sum(sight.seen[k].sum(axis=0) for k, _ in heat)
        cell = _least_watched(counts, sight.fits[0], rng)
        if cell is None:
            return None
        watchers = np.vstack([evaluator.spots[a].centres[sight.seen[k][:, cell]] for k, a in heat])
        return evaluator.spots[0].centres[cell], evaluator.spots[0].radius, watchers
    a, b = evaluator.lane_sets
    lanes = sight.seen[evaluator.blocks.index((a, b))]
    worst = max(card["zone_visible_share"], key=card["zone_visible_share"].get)
    if evaluator.sides.index(worst) == 0:
        spot = _least_watched(lanes.sum(axis=1), sight.fits[a], rng)
        if spot is None:
            return None
        return evaluator.spots[a].centres[spot], evaluator.spots[a].radius, evaluator.spots[b].centres[lanes[spot]]
    spot = _least_watched(lanes.sum(axis=0), sight.fits[b], rng)
    if spot is None:
        return None
    return evaluator.spots[b].centres[spot], evaluator.spots[b].radius, evaluator.spots[a].centres[lanes[:, spot]]


def _least_watched(counts: np.ndarray, fits: np.ndarray, rng: np.random.Generator) -> int | None:
    """One of the `SHIELD_CHOICES` spots that fit and are seen by the fewest viewers (at least one)."""
    seen = np.flatnonzero(fits & (counts > 0))
    if len(seen) == 0:
        return None
    order = seen[np.argsort(counts[seen], kind="stable")][:SHIELD_CHOICES]
    return int(order[int(rng.integers(len(order)))])
