"""The workbench's page in Debian's Chromium: `lofkit serve` on table-b, tap one trooper and see who sees whom,
tap another and read the verdict and its evidence (the witness line; for a hidden pair, what blocks),
drag a trooper and see the API's scene change, turn one, undo; the same on a 390 x 844 touch screen, taps and the
drag by touch. Then the forms: place, change and delete a trooper; place a box and a catalogue
piece, select, turn and delete one, trace a footprint; draw a move and read who may react; save; the ruling page;
the 3D view's terrain.

With LOFKIT_SCREENSHOTS=FOLDER set, the first test also writes the README's screenshots there (`make screenshots`).
"""

import io
import json
import os
import time
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np
import pytest
import shapely
import trimesh
import yaml

from lofkit import World
from lofkit.scene.loading import load_scene
from lofkit.workbench.page import HINTS
from lofkit.workbench.topview import reactions_by_trooper, who_sees
from lofkit.workbench.view3d import IDLE_FPS, ORBIT_FPS
from tests.browser import CHROMIUM_ARGS, screen_box, tap, trooper_centre
from tests.helpers import copy_of_scene
from tests.serving import TABLE_B, serving


@pytest.fixture
def workbench(tmp_path):
    """A `lofkit serve` of a copy of table-b in `tmp_path`, as a user starts it; its URL once it printed its one
    ready line."""
    with serving(copy_of_scene(TABLE_B, tmp_path)) as server:
        assert server.line == f"lofkit workbench: http://127.0.0.1:{server.port}/", server.line
        yield f"http://127.0.0.1:{server.port}"


def _api(base: str, path: str) -> dict:
    with urllib.request.urlopen(base + path) as answer:
        return json.load(answer)


def _screenshot(page, name: str, full_page: bool) -> None:
    """A screenshot of the page in LOFKIT_SCREENSHOTS when that names a folder (the README's: `make screenshots`)."""
    if os.environ.get("LOFKIT_SCREENSHOTS"):
        page.wait_for_timeout(1000)  # the 3D view draws at its own pace
        page.screenshot(path=str(Path(os.environ["LOFKIT_SCREENSHOTS"]) / name), full_page=full_page)


SETTLE = 15.0
"""Seconds the server's state and the page may take to follow a tap or a click (longer on a busy machine, as with
another test process beside this one); the tests ask again until then, not once after a fixed pause."""


def _settled(read, done):
    """`read()` once `done` holds of it, asked again every 0.1 s for up to `SETTLE` s; else its last value (which the
    caller's assertion then shows)."""
    deadline = time.monotonic() + SETTLE
    value = read()
    while not done(value) and time.monotonic() < deadline:
        time.sleep(0.1)
        value = read()
    return value


def _piece(base: str, piece_id: str) -> dict | None:
    return next((t for t in _api(base, "/api/scene")["scene"]["terrain"] if t["id"] == piece_id), None)


def _trooper(base: str, trooper_id: str) -> dict:
    return next(t for t in _api(base, "/api/scene")["scene"]["troopers"] if t["id"] == trooper_id)


FPS = "getElement(document.querySelector('[data-view=\"3d\"]')).fps"
"""How often the 3D view's three.js scene is drawn (its NiceGUI element's `fps`)."""


def open_3d_view(page) -> None:
    """Open the 3D view's fold (closed, it holds no scene: three.js would draw one again and again) and wait for its
    canvas; it is drawn often only while the pointer is on it."""
    assert page.query_selector('[data-view="3d"] canvas') is None
    page.click('[data-fold="3d"] .q-item')
    page.wait_for_selector('[data-view="3d"] canvas')
    assert page.evaluate(FPS) == IDLE_FPS
    page.hover('[data-view="3d"] canvas')
    page.wait_for_function(f"{FPS} === {ORBIT_FPS}")
    page.mouse.move(1, 1)
    page.wait_for_function(f"{FPS} === {IDLE_FPS}")


def drag(page, x: float, y: float, dx: float, dy: float, touch: bool) -> None:
    """Drag from (x, y) by (dx, dy) screen pixels: by touch (Chromium's touch events, as a finger sends them: the
    page must not take them for a scroll) or with the mouse."""
    if not touch:
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + dx, y + dy, steps=5)
        page.mouse.up()
        return
    finger = page.context.new_cdp_session(page)
    steps = [("touchStart", 0.0)] + [("touchMove", k / 5) for k in range(1, 6)]
    for kind, share in steps:
        finger.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x + share * dx,
                                                                                "y": y + share * dy}]})
    finger.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


@pytest.mark.slow
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_tap_two_troopers_drag_one_turn_it_and_undo(workbench, phone):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        options = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True} if phone else \
            {"viewport": {"width": 1280, "height": 900}}
        page = browser.new_page(**options)
        page.goto(workbench)
        page.wait_for_selector('[data-trooper="blue-1"]')
        for trooper_id in ("blue-1", "red-1"):
            if trooper_id == "red-1":  # blue-1 alone is selected: rings mark who sees whom, as the matrix says
                page.wait_for_selector('[data-sees]')
                rings = {e.get_attribute("data-of"): e.get_attribute("data-sees")
                         for e in page.query_selector_all("[data-sees]")}
                assert rings == who_sees(_api(workbench, "/api/matrix"), "blue-1") != {}
            tap(page, trooper_id, phone)
        page.wait_for_function("document.querySelector('[data-verdict]').dataset.verdict !== ''")
        shown = page.get_attribute("[data-verdict]", "data-verdict")
        expected = _api(workbench, "/api/check?shooter=blue-1&target=red-1")["lof"]
        assert shown == ("lof" if expected else "no-lof")
        assert page.query_selector('[data-witness="blue-1"]') or page.query_selector('[data-witness="red-1"]')
        page.wait_for_function("[...document.images].some(i => i.src.includes('view=eye') && i.complete && "
                               "i.naturalWidth > 0)", timeout=60_000)  # the picture from the shooter's eye
        if not phone:
            open_3d_view(page)
        _screenshot(page, "workbench-phone.png" if phone else "workbench.png", full_page=not phone)

        hidden = next(p["target"] for p in _api(workbench, "/api/matrix")["pairs"]
                      if p["shooter"] == "blue-1" and not p["sight"])
        for trooper_id in ("blue-1", hidden):
            tap(page, trooper_id, phone)
        page.wait_for_function("document.querySelector('[data-verdict]').dataset.verdict === 'no-lof'")
        blockers = {b["id"] for b in _api(workbench, f"/api/check?shooter=blue-1&target={hidden}")["blockers"]}
        page.wait_for_selector("[data-blocker]")
        assert {e.get_attribute("data-blocker") for e in page.query_selector_all("[data-blocker]")} == blockers

        before = _trooper(workbench, "blue-2")["position"]
        drag(page, *trooper_centre(page, "blue-2"), 30, -20, phone)
        after = _settled(lambda: _trooper(workbench, "blue-2")["position"], lambda now: now != before)
        assert after[0] > before[0] and after[1] > before[1]  # right on the screen is +x, up is +y
        if not phone:  # blue-11 stands 8 mm from the right edge: pushed past it, it snaps back and the page says why
            edge = _trooper(workbench, "blue-11")["position"]
            drag(page, *trooper_centre(page, "blue-11"), 15, 0, phone)
            page.wait_for_selector(".q-notification:has-text('past the table edge')")
            assert _trooper(workbench, "blue-11")["position"] == edge

        facing = _trooper(workbench, "blue-1").get("facing")
        page.click('[data-action="turn-left"]')
        assert _settled(lambda: _trooper(workbench, "blue-1")["facing"], lambda now: now != facing) != facing
        page.click('[data-action="undo"]')
        page.click('[data-action="undo"]')
        assert _settled(lambda: _trooper(workbench, "blue-2")["position"], lambda now: now == before) == before
        browser.close()


def test_serve_refuses_what_it_cannot_open(tmp_path, run_cli):
    for target, words in ((tmp_path / "missing.yaml", "not found"), (tmp_path, "no scene.yaml")):
        result = run_cli("serve", target, "--no-browser")
        assert result.exit_code == 2 and words in result.stderr and "Traceback" not in result.stderr, result.output
    (tmp_path / "catalog.yaml").write_text("- {name: hut, file: hut.stl, footprint: [1, 1], height: 1}\n")
    result = run_cli("serve", TABLE_B, "--catalog", tmp_path / "catalog.yaml", "--no-browser")
    assert result.exit_code == 2 and "catalog.yaml: piece 'hut': mesh file" in result.stderr, result.output


def test_who_sees_whom_reads_both_ways_of_the_matrix():
    pairs = [("a", "b", True), ("b", "a", True), ("a", "c", True), ("c", "a", False), ("d", "a", True),
             ("a", "d", False), ("b", "c", True)]
    matrix = {"pairs": [{"shooter": s, "target": t, "lof": lof} for s, t, lof in pairs]}
    assert who_sees(matrix, "a") == {"b": "both", "c": "from", "d": "to"}


def _clear_points(count: int) -> list[tuple[float, float]]:
    """`count` points of table-b at least 40 mm from every footprint and trooper and 100 mm from each other."""
    world = World.from_scene(load_scene(TABLE_B))
    taken = shapely.union_all([p.outline for p in world.pieces] +
                              [shapely.Point(c).buffer(r) for c, r in zip(world.troopers.centre, world.troopers.radius)])
    chosen: list[tuple[float, float]] = []
    for y in np.arange(150.0, 1100.0, 10.0):
        for x in np.arange(100.0, 1100.0, 10.0):
            if taken.distance(shapely.Point(x, y)) > 40 and all(np.hypot(x - a, y - b) > 100 for a, b in chosen):
                chosen.append((float(x), float(y)))
                if len(chosen) == count:
                    return chosen
    raise AssertionError("table-b has no room")


def _on_table(page, x: float, y: float) -> tuple[float, float]:
    """Where on the screen the table point (x, y) mm is drawn."""
    box = screen_box(page, "#table")
    width, depth = (float(page.get_attribute("#table", name)) for name in ("width", "height"))
    return box["x"] + x / width * box["width"], box["y"] + (depth - y) / depth * box["height"]


PAUSE_MS = 100
"""A breath after a click or tap: the page sends events in order, and each next step waits for what it reads."""


def _tap_table(page, x: float, y: float) -> None:
    page.mouse.click(*_on_table(page, x, y))
    page.wait_for_timeout(PAUSE_MS)


def _click(page, action: str) -> None:
    page.click(f'[data-action="{action}"]')
    page.wait_for_timeout(PAUSE_MS)


def _mode(page, action: str, mode: str) -> None:
    """Click a button that starts tapping for `mode`, and wait until the page says what to tap."""
    page.click(f'[data-action="{action}"]')
    page.wait_for_function(f"document.querySelector('[data-hint]').textContent === {json.dumps(HINTS[mode])}")


def _attribute_is(page, selector: str, name: str, value: str) -> None:
    page.wait_for_function(f"document.querySelector({json.dumps(selector)})?.getAttribute({json.dumps(name)}) === "
                           f"{json.dumps(value)}")


def _ids(base: str, group: str) -> set[str]:
    return {item["id"] for item in _api(base, "/api/scene")["scene"][group]}


@pytest.mark.slow
def test_forms_aros_save_ruling_page_and_3d_view(workbench, tmp_path):
    from playwright.sync_api import sync_playwright

    here, _, corner, box_at, third = _clear_points(5)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(workbench)
        page.wait_for_selector('[data-trooper="blue-1"]')
        troopers = _ids(workbench, "troopers")

        _mode(page, "place-trooper", "place-trooper")  # a new trooper, from the form's defaults, where the table is tapped
        _tap_table(page, *here)
        (added,) = _settled(lambda: _ids(workbench, "troopers") - troopers, lambda new: len(new) == 1)
        new = _trooper(workbench, added)
        assert new["side"] == "blue" and new["silhouette"] == 2 and np.allclose(new["position"], here, atol=1)
        page.wait_for_selector(f'[data-trooper="{added}"]')
        tap(page, added, touch=False)
        page.click('[data-field="marker"]')
        _click(page, "apply-trooper")
        assert _settled(lambda: _trooper(workbench, added)["marker"], lambda marker: marker is True) is True
        _click(page, "delete-trooper")
        assert _settled(lambda: _ids(workbench, "troopers"), lambda ids: ids == troopers) == troopers

        # a change made elsewhere (the other player's page, the API) shows within a couple of seconds
        change = urllib.request.Request(workbench + "/api/troopers/red-2", data=json.dumps({"position": list(here)})
                                        .encode(), method="PUT", headers={"Content-Type": "application/json"})
        urllib.request.urlopen(change).close()
        page.wait_for_function(f"document.querySelector('[data-trooper=\"red-2\"]').getAttribute('cx') === "
                               f"'{here[0]:.1f}'", timeout=5000)
        _click(page, "undo")

        page.get_by_role("tab", name="Terrain").click()
        _mode(page, "place-box", "place-box")  # a box of the form's size, centred where the table is tapped
        _tap_table(page, *box_at)
        box = _settled(lambda: _piece(workbench, "box-1"), lambda piece: piece is not None)
        assert box["box"]["size"] == [100.0, 50.0, 60.0] and np.allclose(box["position"][:2], box_at, atol=1)
        page.wait_for_selector('[data-piece="box-1"]')  # drawn on the page (a busy machine draws it later)
        _tap_table(page, *box_at)  # tapping it selects it
        assert _settled(lambda: page.text_content("[data-selected-piece]"), lambda text: text.endswith("box-1")) \
            .endswith("box-1")
        _click(page, "turn-piece")
        box = _settled(lambda: _piece(workbench, "box-1"), lambda piece: (piece.get("rotation") or {"z": None})["z"] == 15)
        assert box["rotation"]["z"] == 15
        _click(page, "delete-piece")
        assert "box-1" not in _settled(lambda: _ids(workbench, "terrain"), lambda ids: "box-1" not in ids)

        _mode(page, "place-piece", "place-piece")  # the first catalogue piece
        _tap_table(page, *third)
        table_pieces = {t["id"] for t in yaml.safe_load(TABLE_B.read_text())["terrain"]}
        (piece,) = _settled(lambda: _ids(workbench, "terrain") - table_pieces, lambda new: len(new) == 1)
        assert page.query_selector(f'[data-piece="{piece}"]')
        _click(page, "undo")

        _mode(page, "trace", "trace")  # a footprint tapped corner by corner, with the form's height
        for x, y in (corner, (corner[0] + 40, corner[1]), (corner[0] + 20, corner[1] + 30)):
            _tap_table(page, x, y)
        _attribute_is(page, "[data-trace]", "data-trace", "3")
        _click(page, "finish-trace")
        traced = _settled(lambda: _piece(workbench, "traced-1"), lambda piece: piece is not None)
        assert traced["prism"]["height"] == 50 and len(traced["prism"]["polygon"]) == 3
        _click(page, "undo")

        tap(page, "blue-1", touch=False)  # AROs along a move drawn on the top view
        page.get_by_role("tab", name="AROs").click()
        _mode(page, "draw-move", "path")
        for point in (third, corner):  # the nearest clear points to blue-1 (the catalogue piece and the trace undone)
            _tap_table(page, *point)
        _attribute_is(page, "[data-path]", "data-path", "2")
        _click(page, "show-aros")
        depth = float(page.get_attribute("#table", "height"))  # the drawn path (after the mover's centre), in mm
        drawn = [tuple(map(float, xy.split(","))) for xy in page.get_attribute("[data-path]", "points").split()[1:]]
        drawn = [(x, round(depth - y, 1)) for x, y in drawn]  # the page keeps its points to 0.1 mm
        assert np.allclose(drawn, (third, corner), atol=3)  # where the table was tapped
        path = ";".join(f"{x!r},{y!r}" for x, y in drawn)  # the same question the page asked
        expected = reactions_by_trooper(_api(workbench, f"/api/aro?trooper=blue-1&path={urllib.parse.quote(path)}"))
        assert _settled(lambda: {e.get_attribute("data-of"): e.get_attribute("data-aro")
                                 for e in page.query_selector_all("[data-aro]")}, lambda shown: shown == expected) \
            == expected != {}

        _click(page, "save")  # never over a file unless asked
        page.fill('input[data-field="save-name"], [data-field="save-name"] input', "saved.yaml")
        _click(page, "save-file")
        _settled(lambda: (tmp_path / "saved.yaml").is_file(), bool)
        assert load_scene(tmp_path / "saved.yaml").troopers == load_scene(tmp_path / "table-b.yaml").troopers
        (tmp_path / "saved.yaml").write_text("mine", encoding="utf-8")
        _click(page, "save")
        _click(page, "save-file")
        page.wait_for_selector(".q-notification:has-text('already exists')")  # refused, so nothing to wait for
        assert (tmp_path / "saved.yaml").read_text() == "mine"
        page.keyboard.press("Escape")  # the refused save leaves its dialog open
        page.wait_for_timeout(PAUSE_MS)

        tap(page, "blue-1", touch=False)
        tap(page, "red-1", touch=False)
        _click(page, "ruling")
        page.wait_for_selector("[data-ruling][href^='/rulings/']", timeout=120_000)
        with page.context.expect_page() as opened:
            page.click("[data-ruling]")
        ruling = opened.value
        ruling.wait_for_load_state()
        assert "/rulings/" in ruling.url and "blue-1" in ruling.content()

        open_3d_view(page)
        browser.close()
    with urllib.request.urlopen(workbench + "/workbench/terrain.glb") as answer:
        terrain = trimesh.load(io.BytesIO(answer.read()), file_type="glb")
    assert len(terrain.geometry) == len(yaml.safe_load(TABLE_B.read_text())["terrain"]) + 1  # and the table
