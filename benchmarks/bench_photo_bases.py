"""`lofkit photo`'s bases on a sweep of rendered photos (`lofkit.testing.photo_sweep`): 12 MP photos of random
tables of troopers on bases of 20-120 mm (heads and bodies round from above, black rims, some tops painted) among
barrels (some open), crates, a flat token on the table, and tokens, tanks and troopers on roofs; taken from 25 to
80 degrees above the table, from every side; each table and its noise drawn from its own seed.

For each photo: the bases visible (the camera sees at least 60% of the rim), those proposed within 3 mm of the true
centre with the right size, the false proposals (anything else proposed), the worst miss of a right proposal, and
the time taken (render, then detection). The target: at least 95% of visible bases, no false proposal.

Run: `python benchmarks/bench_photo_bases.py [--photos 36] [--first 0] [--contact 0.25]` (about 5 s a photo);
`--contact` puts a share of the troopers in base contact with another, as in a game in progress (0.25: a quarter).
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")

from lofkit.testing.photo_sweep import MARKERS, VIEWS, score, sweep_photo  # noqa: E402
from lofkit.testing.photo_synthetic import found_in  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=36, help="how many photos (the views repeat every 12)")
    parser.add_argument("--first", type=int, default=0, help="the first photo's number (its seed is 100 + it)")
    parser.add_argument("--contact", type=float, default=0.0,
                        help="the share of troopers standing in base contact with another (0: none)")
    args = parser.parse_args()
    visible = found = false = 0
    worst = 0.0
    print(f"{'photo':>5} {'elev':>4} {'azim':>5} {'visible':>7} {'found':>5} {'false':>5} {'worst mm':>8} "
          f"{'render s':>8} {'detect s':>8}")
    for k in range(args.first, args.first + args.photos):
        start = time.perf_counter()
        shot, table = sweep_photo(k, contact=args.contact)
        rendered = time.perf_counter()
        _, bases = found_in(shot, MARKERS)
        result = score(bases, table, shot.rim_seen)
        done = time.perf_counter()
        elevation, azimuth = VIEWS[k % len(VIEWS)]
        print(f"{k:>5} {elevation:>4} {azimuth:>5} {result.visible:>7} {result.found:>5} {len(result.false):>5} "
              f"{result.worst_mm:>8.2f} {rendered - start:>8.1f} {done - rendered:>8.1f}", flush=True)
        for position, miss, diameter in result.false:
            print(f"      false: {diameter:g} mm at ({position[0]:.0f}, {position[1]:.0f}), nearest base {miss:.0f} mm")
        visible, found, false = visible + result.visible, found + result.found, false + len(result.false)
        worst = max(worst, result.worst_mm)
    share = found / visible if visible else 1.0
    verdict = "met" if share >= 0.95 and not false else "NOT met"
    print(f"total: {found} of {visible} visible bases proposed right ({share:.1%}), {false} false proposals, worst "
          f"right proposal {worst:.2f} mm off; target >= 95% and 0: {verdict}")


if __name__ == "__main__":
    main()
