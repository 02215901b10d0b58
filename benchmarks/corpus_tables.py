"""The tables the benchmarks run on: the example tables, and with `--corpus` the corpus of tables built from
third-party terrain meshes (`benchmarks/corpus/`, see its SOURCES.md), each measured against table-b in the same run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASELINE = REPO / "examples" / "tables" / "table-b.yaml"
EXAMPLES = [BASELINE, REPO / "examples" / "tables" / "table-c.yaml"]
CORPUS = sorted((REPO / "benchmarks" / "corpus").glob("*.yaml"))


def add_table_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--table", type=Path, action="append",
                        help="scene file, repeatable (default: table-b, table-c)")
    parser.add_argument("--corpus", action="store_true",
                        help="also every table of benchmarks/corpus/ (table-b stays the baseline)")


def chosen_tables(args: argparse.Namespace) -> list[Path]:
    """The tables asked for: `--table`s (or table-b and table-c), then the corpus with `--corpus`; table-b first
    whenever a ratio to it is wanted."""
    tables = list(args.table or EXAMPLES)
    if args.corpus:
        tables = [BASELINE, *[t for t in tables if t.resolve() != BASELINE], *CORPUS]
    return list(dict.fromkeys(tables))


def against_baseline(values: dict[str, float], what: str, target: float) -> None:
    """Print each table's `values` (by file name) over table-b's, and the worst of them against `target`."""
    if BASELINE.name not in values or len(values) < 2:
        return
    base = values[BASELINE.name]
    ratios = {name: value / base for name, value in values.items() if name != BASELINE.name}
    print(f"\n{what}, each table / table-b:")
    for name, ratio in ratios.items():
        print(f"  {name:<24} {ratio:6.2f}x")
    worst = max(ratios, key=ratios.get)
    print(f"  worst: {worst} {ratios[worst]:.2f}x (target <= {target:g}x: "
          f"{'met' if ratios[worst] <= target else 'NOT met'})")
