"""The workbench under several players at once: ROUNDS rounds of the load in tests/workbench_load.py (8 clients x 30
mixed requests: verdicts, moves, matrices, pictures, AROs, stale and malformed requests) against one real
`lofkit serve` of a copy of examples/tables/table-b.yaml, then a SIGKILL in the middle of a session and `--restore`.

Printed per round and in total: answers by kind and status (any status a valid server never gives is listed), the
latency of each kind (p50 / p95; `check` is the one players wait on), whether the server is still alive, and
whether the version counts exactly the accepted moves and the scene keeps each one. Then the crash: moves, SIGKILL,
and the scene `--restore` opens against the last one answered. The baseline in the same run: `check` alone, one
client, no load (p50 / p95), so the ratio says what the load costs. Targets (printed, never asserted): the server
alive, no unexpected status, exact versions, the exact scene restored, `check` p95 under load within 250 ms.

Run: `python benchmarks/bench_workbench_load.py [--rounds 50] [--clients 8] [--requests 30]`.
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tests.helpers import copy_of_scene  # noqa: E402
from tests.workbench_load import Load, request, run_load, scene  # noqa: E402

TABLE = REPO / "examples" / "tables" / "table-b.yaml"
READY_TIMEOUT = 120.0
CHECK_TARGET = 0.250
"""Seconds: `check`'s p95 under load, the target."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving(table: Path, *flags: str):
    """`lofkit serve TABLE FLAGS` on a free port of 127.0.0.1 until READY; yields (process, port); Ctrl-C at the end."""
    port = free_port()
    env = {**os.environ, "VTK_DEFAULT_OPENGL_WINDOW": "vtkEGLRenderWindow"}
    process = subprocess.Popen([sys.executable, "-m", "lofkit", "serve", str(table), *flags, "--no-browser",
                                "--port", str(port)], cwd=table.parent, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        ready, _, _ = select.select([process.stdout], [], [], READY_TIMEOUT)
        if not ready or not process.stdout.readline():
            raise RuntimeError("lofkit serve printed no READY line")
        yield process, port
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            process.wait(timeout=30)


def baseline(port: int, ids: list[str], count: int = 200) -> np.ndarray:
    """`check` alone: one client, one request at a time."""
    rng = np.random.default_rng(0)
    times = []
    for _ in range(count):
        a, b = rng.choice(ids, 2, replace=False)
        started = time.perf_counter()
        assert request(port, "GET", f"/api/check?shooter={a}&target={b}")[0] == 200
        times.append(time.perf_counter() - started)
    return np.array(times)


def kept(port: int, before: dict, load: Load) -> bool:
    """The version counts exactly the accepted moves, and the scene holds the last accepted move of each trooper."""
    after = scene(port)
    facing = {t["id"]: t.get("facing") for t in after["scene"]["troopers"]}
    return (after["version"] == before["version"] + load.changes
            and all(facing[trooper] == value for trooper, value in load.accepted.items()))


def crash_and_restore(table: Path) -> bool:
    """Moves, SIGKILL, `--restore`: the scene opened equals the last one the killed server answered."""
    with serving(table) as (process, port):
        for k, trooper in enumerate(("blue-1", "red-2", "blue-3", "blue-1")):
            request(port, "PUT", f"/api/troopers/{trooper}", {"facing": 1.5 + k})
        last = scene(port)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    with serving(table, "--restore") as (_, port):
        return scene(port) == last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lofkit-load-") as folder:
        table = copy_of_scene(TABLE, Path(folder))
        total, alive, exact = Load(), True, True
        with serving(table) as (process, port):
            ids = [t["id"] for t in scene(port)["scene"]["troopers"]]
            alone = baseline(port, ids)
            print(f"baseline, check alone: p50 {1000 * np.median(alone):.0f} ms, p95 "
                  f"{1000 * np.percentile(alone, 95):.0f} ms")
            for k in range(args.rounds):
                before = scene(port)
                started = time.perf_counter()
                load = run_load(port, args.clients, args.requests, seed=k)
                alive &= process.poll() is None
                exact &= alive and kept(port, before, load)
                total.answers += load.answers
                print(f"round {k + 1}: {len(load.answers)} answers in {time.perf_counter() - started:.1f} s, check p95 "
                      f"{1000 * load.percentile('check', 95):.0f} ms, unexpected {dict(load.unexpected()) or 'none'}, "
                      f"alive {process.poll() is None}", flush=True)
                if not alive:
                    break
        restored = crash_and_restore(table)
    print(f"\n{len(total.answers)} answers: {dict(sorted(Counter((a.kind, a.status) for a in total.answers).items()))}")
    for kind in sorted({a.kind for a in total.answers}):
        print(f"  {kind:9s} p50 {1000 * total.percentile(kind, 50):6.0f} ms   p95 {1000 * total.percentile(kind, 95):6.0f} ms")
    p95 = total.percentile("check", 95)
    print(f"check p95 under load {1000 * p95:.0f} ms = {p95 / np.percentile(alone, 95):.1f}x alone "
          f"(target {1000 * CHECK_TARGET:.0f} ms: {'met' if p95 <= CHECK_TARGET else 'MISSED'})")
    print(f"server alive: {alive}; unexpected statuses: {dict(total.unexpected()) or 'none'}; versions and moves "
          f"exact: {exact}; SIGKILL then --restore gives the last state: {restored}")


if __name__ == "__main__":
    main()
