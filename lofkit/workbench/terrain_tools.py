"""The workbench page's Terrain tab: place a catalogue piece or a box where the table is tapped, trace a footprint
corner by corner and give it a height (a `prism`), and turn or delete the piece tapped on the top view."""

from __future__ import annotations

from nicegui import ui

from lofkit.workbench.session import unused_id

PIECE_TURN = 15.0
"""How far "Turn piece" turns the selected piece (the catalogue's pieces turn in 15 degree steps)."""


class TerrainTools:
    """The Terrain tab of one page (`bench`: its `Workbench`, whose `act` carries out changes; the catalogue is
    its session's)."""

    def __init__(self, bench):
        self.bench = bench
        names = sorted(bench.session.catalog)
        with ui.row().classes("w-full gap-2 items-end"):
            self.piece = ui.select(names, value=names[0] if names else None, label="Catalogue piece") \
                .classes("w-48").props("data-field=piece")
            self.rotation = ui.number("Turn (deg)", value=0, step=PIECE_TURN).classes("w-24") \
                .props("data-field=rotation")
            ui.button("Place piece", on_click=lambda: bench.set_mode("place-piece")) \
                .props("dense data-action=place-piece")
        with ui.row().classes("w-full gap-2 items-end"):
            self.box = [ui.number(label, value=value, min=1).classes("w-20").props(f"data-field=box-{axis}")
                        for label, value, axis in (("Width mm", 100, "x"), ("Depth mm", 50, "y"), ("Height mm", 60, "z"))]
            ui.button("Place box", on_click=lambda: bench.set_mode("place-box")).props("dense data-action=place-box")
        with ui.row().classes("w-full gap-2 items-end"):
            self.height = ui.number("Footprint height mm", value=50, min=1).classes("w-36") \
                .props("data-field=trace-height")
            ui.button("Trace", on_click=lambda: bench.set_mode("trace")).props("dense data-action=trace")
            ui.button("Finish", on_click=self.finish_trace).props("dense data-action=finish-trace")
        with ui.row().classes("gap-1 items-center"):
            self.selected = ui.label("No piece selected.").props("data-selected-piece")
            ui.button("Turn piece", on_click=lambda: self.turn_piece(PIECE_TURN)).props("dense data-action=turn-piece")
            ui.button("Delete piece", on_click=self.delete_piece).props("dense color=negative data-action=delete-piece")

    def show(self, piece_id: str | None) -> None:
        self.selected.text = f"Selected piece: {piece_id}" if piece_id else "No piece selected."

    def _taken(self) -> set[str]:
        return {piece.id for piece in self.bench.session.scene.terrain}

    def place(self, mode: str, x: float, y: float) -> None:
        """Add the chosen catalogue piece ("place-piece") or a box ("place-box") centred on (x, y) mm."""
        rotation = float(self.rotation.value or 0)
        if mode == "place-piece":
            if self.piece.value is None:
                ui.notify("Choose a catalogue piece first.")
                return
            fields = {"catalog": self.piece.value, "position": [round(x, 1), round(y, 1)], "rotation": rotation}
        else:
            fields = {"id": unused_id("box", self._taken()), "box": {"size": [float(n.value or 0) for n in self.box]},
                      "position": [round(x, 1), round(y, 1), 0.0], "rotation": rotation}
        self.bench.act(lambda: self.bench.session.add_terrain(fields), then=lambda: self.bench.set_mode("select"))

    def finish_trace(self) -> None:
        """The footprint tapped so far, as a prism of the form's height."""
        corners = self.bench.marks.trace
        if len(corners) < 3:
            ui.notify("Tap at least three corners of the footprint first.")
            return
        fields = {"id": unused_id("traced", self._taken()), "prism": {
            "polygon": [[round(x, 1), round(y, 1)] for x, y in corners], "height": float(self.height.value or 0)}}
        self.bench.act(lambda: self.bench.session.add_terrain(fields), then=lambda: self.bench.set_mode("select"))

    def turn_piece(self, degrees: float) -> None:
        piece_id = self.bench.marks.piece
        if piece_id:
            piece = next(p for p in self.bench.session.scene.terrain if p.id == piece_id)
            if piece.prism is not None or piece.wall is not None:
                ui.notify("A traced footprint or a wall lies where it was drawn: draw it again to turn it.")
                return
            turn = piece.rotation.model_dump()
            turn["z"] = (turn["z"] + degrees) % 360
            self.bench.act(lambda: self.bench.session.change_terrain(piece_id, {"rotation": turn}))

    def delete_piece(self) -> None:
        piece_id = self.bench.marks.piece
        if piece_id:
            self.bench.act(lambda: self.bench.session.remove_terrain(piece_id))
