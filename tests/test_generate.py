"""`lofkit generate` end to end: the search is reproducible, Ctrl-C keeps the best layout, every output is written
(scene files `validate` passes, scorecards, pictures, a Tabletop Simulator save that `import-tts` reads back to the
same pieces), and bad input is refused with a message naming the option, while impossible targets still give the
best layout found, its shortfall and exit 0.

Runs are tiny: a 24 x 24 in table with 6 in zones, a few pieces, a few dozen steps, coarse grids.
"""

from __future__ import annotations

import json
import math
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import lofkit.cli.generate as cli_generate
import lofkit.design.generate as design_generate
from lofkit import World, load_scene
from lofkit.design.executors import open_executor
from lofkit.design.exposure import SightOptions
from lofkit.design.generate import CHECKS, RECHECK, generate, make_brief, standard_zones
from lofkit.design.placing import Rules, placed
from lofkit.design.targets import parse_targets
from lofkit.exchange.tts_save import cache_names
from lofkit.scene.catalog import BUNDLED
from lofkit.units import INCH
from tests.helpers import REPO

SIDE = 24 * INCH
OPTIONS = SightOptions(cell_size=3 * INCH, viewer_spacing=3 * INCH, quick=True)
SMALL = ("--catalog", BUNDLED / "catalog.yaml", "--table", "24inx24in", "--zone-depth", "6in", "--pieces", "4..6",
         "--playable", "0.3", "--chains", "2", "--keep", "2", "--search-cell-size", "3in", "--search-viewer-spacing",
         "3in", "--quick", "--cell-size", "3in", "--viewer-spacing", "3in", "--executor", "serial")


STEPS_SHOWN = re.compile(rb"searching.*?\b([1-9][0-9]*)/100000")
"""The search's progress bar once it has taken a step (on a terminal: the test gives it one)."""


def small_brief(targets="zone_visible_share<=0.7,safe_share>=0.05", symmetry="none"):
    rules = Rules((SIDE, SIDE), standard_zones((SIDE, SIDE), 6 * INCH), (4, 6), playable=0.3, symmetry=symmetry)
    return make_brief(BUNDLED / "catalog.yaml", rules, parse_targets(targets), OPTIONS, OPTIONS)[0]


def layouts(run) -> list:
    return [layout for _, layout, _ in run.search.elite(3)]


# --- the search --------------------------------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_layouts():
    brief = small_brief()
    first = generate(brief, 7, 60, 2, stop_when_met=False)
    again = generate(brief, 7, 60, 2, stop_when_met=False)
    other = generate(brief, 8, 60, 2, stop_when_met=False)
    assert layouts(first) == layouts(again) and first.search.steps == again.search.steps == 60
    assert [e for e, _, _ in first.search.elite(3)] == [e for e, _, _ in again.search.elite(3)]
    assert layouts(first) != layouts(other)


@pytest.mark.slow
def test_the_layout_does_not_depend_on_where_the_chains_run():
    brief = small_brief(symmetry="180")
    here = generate(brief, 3, 80, 3, stop_when_met=False)
    with open_executor("processes:2") as pool:
        there = generate(brief, 3, 80, 3, pool, stop_when_met=False)
    assert layouts(here) == layouts(there)
    a, b = here.search, there.search
    assert (a.steps, a.evaluated, a.accepted, a.swaps) == (b.steps, b.evaluated, b.accepted, b.swaps)


def test_symmetric_searches_stay_symmetric():
    brief = small_brief(symmetry="180")
    found = generate(brief, 4, 60, 2, stop_when_met=False)
    for _, layout, _ in found.search.elite(3):
        pieces = placed(layout, brief.rules, brief.kinds)
        nx, ny = brief.rules.grid
        assert sorted(pieces) == sorted((k, nx - x, ny - y, (t + 12) % 24) for k, x, y, t in pieces)


def test_ctrl_c_keeps_the_best_layout_so_far():
    calls = []

    def progress(done, total, best, met):
        calls.append(done)
        if done > 0:
            raise KeyboardInterrupt

    found = generate(small_brief(), 1, 400, 2, progress=progress, stop_when_met=False).search
    assert found.stopped == "interrupted" and found.elite(1)
    assert 0 < found.steps < 400


def test_the_search_stops_once_the_targets_are_met():
    run = generate(small_brief("terrain_density<=0.9"), 1, 400, 2, final_options=OPTIONS)
    assert run.search.stopped == "met" and run.search.steps == 0 and run.checks[0]["met"]


class FakeCard:
    """An exact scorecard that says what a test wants."""

    def __init__(self, density):
        self.density = density

    def to_dict(self):
        return {"terrain_density": self.density}


@pytest.mark.parametrize("density, checks", [(0.5, 1), (0.95, CHECKS)])
def test_the_exact_check_confirms_or_raises_the_margin(monkeypatch, density, checks):
    """The search's card meets the target; the exact one (faked here) confirms it, or falls short, and then the
    margin of that target grows by the shortfall (and RECHECK) before the search goes on, at most CHECKS times."""
    monkeypatch.setattr(design_generate, "scorecard", lambda *args, **kw: FakeCard(density))
    run = generate(small_brief("terrain_density<=0.9"), 1, 100, 2, final_options=OPTIONS)
    assert len(run.checks) == checks
    assert [c["met"] for c in run.checks] == [density <= 0.9] * checks
    margins = [c["margins"][0] for c in run.checks]
    if density > 0.9:
        assert margins == pytest.approx([0.02 + k * (0.05 + RECHECK) for k in range(1, checks + 1)])


# --- the command -------------------------------------------------------------------------------------------------


def _round_trip(folder, tmp_path, run_cli):
    """import-tts of the save, with a model cache made of the OBJ files the save names."""
    save = json.loads((folder / "best-tts.json").read_text())
    cache = tmp_path / "Mods" / "Models"
    cache.mkdir(parents=True)
    for obj in save["ObjectStates"]:
        url = obj["CustomMesh"]["MeshURL"]
        assert url.startswith("file:///") and url.endswith(".obj")
        shutil.copy(url.removeprefix("file://"), cache / cache_names(url)[0])
    result = run_cli("import-tts", folder / "best-tts.json", "--mesh-cache", tmp_path / "Mods", "--table", "24inx24in",
                     "-o", tmp_path / "imported.yaml", "--json")
    assert result.exit_code == 0, result.output
    return load_scene(tmp_path / "imported.yaml")


@pytest.mark.slow
def test_a_small_run_writes_every_output(tmp_path, run_cli):
    folder = tmp_path / "out"
    result = run_cli("generate", *SMALL, "--target", "zone_visible_share<=0.7,safe_share>=0.05", "--steps", "30",
                     "--seed", "2", "-o", folder, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert {"best", "score", "steps", "targets_met"} <= set(summary)
    assert summary["best"] == str(folder / "best-1.yaml") and summary["steps"] <= 30 and summary["exact"]
    names = {p.name for p in folder.iterdir()}
    assert {"best-1.yaml", "best-2.yaml", "best-1-scorecard.json", "best-2-scorecard.json", "best-1-heatmap-blue.png",
            "best-1-heatmap-red.png", "best.png", "best-tts.json", "best-tts-models", "summary.json"} <= names
    assert json.loads((folder / "summary.json").read_text())["score"] == summary["score"]
    card = json.loads((folder / "best-1-scorecard.json").read_text())
    assert card["score"] == summary["score"] and "zone_visible_share" in card["scorecard"]
    for name in ("best-1.yaml", "best-2.yaml"):
        checked = run_cli("validate", folder / name)
        assert checked.exit_code == 0 and "0 errors, 0 warnings" in checked.output
    # the save reads back to the same pieces
    mine, theirs = load_scene(folder / "best-1.yaml"), _round_trip(folder, tmp_path, run_cli)
    assert len(mine.terrain) == len(theirs.terrain) >= 4
    for a, b in zip(mine.terrain, theirs.terrain):
        assert np.allclose(a.position, b.position, atol=1e-6 * INCH, rtol=0)
        turn = (a.rotation.z - b.rotation.z) % 360
        assert min(turn, 360 - turn) < 1e-6
    worlds = World.from_scene(mine), World.from_scene(theirs)
    for a, b in zip(*(w.pieces for w in worlds)):
        ours, read = (np.unique(np.round(p.mesh.vertices, 9), axis=0) for p in (a, b))
        assert ours.shape == read.shape and np.abs(ours - read).max() < 1e-6


def test_the_same_seed_writes_the_same_layout(tmp_path, run_cli):
    texts = []
    for name in ("a", "b"):
        result = run_cli("generate", *SMALL, "--target", "safe_share>=0.05", "--steps", "20", "--seed", "5",
                         "--no-pictures", "-o", tmp_path / name)
        assert result.exit_code == 0, result.output
        texts.append((tmp_path / name / "best-1.yaml").read_text())
    assert texts[0] == texts[1]


def test_impossible_targets_still_write_the_best_layout_and_its_shortfall(tmp_path, run_cli):
    result = run_cli("generate", *SMALL, "--target", "safe_share>=1.5,terrain_density>=0.9", "--steps", "10",
                     "--no-pictures", "-o", tmp_path / "out", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["targets_met"] is False and summary["score"] > 0
    short = {t["target"]: t for t in summary["targets"]}
    assert short["safe_share>=1.5"]["shortfall"] >= 0.5 and not short["safe_share>=1.5"]["met"]
    assert short["terrain_density>=0.9"]["shortfall"] > 0.5
    assert (tmp_path / "out" / "best-1.yaml").is_file()
    assert "can never be met" in result.stderr


def test_ctrl_c_writes_the_best_layout_so_far(tmp_path, run_cli, monkeypatch):
    def interrupted(self, done, total, best, met):
        if done > 0:
            raise KeyboardInterrupt

    monkeypatch.setattr(cli_generate._SearchBar, "__call__", interrupted)
    result = run_cli("generate", *SMALL, "--target", "safe_share>=0.05", "--steps", "400", "--no-pictures",
                     "-o", tmp_path / "out", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["search"]["stopped"] == "interrupted" and not summary["exact"] and summary["steps"] < 400
    assert (tmp_path / "out" / "best-1.yaml").is_file() and any("interrupted" in n for n in summary["notes"])


@pytest.mark.slow
def test_a_real_ctrl_c_to_the_process_group_keeps_the_best_layout(tmp_path):
    """As a terminal sends it: SIGINT to lofkit and its worker processes at once, during a search that would run
    for long (an impossible target); the workers leave it to lofkit, which writes the best layout and exits 0."""
    folder = tmp_path / "out"
    command = [sys.executable, "-m", "lofkit", "generate", *map(str, SMALL[:-2]), "--executor", "processes:2",
               "--target", "safe_share>=0.99", "--steps", "100000", "--no-pictures", "-o", str(folder), "--json"]
    terminal, stderr = pty.openpty()  # stderr on a terminal, so the search shows its progress bar
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, cwd=REPO,
                               start_new_session=True,  # its own process group, as a shell's foreground job
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(stderr)
    shown = _read_until(terminal, STEPS_SHOWN, timeout=120)
    os.killpg(process.pid, signal.SIGINT)
    try:
        out = process.communicate(timeout=120)[0]
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail(f"lofkit generate did not stop within 120 s of Ctrl-C: {shown[-2000:]!r}")
    err = (shown + _read_until(terminal, None, timeout=5)).decode(errors="replace")
    os.close(terminal)
    assert process.returncode == 0, err
    summary = json.loads(out)
    assert summary["search"]["stopped"] == "interrupted" and summary["steps"] > 0
    assert (folder / "best-1.yaml").is_file() and "Traceback" not in err


def _read_until(terminal: int, pattern: re.Pattern | None, timeout: float) -> bytes:
    """What a terminal shows until `pattern` appears in it (or it closes, with no pattern), failing after
    `timeout` seconds."""
    shown, deadline = b"", time.monotonic() + timeout
    while pattern is None or not pattern.search(shown):
        ready, _, _ = select.select([terminal], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            if pattern is None:
                return shown
            pytest.fail(f"lofkit generate showed no step within {timeout} s: {shown[-2000:]!r}")
        try:
            chunk = os.read(terminal, 65536)
        except OSError:  # the other end closed
            chunk = b""
        if not chunk:
            if pattern is None:
                return shown
            pytest.fail(f"lofkit generate ended before taking a step: {shown[-2000:]!r}")
        shown += chunk
    return shown


@pytest.mark.parametrize("arguments, message", [
    (("--target", "visibility<=0.7"), "--target 'visibility<=0.7': unknown measure 'visibility'; the known ones are"),
    (("--target", "safe_share~0.05"), "write a target as KEY<=VALUE or KEY>=VALUE"),
    (("--target", "safe_share>=0.05", "--pieces", "30..18"), "--pieces '30..18': give 1 <= LOW <= HIGH"),
    (("--target", "safe_share>=0.05", "--pieces", "0..x"), "--pieces '0..x': give a range"),
    (("--target", "safe_share>=0.05", "--catalog", "no/such/catalog.yaml"), "--catalog no/such/catalog.yaml: no such"),
    (("--target", "safe_share>=0.05", "--playable", "1.5"), "--playable 1.5: give a share from 0 to 1"),
    (("--target", "safe_share>=0.05", "--zone-depth", "30in"), "--zone-depth 30in: give a depth"),
    (("--target", "safe_share>=0.05", "--time-limit", "soon"), "--time-limit 'soon'"),
    (("--target", "safe_share>=0.05", "--symmetry", "180", "--pieces", "5"), "pieces come in pairs"),
])
def test_bad_input_names_the_option_and_the_fix(tmp_path, run_cli, arguments, message):
    base = [a for a in SMALL]
    if "--catalog" in arguments:
        base = base[2:]
    result = run_cli("generate", *base, *arguments, "-o", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split()), result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "out").exists()


def test_a_folder_holding_other_files_is_refused(tmp_path, run_cli):
    (tmp_path / "notes.txt").write_text("mine")
    result = run_cli("generate", *SMALL, "--target", "safe_share>=0.05", "-o", tmp_path)
    assert result.exit_code == 2 and "holds other files (notes.txt)" in result.stderr
    assert {p.name for p in tmp_path.iterdir()} == {"notes.txt"}


def test_an_earlier_run_is_replaced_only_with_force(tmp_path, run_cli):
    arguments = ("generate", *SMALL, "--target", "safe_share>=0.05", "--steps", "4", "--no-pictures", "-o", tmp_path)
    assert run_cli(*arguments).exit_code == 0
    again = run_cli(*arguments)
    assert again.exit_code == 2 and "--force" in again.stderr
    assert run_cli(*arguments, "--force").exit_code == 0


def test_scores_are_finite_numbers():
    found = generate(small_brief(), 1, 10, 1, stop_when_met=False)
    assert all(math.isfinite(e) for e, _, _ in found.search.elite(3))
