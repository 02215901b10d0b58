"""Exact face-to-face odds: per-value counting against brute-force enumeration, timed in the same run.

The brute force (`f2f_distribution_enumerated`, numpy over every dice combination) is timed at 2 vs 2 and 3 vs 2,
and its cost per combination is scaled to the 20^12 combinations of 6 vs 6 to estimate what enumerating that would
take. Run: `python benchmarks/bench_f2f.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import time

from lofkit.dice.distribution import f2f_distribution
from lofkit.testing import f2f_distribution_enumerated

FAST_CASES = [(15, 6, 13, 6), (23, 6, 12, 6), (12, 3, 11, 1), (13, 4, 14, 2), (11, 1, 11, 1)]
BRUTE_CASES = [(15, 2, 13, 2), (15, 3, 13, 2)]
TARGET = (15, 6, 13, 6)


def best_time(fn, *args, repeat: int) -> float:
    """Fastest of `repeat` calls, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def label(case: tuple[int, int, int, int]) -> str:
    sv1, b1, sv2, b2 = case
    return f"{sv1}x{b1} vs {sv2}x{b2}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timings per case; the fastest is kept")
    args = parser.parse_args()

    print(f"{'case':<16} {'combinations':>22} {'fast (ms)':>12}")
    fast = {}
    for case in FAST_CASES:
        fast[case] = best_time(f2f_distribution, *case, repeat=args.repeat)
        print(f"{label(case):<16} {20 ** (case[1] + case[3]):>22,} {fast[case] * 1e3:>12.3f}")

    print(f"\n{'brute force':<16} {'combinations':>22} {'time (ms)':>12} {'ns/combination':>16} {'fast (ms)':>10}")
    per_combination = []
    for case in BRUTE_CASES:
        combos = 20 ** (case[1] + case[3])
        brute = best_time(f2f_distribution_enumerated, *case, repeat=max(1, args.repeat // 2))
        assert f2f_distribution_enumerated(*case) == f2f_distribution(*case), f"methods disagree on {label(case)}"
        per_combination.append(brute / combos)
        fast_ms = best_time(f2f_distribution, *case, repeat=args.repeat) * 1e3
        print(f"{label(case):<16} {combos:>22,} {brute * 1e3:>12.1f} {brute / combos * 1e9:>16.1f} {fast_ms:>10.3f}")

    estimate = min(per_combination) * 20 ** (TARGET[1] + TARGET[3])
    ratio = estimate / fast[TARGET]
    print(
        f"\n{label(TARGET)}: fast {fast[TARGET] * 1e3:.3f} ms; brute force estimated "
        f"{estimate:,.0f} s (~{estimate / 86400 / 365:,.1f} years) at its best per-combination cost; "
        f"ratio {ratio:.2e}"
    )


if __name__ == "__main__":
    main()
