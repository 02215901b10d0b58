"""The workbench's top view: the table from above as SVG, in table millimetres with y flipped (the far edge, y =
depth, on top), so one SVG unit is one millimetre of table.

What tests and the page rely on: each trooper's base circle carries `data-trooper="ID"` (id `trooper-ID`), a
terrain footprint `data-piece="ID"` (id `piece-ID`); the selected trooper's front arc `data-arc`, the rings of
`who_sees` `data-sees` ("to", "from", "both") with `data-of`, a ruling's witness line `data-witness` (the eye's
owner) and what blocks it `data-blocker`, the reactions along a declared move `data-aro` (how: "lof" or "zoc"),
the path itself `data-path`, and a footprint being traced `data-trace`. A trooper found in a scan or photo and not
confirmed (`proposed: true`) has a dashed outline, `data-proposed="true"` on its base circle and a "?" on it
(`data-proposed-mark="ID"`).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field

import shapely

from lofkit.rules.measure import ZOC_RADIUS
from lofkit.scene.palette import KIND_COLOURS, NEUTRAL_COLOUR, side_colour

SEES_COLOURS = {"to": "#e08a00", "from": "#15a34a", "both": "#7c3aed"}
"""Rings around the troopers with LoF to the selected one ("to"), from it ("from") or both."""
MARK = "#e08a00"
"""What blocks a ruling, the selected terrain piece and the reactions to a declared move are outlined in this."""
PROPOSED_DASH = "7 4"
"""The dashes of a proposed trooper's outline (found in a scan or photo, not confirmed)."""
TABLE_IMAGE_URL = "/workbench/table-image"
"""Where the page finds the table's picture (`table.image`), drawn under everything."""


@dataclass
class Marks:
    """What the top view shows besides the table: the selection and the answers to show on it."""

    selected: list[str] = field(default_factory=list)
    piece: str | None = None
    sees: dict[str, str] | None = None
    ruling: dict | None = None
    path: list[tuple[float, float]] = field(default_factory=list)
    reactions: dict[str, str] | None = None
    trace: list[tuple[float, float]] = field(default_factory=list)


def who_sees(matrix: dict, trooper_id: str) -> dict[str, str]:
    """Troopers with LoF to `trooper_id` ("to"), from it ("from") or both, from a matrix answer (`lofkit matrix`)."""
    to = {p["shooter"] for p in matrix["pairs"] if p["target"] == trooper_id and p["lof"]}
    seen = {p["target"] for p in matrix["pairs"] if p["shooter"] == trooper_id and p["lof"]}
    return {t: "both" if t in to and t in seen else "to" if t in to else "from" for t in to | seen}


def reactions_by_trooper(answer: dict) -> dict[str, str]:
    """Each trooper that may react to a declared move (an `aro` answer) and how it may: "lof" or "zoc"."""
    return {reaction["trooper"]: reaction["by"] for reaction in answer["reactions"]}


def _attr(text: str) -> str:
    return html.escape(text, quote=True)


def _points(coords, depth: float) -> str:
    return " ".join(f"{x:.1f},{depth - y:.1f}" for x, y in coords)


def _outlines(world) -> list[tuple[object, list[shapely.Polygon]]]:
    """Each terrain piece with its footprint's polygons (each piece keeps its footprint: `Piece.outline`)."""
    outlines = []
    for piece in world.pieces:
        shape = piece.outline
        outlines.append((piece, [p for p in getattr(shape, "geoms", [shape])
                                 if isinstance(p, shapely.Polygon) and not p.is_empty]))
    return outlines


def _terrain(world, depth: float, marks: Marks) -> list[str]:
    blockers = {b["id"] for b in marks.ruling["blockers"]} if marks.ruling else set()
    parts = []
    for piece, polygons in _outlines(world):
        piece_id = piece.id
        marked = piece_id in blockers or piece_id == marks.piece
        outline = f' stroke="{MARK}" stroke-width="4"' if marked else ' stroke="#666"'
        if piece_id in blockers:
            outline += f' data-blocker="{_attr(piece_id)}"'
        for polygon in polygons:
            parts.append(f'<polygon id="piece-{_attr(piece_id)}" data-piece="{_attr(piece_id)}" '
                         f'points="{_points(polygon.exterior.coords, depth)}" fill="{KIND_COLOURS[piece.kind]}" '
                         f'fill-opacity="0.8"{outline} pointer-events="all"/>')
    return parts


def _sides(world) -> list[str]:
    """The sides in the order their colours go: the troopers' (neutral ones aside; those of proposals last, so a
    scan's `unknown` side takes no colour from a side placed), then the zones'."""
    v, proposed = world.troopers, [trooper.proposed for trooper in world.scene.troopers]
    troopers = [side for side, neutral, _ in sorted(zip(v.sides, v.neutral, proposed), key=lambda one: one[2])
                if side is not None and not neutral]
    return list(dict.fromkeys(troopers + [zone.side for zone in world.scene.deployment_zones]))


def _zones(world, depth: float) -> list[str]:
    """Deployment zones, faintly, in their side's colour."""
    sides = _sides(world)
    return [f'<polygon data-zone="{_attr(zone.side)}" points="{_points(zone.polygon, depth)}" '
            f'fill="{side_colour(sides.index(zone.side))}" fill-opacity="0.12" stroke="none" pointer-events="none"/>'
            for zone in world.scene.deployment_zones]


def _arc(x: float, y: float, facing: float, all_round: bool, reach: float) -> str:
    """The front arc (180 degrees about the facing; all round while moving) out to the Zone of Control's edge,
    `reach` mm from the base centre (base radius + 8")."""
    if all_round:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{reach:.1f}"'
    left, right = (math.radians(facing + turn) for turn in (90, -90))
    start = (x + reach * math.cos(left), y - reach * math.sin(left))
    end = (x + reach * math.cos(right), y - reach * math.sin(right))
    return (f'<path d="M {x:.1f} {y:.1f} L {start[0]:.1f} {start[1]:.1f} A {reach:.1f} {reach:.1f} 0 0 1 '
            f'{end[0]:.1f} {end[1]:.1f} Z"')


def _troopers(world, depth: float, marks: Marks) -> list[str]:
    blockers = {b["id"] for b in marks.ruling["blockers"]} if marks.ruling else set()
    v = world.troopers
    sides = _sides(world)
    proposed = {trooper.id for trooper in world.scene.troopers if trooper.proposed}
    parts = []
    for i, trooper_id in enumerate(v.ids):
        x, y, name = float(v.centre[i][0]), depth - float(v.centre[i][1]), _attr(trooper_id)
        if trooper_id in marks.selected[:1]:
            reach = float(v.radius[i]) + ZOC_RADIUS
            parts.append(f'{_arc(x, y, float(v.facing[i]), bool(v.moving[i]), reach)} data-arc="{name}" fill="#ffd54a" '
                         'fill-opacity="0.18" stroke="#c9a400" stroke-dasharray="6 4" pointer-events="none"/>')
    for i, trooper_id in enumerate(v.ids):
        x, y, r, name = float(v.centre[i][0]), depth - float(v.centre[i][1]), float(v.radius[i]), _attr(trooper_id)
        colour = NEUTRAL_COLOUR if v.sides[i] is None or v.neutral[i] else side_colour(sides.index(v.sides[i]))
        stroke = ' stroke="#111" stroke-width="3"' if trooper_id in marks.selected else \
            ' stroke="#111" stroke-width="2"' if trooper_id in proposed else ' stroke="#222" stroke-width="1"'
        if trooper_id in blockers:
            stroke = f' data-blocker="{name}" stroke="{MARK}" stroke-width="4"'
        for ring, kinds, colours in ((4, marks.sees, SEES_COLOURS), (9, marks.reactions, {"lof": MARK, "zoc": MARK})):
            if kinds and trooper_id in kinds:
                kind = "sees" if kinds is marks.sees else "aro"
                dash = ' stroke-dasharray="5 3"' if kinds[trooper_id] == "zoc" else ""
                parts.append(f'<circle data-{kind}="{kinds[trooper_id]}" data-of="{name}" cx="{x:.1f}" cy="{y:.1f}" '
                             f'r="{r + ring:.1f}" fill="none" stroke="{colours[kinds[trooper_id]]}" stroke-width="4"'
                             f'{dash} pointer-events="none"/>')
        turn = math.radians(float(v.facing[i]))
        tip = (x + 1.4 * r * math.cos(turn), y - 1.4 * r * math.sin(turn))
        parts.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{tip[0]:.1f}" y2="{tip[1]:.1f}" stroke="#111" '
                     'stroke-width="2" pointer-events="none"/>')
        if trooper_id in proposed:
            stroke += f' stroke-dasharray="{PROPOSED_DASH}" data-proposed="true"'
        parts.append(f'<circle id="trooper-{name}" data-trooper="{name}" cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" '
                     f'fill="{colour}"{stroke} pointer-events="all" style="cursor: grab"/>')
        if trooper_id in proposed:
            parts.append(f'<text data-proposed-mark="{name}" x="{x:.1f}" y="{y:.1f}" font-size="{1.3 * r:.1f}" '
                         'font-weight="bold" text-anchor="middle" dominant-baseline="central" fill="#fff" '
                         'stroke="#111" stroke-width="2" paint-order="stroke" pointer-events="none">?</text>')
    return parts


def _witness(ruling: dict, depth: float) -> list[str]:
    (ex, ey, _), (px, py, _) = ruling["witness"]["eye"], ruling["witness"]["patch_centre"]
    return [f'<line data-witness="{_attr(ruling["witness"]["eye_of"])}" x1="{ex:.1f}" y1="{depth - ey:.1f}" '
            f'x2="{px:.1f}" y2="{depth - py:.1f}" stroke="#15a34a" stroke-width="3" pointer-events="none"/>',
            f'<circle cx="{ex:.1f}" cy="{depth - ey:.1f}" r="3" fill="#15a34a" pointer-events="none"/>']


def _drawn_lines(world, depth: float, marks: Marks) -> list[str]:
    """The declared move (from the mover's base) and the footprint being traced."""
    parts = []
    if marks.path and marks.selected:
        start = tuple(world.troopers.centre[world.troopers.index(marks.selected[0])])
        parts.append(f'<polyline data-path="{len(marks.path)}" points="{_points([start, *marks.path], depth)}" '
                     'fill="none" stroke="#1f4fa8" stroke-width="3" stroke-dasharray="8 5" pointer-events="none"/>')
    if marks.trace:
        parts.append(f'<polyline data-trace="{len(marks.trace)}" points="{_points(marks.trace, depth)}" '
                     'fill="#9a9a92" fill-opacity="0.4" stroke="#444" stroke-width="2" pointer-events="none"/>')
        parts += [f'<circle cx="{x:.1f}" cy="{depth - y:.1f}" r="4" fill="#444" pointer-events="none"/>'
                  for x, y in marks.trace]
    return parts


def top_view(world, marks: Marks | None = None) -> str:
    """The SVG content of the top view of `world` (see the module docstring), with `marks` drawn on it."""
    marks = marks or Marks()
    table = world.scene.table
    parts = []
    if table.image is not None:
        parts.append(f'<image href="{TABLE_IMAGE_URL}" x="0" y="0" width="{table.width}" height="{table.depth}" '
                     'preserveAspectRatio="none" pointer-events="none"/>')
    parts.append(f'<rect id="table" x="0" y="0" width="{table.width}" height="{table.depth}" '
                 f'fill="{"none" if table.image is not None else "#e9efe4"}" stroke="#777" pointer-events="all"/>')
    parts += _zones(world, table.depth)
    parts += _terrain(world, table.depth, marks)
    parts += _troopers(world, table.depth, marks)
    if marks.ruling and marks.ruling["witness"]:
        parts += _witness(marks.ruling, table.depth)
    parts += _drawn_lines(world, table.depth, marks)
    return "".join(parts)
