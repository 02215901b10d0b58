"""`lofkit serve` holds with several players at once (a real server process on 127.0.0.1, a bounded load from
tests/workbench_load.py: verdicts, moves, matrices, pictures, AROs, stale and malformed requests at once): it stays
up, answers every request with the status it should, counts exactly the accepted moves and keeps each one; and a
crash (a real SIGKILL) loses no accepted change: the journal beside the scene gives it back with `--restore`."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

from tests.helpers import copy_of_scene
from tests.serving import TABLE_B, serving
from tests.workbench_load import request, run_load, scene

pytestmark = pytest.mark.slow

JOURNAL = ".table-b.yaml.lofkit-session"


def facings(document: dict) -> dict:
    return {t["id"]: t.get("facing") for t in document["scene"]["troopers"]}


def test_several_players_at_once_are_all_answered_and_every_accepted_move_kept(tmp_path):
    table = copy_of_scene(TABLE_B, tmp_path)
    with serving(table, cwd=tmp_path) as server:
        before = scene(server.port)
        load = run_load(server.port, clients=8, requests=8, seed=1)
        assert server.process.poll() is None, "the server died under load"
        assert not load.unexpected(), load.unexpected()
        assert {a.kind for a in load.answers} >= {"check", "move", "matrix", "picture", "stale", "malformed"}
        after = scene(server.port)
        assert after["version"] == before["version"] + load.changes  # malformed and stale requests changed nothing
        moved = facings(after)
        assert {trooper: moved[trooper] for trooper in load.accepted} == load.accepted
        assert {t: f for t, f in moved.items() if t not in load.accepted} == \
            {t: f for t, f in facings(before).items() if t not in load.accepted}
        assert (tmp_path / JOURNAL).exists()
        status, _, err = server.stop()
    assert status == 0 and "Traceback" not in err and "internal error" not in err, err
    assert not (tmp_path / JOURNAL).exists(), "a clean exit removes the journal"


def test_a_crash_loses_no_accepted_change(tmp_path):
    """Moves, then SIGKILL: the next `serve` says what the journal holds and refuses to start (exit 2) until told;
    `--restore` opens the table exactly as it was, at its version; a clean save then removes the journal."""
    table = copy_of_scene(TABLE_B, tmp_path)
    with serving(table, cwd=tmp_path) as server:
        for k, trooper in enumerate(("blue-1", "red-2", "blue-1")):
            assert request(server.port, "PUT", f"/api/troopers/{trooper}", {"facing": 10.0 + k})[0] == 200
        assert request(server.port, "PUT", "/api/troopers/red-3", {"position": [-1.0, 0.0]})[0] == 422
        last = scene(server.port)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=10)
    assert last["version"] == 3 and (tmp_path / JOURNAL).exists()

    refused = subprocess.run([sys.executable, "-m", "lofkit", "serve", str(table), "--no-browser"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert JOURNAL in refused.stderr and "--restore" in refused.stderr and "--discard" in refused.stderr

    with serving(table, "--restore", cwd=tmp_path) as server:
        restored = scene(server.port)
        assert restored == last
        assert request(server.port, "POST", "/api/save", {"path": "table-b.yaml", "force": True})[0] == 200
        assert not (tmp_path / JOURNAL).exists(), "a clean save removes the journal"
        server.stop()
    with serving(table, cwd=tmp_path) as server:  # what was saved is what opens now
        assert facings(scene(server.port)) == facings(last)


def test_restore_and_discard_need_a_journal(tmp_path, run_cli):
    table = copy_of_scene(TABLE_B, tmp_path)
    for flag in ("--restore", "--discard"):
        result = run_cli("serve", table, flag, "--no-browser")
        assert result.exit_code == 2 and "does not exist" in result.output, result.output


def test_discard_drops_the_journal(tmp_path):
    table = copy_of_scene(TABLE_B, tmp_path)
    (tmp_path / JOURNAL).write_text(json.dumps({"lofkit_session": 1, "version": 7, "scene": {"lofkit": 1}}))
    with serving(table, "--discard", cwd=tmp_path) as server:
        assert scene(server.port)["version"] == 0 and not (tmp_path / JOURNAL).exists()
