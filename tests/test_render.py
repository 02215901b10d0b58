"""Pictures and the ruling page, rendered for real (off-screen, EGL) and read back pixel by pixel."""

import colorsys
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from lofkit import World, check, load_scene
from lofkit.rules.lof import sample_segments
from lofkit.viz.render import Overlay, render, side_colours, top_view_pixel, zoc_cylinder
from lofkit.viz.report import write_report
from tests.helpers import REPO, build_world, run_example, trooper

RULEBOOK = REPO / "examples" / "rulebook_lof.yaml"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def _hue(colour: str) -> float:
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hsv(r, g, b)[0]


def share_of_colour(path, colour: str, box: tuple[int, int, int, int]) -> float:
    """Share of pixels in box (left, top, right, bottom) that carry `colour`'s hue, saturated (shading aside)."""
    pixels = np.asarray(Image.open(path).convert("RGB").crop(box), dtype=float) / 255
    mx, mn = pixels.max(axis=2), pixels.min(axis=2)
    saturation = np.where(mx > 0, (mx - mn) / np.maximum(mx, 1e-9), 0)
    hsv_hue = np.vectorize(lambda r, g, b: colorsys.rgb_to_hsv(r, g, b)[0])(*np.moveaxis(pixels, 2, 0))
    distance = np.minimum(np.abs(hsv_hue - _hue(colour)), 1 - np.abs(hsv_hue - _hue(colour)))
    return float(np.mean((distance < 0.04) & (saturation > 0.35) & (mx > 0.25)))


@pytest.fixture(scope="module")
def rulebook():
    return World.from_scene(load_scene(RULEBOOK))


def _ruling(world, shooter, target):
    return Overlay(verdict=check(world, shooter, target), segments=sample_segments(world, shooter, target))


@pytest.mark.slow
def test_png_has_the_asked_size(rulebook, tmp_path):
    path = render(rulebook, tmp_path / "iso.png", view="iso", size=(320, 200))
    assert Image.open(path).size == (320, 200)


@pytest.mark.slow
def test_eye_view_of_a_yes_pair_shows_the_target_at_the_centre(rulebook, tmp_path):
    red = side_colours(rulebook)["nomads"]
    path = render(rulebook, tmp_path / "eye.png", view="eye", size=(400, 300), shooter="fusilier", target="iguana",
                  overlay=_ruling(rulebook, "fusilier", "iguana"))
    assert share_of_colour(path, red, (170, 120, 230, 180)) > 0.3


@pytest.mark.slow
def test_eye_view_of_a_no_pair_behind_a_wall_does_not(tmp_path):
    wall = {"id": "wall", "wall": {"from": [300, 450], "to": [900, 450], "thickness": 10, "height": 100}}
    world = build_world([trooper("a", 600, 300), trooper("b", 600, 600, side="red", facing=270)], [wall])
    path = render(world, tmp_path / "eye.png", view="eye", size=(400, 300), shooter="a", target="b",
                  overlay=_ruling(world, "a", "b"))
    assert not check(world, "a", "b").sight
    assert share_of_colour(path, side_colours(world)["red"], (170, 120, 230, 180)) < 0.02


@pytest.mark.slow
def test_target_view_looks_back_at_the_shooter(rulebook, tmp_path):
    blue = side_colours(rulebook)["panoceania"]
    path = render(rulebook, tmp_path / "back.png", view="target", size=(400, 300), shooter="fusilier",
                  target="grenzer", overlay=_ruling(rulebook, "fusilier", "grenzer"))
    assert share_of_colour(path, blue, (185, 135, 215, 165)) > 0.3


@pytest.mark.slow
@pytest.mark.parametrize(("x", "y"), [(150, 200), (1000, 1050), (610, 600)])
def test_top_view_puts_a_trooper_where_its_position_maps(tmp_path, x, y):
    world = build_world([trooper("t", x, y, silhouette=5)])
    size = (600, 500)
    path = render(world, tmp_path / "top.png", view="top", size=size, layers=set())
    colour = side_colours(world)["blue"]
    col, row = top_view_pixel(world, size, x, y)
    radius_px = 20 * size[1] / (2 * 1.02 * 1219.2 / 2)  # a 40 mm base
    assert share_of_colour(path, colour, (round(col) - 2, round(row) - 2, round(col) + 3, round(row) + 3)) == 1
    outside = round(radius_px + 3)
    for dx, dy in ((outside, 0), (-outside, 0), (0, outside), (0, -outside)):
        probe = (round(col) + dx, round(row) + dy)
        assert share_of_colour(path, colour, (*probe, probe[0] + 1, probe[1] + 1)) == 0


@pytest.mark.slow
def test_report_page_opens_in_headless_chromium(rulebook, tmp_path):
    from playwright.sync_api import sync_playwright

    verdict = check(rulebook, "fusilier", "iguana")
    index = write_report(rulebook, verdict, sample_segments(rulebook, "fusilier", "iguana"), tmp_path / "ruling",
                         size=(400, 300))
    assert json.loads((tmp_path / "ruling" / "verdict.json").read_text()) == verdict.to_dict()
    errors = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(index.as_uri())
        page.wait_for_load_state("load")
        page.wait_for_timeout(1500)
        headline = page.inner_text("#verdict")
        widths = page.evaluate("Array.from(document.images).map(i => i.naturalWidth)")
        frames = [f.url for f in page.frames]
        browser.close()
    assert errors == []
    assert headline == "fusilier has LoF to iguana"
    assert widths == [400, 400, 400]
    assert any(url.endswith("scene.html") for url in frames)
    assert "kitware.github.io" not in (tmp_path / "ruling" / "scene.html").read_text()


OFFLINE_RUN = """
import socket, sys
log = sys.argv.pop(1)
def refuse(event, args):
    if event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr") or (
            event == "socket.connect" and args[0].family != socket.AF_UNIX):
        with open(log, "a") as file:
            file.write(f"{event} {args[1] if event == 'socket.connect' else args[0]!r}\\n")
        raise OSError("no network here")
sys.addaudithook(refuse)
from lofkit.cli.group import main
sys.argv[0] = "lofkit"
main()
"""
"""`lofkit ARGS...` with every name lookup and every connection Python tries (on any thread, seen by Python's audit
hook) refused, and written down at once in the file named first."""


def _without_network() -> list[str]:
    """A prefix that runs a command in a network namespace of its own, with no network at all (`unshare --net`,
    as root); none where that cannot be made (then only the audit hook stands between the command and the network)."""
    try:
        made = subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode == 0
    except OSError:
        made = False
    return ["unshare", "--net"] if made else []


@pytest.mark.slow
def test_report_never_reaches_for_the_network(tmp_path):
    """`lofkit report` in a subprocess with no network (its own network namespace) and every lookup and connection
    Python tries refused: it writes the whole page, tries none, and says nothing on stderr."""
    attempts = tmp_path / "attempts.txt"
    env = {**os.environ, "VTK_DEFAULT_OPENGL_WINDOW": "vtkEGLRenderWindow"}
    done = subprocess.run([*_without_network(), sys.executable, "-c", OFFLINE_RUN, attempts, "report", RULEBOOK,
                           "fusilier", "iguana", "-o", tmp_path / "ruling"], capture_output=True, text=True, env=env,
                          cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert not attempts.exists(), attempts.read_text()
    assert "ruling page:" in done.stdout
    assert (tmp_path / "ruling" / "scene.html").stat().st_size > 100_000


def test_report_never_writes_into_a_folder_of_other_files(rulebook, tmp_path, run_cli):
    (tmp_path / "notes.txt").write_text("mine")
    result = run_cli("report", RULEBOOK, "fusilier", "iguana", "-o", tmp_path)
    assert result.exit_code == 2 and "other files" in result.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine" and not (tmp_path / "index.html").exists()


@pytest.mark.slow
def test_render_command(tmp_path, run_cli):
    out = tmp_path / "new" / "folder" / "eye.png"
    result = run_cli("render", RULEBOOK, "-o", out, "--view", "eye", "--shooter", "fusilier", "--target", "iguana",
                     "--size", "200x150")
    assert result.exit_code == 0 and Image.open(out).size == (200, 150)
    assert run_cli("render", RULEBOOK, "-o", out, "--view", "eye").exit_code == 2
    assert run_cli("render", RULEBOOK, "-o", out, "--size", "big").exit_code == 2
    assert run_cli("view", RULEBOOK).exit_code == 2  # no display here


EXAMPLE_SCRIPTS = sorted(str(p.relative_to(REPO)) for folder in ("pictures", "rules")
                         for p in (REPO / "examples" / folder).glob("*.py"))


@pytest.mark.slow
@pytest.mark.parametrize("script", EXAMPLE_SCRIPTS)
def test_example_picture_scripts_run(tmp_path, script):
    done = run_example(script, tmp_path)
    assert done.returncode == 0, done.stderr
    picture = tmp_path / done.stdout.split(":")[0].strip()
    assert Image.open(picture).size[0] > 0


def test_the_drawn_zoc_is_eight_inches_above_and_below_the_base():
    """The `zoc` layer draws the cylinder the rule measures: an S8 (70 mm tall) on a roof 100 mm up gets a ZoC from
    100 - 203.2 to 100 + 203.2 mm, radius 35 + 203.2 mm; its height plays no part."""
    world = build_world([trooper("s8", 500, 500, silhouette=8, z=100)])
    bounds = np.array(zoc_cylinder(world.troopers, 0).bounds)
    assert np.allclose(bounds[4:], [100 - 203.2, 100 + 203.2])
    assert np.allclose(bounds[:4], [500 - 238.2, 500 + 238.2, 500 - 238.2, 500 + 238.2], atol=1e-3)
