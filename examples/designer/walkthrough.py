"""A designer's walkthrough of table A: how much of the table each deployment zone sees, where the firing lanes
run between the zones, and how the layout scores.

Run: python examples/designer/walkthrough.py [--quick] [--executor processes|serial|processes:N|dask://HOST:PORT]
Writes out/designer/: heatmap-blue.png, heatmap-red.png (with counts-<zone>.npy), lanes.png and scorecard.json.

Cells are 2" and viewers stand every 4" over each zone (the CLI's defaults, 1" and 2", cost 16 times as much).
Measured on the 2-core development machine with the default process pool: the exact search takes about 15 s;
`--quick` (a glimpse from a few key eyes) takes seconds, and may differ from the exact answer where a view is
partly blocked. The scorecard and heatmaps alone, from the shell:
`lofkit analyze examples/tables/table-a.yaml --cell-size 2in --viewer-spacing 4in -o out/designer`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import lofkit
from lofkit.design.executors import open_executor
from lofkit.design.exposure import SightOptions
from lofkit.design.scorecard import scorecard
from lofkit.units import INCH
from lofkit.viz.plots import heatmap_picture, lanes_picture

HERE = Path(__file__).resolve().parent
TABLE = HERE.parent / "tables" / "table-a.yaml"
OUT = Path("out") / "designer"


def progress(task: str, done: int, total: int) -> None:
    """One line on stderr per finished step."""
    if done == total:
        print(f"  {task}: all {total} viewer spots done", file=sys.stderr)


def inches(xy) -> str:
    return f'({xy[0] / INCH:.0f}", {xy[1] / INCH:.0f}")'


def main() -> None:
    parser = argparse.ArgumentParser(description="Heatmaps, lanes and the scorecard of table A.")
    parser.add_argument("--quick", action="store_true", help="key eye points only: faster, may differ on a few cells")
    parser.add_argument("--executor", default="processes", help="processes[:N], serial or dask://HOST:PORT")
    args = parser.parse_args()

    started = time.perf_counter()
    world = lofkit.World.from_scene(lofkit.load_scene(TABLE))
    options = SightOptions(cell_size=2 * INCH, viewer_spacing=4 * INCH, quick=args.quick)
    with open_executor(args.executor) as pool:
        card = scorecard(world, TABLE.name, options, pool, progress)
    OUT.mkdir(parents=True, exist_ok=True)

    print(f"{TABLE.name}: {len(world.pieces)} pieces, cells of 2\", viewers every 4\""
          f"{' (quick)' if args.quick else ''}")
    for result in card.heatmaps:
        np.save(OUT / f"counts-{result.side}.npy", result.counts)
        picture = heatmap_picture(world, result, OUT / f"heatmap-{result.side}.png")
        watched = int(np.argmax(result.counts))
        print(f"  {result.side}'s {int(result.viewers.fits.sum())} viewers see {result.exposed_cells} of "
              f"{result.cells} cells ({100 * result.exposed_share:.1f}%); the most watched cell "
              f"{inches(result.centres[watched])} by {result.counts.flat[watched]}; {picture}")
    lanes = card.lanes
    if lanes is not None:
        picture = lanes_picture(world, lanes, OUT / "lanes.png")
        longest = "no lane"
        for i, j, length in lanes.longest(1):
            longest = (f'the longest {length / INCH:.1f}" from {inches(lanes.first.centres[i])} to '
                       f"{inches(lanes.second.centres[j])}")
        print(f"  {lanes.count} lanes between {' and '.join(lanes.sides)}; {longest}; {picture}")
    document = card.to_dict()
    (OUT / "scorecard.json").write_text(json.dumps(document, indent=2), encoding="utf-8")
    print(f"  safe cells (seen from no zone) {100 * document['safe_share']:.1f}%, terrain density "
          f"{100 * document['terrain_density']:.1f}%, symmetry {100 * document['symmetry']:.1f}%, exposure balance "
          f"{100 * document['exposure_balance']:.1f}%; {OUT / 'scorecard.json'}")
    print(f"  {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":  # the process pool starts fresh interpreters that import this file
    main()
