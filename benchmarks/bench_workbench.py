"""What the workbench (`lofkit serve`, to come) must answer fast after a trooper moves, on the live engine it will
keep (`lofkit.rules.live`), on examples/tables/table-b.yaml (33 volumes, 44 pieces):
1. the full LoF matrix from scratch, best of 3, as `GET /api/matrix?recompute=all` computes it (no evidence: the
   answer shows none; `lof.matrix(world, evidence=False)`): the baseline; and as `lofkit matrix` computes it (counting the blockers
   of every pair without sight), for comparison;
2. for seeded random moves (a trooper to a random spot on the table clear of solid scenery, or up to 6 inches
   from where it stood, facing a random way): the new World
   (`World.with_scene`, terrain kept) and the matrix brought up to date (`LiveMatrix.update`: only the pairs that
   include a changed trooper or whose corridor holds one), p50 / p95 / mean, and their share of the full matrix;
3. one `check` after a move (the new World, then the verdict between the mover and a random trooper), p50 / p95;
4. the same over the HTTP API (`lofkit.workbench.api`, FastAPI's test client): a move and a check, p50 / p95, and
   the matrix after a move against `?recompute=all`.
The live matrix is compared with a full recomputation after the last move (they must be identical).
Targets (printed, never asserted): a check after a move within 100 ms at p95, the matrix after one move within 15%
of a full recomputation.

Run: `python benchmarks/bench_workbench.py [--moves N] [--seed S]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from lofkit import World, check, load_scene
from lofkit.rules.live import LiveMatrix
from lofkit.rules.lof import matrix

TABLE = Path(__file__).resolve().parent.parent / "examples" / "tables" / "table-b.yaml"


def moved(world, index: int, rng, reach: float | None = None) -> World:
    """The world with trooper `index` somewhere else on the table (within `reach` mm of where it stood, when given),
    clear of solid scenery (as a player would put it), facing another way."""
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
        candidate = world.with_scene(world.scene.model_copy(update={"troopers": troopers}))
        if not any(w.where == f"troopers[{index}]" for w in candidate.warnings):
            return candidate
    return candidate


def timed(function):
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    world = World.from_scene(load_scene(TABLE))
    world.convex_parts
    full = min(timed(lambda: matrix(world, evidence=False))[1] for _ in range(3))
    with_evidence = min(timed(lambda: matrix(world))[1] for _ in range(3))
    n = len(world.troopers)
    print(f"{TABLE.name}: {n} troopers, {n * (n - 1) // 2} unordered pairs")
    print(f"full matrix from scratch (recompute=all), best of 3: {full:.2f} s; as `lofkit matrix` computes it, with "
          f"blocker counts: {with_evidence:.2f} s")

    rng = np.random.default_rng(args.seed)
    for reach, words in ((None, "anywhere on the table"), (6 * 25.4, "up to 6 inches away")):
        live = LiveMatrix(world)
        moved_world = world
        updates, recomputed = [], []
        for _ in range(args.moves):
            index = int(rng.integers(n))
            (moved_world, count), seconds = timed(lambda: (lambda w: (w, live.update(w)))(
                moved(moved_world, index, rng, reach)))
            updates.append(seconds)
            recomputed.append(count)
        same = live.result.to_dict() == matrix(moved_world).to_dict()
        updates = np.array(updates)
        print(f"matrix after one move {words} ({args.moves} seeded): p50 {np.median(updates) * 1000:.0f} ms, "
              f"p95 {np.percentile(updates, 95) * 1000:.0f} ms, mean {updates.mean() * 1000:.0f} ms; "
              f"{np.mean(recomputed):.0f} of {n * (n - 1) // 2} pairs recomputed on average")
        print(f"  mean / full: {updates.mean() / full:.1%} (target <= 15%: "
              f"{'met' if updates.mean() <= 0.15 * full else 'NOT met'}); p95 / full: "
              f"{np.percentile(updates, 95) / full:.1%}; mean / `lofkit matrix`: {updates.mean() / with_evidence:.1%}; "
              f"identical to a full recomputation: {'yes' if same else 'NO'}")

    checks = []
    for _ in range(args.moves):
        index = int(rng.integers(n))
        other = int((index + rng.integers(1, n)) % n)
        (_, seconds) = timed(lambda: check(moved(world, index, rng), world.troopers.ids[index],
                                           world.troopers.ids[other]))
        checks.append(seconds)
    checks = np.array(checks)
    p95 = np.percentile(checks, 95)
    print(f"check after a move ({args.moves} seeded): p50 {np.median(checks) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms "
          f"(target <= 100 ms: {'met' if p95 <= 0.1 else 'NOT met'})")
    through_the_api(args.moves, rng)


def through_the_api(moves: int, rng) -> None:
    """The same questions over HTTP (FastAPI's test client, no network): `PUT /api/troopers/ID` then `GET /api/check`,
    and `GET /api/matrix` after a move against `GET /api/matrix?recompute=all`."""
    import tempfile

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
    checks, matrices = np.array(checks), np.array(matrices)
    print(f"over HTTP: move + check p50 {np.median(checks) * 1000:.0f} ms, p95 {np.percentile(checks, 95) * 1000:.0f} ms; "
          f"matrix after a move mean {matrices.mean() * 1000:.0f} ms = {matrices.mean() / full:.1%} of "
          f"?recompute=all ({full:.2f} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
