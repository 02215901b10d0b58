"""`lofkit generate`: balanced tables built from a terrain catalogue (flags, progress, the output folder)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import click
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from lofkit.cli.analysis import _options, _progress, sight_options
from lofkit.cli.common import (
    emit_json,
    err,
    folder_message,
    json_option,
    length_option,
    naming,
    out,
    parse_table_size,
    write_json,
)
from lofkit.design import generate as gen
from lofkit.design.executors import open_executor
from lofkit.design.exposure import SightOptions
from lofkit.design.placing import SYMMETRIES, Rules
from lofkit.design.targets import MEASURES, out_of_reach, parse_targets
from lofkit.errors import LofkitError
from lofkit.exchange.output import check_output_folder, write_scene_file
from lofkit.scene.catalog import bundled_catalogs
from lofkit.units import INCH

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*(s|sec|min|m|h)?\s*$")


def _length(text: str, flag: str) -> float:
    return length_option(text, flag, "in", quote=False, note=" (a bare number is in inches)")


def _seconds(text: str | None) -> float | None:
    if text is None:
        return None
    match = _DURATION.match(text)
    if match is None or float(match.group(1)) <= 0:
        raise LofkitError(f"--time-limit '{text}': give a duration such as 300, 300s, 8min or 1h")
    return float(match.group(1)) * {"s": 1, "sec": 1, None: 1, "min": 60, "m": 60, "h": 3600}[match.group(2)]


def _default_catalog() -> str | None:
    found = [p for p in bundled_catalogs() if p.name == "catalog.yaml"]
    return str(found[0]) if found else None


def _outputs(keep: int, sides: tuple[str, ...]) -> list[str]:
    """Every name `generate` may write into its folder."""
    names = ["summary.json", "best.png", "best-tts.json", "best-tts-models"]
    for k in range(1, keep + 1):
        names += [f"best-{k}.yaml", f"best-{k}-scorecard.json"] + [f"best-{k}-heatmap-{s}.png" for s in sides]
    return names


class _SearchBar:
    """The search's progress bar on stderr: steps, the best score so far and whether the targets are met."""

    def __init__(self) -> None:
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("best {task.fields[best]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
        self.bar = Progress(*columns, console=err, transient=True)
        self.task = None

    def __enter__(self):
        self.bar.__enter__()
        self.task = self.bar.add_task("first layouts", total=None, best="-")  # a pulse until the search starts
        return self

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc)

    def __call__(self, done: int, total: int, best: float, met: bool) -> None:
        text = f"{best:.4f}" + (" (targets met)" if met else "")
        self.bar.update(self.task, description="searching", total=total, completed=done, best=text)


def _write(folder: Path, brief, finals, exact: bool, force: bool, pictures: bool, summary: dict) -> dict:
    """Every output file (module docstring of design.generate; README "Designing a table")."""
    from lofkit.exchange.tts_export import TtsPiece, write_tts_save

    written = {"layouts": [], "heatmaps": []}
    for k, final in enumerate(finals, start=1):
        scene = folder / f"best-{k}.yaml"
        data = gen.layout_data(final.layout, brief.rules, brief.kinds, folder)
        comment = (f"made by `lofkit generate` (seed {summary['seed']}): layout {k} of {len(finals)}, score "
                   f"{final.score:.4f}, targets {'met' if final.met else 'not met'}")
        write_scene_file(data, scene, comment=comment, overwrite=force)
        card_path = folder / f"best-{k}-scorecard.json"
        write_json(card_path, {"layout": str(scene), "exact": exact, "score": round(final.score, 6),
                                "targets_met": final.met, "targets": final.targets, "pieces": final.pieces,
                                "scorecard": final.card if final.scorecard is None else final.scorecard.to_dict()})
        written["layouts"].append({"scene": str(scene), "scorecard": str(card_path), "score": round(final.score, 6),
                                   "targets_met": final.met, "pieces": final.pieces})
        if pictures and final.scorecard is not None:
            from lofkit.viz.plots import heatmap_picture

            for result in final.scorecard.heatmaps:
                path = folder / f"best-{k}-heatmap-{result.side}.png"
                heatmap_picture(final.world, result, path)
                written["heatmaps"].append(str(path))
    best = finals[0]
    if pictures:
        from lofkit.viz.render import render

        render(best.world, folder / "best.png", view="top", size=(1000, 1000), layers={"zones"})
        written["picture"] = str(folder / "best.png")
    pieces = [TtsPiece(name, mesh, x, y, rotation) for name, x, y, rotation, mesh in gen.pieces_of(brief, best.layout)]
    write_tts_save(folder / "best-tts.json", pieces, brief.rules.table, folder / "best-tts-models",
                   f"lofkit generate seed {summary['seed']}", note=f"best-1.yaml, score {best.score:.4f}")
    written["tts_save"] = str(folder / "best-tts.json")
    written["tts_models"] = str(folder / "best-tts-models")
    return written


def _print(summary: dict, finals, notes: list[str]) -> None:
    best = finals[0]
    table = Table(title=f"best layout: {summary['best']}", title_justify="left")
    table.add_column("target")
    table.add_column("value", justify="right")
    table.add_column("met", justify="center")
    for t in best.targets:
        table.add_row(t["target"] + (f" (weight {t['weight']:g})" if t["weight"] != 1 else ""), f"{t['value']:g}",
                      "yes" if t["met"] else f"no, short by {t['shortfall']:g}")
    out.print(table)
    search = summary["search"]
    out.print(f"{search['steps']} steps ({search['evaluated']} evaluated, {search['accepted']} taken) over "
              f"{summary['chains']} chains in {search['seconds']:.0f} s, then {summary['final_seconds']:.0f} s for "
              f"{'exact' if summary['exact'] else 'search-grid'} scorecards; score {summary['score']:.4f}, "
              f"targets {'met' if summary['targets_met'] else 'NOT met'}", highlight=False)
    for note in notes:
        err.print(escape(f"note: {note}"), highlight=False)
    one = len(finals) == 1
    pictures = (", its heatmaps" if one else ", their heatmaps") + ", best.png" if "picture" in summary["files"] else ""
    layouts = "1 layout, its scorecard" if one else f"{len(finals)} layouts, their scorecards"
    out.print(f"wrote {layouts}{pictures} and best-tts.json to {summary['folder']}", highlight=False)


@click.command()
@click.option("--catalog", default=_default_catalog, show_default="terrain_models/catalog.yaml",
              help="The terrain catalogue (YAML) to build from.")
@click.option("--pieces", "pieces_text", default="18..30", show_default=True, help="How many pieces: LOW..HIGH.")
@click.option("--target", "target_text", required=True,
              help=f"Targets KEY<=VALUE or KEY>=VALUE, comma separated; keys: {', '.join(MEASURES)}.")
@click.option("--weights", default=None, help="Weights of the targets, KEY=W,... (default 1 each).")
@click.option("--symmetry", type=click.Choice(SYMMETRIES), default="none", show_default=True,
              help="180: each piece with its twin turned half a turn about the centre; mirror: reflected across the "
                   "middle line between the zones.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the search: same seed, same layout.")
@click.option("--steps", type=int, default=3000, show_default=True, help="Steps of the search, all chains together.")
@click.option("--chains", type=int, default=4, show_default=True, help="Chains of the parallel tempering.")
@click.option("--keep", type=int, default=3, show_default=True, help="Best layouts written (each scored exactly).")
@click.option("--table", "table_text", default="48inx48in", show_default=True, help="The table, WIDTHxDEPTH.")
@click.option("--zone-depth", default="12in", show_default=True,
              help="Depth of each deployment zone, along the near and the far edge.")
@click.option("--edge-gap", default="0.5in", show_default=True, help="Least gap between a piece and a table edge.")
@click.option("--tall", default="40mm", show_default=True,
              help="Pieces at least this high are tall (40 mm: as high as an S2 trooper).")
@click.option("--tall-gap", default="1in", show_default=True, help="Least gap between two tall pieces.")
@click.option("--playable", type=float, default=0.6, show_default=True,
              help="Least share of each zone where a base stands clear of terrain.")
@click.option("--margin", type=float, default=gen.DEFAULT_MARGIN, show_default=True,
              help="How far past each target the search aims (shares; mm and counts x1000).")
@click.option("--search-cell-size", default=f"{gen.SEARCH_OPTIONS.cell_size / INCH:g}in", show_default=True,
              help="Cells of the search's grid.")
@click.option("--search-viewer-spacing", default=f"{gen.SEARCH_OPTIONS.viewer_spacing / INCH:g}in", show_default=True,
              help="Viewers of the search's heatmaps (its lanes always use the final --viewer-spacing).")
@click.option("--time-limit", default=None, help="Stop searching after this long (e.g. 6min): the layout then "
              "depends on the machine's speed.")
@click.option("--all-steps", is_flag=True, help="Take every step even once the targets are met.")
@click.option("--pictures/--no-pictures", default=True, show_default=True, help="Draw best.png and the heatmaps.")
@click.option("--force", is_flag=True, help="Replace an earlier run's files in the folder.")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False), help="The folder to write.")
@sight_options
@json_option
def generate(catalog, pieces_text, target_text, weights, symmetry, seed, steps, chains, keep, table_text, zone_depth,
             edge_gap, tall, tall_gap, playable, margin, search_cell_size, search_viewer_spacing, time_limit,
             all_steps, pictures, force, output, executor, as_json, **named) -> None:
    """Build balanced layouts from a terrain catalogue: a search by parallel tempering until the scorecard meets
    the targets, then exact scorecards of the best layouts (the final scorecard's options are `analyze`'s)."""
    if catalog is None:
        raise LofkitError("--catalog: give a terrain catalogue (YAML), e.g. terrain_models/catalog.yaml")
    targets = parse_targets(target_text, weights)
    table = parse_table_size(table_text)
    if not 0 <= playable <= 1:
        raise LofkitError(f"--playable {playable:g}: give a share from 0 to 1")
    if keep < 1:
        raise LofkitError("--keep: give 1 or more")
    rules = Rules(table, gen.standard_zones(table, _length(zone_depth, "--zone-depth")),
                  gen.parse_pieces(pieces_text, symmetry), _length(edge_gap, "--edge-gap"), _length(tall_gap, "--tall-gap"),
                  length_option(tall, "--tall", "mm"), playable, symmetry=symmetry)
    final = _options(**named)
    spacing = _length(search_viewer_spacing, "--search-viewer-spacing")
    search_options = SightOptions(final.probe_silhouette, final.viewer_silhouette,
                                  _length(search_cell_size, "--search-cell-size"), spacing, final.max_range, True)
    limit = _seconds(time_limit)
    folder = Path(output)
    with naming({}, folder_message("the layouts", "run")):  # before any work
        check_output_folder(folder, _outputs(keep, gen.SIDES), force, [catalog])
    brief, notes = gen.make_brief(catalog, rules, targets, search_options, final, margin)
    unreachable = out_of_reach(targets)
    for note in unreachable:
        err.print(f"[yellow]warning:[/] {escape(note)}", highlight=False)
    notes = unreachable + notes
    with open_executor(executor) as pool:
        try:
            with _SearchBar() as bar:
                run = gen.generate(brief, seed, steps, chains, pool, bar, not all_steps, limit, final)
        except KeyboardInterrupt:  # the search keeps what it found; this is before the first layouts were made
            err.print("interrupted (Ctrl-C) before the first layouts were made: nothing written", highlight=False)
            raise click.exceptions.Exit(130) from None
        found = run.search
        start, exact = time.perf_counter(), found.stopped != "interrupted"
        if found.stopped == "interrupted":
            notes.append("interrupted (Ctrl-C): the best layout so far is written with its search-grid scorecard; "
                         "run `lofkit analyze` on it for the exact one")
        try:
            with _progress() as progress:
                finals = gen.finish(brief, run, keep, final if exact else None, pool, progress)
        except KeyboardInterrupt:
            exact = False
            notes.append("interrupted (Ctrl-C) during the exact scorecards: the layouts are written with their "
                         "search-grid scorecards")
            finals = gen.finish(brief, run, keep, None)
        final_seconds = time.perf_counter() - start
    if found.stopped == "met":
        notes.append("the search stopped once the targets were met with its margin and the exact scorecard of its "
                     "best layout confirmed them (--all-steps runs every step)")
    if found.stopped == "time":
        notes.append(f"the search stopped at the time limit ({limit:g} s)")
    best = finals[0]
    summary = {"best": str(folder / "best-1.yaml"), "score": round(best.score, 6), "steps": found.steps,
               "targets_met": best.met, "targets": best.targets, "exact": exact, "seed": seed, "chains": chains,
               "folder": str(folder), "final_seconds": round(final_seconds, 3),
               "search": {"steps": found.steps, "evaluated": found.evaluated, "accepted": found.accepted,
                          "rounds": found.rounds, "swaps": found.swaps, "seconds": round(found.seconds, 3),
                          "stopped": found.stopped, "best_search_score": round(found.elite(1)[0][0], 6),
                          "margins": [round(m, 4) for m in found.margins], "checks": run.checks},
               "notes": notes}
    summary["files"] = _write(folder, brief, finals, exact, force, pictures, summary)
    write_json(folder / "summary.json", summary)
    if as_json:
        emit_json(summary)
        return
    _print(summary, finals, notes)


COMMANDS: list[click.Command] = [generate]
