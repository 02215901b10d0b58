"""Layouts that design themselves (`lofkit generate`): catalogue pieces placed under rules, searched by parallel
tempering on a coarse grid until the scorecard meets its targets, the best few then scored exactly.

The parts: `placing` (a layout as integers, the placement rules, symmetry), `incremental` (the coarse scorecard
kept up to date step by step), `targets` (targets, the score), `tempering` (the chains and the executor). This
module turns a user's settings into a `brief.Brief`, runs the search, and scores the best layouts with the
exact scorecard (`scorecard.scorecard`, the very one `lofkit analyze` runs, with the analyses' defaults unless
told otherwise): the search's grid is coarse and its sight a glimpse, so its numbers only guide, and a margin
(`DEFAULT_MARGIN`) makes it aim past each target so that the exact numbers land on the right side.
"""

from __future__ import annotations

import re
from concurrent.futures import Executor
from dataclasses import dataclass, replace
from pathlib import Path

from lofkit.design.brief import Brief
from lofkit.design.exposure import SightOptions
from lofkit.design.placing import (
    TURN_STEP,
    TURNS,
    Kind,
    Layout,
    Rules,
    catalogue_kinds,
    centre_mm,
    layout_data,
    placed,
    turned_footprint,
)
from lofkit.design.scorecard import Progress, Scorecard, scorecard
from lofkit.design.targets import Target, met, report, score
from lofkit.design.tempering import Search, advance, begin, canonical
from lofkit.errors import LofkitError
from lofkit.geometry.world import World
from lofkit.scene.loading import scene_from_data
from lofkit.units import INCH

SEARCH_OPTIONS = SightOptions(cell_size=INCH, viewer_spacing=4 * INCH, quick=True)
"""The search's grid: the exact scorecard's 1 in cells (coarser cells miss the corridors between walls where safe
spots lie), viewers of the heatmaps every 4 in, and the survey's sight (`survey`). The lanes between the zones are
always counted on the final scorecard's viewer grid."""
DEFAULT_MARGIN = 0.02
"""How far past each target the search aims, in the measure's scale (shares: 0.02; mm and counts: 20)."""
ZONE_DEPTH = 12 * INCH
"""The standard deployment zones (examples/tables): the whole width of the table, 12 in deep at each end."""
SIDES = ("blue", "red")
_RANGE = re.compile(r"^\s*(\d+)\s*(?:\.\.|-)\s*(\d+)\s*$")


def parse_pieces(text: str, symmetry: str = "none") -> tuple[int, int]:
    """'18..30' (or '18-30', or one number) as the range of piece counts; with symmetry the range must hold an
    even count, since pieces come in pairs."""
    text = str(text).strip()
    match = _RANGE.match(text)
    if match is None and text.isdigit():
        low = high = int(text)
    elif match is None:
        raise LofkitError(f"--pieces '{text}': give a range of piece counts LOW..HIGH, e.g. 18..30")
    else:
        low, high = (int(v) for v in match.groups())
    if low < 1 or high < low:
        raise LofkitError(f"--pieces '{text}': give 1 <= LOW <= HIGH, e.g. 18..30")
    if symmetry != "none" and low == high and low % 2:
        raise LofkitError(f"--pieces '{text}': with --symmetry {symmetry} pieces come in pairs; give a range with "
                          f"an even count, e.g. {low}..{low + 1}")
    return low, high


def standard_zones(table: tuple[float, float], depth: float = ZONE_DEPTH) -> tuple:
    """Blue's zone along the near edge and red's along the far one, each `depth` deep (examples/tables)."""
    if not 0 < depth < table[1] / 2:
        raise LofkitError(f"--zone-depth {depth / INCH:g}in: give a depth above 0 and below half the table's "
                          f"({table[1] / 2 / INCH:g}in)")
    w, d = table
    return ((SIDES[0], (0.0, 0.0, w, depth)), (SIDES[1], (0.0, d - depth, w, d)))


def _fits_table(kind: Kind, rules: Rules) -> bool:
    """Whether the piece fits inside the edge gaps at some turn."""
    room = (rules.table[0] - 2 * rules.edge_gap, rules.table[1] - 2 * rules.edge_gap)
    for turn in range(TURNS):
        x0, y0, x1, y1 = turned_footprint(kind, turn).bounds
        if x1 - x0 <= room[0] and y1 - y0 <= room[1]:
            return True
    return False


def make_brief(catalog: str | Path, rules: Rules, targets: tuple[Target, ...], search_options: SightOptions,
               final_options: SightOptions, margin: float = DEFAULT_MARGIN) -> tuple[Brief, list[str]]:
    """The search's brief, and notes for the user (pieces left out, and why)."""
    path = Path(catalog)
    if not path.is_file():
        raise LofkitError(f"--catalog {catalog}: no such file; give a terrain catalogue such as "
                          f"terrain_models/catalog.yaml")
    kinds = catalogue_kinds(str(path.resolve()))
    notes, usable = [], []
    for k, kind in enumerate(kinds):
        if rules.symmetry == "mirror" and kind.mirror_offset is None:
            notes.append(f"{kind.name} left out: its footprint has no mirror line, so --symmetry mirror cannot pair "
                         f"it with its image")
        elif not _fits_table(kind, rules):
            notes.append(f"{kind.name} left out: it does not fit on the table inside the edge gaps")
        else:
            usable.append(k)
    if not usable:
        raise LofkitError(f"--catalog {catalog}: no piece of the catalogue can be placed under these rules")
    if margin < 0:
        raise LofkitError("--margin: give 0 or more")
    brief = Brief(str(path.resolve()), tuple(usable), rules, targets, search_options, final_options.viewer_spacing,
                  margin)
    return brief, notes


CHECKS = 6
"""Times at most the search stops to score its best layout exactly before it goes on."""
RECHECK = 0.005
"""Added to a margin, beyond the shortfall the exact scorecard showed, when the search goes on."""


@dataclass
class Run:
    """A whole search: the tempering (`tempering.Search`), the exact scorecards computed on the way (canonical
    layout key -> Scorecard), and each check: the steps then, the coarse and exact values, the margins after."""

    search: Search
    exact: dict
    checks: list


def generate(brief: Brief, seed: int, steps: int, chains: int, executor: Executor | None = None,
             progress=None, stop_when_met: bool = True, time_limit: float | None = None,
             final_options: SightOptions | None = None) -> Run:
    """The search, stopping when its best layout meets the targets with the margins; then, with `final_options`,
    that layout is scored exactly, and if the exact scorecard falls short the margins of the targets it misses grow
    by the shortfall (and `RECHECK`) and the search goes on, at most `CHECKS` times, while steps and time remain.
    Deterministic: the same seed and steps give the same layout (unless a time limit stops it)."""
    if steps < 0:
        raise LofkitError("--steps: give 0 or more")
    if chains < 1:
        raise LofkitError("--chains: give 1 or more")
    found = begin(brief, seed, chains, executor)
    run = Run(found, {}, [])
    while True:
        advance(found, steps, executor, progress, stop_when_met, time_limit)
        if found.stopped != "met" or final_options is None or len(run.checks) >= CHECKS:
            return run
        _, layout, coarse = found.elite(1)[0]
        key = canonical(layout, brief.rules, brief.kinds)
        try:
            if key not in run.exact:
                run.exact[key] = scorecard(layout_world(brief, layout, "check.yaml")[1], "check.yaml", final_options,
                                           executor)
        except KeyboardInterrupt:
            found.stopped = "interrupted"
            return run
        doc = run.exact[key].to_dict()
        short = [t.shortfall(doc) for t in brief.targets]
        margins = tuple(m + (d + RECHECK if d > 0 else 0.0) for d, m in zip(short, found.margins))
        confirmed = not any(short)
        run.checks.append({"steps": found.steps, "coarse": [round(t.worst(coarse), 4) for t in brief.targets],
                           "exact": [round(t.worst(doc), 4) for t in brief.targets], "met": confirmed,
                           "margins": [round(m, 4) for m in margins]})
        if confirmed or found.steps >= steps:
            return run
        found.retarget(margins)


@dataclass(frozen=True)
class Final:
    """One kept layout scored exactly: its layout, its scene data (absolute mesh paths) and World, the exact
    scorecard (None when it was not computed: then `card` is the search's coarse one), the score and the targets
    report."""

    layout: Layout
    data: dict
    world: World
    scorecard: Scorecard | None
    card: dict
    score: float
    met: bool
    targets: list[dict]
    search_score: float

    @property
    def pieces(self) -> int:
        return len(self.data["terrain"])


def layout_world(brief: Brief, layout: Layout, name: str) -> tuple[dict, World]:
    data = layout_data(layout, brief.rules, brief.kinds)
    return data, World.from_scene(scene_from_data(data, source=name))


def finish(brief: Brief, run: Run, keep: int, final_options: SightOptions | None,
           executor: Executor | None = None, progress: Progress | None = None) -> list[Final]:
    """The best `keep` layouts scored with the exact scorecard (`final_options`; None: keep the search's coarse
    cards), best first by that score (those scored during the search are not scored again)."""
    if keep < 1:
        raise LofkitError("--keep: give 1 or more")
    finals = []
    for k, (energy, layout, coarse) in enumerate(run.search.elite(keep)):
        name = f"best-{k + 1}.yaml"
        data, world = layout_world(brief, layout, name)
        card, doc = None, {key: value for key, value in coarse.items() if not key.startswith("_")}
        if final_options is not None:
            key = canonical(layout, brief.rules, brief.kinds)
            named = None if progress is None else (lambda t, d, n, s=k + 1: progress(f"layout {s}: {t}", d, n))
            card = run.exact.get(key) or scorecard(world, name, final_options, executor, named)
            card = replace(card, scene=name)
            doc = card.to_dict()
        finals.append(Final(layout, data, world, card, doc, score(brief.targets, doc), met(brief.targets, doc),
                            report(brief.targets, doc), energy))
    return sorted(finals, key=lambda f: (f.score, f.search_score))


def pieces_of(brief: Brief, layout: Layout) -> list[tuple[str, float, float, float, Path]]:
    """(name, x mm, y mm, rotation degrees, mesh) of every piece, as placed."""
    kinds = brief.kinds
    return [(kinds[p[0]].name, *centre_mm(p, brief.rules), float(p[3] * TURN_STEP), kinds[p[0]].mesh)
            for p in placed(layout, brief.rules, kinds)]
