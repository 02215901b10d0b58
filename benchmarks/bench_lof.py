"""Line of fire on the example tables: ray engine, single queries and the full matrix, each against a baseline.

On examples/tables/table-b.yaml (44 pieces with hollow buildings made of convex panels; 33 volumes) and
examples/tables/table-c.yaml (16 real pieces: one non-convex body each, thousands of triangles, some not watertight;
28 volumes), in one run, for each table:
1. the World build time, with the first use of `world.convex_parts` (the inner parts come from the disk cache
   once computed; the first run computes them);
2. raw Embree: random segments across the table volume through `world.blocking_rays.occluded` (best of 3), against
   trimesh's own ray engine (`RayMeshIntersector` on the concatenated blocking meshes, first hit compared with the
   segment length) on a small sample, scaled, with the two engines' agreement on that sample;
3. single-query latency: `check` for seeded random ordered pairs, p50/p95, and the share with sight;
4. the full ordered-pair `matrix`, best of `--repeat` runs on fresh worlds: wall time, segments cast (counted
   through the `progress` callback), segments/s;
5. the brute-force reference `sight_brute_force`, timed pair by pair. By default on a seeded sample of unordered
   pairs stratified by the fast verdict (half seen, half hidden), scaled to every pair by the mean time per pair in
   each stratum (with a standard error); `--full-brute` runs every pair (tens of minutes) and reports exact
   identity. Sight verdicts of the two searches are compared pair by pair; any difference is listed by trooper id.
Then the tables side by side: the matrix's cost per unordered pair in ray-equivalents (wall time x the raw Embree
rate measured on the same table in the same run / pairs), so that a table whose rays cost more is not blamed for it.
Ratios are printed, and the worst table's against table-b; nothing is asserted about timings (targets: a matrix at
least 15x faster than brute force, and every table's cost per pair within 1.5x of table-b's). `--corpus` adds the
tables of benchmarks/corpus/ (third-party meshes).

Run: `python benchmarks/bench_lof.py [--table T ...] [--corpus] [--quick] [--repeat N] [--brute-pairs N]
[--full-brute] [--seed S]`.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import trimesh
from trimesh.ray.ray_triangle import RayMeshIntersector

from lofkit import World, load_scene
from lofkit.rules.lof import check, matrix
from lofkit.testing import sight_brute_force

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus_tables import add_table_options, against_baseline, chosen_tables  # noqa: E402

TARGET_RATIO = 15.0
TARGET_PER_PAIR = 1.5
"""Any table's matrix cost per pair against table-b's, at most."""
DEFAULTS = {"segments": 1_000_000, "trimesh": 1_000, "queries": 60, "brute_pairs": 40}
QUICK = {"segments": 100_000, "trimesh": 200, "queries": 20, "brute_pairs": 10}


def timed(fn, *args, **kwargs):
    """(result, seconds) of one call."""
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def best_time(fn, *args, repeat: int = 3) -> float:
    """Fastest of `repeat` calls, in seconds."""
    return min(timed(fn, *args)[1] for _ in range(repeat))


def pair_name(world, pair: tuple[int, int]) -> str:
    a, b = pair
    return f"{world.troopers.ids[a]} / {world.troopers.ids[b]} (indices {a}, {b})"


# --- 1. the world ------------------------------------------------------------------------------------------------


def build_world(path: Path) -> World:
    scene, load_s = timed(load_scene, path)
    world, build_s = timed(World.from_scene, scene)
    parts, parts_s = timed(lambda: world.convex_parts)
    v = world.troopers
    triangles = sum(len(world.pieces[i].mesh.faces) for i in world.blocking_pieces)
    print(f"table {path.name}: {len(world.pieces)} pieces ({len(world.blocking_pieces)} blocking, {triangles:,} "
          f"triangles), {len(v)} volumes ({len(v) - int(v.marker.sum())} troopers, {int(v.marker.sum())} markers)")
    print(f"  load {load_s * 1e3:.0f} ms, World.from_scene {build_s * 1e3:.0f} ms, convex_parts first use "
          f"{parts_s * 1e3:.0f} ms ({len(parts.piece)} convex parts); total {(load_s + build_s + parts_s) * 1e3:.0f} ms")
    return world


# --- 2. raw ray engines --------------------------------------------------------------------------------------------


def random_segments(world, count: int, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Segments between uniform random points of the table volume up to the highest trooper top, as float32
    origins, unit directions and lengths (the back-end copies the lengths into the writable buffer embreex needs)."""
    high = np.array([world.scene.table.width, world.scene.table.depth, float(world.troopers.top.max())])
    starts, ends = rng.uniform(0, high, (count, 3)), rng.uniform(0, high, (count, 3))
    lengths = np.linalg.norm(ends - starts, axis=1)
    directions = (ends - starts) / lengths[:, None]
    as32 = lambda x: np.ascontiguousarray(x, dtype=np.float32)  # noqa: E731
    return as32(starts), as32(directions), as32(lengths)


def trimesh_blocked(intersector: RayMeshIntersector, origins, directions, lengths) -> np.ndarray:
    """Segment test with trimesh's engine: the first hit along each ray, compared with the segment length."""
    o, d = origins.astype(np.float64), directions.astype(np.float64)
    locations, rays, _ = intersector.intersects_location(o, d, multiple_hits=False)
    blocked = np.zeros(len(o), dtype=bool)
    if len(rays):
        distance = np.linalg.norm(locations - o[rays], axis=1)
        blocked[rays[distance <= lengths[rays]]] = True
    return blocked


def bench_rays(world, segments: int, sample: int, rng) -> float:
    """Print the raw engines' rates; returns Embree's, in segments/s."""
    o, d, t = random_segments(world, segments, rng)
    embree_s = best_time(world.blocking_rays.occluded, o, d, t)
    embree_rate = segments / embree_s
    share = world.blocking_rays.occluded(o, d, t).mean()
    print("\nraw Embree (world.blocking_rays.occluded; float32 origins, unit directions, lengths; one call, best of 3)")
    print(f"  {segments:,} random segments in {embree_s * 1e3:.0f} ms: {embree_rate / 1e6:.2f} M segments/s "
          f"({share:.0%} blocked)")

    mesh = trimesh.util.concatenate([world.pieces[i].mesh for i in world.blocking_pieces])
    intersector = RayMeshIntersector(mesh)
    _, tree_s = timed(lambda: mesh.triangles_tree)  # built on first use; kept out of the rate
    os_, ds, ts = o[:sample], d[:sample], t[:sample]
    blocked, trimesh_s = timed(trimesh_blocked, intersector, os_, ds, ts)
    trimesh_rate = sample / trimesh_s
    agree = int((blocked == world.blocking_rays.occluded(os_, ds, ts)).sum())
    print(f"trimesh RayMeshIntersector (ray_triangle, first hit vs length; rtree built in {tree_s * 1e3:.0f} ms)")
    print(f"  {sample:,} of the same segments in {trimesh_s:.2f} s: {trimesh_rate:,.0f} segments/s "
          f"({segments:,} would take ~{segments / trimesh_rate:,.0f} s)")
    print(f"  agrees with Embree on {agree} of {sample} segments; Embree/trimesh {embree_rate / trimesh_rate:,.0f}x")
    return embree_rate


# --- 3. single queries ---------------------------------------------------------------------------------------------


def random_ordered_pairs(count: int, n: int, rng) -> list[tuple[int, int]]:
    pairs = []
    while len(pairs) < count:
        a, b = rng.choice(n, 2, replace=False).tolist()
        pairs.append((a, b))
    return pairs


def bench_check(world, count: int, rng) -> None:
    ids = world.troopers.ids
    times, seen = [], 0
    for a, b in random_ordered_pairs(count, len(ids), rng):
        verdict, seconds = timed(check, world, ids[a], ids[b])
        times.append(seconds)
        seen += verdict.sight
    p50, p95 = np.percentile(np.array(times) * 1e3, [50, 95])
    print(f"\nsingle query check(world, a, b), {count} seeded random ordered pairs")
    print(f"  p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {max(times) * 1e3:.1f} ms; {seen} of {count} "
          f"({seen / count:.0%}) with sight")


# --- 4. the full matrix --------------------------------------------------------------------------------------------


def bench_matrix(path: Path, repeat: int) -> tuple[dict[tuple[int, int], bool], float]:
    """Time `matrix`, best of `repeat` runs, each on a fresh world (nothing learned carried over); returns the
    sight verdict of every unordered pair and the best wall time."""
    runs = []
    for _ in range(repeat):
        world = World.from_scene(load_scene(path))
        world.convex_parts  # noqa: B018 - built before the clock starts, as `build_world` times it
        cast = [0, 0]  # segments cast (Embree), and settled by compiled tests against convex parts

        def count(n: int, tested: int = 0, cast=cast) -> None:
            cast[0] += n
            cast[1] += tested

        result, seconds = timed(matrix, world, count)
        runs.append((seconds, result, cast))
    seconds, result, cast = min(runs, key=lambda run: run[0])
    v = world.troopers
    seen = {}
    for verdict in result.verdicts:
        a, b = v.index(verdict.shooter), v.index(verdict.target)
        seen[min(a, b), max(a, b)] = verdict.sight
    print(f"\nfull matrix(world): {len(result.verdicts)} ordered pairs ({len(seen)} unordered, "
          f"{sum(seen.values())} with sight)")
    print(f"  {seconds:.2f} s wall (best of {repeat}: {', '.join(f'{r[0]:.2f}' for r in runs)} s); {cast[0]:,} "
          f"segments cast: {cast[0] / seconds / 1e6:.2f} M segments/s effective (and {cast[1]:,} settled by compiled "
          f"tests against convex parts)")
    return seen, seconds


# --- 5. brute force ------------------------------------------------------------------------------------------------


def stratified_sample(fast: dict[tuple[int, int], bool], count: int, rng) -> list[tuple[int, int]]:
    """About half seen and half hidden pairs (by the fast verdict), seeded; every pair when count covers them."""
    chosen = []
    for flag, share in ((True, count // 2), (False, count - count // 2)):
        stratum = sorted(p for p, s in fast.items() if s == flag)
        take = min(share, len(stratum))
        chosen += [stratum[i] for i in sorted(rng.choice(len(stratum), take, replace=False).tolist())]
    return chosen


def time_brute(world, pairs: list[tuple[int, int]]) -> dict[tuple[int, int], tuple[bool, float]]:
    """Brute-force sight of each pair on its own: {pair: (seen, seconds)}."""
    out = {}
    for k, pair in enumerate(pairs, 1):
        result, seconds = timed(sight_brute_force, world, [pair])
        out[pair] = (result[pair].seen, seconds)
        if len(pairs) > 50 and k % 50 == 0:
            print(f"  ... brute force {k}/{len(pairs)} pairs", file=sys.stderr, flush=True)
    return out


def estimate_total(fast: dict, brute: dict) -> tuple[float, float]:
    """Brute-force time over every pair: per stratum (fast verdict), pairs x mean sampled time; with its standard
    error (finite-population corrected; 0 when every pair was run)."""
    total, variance = 0.0, 0.0
    for flag in (True, False):
        times = np.array([seconds for pair, (_, seconds) in brute.items() if fast[pair] == flag])
        size = sum(1 for s in fast.values() if s == flag)
        if size == 0:
            continue
        if len(times) == 0:
            return math.nan, math.nan
        total += size * times.mean()
        if len(times) > 1:
            variance += (size**2) * times.var(ddof=1) / len(times) * (1 - len(times) / size)
    return total, math.sqrt(variance)


def bench_brute(world, fast: dict, fast_s: float, pairs: list[tuple[int, int]]) -> None:
    full = len(pairs) == len(fast)
    brute = time_brute(world, pairs)
    estimate, error = estimate_total(fast, brute)
    for flag, name in ((True, "seen"), (False, "hidden")):
        times = [seconds for pair, (_, seconds) in brute.items() if fast[pair] == flag]
        if times:
            print(f"  {name:<6} {len(times):>3} of {sum(1 for s in fast.values() if s == flag):>3} pairs run: "
                  f"mean {np.mean(times):.2f} s, min {min(times):.2f} s, max {max(times):.2f} s per pair")
    if full:
        print(f"  brute force, every pair: {estimate:.1f} s ({estimate / 60:.1f} min), measured")
    else:
        print(f"  brute force, all {len(fast)} pairs: ~{estimate:.0f} s ± {error:.0f} s "
              f"(~{estimate / 60:.1f} min), estimated from {len(pairs)} sampled pairs")
    ratio = estimate / fast_s
    print(f"  fast matrix {fast_s:.2f} s vs brute force {estimate:.0f} s: {ratio:.1f}x "
          f"(target >= {TARGET_RATIO:.0f}x: {'met' if ratio >= TARGET_RATIO else 'NOT met'})")
    report_identity(world, fast, brute)


def report_identity(world, fast: dict, brute: dict) -> None:
    differ = [pair for pair, (seen, _) in brute.items() if seen != fast[pair]]
    seen = sum(1 for pair, (s, _) in brute.items() if s and pair not in differ)
    same = len(brute) - len(differ)
    print(f"  identical sight verdicts: {'yes' if not differ else 'NO'} ({same} of {len(brute)} pairs agree: "
          f"{seen} seen, {same - seen} hidden by both)")
    for pair in differ:
        print(f"  DIFFERENT {pair_name(world, pair)}: fast says {'seen' if fast[pair] else 'hidden'}, "
              f"brute force says {'seen' if brute[pair][0] else 'hidden'}")


def bench_table(path: Path, args, sizes: dict, rng) -> tuple[float, float, int]:
    """Every section on one table; returns the matrix's best wall time, the raw Embree rate and the unordered pairs."""
    print(f"\n=== {path.name} ===")
    world = build_world(path)
    rate = bench_rays(world, sizes["segments"], sizes["trimesh"], rng)
    bench_check(world, sizes["queries"], rng)
    fast, fast_s = bench_matrix(path, args.repeat)
    count = len(fast) if args.full_brute else (args.brute_pairs or sizes["brute_pairs"])
    pairs = sorted(fast) if args.full_brute else stratified_sample(fast, count, rng)
    print(f"\nbrute force sight_brute_force, pair by pair, "
          f"{'every pair' if args.full_brute else f'{len(pairs)} seeded pairs stratified seen/hidden'}")
    bench_brute(world, fast, fast_s, pairs)
    return fast_s, rate, len(fast)


def compare(results: dict[str, tuple[float, float, int]]) -> None:
    """The matrix's cost per unordered pair on each table, in ray-equivalents, and each against table-b's."""
    print("\nmatrix cost per unordered pair (wall time x raw Embree rate on the same table / pairs)")
    cost = {}
    for name, (seconds, rate, pairs) in results.items():
        cost[name] = seconds * rate / pairs
        print(f"  {name}: {seconds:.2f} s x {rate / 1e6:.2f} M segments/s / {pairs} pairs = {cost[name]:,.0f} "
              f"ray-equivalents per pair ({seconds / pairs * 1e3:.1f} ms)")
    against_baseline(cost, "matrix cost per pair", TARGET_PER_PAIR)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_table_options(parser)
    parser.add_argument("--quick", action="store_true", help="smoke run: fewer segments, queries and brute pairs")
    parser.add_argument("--repeat", type=int, default=3, help="matrix runs per table; the best is reported")
    parser.add_argument("--brute-pairs", type=int, default=None, help="unordered pairs sampled for brute force")
    parser.add_argument("--full-brute", action="store_true", help="brute force on every pair (tens of minutes)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    sizes = QUICK if args.quick else DEFAULTS
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; seed {args.seed}"
          f"{'; quick' if args.quick else ''}")
    results = {path.name: bench_table(path, args, sizes, rng) for path in chosen_tables(args)}
    compare(results)
    print(f"\nrun took {time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
