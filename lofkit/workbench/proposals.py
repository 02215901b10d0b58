"""The workbench page's proposals: troopers found in a scan or photo (`proposed: true`), which rule as placed until a
player confirms them.

- While any is unconfirmed a notice says how many (`data-notice="proposals"`), with a button that selects the next
  one (`data-action=next-proposal`).
- When the selected trooper is a proposal, a panel (`data-proposal="ID"`) offers one tap for each answer: Confirm
  (`data-action=confirm-proposal`: `proposed: false`), Delete (`data-action=delete-proposal`), and quick editors for
  its side, silhouette and facing (`data-field=proposal-side`, `proposal-silhouette`, `proposal-facing`). An edit
  changes that one field and leaves the trooper proposed: only Confirm says the whole trooper is right, so a player
  may correct the side, then the facing, then confirm.

Every answer is a change of the session like any other (`Workbench.act`: off the event loop, undone by Undo,
journaled; a trooper another player deleted meanwhile is refused with the reason).
"""

from __future__ import annotations

from nicegui import ui

FACINGS = {0: "→", 45: "↗", 90: "↑", 135: "↖", 180: "←", 225: "↙", 270: "↓", 315: "↘"}
"""The facing editor's choices (degrees anticlockwise from +x, as the top view shows them: +x right, +y up)."""
SILHOUETTES = list(range(1, 9))
DEFAULT_SIDES = ["blue", "red"]
"""The side editor's choices on a table with no side named yet (besides the importers' `unknown`)."""
UNKNOWN_SIDE = "unknown"
"""The side `lofkit photo` gives the bases it proposes."""


def notice_text(count: int) -> str:
    """What the page says while `count` troopers are proposed.

    >>> notice_text(1)
    '1 trooper proposed from the scan or photo: confirm or delete it; until then it rules as placed.'
    """
    if count == 1:
        return "1 trooper proposed from the scan or photo: confirm or delete it; until then it rules as placed."
    return (f"{count} troopers proposed from the scan or photo: confirm or delete them; until then they rule as "
            "placed.")


class Proposals:
    """The notice (built where this is made: under the toolbar) and the panel (`panel`, built where it is called) of
    one page; `bench` is its `Workbench`."""

    def __init__(self, bench):
        self.bench = bench
        self.shown: str | None = None
        """The proposal the panel is about (None: the panel is hidden)."""
        self._showing = False
        """True while `show` sets the editors (their changes then are not the player's)."""
        with ui.row().classes("w-full items-center gap-2 bg-amber-100 rounded px-2 py-1") as self.notice:
            self.notice_label = ui.label().classes("text-sm").props('data-notice="proposals"')
            ui.button("Next proposal", on_click=self.next_proposal).props("dense flat data-action=next-proposal")
        self.notice.set_visibility(False)

    def panel(self) -> None:
        with ui.card().classes("w-full bg-amber-50").props('data-proposal=""') as self.card:
            self.title = ui.label().classes("text-sm font-bold")
            with ui.row().classes("gap-1"):
                ui.button("Confirm", on_click=self.confirm).props("dense color=positive data-action=confirm-proposal")
                ui.button("Delete", on_click=self.delete).props("dense color=negative data-action=delete-proposal")
            self.side = self._editor("Side", "side", DEFAULT_SIDES)
            self.silhouette = self._editor("Silhouette", "silhouette", SILHOUETTES)
            self.facing = self._editor("Facing", "facing", FACINGS)
        self.card.set_visibility(False)

    def _editor(self, label: str, field: str, options) -> ui.toggle:
        """A row of one-tap choices for `field` (`data-field=proposal-FIELD`)."""
        with ui.row().classes("items-center gap-2 no-wrap"):
            ui.label(label).classes("text-xs w-16")
            return ui.toggle(options, on_change=lambda e: self.edit(field, e.value)) \
                .props(f"dense no-caps data-field=proposal-{field}")

    def show(self) -> None:
        """The notice and the panel as the session and this page's selection are now."""
        session, selected = self.bench.session, self.bench.marks.selected
        proposed = session.proposed()
        self.notice_label.text = notice_text(len(proposed))
        self.notice.set_visibility(bool(proposed))
        self.shown = selected[0] if selected and selected[0] in proposed else None
        self.card.set_visibility(self.shown is not None)
        if self.shown is None:
            return
        self.card.props(f'data-proposal="{self.shown}"')
        trooper = session.scene.troopers[session.scene.trooper_index(self.shown)]
        sides = [s for s in dict.fromkeys(session.world.troopers.sides) if s and s != UNKNOWN_SIDE] or DEFAULT_SIDES
        facing = self._facing(self.shown)
        self.title.text = (f"{self.shown} was found in the scan or photo and rules as placed: confirm it, correct "
                           "its side, silhouette and facing, or delete it.")
        self._showing = True
        try:
            self.side.set_options(list(dict.fromkeys([*sides, *([trooper.side] if trooper.side else [])])),
                                  value=trooper.side)
            self.silhouette.value = trooper.silhouette if trooper.silhouette in SILHOUETTES else None
            self.facing.value = facing
        finally:
            self._showing = False

    def _facing(self, trooper_id: str) -> int | None:
        """The trooper's facing as one of FACINGS, or None when it faces between them."""
        v = self.bench.session.world.troopers
        degrees = float(v.facing[v.index(trooper_id)]) % 360
        nearest = round(degrees / 45) * 45 % 360
        return nearest if abs((degrees - nearest + 180) % 360 - 180) < 0.5 else None

    # --- the player's answers --------------------------------------------------------------------------------------

    def confirm(self) -> None:
        if self.shown is not None:
            trooper = self.shown
            self.bench.act(lambda: self.bench.session.change_trooper(trooper, {"proposed": False}))

    def delete(self) -> None:
        if self.shown is not None:
            trooper = self.shown
            self.bench.act(lambda: self.bench.session.remove_trooper(trooper))

    def edit(self, field: str, value) -> None:
        """One of the quick editors was tapped: that field changes, and the trooper stays proposed."""
        if self._showing or self.shown is None or value is None:
            return
        trooper = self.shown
        self.bench.act(lambda: self.bench.session.change_trooper(trooper, {field: value}))

    def next_proposal(self) -> None:
        """Select the proposal after the one selected (the first one when none is)."""
        proposed = self.bench.session.proposed()
        if not proposed:
            return
        after = proposed.index(self.shown) + 1 if self.shown in proposed else 0
        self.bench.marks.selected.clear()
        self.bench.tap_trooper(proposed[after % len(proposed)])
