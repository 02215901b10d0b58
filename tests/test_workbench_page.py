"""The workbench's page in Debian's Chromium: `lofkit serve` on table-b, tap one trooper and see who sees whom,
tap another and read the verdict and its evidence (the witness line; for a hidden pair, what blocks),
drag a trooper and see the API's scene change, turn one, undo; the same on a 390 x 844 touch screen (taps by touch;
Playwright has no touch drag)."""

import json
import os
import socket
import subprocess
import sys
import urllib.request

import pytest

from lofkit.workbench.page import who_sees
from tests.helpers import REPO

TABLE_B = REPO / "examples" / "tables" / "table-b.yaml"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--enable-unsafe-swiftshader"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def workbench():
    """A `lofkit serve` of table-b, as a user starts it; its URL once it printed its one ready line."""
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if key != "PYTEST_CURRENT_TEST"}  # NiceGUI's test mode
    env["VTK_DEFAULT_OPENGL_WINDOW"] = "vtkEGLRenderWindow"
    server = subprocess.Popen([sys.executable, "-m", "lofkit", "serve", str(TABLE_B), "--port", str(port),
                               "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = server.stdout.readline()
        assert line.strip() == f"lofkit workbench: http://127.0.0.1:{port}/", (line, server.stderr.read())
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=20)


def _api(base: str, path: str) -> dict:
    with urllib.request.urlopen(base + path) as answer:
        return json.load(answer)


def _trooper(base: str, trooper_id: str) -> dict:
    return next(t for t in _api(base, "/api/scene")["scene"]["troopers"] if t["id"] == trooper_id)


def _centre(page, trooper_id: str) -> tuple[float, float]:
    box = page.locator(f'[data-trooper="{trooper_id}"]').bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def tap(page, trooper_id: str, touch: bool) -> None:
    """Tap a trooper's base, by touch or with the mouse."""
    x, y = _centre(page, trooper_id)
    if touch:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.up()
    page.wait_for_timeout(300)


@pytest.mark.slow
@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
def test_tap_two_troopers_drag_one_turn_it_and_undo(workbench, phone, tmp_path):
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
        page.screenshot(path=str(tmp_path / "workbench.png"))

        hidden = next(p["target"] for p in _api(workbench, "/api/matrix")["pairs"]
                      if p["shooter"] == "blue-1" and not p["sight"])
        for trooper_id in ("blue-1", hidden):
            tap(page, trooper_id, phone)
        page.wait_for_function("document.querySelector('[data-verdict]').dataset.verdict === 'no-lof'")
        blockers = {b["id"] for b in _api(workbench, f"/api/check?shooter=blue-1&target={hidden}")["blockers"]}
        page.wait_for_selector("[data-blocker]")
        assert {e.get_attribute("data-blocker") for e in page.query_selector_all("[data-blocker]")} == blockers

        before = _trooper(workbench, "blue-2")["position"]
        x, y = _centre(page, "blue-2")
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 30, y - 20, steps=5)
        page.mouse.up()
        page.wait_for_timeout(800)
        after = _trooper(workbench, "blue-2")["position"]
        assert after[0] > before[0] and after[1] > before[1]  # right on the screen is +x, up is +y

        facing = _trooper(workbench, "blue-1").get("facing")
        page.click('[data-action="turn-left"]')
        page.wait_for_timeout(500)
        assert _trooper(workbench, "blue-1")["facing"] != facing
        page.click('[data-action="undo"]')
        page.click('[data-action="undo"]')
        page.wait_for_timeout(500)
        assert _trooper(workbench, "blue-2")["position"] == before
        browser.close()


def test_serve_refuses_what_it_cannot_open(tmp_path, run_cli):
    (tmp_path / "save.json").write_text("{}", encoding="utf-8")
    for target, words in ((tmp_path / "missing.yaml", "not found"), (tmp_path, "no scene.yaml"),
                          (tmp_path / "save.json", "import-tts")):
        result = run_cli("serve", target, "--no-browser")
        assert result.exit_code == 2 and words in result.stderr and "Traceback" not in result.stderr, result.output


def test_who_sees_whom_reads_both_ways_of_the_matrix():
    pairs = [("a", "b", True), ("b", "a", True), ("a", "c", True), ("c", "a", False), ("d", "a", True),
             ("a", "d", False), ("b", "c", True)]
    matrix = {"pairs": [{"shooter": s, "target": t, "lof": lof} for s, t, lof in pairs]}
    assert who_sees(matrix, "a") == {"b": "both", "c": "from", "d": "to"}
