"""What the workbench (`lofkit serve`) must answer fast after a trooper moves, on the live engine it keeps
(`lofkit.rules.live`), on examples/tables/table-b.yaml (33 volumes, 44 pieces):
1. the full LoF matrix from scratch, best of 3, as `GET /api/matrix?recompute=all` computes it (no evidence: the
   answer shows none; `lof.matrix(world, evidence=False)`): the baseline; and as `lofkit matrix` computes it
   (counting the blockers of every pair without sight), for comparison;
2. for seeded random moves (a trooper to a random spot on the table clear of solid scenery, or up to 6 inches
   from where it stood, facing a random way): the new World (`World.with_scene`, terrain kept) and the matrix
   brought up to date (`LiveMatrix.update`: sight searched again only for the pairs where it may change, the
   verdicts that may change rebuilt), p50 / p95 / mean, and their share of the full matrix;
   and the same for seeded terrain edits (a 100 x 50 x 60 mm box put down on the table, or a piece taken away, as
   the page's forms do), timed from the new World (`World.from_scene`, as an edit compiles the table again);
3. one `check` after a move (the new World, then the verdict between the mover and a random trooper), p50 / p95;
4. the same over the HTTP API in this process (`lofkit.workbench.api`, FastAPI's test client): a move and a check,
   p50 / p95, and the matrix after a move against `?recompute=all`;
5. the same against a real server (`python -m lofkit serve TABLE --no-browser --port P` in a process of its own,
   through httpx): `PUT /api/troopers/ID {"position": [x, y]}` then `GET /api/check`, p50 / p95, and `GET
   /api/matrix` after one move against `GET /api/matrix?recompute=all` (best of 3), also against the baseline of 1.
   The server is stopped with Ctrl-C (SIGINT).
The live matrix is compared with a full recomputation after the last move (they must be identical).
Targets (printed, never asserted): a check after a move within 100 ms at p95, the matrix after one move within 15%
of a full recomputation.

Run: `python benchmarks/bench_workbench.py [--moves N] [--seed S] [--no-server]`.
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
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from lofkit import World, check, load_scene
from lofkit.rules.live import LiveMatrix
from lofkit.rules.lof import matrix

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tests.helpers import copy_of_scene  # noqa: E402

TABLE = REPO / "examples" / "tables" / "table-b.yaml"
READY_TIMEOUT = 120.0
"""Seconds the server may take to print its READY line."""
STOP_TIMEOUT = 10.0
"""Seconds the server may take to stop after Ctrl-C."""


def moved_scene(world, index: int, rng, reach: float | None = None):
    """The scene with trooper `index` somewhere else on the table (within `reach` mm of where it stood, when given),
    clear of solid scenery (as a player would put it), facing another way. Spots are tried until one is clear, so
    the World of the scene returned is built again where it is timed (a player puts a trooper down once)."""
    v = world.troopers
    r = float(v.radius[index])
    width, depth = world.scene.table.width, world.scene.table.depth
    low, high = np.array([r, r]), np.array([width - r, depth - r])
    if reach is not None:
        low, high = np.maximum(low, v.centre[index] - reach), np.minimum(high, v.centre[index] + reach)
    troopers = list(world.scene.troopers)
    for _ in range(100):
        position = tuple(float(c) for c in rng.uniform(low, high))
        troopers[index] = troopers[index].model_copy(update={"position": position, "facing": float(rng.uniform(0, 360)),
                                                             "facing_towards": None})
        candidate = world.scene.model_copy(update={"troopers": troopers})
        if not any(w.where == f"troopers[{index}]" for w in world.with_scene(candidate).warnings):
            return candidate
    return candidate


def timed(function):
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def spread(seconds) -> str:
    """p50 and p95 of `seconds`, in ms."""
    return f"p50 {np.median(seconds) * 1000:.0f} ms, p95 {np.percentile(seconds, 95) * 1000:.0f} ms"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-server", action="store_true", help="skip the figures against a real server (5.)")
    args = parser.parse_args(argv)
    world = World.from_scene(load_scene(TABLE))
    world.convex_parts
    full = min(timed(lambda: matrix(world, evidence=False))[1] for _ in range(3))
    with_evidence = min(timed(lambda: matrix(world))[1] for _ in range(3))
    n = len(world.troopers)
    print(f"{TABLE.name}: {n} troopers, {n * (n - 1) // 2} unordered pairs")
    print(f"full matrix from scratch (recompute=all), best of 3: {full:.2f} s (the baseline); as `lofkit matrix` "
          f"computes it, with blocker counts: {with_evidence:.2f} s")

    rng = np.random.default_rng(args.seed)
    for reach, words in ((None, "anywhere on the table"), (6 * 25.4, "up to 6 inches away")):
        live_moves(world, rng, args.moves, reach, words, full, with_evidence)
    terrain_edits(world, rng, args.moves, full)

    checks = []
    for _ in range(args.moves):
        index = int(rng.integers(n))
        other = int((index + rng.integers(1, n)) % n)
        scene = moved_scene(world, index, rng)
        (_, seconds) = timed(lambda: check(world.with_scene(scene), world.troopers.ids[index],
                                           world.troopers.ids[other]))
        checks.append(seconds)
    p95 = np.percentile(checks, 95)
    print(f"check after a move ({args.moves} seeded): {spread(checks)} "
          f"(target <= 100 ms: {'met' if p95 <= 0.1 else 'NOT met'})")
    through_the_api(args.moves, rng, full)
    if not args.no_server:
        through_a_server(world, args.moves, rng, full)


def live_moves(world, rng, moves: int, reach: float | None, words: str, full: float, with_evidence: float) -> None:
    """Section 2: `moves` seeded moves, each timed from the new World to the matrix brought up to date."""
    n = len(world.troopers)
    live = LiveMatrix(world)
    updates, rebuilt, searched = [], [], []
    for _ in range(moves):
        index = int(rng.integers(n))
        scene = moved_scene(world, index, rng, reach)
        (world, recomputed), seconds = timed(lambda: (lambda w: (w, live.update(w)))(world.with_scene(scene)))
        updates.append(seconds)
        rebuilt.append(recomputed.verdicts)
        searched.append(recomputed.searched)
    same = live.result.to_dict() == matrix(world).to_dict()
    updates = np.array(updates)
    print(f"matrix after one move {words} ({moves} seeded): {spread(updates)}, mean {updates.mean() * 1000:.0f} ms; "
          f"on average {np.mean(rebuilt):.0f} of {n * (n - 1)} verdicts rebuilt, the sight of {np.mean(searched):.0f} "
          f"of {n * (n - 1) // 2} pairs searched again")
    print(f"  mean / full: {updates.mean() / full:.1%} (target <= 15%: "
          f"{'met' if updates.mean() <= 0.15 * full else 'NOT met'}); p95 / full: "
          f"{np.percentile(updates, 95) / full:.1%}; mean / `lofkit matrix`: {updates.mean() / with_evidence:.1%}; "
          f"identical to a full recomputation: {'yes' if same else 'NO'}")


def terrain_edits(world, rng, edits: int, full: float) -> None:
    """Section 2, for terrain: `edits` seeded edits, a box put down or a piece taken away in turn, each timed from the
    new World (compiled again, as the workbench does) to the matrix brought up to date."""
    from lofkit.scene.loading import scene_data, scene_from_data

    live = LiveMatrix(world)
    updates, searched = [], []
    for k in range(edits):
        data = scene_data(world.scene)
        if k % 2:
            del data["terrain"][int(rng.integers(len(data["terrain"])))]
        else:
            x, y = (float(c) for c in rng.uniform(150, world.scene.table.width - 150, 2))
            data["terrain"].append({"id": f"box-{k}", "box": {"size": [100, 50, 60]}, "position": [x, y, 0]})
        scene = scene_from_data(data, world.scene.source)
        (world, recomputed), seconds = timed(lambda: (lambda w: (w, live.update(w)))(World.from_scene(scene)))
        updates.append(seconds)
        searched.append(recomputed.searched)
    same = live.result.to_dict() == matrix(world, evidence=False).to_dict()
    n = len(world.troopers)
    print(f"new World and matrix after a terrain edit ({edits} seeded: boxes put down, pieces taken away): "
          f"{spread(updates)}, mean / full: {np.mean(updates) / full:.1%}; the sight of {np.mean(searched):.0f} of "
          f"{n * (n - 1) // 2} pairs searched again on average; identical to a full recomputation: "
          f"{'yes' if same else 'NO'}")


def through_the_api(moves: int, rng, baseline: float) -> None:
    """The same questions over HTTP (FastAPI's test client, no network): `PUT /api/troopers/ID` then `GET /api/check`,
    and `GET /api/matrix` after a move against `GET /api/matrix?recompute=all`."""
    from fastapi.testclient import TestClient

    from lofkit.workbench.api import app
    from lofkit.workbench.session import Session

    session = Session(load_scene(TABLE))
    session.world.convex_parts
    with tempfile.TemporaryDirectory() as folder:
        client = TestClient(app(session, Path(folder)))
        full = min(timed(lambda: client.get("/api/matrix", params={"recompute": "all"}))[1] for _ in range(3))
        client.get("/api/matrix")
        ids = session.world.troopers.ids
        checks, matrices = [], []
        for _ in range(moves):
            index = int(rng.integers(len(ids)))
            r = float(session.world.troopers.radius[index])
            body = {"position": [float(rng.uniform(r, session.scene.table.width - r)),
                                 float(rng.uniform(r, session.scene.table.depth - r))],
                    "facing": float(rng.uniform(0, 360))}
            other = ids[(index + int(rng.integers(1, len(ids)))) % len(ids)]
            _, seconds = timed(lambda: (client.put(f"/api/troopers/{ids[index]}", json=body),
                                        client.get("/api/check", params={"shooter": ids[index], "target": other})))
            checks.append(seconds)
            matrices.append(timed(lambda: client.get("/api/matrix"))[1])
    matrices = np.array(matrices)
    print(f"over HTTP in this process: move + check {spread(checks)}; matrix after a move mean "
          f"{matrices.mean() * 1000:.0f} ms = {matrices.mean() / full:.1%} of ?recompute=all ({full:.2f} s), "
          f"{matrices.mean() / baseline:.1%} of the baseline")


def through_a_server(world, moves: int, rng, baseline: float) -> None:
    """The same questions of a real `lofkit serve` (its own process, over the loopback network, with httpx): a move
    (`PUT /api/troopers/ID {"position": [x, y]}`, to a spot clear of scenery as `moved_scene` picks it) then `GET
    /api/check` between the mover and another trooper, and `GET /api/matrix` after each move against `GET
    /api/matrix?recompute=all`."""
    import httpx

    n = len(world.troopers)
    folder = tempfile.TemporaryDirectory(prefix="lofkit-bench-")  # the server journals its changes beside its scene
    with folder, serving(copy_of_scene(TABLE, Path(folder.name))) as url, \
            httpx.Client(base_url=url, timeout=120.0) as client:
        full = min(timed(lambda: client.get("/api/matrix", params={"recompute": "all"}).raise_for_status())[1]
                   for _ in range(3))
        client.get("/api/matrix").raise_for_status()  # the live matrix starts here
        ids = world.troopers.ids
        checks, matrices = [], []
        for _ in range(moves):
            index = int(rng.integers(n))
            world = world.with_scene(moved_scene(world, index, rng))
            body = {"position": list(world.scene.troopers[index].position[:2])}
            other = ids[(index + int(rng.integers(1, n))) % n]
            _, seconds = timed(lambda: (client.put(f"/api/troopers/{ids[index]}", json=body).raise_for_status(),
                                        client.get("/api/check", params={"shooter": ids[index], "target": other})
                                        .raise_for_status()))
            checks.append(seconds)
            matrices.append(timed(lambda: client.get("/api/matrix").raise_for_status())[1])
    matrices = np.array(matrices)
    print(f"against a real server ({moves} seeded moves): move + check {spread(checks)}; matrix after a move "
          f"{spread(matrices)}, mean {matrices.mean() * 1000:.0f} ms = {matrices.mean() / full:.1%} of "
          f"?recompute=all ({full:.2f} s; target <= 15%: {'met' if matrices.mean() <= 0.15 * full else 'NOT met'}), "
          f"{matrices.mean() / baseline:.1%} of the baseline")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving(table: Path):
    """`python -m lofkit serve TABLE --no-browser --port <free>` until it prints its READY line; yields the address
    that line gives (without its path) and stops the server with Ctrl-C at the end."""
    from lofkit.cli.serve import READY

    env = {**os.environ, "VTK_DEFAULT_OPENGL_WINDOW": os.environ.get("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")}
    with tempfile.TemporaryFile(mode="w+") as errors:
        process = subprocess.Popen([sys.executable, "-m", "lofkit", "serve", str(table), "--no-browser", "--port",
                                    str(free_port())], env=env, stdout=subprocess.PIPE, stderr=errors, text=True)
        try:
            line = ready_line(process)
            if not line.startswith(READY.format(url="http://")):
                errors.seek(0)
                raise RuntimeError(f"lofkit serve printed no READY line but {line!r}: {errors.read()}")
            yield line.removeprefix(READY.format(url="")).split("/?")[0].rstrip("/")
        finally:
            stop(process)


def ready_line(process: subprocess.Popen) -> str:
    """The first line on the server's stdout ('' if it ends or stays silent for READY_TIMEOUT first)."""
    ready, _, _ = select.select([process.stdout], [], [], READY_TIMEOUT)
    return process.stdout.readline().rstrip("\n") if ready else ""


def stop(process: subprocess.Popen) -> None:
    """Ctrl-C, as a user stops the workbench; killed if it does not stop within STOP_TIMEOUT."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    process.stdout.close()


if __name__ == "__main__":
    main(sys.argv[1:])
