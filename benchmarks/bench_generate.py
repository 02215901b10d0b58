"""`lofkit generate` on two briefs: a 48" x 48" table with the standard zones (examples/tables' table-a: the whole
width, 12" deep at each end), 18..30 pieces of terrain_models/catalog.yaml, half-turn symmetry, a fixed seed, on this
machine's cores:
- the issue's targets, zone_visible_share<=0.7 and safe_share>=0.05 (a table of walls meets them: the chains' first
  layouts usually do);
- an open but safe table, zone_visible_share>=0.4 as well (walls hide too much: the search must open lanes and
  keep corridors where bases hide).

In one run:
1. each brief as a user runs it (a subprocess, `--json`): wall time, the steps it took, the best layout's exact
   scorecard (`SightOptions()` defaults, as `lofkit analyze` without --quick) and whether it meets the targets;
   the target is all of it within 10 minutes, the symmetry of the scorecard at least 0.95;
2. the incremental evaluation against full recomputations on the same brief: random steps from a first layout,
   each evaluated both ways (their matrices compared), the time of each, and the speed ratio.

Run: `python benchmarks/bench_generate.py [--seed 1] [--steps 3000] [--executor processes] [--ratio-steps 30]
[-o out/bench-generate]`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from lofkit.design.exposure import SightOptions
from lofkit.design.generate import SEARCH_OPTIONS, make_brief, standard_zones
from lofkit.design.incremental import Evaluator
from lofkit.design.moves import propose, walled_layout
from lofkit.design.placing import Rules, changed_pieces, rule_breaks
from lofkit.design.targets import parse_targets
from lofkit.units import INCH

REPO = Path(__file__).resolve().parents[1]
TARGETS = "zone_visible_share<=0.7,safe_share>=0.05"
OPEN_TARGETS = "zone_visible_share>=0.4,zone_visible_share<=0.7,safe_share>=0.05"
BUDGET = 600.0
"""Seconds the whole command may take."""


def run_command(args, targets: str, folder: Path) -> tuple[dict, float]:
    if folder.exists():
        shutil.rmtree(folder)
    command = [sys.executable, "-m", "lofkit", "generate", "--catalog", str(REPO / "terrain_models" / "catalog.yaml"),
               "--pieces", "18..30", "--target", targets, "--symmetry", "180", "--seed", str(args.seed),
               "--steps", str(args.steps), "--executor", args.executor, "-o", str(folder), "--json"]
    if args.time_limit:
        command += ["--time-limit", args.time_limit]
    print("$ lofkit " + " ".join(command[3:]), flush=True)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        print(done.stderr)
        raise SystemExit(f"lofkit generate exited {done.returncode}")
    return json.loads(done.stdout), seconds


def speed_ratio(steps: int, seed: int) -> None:
    """Incremental updates against full evaluations on the benchmark's own brief and search grid."""
    side = 48 * INCH
    rules = Rules((side, side), standard_zones((side, side)), (18, 30), symmetry="180")
    brief = make_brief(REPO / "terrain_models" / "catalog.yaml", rules, parse_targets(TARGETS), SEARCH_OPTIONS,
                       SightOptions())[0]
    evaluator = Evaluator.build(brief.rules, brief.kinds, SEARCH_OPTIONS, brief.final_spacing)
    rng = np.random.default_rng(seed)
    layout = walled_layout(brief, rng)
    state = evaluator.full(layout)
    times, pairs, equal = {"incremental": 0.0, "full": 0.0}, {"incremental": 0, "full": 0}, True
    taken = 0
    while taken < steps:
        after = propose(brief, layout, rng)
        change = changed_pieces(layout, after, brief.rules, brief.kinds)
        if not change or rule_breaks(after, brief.rules, brief.kinds, list(change.fresh)):
            continue
        world = evaluator.world(after)
        start = time.perf_counter()
        updated = evaluator.update(state, after, change, world)
        times["incremental"] += time.perf_counter() - start
        start = time.perf_counter()
        full = evaluator.full(after, world)
        times["full"] += time.perf_counter() - start
        pairs["incremental"] += updated.recomputed
        pairs["full"] += full.recomputed
        equal &= all(np.array_equal(a, b) for a, b in zip(updated.seen, full.seen))
        layout, state, taken = after, updated, taken + 1
    print(f"\nincremental vs full evaluation, {steps} random steps on the same brief (cells "
          f"{SEARCH_OPTIONS.cell_size / INCH:g}\", viewers every {SEARCH_OPTIONS.viewer_spacing / INCH:g}\", one core):")
    for name in ("incremental", "full"):
        print(f"  {name:12s} {1000 * times[name] / steps:7.1f} ms a step, {pairs[name] / steps:9.0f} pairs a step")
    print(f"  speed ratio {times['full'] / times['incremental']:.2f}x (pairs {pairs['full'] / pairs['incremental']:.2f}x);"
          f" incremental matrices equal to the full ones: {equal}")


def report(summary: dict, seconds: float) -> None:
    card = json.loads(Path(summary["files"]["layouts"][0]["scorecard"]).read_text())
    doc = card["scorecard"]
    search = summary["search"]
    print(f"wall time {seconds:.1f} s (budget {BUDGET:.0f} s: {'within' if seconds <= BUDGET else 'OVER'}): search "
          f"{search['seconds']:.1f} s, {search['steps']} steps ({search['evaluated']} evaluated, {search['accepted']} "
          f"taken, {search['rounds']} rounds, {search['swaps']} swaps), stopped: {search['stopped']}; exact "
          f"scorecards {summary['final_seconds']:.1f} s")
    for check in search["checks"]:
        print(f"  exact check at step {check['steps']}: search grid {check['coarse']}, exact {check['exact']}, "
              f"{'met' if check['met'] else 'short: margins now ' + str(check['margins'])}")
    print(f"best layout {summary['best']}: {card['pieces']} pieces, score {summary['score']:.4f}, exact scorecard: "
          f"{card['exact']}")
    for key in ("zone_visible_share", "exposed_share", "safe_share", "lanes", "longest_lane_mm", "terrain_density",
                "symmetry", "exposure_balance", "cells"):
        print(f"  {key:20s} {doc[key]}")
    for t in summary["targets"]:
        print(f"  target {t['target']:24s} value {t['value']:<8g} {'met' if t['met'] else 'NOT met'}"
              + ("" if t["met"] else f", short by {t['shortfall']:g}"))
    print(f"targets met: {summary['targets_met']}; symmetry {doc['symmetry']} "
          f"({'>=' if doc['symmetry'] >= 0.95 else '<'} 0.95)\n", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--time-limit", default=None)
    parser.add_argument("--executor", default="processes")
    parser.add_argument("--ratio-steps", type=int, default=30)
    parser.add_argument("-o", "--output", default=str(REPO / "out" / "bench-generate"))
    args = parser.parse_args()
    for name, targets in (("walls", TARGETS), ("open", OPEN_TARGETS)):
        report(*run_command(args, targets, Path(args.output) / name))
    speed_ratio(args.ratio_steps, args.seed)


if __name__ == "__main__":
    main()
