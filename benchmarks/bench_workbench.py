"""What the workbench (`lofkit serve`, to come) must answer fast after a trooper moves, on the live engine it will
keep (`lofkit.rules.live`), on examples/tables/table-b.yaml (33 volumes, 44 pieces):
1. the full LoF matrix, best of 3 (what `GET /api/matrix?recompute=all` will cost): the baseline;
2. for seeded random moves (a trooper to a random spot on the table, facing a random way): the new World
   (`World.with_scene`, terrain kept) and the matrix brought up to date (`LiveMatrix.update`: only the pairs that
   include a changed trooper or whose corridor holds one), p50 / p95 / mean, and their share of the full matrix;
3. one `check` after a move (the new World, then the verdict between the mover and a random trooper), p50 / p95.
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


def moved(world, index: int, rng) -> World:
    """The world with trooper `index` somewhere else on the table, facing another way."""
    v = world.troopers
    r = float(v.radius[index])
    position = (float(rng.uniform(r, world.scene.table.width - r)), float(rng.uniform(r, world.scene.table.depth - r)))
    troopers = list(world.scene.troopers)
    troopers[index] = troopers[index].model_copy(update={"position": position, "facing": float(rng.uniform(0, 360)),
                                                         "facing_towards": None})
    return world.with_scene(world.scene.model_copy(update={"troopers": troopers}))


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
    full = min(timed(lambda: matrix(world))[1] for _ in range(3))
    n = len(world.troopers)
    print(f"{TABLE.name}: {n} troopers, {n * (n - 1) // 2} unordered pairs")
    print(f"full matrix (recompute=all), best of 3: {full:.2f} s")

    rng = np.random.default_rng(args.seed)
    live = LiveMatrix(world)
    updates, recomputed = [], []
    for _ in range(args.moves):
        index = int(rng.integers(n))
        (world, count), seconds = timed(lambda: (lambda w: (w, live.update(w)))(moved(world, index, rng)))
        updates.append(seconds)
        recomputed.append(count)
    same = live.result.to_dict() == matrix(world).to_dict()
    updates = np.array(updates)
    print(f"matrix after one move ({args.moves} seeded moves): p50 {np.median(updates) * 1000:.0f} ms, "
          f"p95 {np.percentile(updates, 95) * 1000:.0f} ms, mean {updates.mean() * 1000:.0f} ms; "
          f"{np.mean(recomputed):.0f} of {n * (n - 1) // 2} pairs recomputed on average")
    print(f"  mean / full: {updates.mean() / full:.1%} (target <= 15%: {'met' if updates.mean() <= 0.15 * full else 'NOT met'});"
          f" p95 / full: {np.percentile(updates, 95) / full:.1%}; identical to a full recomputation: "
          f"{'yes' if same else 'NO'}")

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


if __name__ == "__main__":
    main(sys.argv[1:])
