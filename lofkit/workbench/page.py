"""The workbench's page (NiceGUI), over one `Session`: the table from above (`topview`) and in 3D (`view3d`, in a
fold drawn only while open), a verdict panel, and forms to change the table.

- Tap a trooper: rings mark who has LoF to it and from it, and its front arc shows; tap another: the verdict
  between them, its evidence drawn (the line from the eye to the seen square, or what blocks, outlined) and the
  picture from the first one's eye; "Ruling page" writes the page `lofkit report` would and opens it.
- Changes, the verdict and the AROs are carried out off the page's event loop (`run.io_bound`), and the matrix
  behind the rings on its own thread (`Session.live_matrix`, awaited without holding one of those threads), so one
  page's long work never holds up another player's, nor its own next verdict; the page says it is working until
  answers come.
- Drag a trooper to move it (a position the scene refuses snaps back, with the reason); turn the selected one;
  undo and redo; save the scene (never over a file unless asked).
- Trooper tab: place a new trooper with a tap, change the selected one's side, silhouette, state, or delete it.
  Terrain tab: place a catalogue piece or a box with a tap, trace a footprint tap by tap and give its height; tap
  a piece to select it, turn or delete it. AROs tab: draw the selected trooper's move tap by tap and see who may
  react along it.
- Troopers found in a scan or photo and not confirmed: a notice, and one tap to confirm, correct or delete the
  selected one (`proposals`).
"""

from __future__ import annotations

import asyncio
import math
import tempfile
from pathlib import Path
from urllib.parse import urlencode

from fastapi.responses import FileResponse, Response
from nicegui import app, background_tasks, run, ui

from lofkit.workbench.proposals import Proposals
from lofkit.workbench.session import Refused, Session, unused_id
from lofkit.workbench.terrain_tools import TerrainTools
from lofkit.workbench.topview import Marks, reactions_by_trooper, top_view, who_sees
from lofkit.workbench.view3d import TERRAIN_URL, View3D, terrain_glb

DRAG_MM = 3.0
"""A press and release on a trooper farther apart than this is a move; closer, it is a tap."""
TURN_DEGREES = 45.0
"""How far the turn buttons turn the selected trooper."""
FOLLOW_SECONDS = 1.0
"""How often a page looks for changes made elsewhere (another page, the API)."""
STATES = ("moving", "engaged", "prone")
HINTS = {
    "select": "Tap a trooper, then another. Drag a trooper to move it. Tap a piece of terrain to select it.",
    "place-trooper": "Tap the table where the new trooper stands.",
    "place-piece": "Tap the table where the piece's centre goes.",
    "place-box": "Tap the table where the box's centre goes.",
    "trace": "Tap the footprint's corners in turn, then Finish.",
    "path": "Tap the points of the move in turn, then Show AROs.",
}


def serve_files(session: Session) -> None:
    """The files the page shows besides the API's: the table's picture and the terrain in 3D."""

    @app.get("/workbench/table-image")
    def table_image() -> FileResponse:
        image = session.scene.table.image
        if image is None:
            raise Refused(404, "this table has no picture")
        return FileResponse(session.scene.resolve(image))

    made = [(None, b"")]  # the terrain's glTF, with the pieces it was made of: remade when the terrain changes

    @app.get(TERRAIN_URL)
    def terrain() -> Response:
        world = session.world
        pieces, glb = made[0]
        if pieces is not world.pieces:
            glb = terrain_glb(world)
            made[0] = (world.pieces, glb)
        return Response(glb, media_type="model/gltf-binary")


def build_page(session: Session, folder: Path) -> None:
    """Register the page at `/` over `session` (scenes saved in `folder`)."""
    serve_files(session)

    @ui.page("/")
    def index() -> None:
        Workbench(session, folder)


class Workbench:
    """One browser's page: what it has selected and drawn, and the controls that change the session."""

    def __init__(self, session: Session, folder: Path):
        self.session, self.folder = session, folder
        self.marks = Marks()
        self.mode = "select"
        self.pressed: dict = {}
        self.rings: tuple[str, int, dict] | None = None
        """Who sees whom around one trooper at one version: (trooper, version, rings), once worked out."""
        self.rings_asked: tuple[str, int] | None = None
        ui.page_title("lofkit workbench")
        self._toolbar()
        self.proposals = Proposals(self)
        with ui.row().classes("w-full no-wrap max-md:flex-wrap items-start"):
            with ui.column().classes("w-full max-w-[820px]"):
                table = session.scene.table
                # a finger on the table drags troopers: the browser may pinch-zoom there, but not scroll the page
                self.top = ui.interactive_image(size=(table.width, table.depth), events=[], sanitize=False) \
                    .classes("w-full").style("touch-action: pinch-zoom").props("data-view=top")
                self.hint = ui.label(HINTS["select"]).classes("text-sm text-gray-600").props("data-hint")
            with ui.column().classes("w-full min-w-[300px] max-w-[440px]"):
                self.proposals.panel()
                self.verdict = ui.label("Tap a trooper, then another.").props('data-verdict=""').classes("text-base")
                self.working = ui.label().classes("text-xs text-gray-500").props("data-working")
                self.details = ui.label().classes("text-sm whitespace-pre-line")
                self.eye = ui.image().classes("w-full")
                self.ruling_link = ui.link("", "#", new_tab=True).props("data-ruling")
                self.ruling_link.set_visibility(False)
                self._forms()
        self.view3d = View3D(session, self.marks)
        self.top.on("svg:pointerdown", self._down)
        self.top.on("svg:pointerup", self._up)
        self.refresh()
        ui.timer(FOLLOW_SECONDS, self.follow)

    def follow(self) -> None:
        """Show what another page changed (the other player's phone): draw again when the version moved on."""
        if self.shown_version != self.session.version:
            self.refresh()
            if len(self.marks.selected) == 2:
                self.show_verdict()

    # --- layout ----------------------------------------------------------------------------------------------------

    def _toolbar(self) -> None:
        with ui.row().classes("w-full items-center gap-1"):
            ui.label("lofkit workbench").classes("text-lg font-bold")
            self.version = ui.label().props("data-version")
            for label, action, do in (("Undo", "undo", lambda: self.act(self.session.undo)),
                                      ("Redo", "redo", lambda: self.act(self.session.redo)),
                                      ("Turn left", "turn-left", lambda: self.turn(TURN_DEGREES)),
                                      ("Turn right", "turn-right", lambda: self.turn(-TURN_DEGREES)),
                                      ("Save", "save", lambda: self.save_dialog.open()),
                                      ("Ruling page", "ruling", self.ruling_page)):
                ui.button(label, on_click=do).props(f"dense data-action={action}")
        with ui.dialog() as self.save_dialog, ui.card():
            stem = Path(self.session.scene.source).stem if self.session.scene.source else "table"
            name = ui.input("File name", value=f"{stem}-workbench.yaml").props("data-field=save-name")
            force = ui.checkbox("Replace the file if it exists").props("data-field=save-force")
            ui.button("Save", on_click=lambda: self.save(name.value, force.value)).props("data-action=save-file")

    def _forms(self) -> None:
        with ui.tabs().classes("w-full") as tabs:
            troopers, terrain, aros = ui.tab("Trooper"), ui.tab("Terrain"), ui.tab("AROs")
        with ui.tab_panels(tabs, value=troopers).classes("w-full"):
            with ui.tab_panel(troopers):
                self._trooper_form()
            with ui.tab_panel(terrain):
                self.terrain = TerrainTools(self)
            with ui.tab_panel(aros):
                self._aro_form()

    def _trooper_form(self) -> None:
        sides = list(dict.fromkeys(s for s in self.session.world.troopers.sides if s)) or ["blue", "red"]
        with ui.row().classes("w-full gap-2"):
            self.f_side = ui.select(sides, value=sides[0], new_value_mode="add-unique", label="Side") \
                .classes("w-28").props("data-field=side")
            self.f_silhouette = ui.select(list(range(1, 9)), value=2, label="Silhouette").classes("w-24") \
                .props("data-field=silhouette")
            self.f_state = ui.select(list(STATES), multiple=True, value=[], label="State").classes("w-40") \
                .props("data-field=state")
            self.f_marker = ui.checkbox("Marker").props("data-field=marker")
        with ui.row().classes("gap-1"):
            ui.button("Place new", on_click=lambda: self.set_mode("place-trooper")).props("dense data-action=place-trooper")
            ui.button("Apply to selected", on_click=self.apply_trooper).props("dense data-action=apply-trooper")
            ui.button("Delete selected", on_click=self.delete_trooper).props("dense color=negative data-action=delete-trooper")

    def _aro_form(self) -> None:
        with ui.row().classes("gap-1"):
            ui.button("Draw move", on_click=self.draw_move).props("dense data-action=draw-move")
            ui.button("Show AROs", on_click=self.show_aros).props("dense data-action=show-aros")
            ui.button("Clear", on_click=self.clear_move).props("dense data-action=clear-move")
        self.aro_text = ui.label("Select the trooper that acts, then draw its move.") \
            .classes("text-sm whitespace-pre-line").props("data-aros")

    # --- drawing ---------------------------------------------------------------------------------------------------

    def refresh(self) -> None:
        """Draw the table again as the session has it now, with this page's selection."""
        world, marks = self.session.world, self.marks
        marks.selected = [t for t in marks.selected if t in world.troopers.ids]
        if marks.piece not in {p.id for p in world.pieces}:
            marks.piece = None
        marks.sees = self._rings_of(marks.selected[0]) if len(marks.selected) == 1 else None
        if len(marks.selected) != 2:
            marks.ruling = None
        self.top.content = top_view(world, marks)
        self.version.text = f"version {self.session.version}"
        self.shown_version = self.session.version
        self.terrain.show(marks.piece)
        self.proposals.show()
        self.view3d.draw()

    def _rings_of(self, trooper_id: str) -> dict | None:
        """The rings around `trooper_id` if this version's are known; else None, and they are asked for."""
        version = self.session.version
        if self.rings is not None and self.rings[:2] == (trooper_id, version):
            return self.rings[2]
        if self.rings_asked != (trooper_id, version):
            self.rings_asked = (trooper_id, version)
            self.working.text = "working out who sees whom…"
            background_tasks.create(self._work_out_rings(trooper_id, version), name="lofkit rings")
        return None

    async def _work_out_rings(self, trooper_id: str, version: int) -> None:
        """The live matrix, off the event loop; the rings drawn if the page still shows that trooper alone."""
        answer = await asyncio.wrap_future(self.session.live_matrix())
        self.rings, self.rings_asked = (trooper_id, version, who_sees(answer, trooper_id)), None
        self.working.text = ""
        if self.marks.selected == [trooper_id]:
            self.marks.sees = self.rings[2]
            self.top.content = top_view(self.session.world, self.marks)

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        if mode != "trace":
            self.marks.trace = []
        self.hint.text = HINTS[mode]
        self.refresh()

    def notify_refusal(self, refusal: Refused) -> None:
        reasons = "; ".join(f"{p.where}: {p.message}" for p in refusal.problems)
        ui.notify(f"{refusal}{': ' + reasons if reasons else ''}", type="warning", multi_line=True)

    def act(self, change, then=None) -> None:
        """Carry out `change` on the session off the event loop (a terrain change compiles the table again), then
        draw: a refusal is shown and changes nothing; `then` runs once a change is kept."""
        background_tasks.create(self._act(change, then), name="lofkit change")

    async def _act(self, change, then) -> None:
        try:
            await run.io_bound(change)
        except Refused as exc:
            with self.top:  # this page's own client, for the notification
                self.notify_refusal(exc)
            self.refresh()
            return
        self.refresh()
        if then is not None:
            then()
        if len(self.marks.selected) == 2:
            self.show_verdict()

    # --- troopers --------------------------------------------------------------------------------------------------

    def turn(self, degrees: float) -> None:
        if self.marks.selected:
            trooper, v = self.marks.selected[0], self.session.world.troopers
            facing = float((v.facing[v.index(trooper)] + degrees) % 360)
            self.act(lambda: self.session.change_trooper(trooper, {"facing": facing}))

    def show_verdict(self) -> None:
        """Ask for the verdict between the two selected troopers; it is drawn when it comes (`_draw_verdict`)."""
        self.working.text = "working out the verdict…"
        background_tasks.create(self._draw_verdict(*self.marks.selected), name="lofkit verdict")

    async def _draw_verdict(self, shooter: str, target: str) -> None:
        try:
            answer = await run.io_bound(self.session.check, shooter, target)
        except Refused:  # one of them was removed meanwhile
            self.marks.selected.clear()
            answer = None
        self.working.text = ""
        if answer is None or self.marks.selected != [shooter, target]:
            return  # the page has moved on
        self.marks.ruling = answer
        self.top.content = top_view(self.session.world, self.marks)
        self.view3d.draw()
        self.verdict.text = answer["reason"]
        self.verdict.props(f'data-verdict={"lof" if answer["lof"] else "no-lof"}')
        self.details.text = (f"distance {answer['distance_mm']:.1f} mm ({answer['distance_in']:.2f}\"), range band "
                             f"{answer['range_band']}\nin ZoC: {'yes' if answer['in_zoc'] else 'no'}; cover: "
                             f"{'yes' if answer.get('cover') else 'no'}; visibility MOD "
                             f"{answer.get('visibility_mod', 0)}")
        query = urlencode({"view": "eye", "shooter": shooter, "target": target, "v": self.session.version})
        self.eye.set_source(f"/api/picture.png?{query}")

    def tap_trooper(self, trooper_id: str) -> None:
        selected = self.marks.selected
        if self.mode == "path" and selected and trooper_id != selected[0]:
            return
        if len(selected) != 1 or selected[0] == trooper_id:
            selected[:] = [trooper_id]
            self.marks.path, self.marks.reactions = [], None
            self.verdict.text = (f"{trooper_id}: now tap its target. Rings: LoF to it (orange), from it (green), "
                                 "both (purple).")
            self.verdict.props('data-verdict=""')
            self.fill_trooper_form(trooper_id)
        else:
            selected.append(trooper_id)
            self.show_verdict()
        self.refresh()

    def fill_trooper_form(self, trooper_id: str) -> None:
        trooper = self.session.scene.troopers[self.session.scene.trooper_index(trooper_id)]
        if trooper.side:
            self.f_side.options = list(dict.fromkeys([*self.f_side.options, trooper.side]))
            self.f_side.value = trooper.side
        if trooper.silhouette:
            self.f_silhouette.value = trooper.silhouette
        self.f_state.value = list(trooper.state)
        self.f_marker.value = trooper.marker

    def trooper_fields(self) -> dict:
        fields = {"side": self.f_side.value, "state": list(self.f_state.value or []), "marker": self.f_marker.value}
        if not self.f_marker.value:
            fields["silhouette"] = self.f_silhouette.value
        return fields

    def apply_trooper(self) -> None:
        if not self.marks.selected:
            ui.notify("Select a trooper first.")
            return
        self.act(lambda: self.session.change_trooper(self.marks.selected[0], self.trooper_fields()))

    def delete_trooper(self) -> None:
        if self.marks.selected:
            trooper = self.marks.selected[0]
            self.act(lambda: self.session.remove_trooper(trooper))

    def place_trooper(self, x: float, y: float) -> None:
        fields = self.trooper_fields()
        fields.update(id=unused_id(fields["side"] or "trooper", self.session.world.troopers.ids),
                      position=[round(x, 1), round(y, 1)])
        self.act(lambda: self.session.add_trooper(fields), then=lambda: self.set_mode("select"))

    # --- AROs ------------------------------------------------------------------------------------------------------

    def draw_move(self) -> None:
        if not self.marks.selected:
            ui.notify("Select the trooper that moves first.")
            return
        self.marks.selected[1:] = []
        self.marks.path, self.marks.reactions = [], None
        self.set_mode("path")

    async def show_aros(self) -> None:
        if not self.marks.selected:
            ui.notify("Select the trooper that acts first.")
            return
        self.working.text = "working out who may react…"
        try:
            answer = await run.io_bound(self.session.aro, self.marks.selected[0], self.marks.path or None)
        except Refused as exc:
            self.notify_refusal(exc)
            return
        finally:
            self.working.text = ""
        self.marks.reactions = reactions_by_trooper(answer)
        lines = [f"{r['trooper']}: {'LoF' if r['by'] == 'lof' else 'ZoC'} at {100 * r['path_fraction']:.0f}% of the "
                 f"move; may declare {', '.join(r['allowed'])}" for r in answer["reactions"]]
        self.aro_text.text = "\n".join(lines) or f"No enemy may react to {answer['active']}."
        self.set_mode("select")

    def clear_move(self) -> None:
        self.marks.path, self.marks.reactions = [], None
        self.aro_text.text = "Select the trooper that acts, then draw its move."
        self.set_mode("select")

    # --- save and rulings ------------------------------------------------------------------------------------------

    def save(self, name: str, force: bool) -> None:
        try:
            path = self.session.save(self.folder, name, force)
        except Refused as exc:
            self.notify_refusal(exc)
            return
        self.save_dialog.close()
        ui.notify(f"saved {path}", type="positive")

    async def ruling_page(self) -> None:
        if len(self.marks.selected) != 2:
            ui.notify("Tap the shooter, then the target, first.")
            return
        rulings = Path(app.state.rulings.name)
        shooter, target = self.marks.selected
        ui.notify("Writing the ruling page...")
        try:
            index = await run.io_bound(self.session.report, shooter, target, Path(tempfile.mkdtemp(dir=rulings)))
        except Refused as exc:
            self.notify_refusal(exc)
            return
        # a link to follow, not a window opened from here: browsers block windows not opened by a tap
        self.ruling_link.props(f'href=/rulings/{index.relative_to(rulings).as_posix()}')
        self.ruling_link.text = f"Open the ruling page: {shooter} shoots {target}"
        self.ruling_link.set_visibility(True)

    # --- the top view's taps and drags -----------------------------------------------------------------------------

    def _down(self, event) -> None:
        element = event.args.get("element_id", "")
        self.pressed = {"element": element, "x": event.args["image_x"], "y": event.args["image_y"]}

    def _up(self, event) -> None:
        pressed, self.pressed = self.pressed, {}
        if not pressed:
            return
        x, y = event.args["image_x"], event.args["image_y"]
        moved = math.hypot(x - pressed["x"], y - pressed["y"]) > DRAG_MM
        element, depth = pressed["element"], self.session.scene.table.depth
        if element.startswith("trooper-") and self.mode == "select":
            trooper = element[len("trooper-"):]
            if not moved:
                self.tap_trooper(trooper)
                return
            v = self.session.world.troopers
            cx, cy = v.centre[v.index(trooper)]
            position = [round(float(cx + x - pressed["x"]), 1), round(float(cy - (y - pressed["y"])), 1)]
            self.act(lambda: self.session.change_trooper(trooper, {"position": position}))
        elif not moved:
            self.tap_table(float(x), float(depth - y), element)

    def tap_table(self, x: float, y: float, element: str) -> None:
        """A tap at (x, y) on the table (mm), on `element` (a trooper, a piece or the table itself)."""
        if self.mode == "place-trooper":
            self.place_trooper(x, y)
        elif self.mode in ("place-piece", "place-box"):
            self.terrain.place(self.mode, x, y)
        elif self.mode == "trace":
            self.marks.trace.append((x, y))
            self.refresh()
        elif self.mode == "path":
            self.marks.path.append((round(x, 1), round(y, 1)))
            self.refresh()
        elif element.startswith("trooper-"):
            self.tap_trooper(element[len("trooper-"):])
        else:
            self.marks.piece = element[len("piece-"):] if element.startswith("piece-") else None
            if self.marks.piece is None:
                self.marks.selected = []
                self.verdict.text, self.details.text = "Tap a trooper, then another.", ""
                self.verdict.props('data-verdict=""')
            self.refresh()
