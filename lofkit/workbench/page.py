"""The workbench's page (NiceGUI): the table from above, to scale, with every trooper on it. Tap one trooper: rings
mark who has LoF to it and from it; tap another: the verdict between them, its evidence drawn (the line from the
eye to the seen square, or what blocks, outlined), and the picture from the first one's eye. Drag a trooper to move it (a
position the scene refuses snaps back, with the reason); turn the selected one; undo and redo.

The top view is an SVG in table millimetres (y flipped: the far edge on top): terrain footprints, and each
trooper's base circle (`data-trooper="ID"`) in its side's colour with a tick towards its facing.
"""

from __future__ import annotations

import html
import math
from urllib.parse import urlencode

import shapely
from nicegui import ui

from lofkit.rules.deployment import footprint
from lofkit.workbench.session import Refused, Session

SIDE_COLOURS = ("#2f6fd6", "#d63a2f", "#2fa34a", "#a23ad6", "#d6902f")
"""Trooper fills, one per side in order of appearance; neutral troopers are grey."""
DRAG_MM = 3.0
"""A press and release on a trooper farther apart than this is a move; closer, it is a tap."""
TURN_DEGREES = 45.0
"""How far the turn buttons turn the selected trooper."""


SEES_COLOURS = {"to": "#e08a00", "from": "#15a34a", "both": "#7c3aed"}
"""Rings around the troopers with LoF to the selected one ("to"), from it ("from") or both."""


def who_sees(matrix: dict, trooper_id: str) -> dict[str, str]:
    """Troopers with LoF to `trooper_id` ("to"), from it ("from") or both, from a matrix answer (`lofkit matrix`)."""
    to = {p["shooter"] for p in matrix["pairs"] if p["target"] == trooper_id and p["lof"]}
    seen = {p["target"] for p in matrix["pairs"] if p["shooter"] == trooper_id and p["lof"]}
    return {t: "both" if t in to and t in seen else "to" if t in to else "from" for t in to | seen}


def top_view(session: Session, selected: list[str], sees: dict[str, str] | None = None,
             ruling: dict | None = None) -> str:
    """The SVG content of the top view (table mm, y up the page); `sees` rings the troopers `who_sees` names, and
    `ruling` (a `check` answer) draws its evidence: the line from the eye to the seen square, or what blocks."""
    blockers = {b["id"] for b in ruling["blockers"]} if ruling else set()
    scene, world = session.scene, session.world
    depth = scene.table.depth
    parts = [f'<rect id="table" x="0" y="0" width="{scene.table.width}" height="{depth}" fill="#e9efe4" stroke="#777" '
             'pointer-events="all"/>']
    for index in world.blocking_pieces.tolist():
        shape = footprint(world.pieces[index])
        for polygon in getattr(shape, "geoms", [shape]):
            if isinstance(polygon, shapely.Polygon) and not polygon.is_empty:
                points = " ".join(f"{x:.1f},{depth - y:.1f}" for x, y in polygon.exterior.coords)
                piece_id = world.pieces[index].id
                marked = (f' data-blocker="{html.escape(piece_id, quote=True)}" stroke="#e08a00" stroke-width="4"'
                          if piece_id in blockers else ' stroke="#666"')
                parts.append(f'<polygon points="{points}" fill="#9a9a92"{marked} pointer-events="none"/>')
    sides = list(dict.fromkeys(side for side in world.troopers.sides if side is not None))
    v = world.troopers
    for i, trooper_id in enumerate(v.ids):
        x, y = v.centre[i]
        colour = "#888" if v.sides[i] is None or v.neutral[i] else SIDE_COLOURS[sides.index(v.sides[i]) % 5]
        stroke = ' stroke="#111" stroke-width="3"' if trooper_id in selected else ' stroke="#222" stroke-width="1"'
        name = html.escape(trooper_id, quote=True)
        if trooper_id in blockers:
            stroke = f' data-blocker="{name}" stroke="#e08a00" stroke-width="4"'
        if sees and trooper_id in sees:
            parts.append(f'<circle data-sees="{sees[trooper_id]}" data-of="{name}" cx="{x:.1f}" cy="{depth - y:.1f}" '
                         f'r="{v.radius[i] + 5:.1f}" fill="none" stroke="{SEES_COLOURS[sees[trooper_id]]}" '
                         'stroke-width="4" pointer-events="none"/>')
        turn = math.radians(v.facing[i])
        tip = (x + 1.4 * v.radius[i] * math.cos(turn), depth - (y + 1.4 * v.radius[i] * math.sin(turn)))
        parts.append(f'<line x1="{x:.1f}" y1="{depth - y:.1f}" x2="{tip[0]:.1f}" y2="{tip[1]:.1f}" stroke="#111" '
                     'stroke-width="2" pointer-events="none"/>')
        parts.append(f'<circle id="trooper-{name}" data-trooper="{name}" cx="{x:.1f}" cy="{depth - y:.1f}" '
                     f'r="{v.radius[i]:.1f}" fill="{colour}"{stroke} pointer-events="all" style="cursor: grab"/>')
    if ruling and ruling["witness"]:
        (ex, ey, _), (px, py, _) = ruling["witness"]["eye"], ruling["witness"]["patch_centre"]
        parts.append(f'<line data-witness="{html.escape(ruling["witness"]["eye_of"], quote=True)}" x1="{ex:.1f}" '
                     f'y1="{depth - ey:.1f}" x2="{px:.1f}" y2="{depth - py:.1f}" stroke="#15a34a" stroke-width="3" '
                     'pointer-events="none"/>')
        parts.append(f'<circle cx="{ex:.1f}" cy="{depth - ey:.1f}" r="3" fill="#15a34a" pointer-events="none"/>')
    return "".join(parts)


def build_page(session: Session) -> None:
    """Register the page at `/` (NiceGUI), over `session`."""

    @ui.page("/")
    def index() -> None:
        selected: list[str] = []
        pressed: dict = {}
        sees: dict[str, str] = {}
        shown: dict = {}  # the ruling between the two selected troopers
        ui.page_title("lofkit workbench")
        with ui.row().classes("w-full items-center"):
            ui.label("lofkit workbench").classes("text-lg font-bold")
            version = ui.label()
            ui.button("Undo", on_click=lambda: act(session.undo)).props("data-action=undo")
            ui.button("Redo", on_click=lambda: act(session.redo)).props("data-action=redo")
            ui.button("Turn left", on_click=lambda: turn(TURN_DEGREES)).props("data-action=turn-left")
            ui.button("Turn right", on_click=lambda: turn(-TURN_DEGREES)).props("data-action=turn-right")
        with ui.row().classes("w-full no-wrap max-sm:flex-wrap"):
            top = ui.interactive_image(size=(session.scene.table.width, session.scene.table.depth), events=[],
                                       sanitize=False).classes("w-full max-w-[820px]").props("data-view=top")
            with ui.column().classes("min-w-[300px] max-w-[420px]"):
                verdict = ui.label("Tap a trooper, then another.").props('data-verdict=""').classes("text-base")
                details = ui.label().classes("text-sm whitespace-pre-line")
                eye = ui.image().classes("w-full")

        def refresh() -> None:
            if len(selected) == 1:  # who sees whom: the troopers with LoF to it and from it
                sees.clear()
                sees.update(who_sees(session.matrix(), selected[0]))
            top.content = top_view(session, selected, sees if len(selected) == 1 else None,
                                   shown.get("ruling") if len(selected) == 2 else None)
            version.text = f"version {session.version}"

        def act(change) -> bool:
            try:
                change()
            except Refused as exc:
                reasons = "; ".join(f"{p.where}: {p.message}" for p in exc.problems)
                ui.notify(f"{exc}{': ' + reasons if reasons else ''}", type="warning")
                refresh()
                return False
            refresh()
            if len(selected) == 2:
                show_verdict()
            return True

        def turn(degrees: float) -> None:
            if selected:
                index = session.world.troopers.index(selected[0])
                act(lambda: session.change_trooper(selected[0], {
                    "facing": float((session.world.troopers.facing[index] + degrees) % 360)}))

        def show_verdict() -> None:
            shooter, target = selected
            try:
                answer = session.check(shooter, target)
            except Refused:  # one of them was removed meanwhile
                selected.clear()
                return
            shown["ruling"] = answer
            top.content = top_view(session, selected, ruling=answer)
            verdict.text = answer["reason"]
            verdict.props(f'data-verdict={"lof" if answer["lof"] else "no-lof"}')
            details.text = (f"distance {answer['distance_mm']:.1f} mm ({answer['distance_in']:.2f}\"), range band "
                            f"{answer['range_band']}\nin ZoC: {'yes' if answer['in_zoc'] else 'no'}; cover: "
                            f"{'yes' if answer.get('cover') else 'no'}; visibility MOD {answer.get('visibility_mod', 0)}")
            query = urlencode({"view": "eye", "shooter": shooter, "target": target, "v": session.version})
            eye.set_source(f"/api/picture.png?{query}")

        def tap(trooper_id: str) -> None:
            if len(selected) != 1 or selected[0] == trooper_id:
                selected[:] = [trooper_id]
                verdict.text = (f"{trooper_id}: now tap its target. Rings: LoF to it (orange), from it (green), "
                                "both (purple).")
                verdict.props('data-verdict=""')
            else:
                selected.append(trooper_id)
                show_verdict()
            refresh()

        def down(event) -> None:
            element = event.args.get("element_id", "")
            if element.startswith("trooper-"):
                pressed.update(trooper=element[len("trooper-"):], x=event.args["image_x"], y=event.args["image_y"])

        def up(event) -> None:
            trooper = pressed.pop("trooper", None)
            if trooper is None:
                return
            x, y = event.args["image_x"], event.args["image_y"]
            if math.hypot(x - pressed["x"], y - pressed["y"]) <= DRAG_MM:
                tap(trooper)
                return
            index = session.world.troopers.index(trooper)
            cx, cy = session.world.troopers.centre[index]
            position = [round(float(cx + x - pressed["x"]), 1), round(float(cy - (y - pressed["y"])), 1)]
            act(lambda: session.change_trooper(trooper, {"position": position}))

        top.on("svg:pointerdown", down)
        top.on("svg:pointerup", up)
        refresh()
