"""Designer commands: `heatmap`, `lanes`, `analyze`, `compare` (exposure of a layout, over many layouts at once)."""

from __future__ import annotations

import csv
from contextlib import contextmanager
from pathlib import Path

import click
import numpy as np
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from lofkit.cli.common import (
    check_outputs,
    emit_json,
    err,
    force_option,
    json_option,
    length_option,
    load_world,
    out,
    scene_argument,
    scene_inputs,
    write_json,
)
from lofkit.design import scorecard as analysis
from lofkit.design.executors import EXECUTOR_HELP, open_executor
from lofkit.design.exposure import SightOptions
from lofkit.errors import LofkitError
from lofkit.units import INCH


def _length(text: str | None, flag: str) -> float | None:
    """A length option of an analysis: a bare number is in inches."""
    if text is None:
        return None
    return length_option(text, flag, "in", quote=False, note=" (a bare number is in inches)")


def sight_options(function):
    """The options every analysis shares, named for what they mean (as GRASS r.viewshed names its own)."""
    options = [
        click.option("--probe-silhouette", type=int, default=2, show_default=True,
                     help="Silhouette of the probe trooper stood on every cell."),
        click.option("--viewer-silhouette", type=int, default=2, show_default=True,
                     help="Silhouette of the viewers over the deployment zone."),
        click.option("--cell-size", default="1in", show_default=True,
                     help="Side of a table cell (bare number: inches)."),
        click.option("--viewer-spacing", default="2in", show_default=True,
                     help="Spacing of the viewer grid over the zone (bare number: inches)."),
        click.option("--max-range", default=None, help="Ignore sight longer than this, base to base (e.g. 24in)."),
        click.option("--quick", is_flag=True, help="A glimpse (5 eyes to 8 points of the other's template each way, "
                     "one clear segment is sight) instead of the 3 x 3 mm search: about ten times faster; a "
                     "few cells differ."),
        click.option("--executor", default="processes", show_default=True, help=EXECUTOR_HELP + "."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _options(probe_silhouette, viewer_silhouette, cell_size, viewer_spacing, max_range, quick) -> SightOptions:
    return SightOptions(probe_silhouette, viewer_silhouette, _length(cell_size, "--cell-size"),
                        _length(viewer_spacing, "--viewer-spacing"), _length(max_range, "--max-range"), quick)


@contextmanager
def _progress():
    """A progress bar with an ETA on stderr, one task per analysis step; yields the `progress` callback."""
    columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        tasks: dict[str, int] = {}

        def report(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done)

        yield report


def _write_counts(result: analysis.Heatmap, npy: Path) -> tuple[str, str]:
    """Counts as NumPy (ny, nx) and as CSV rows (cell centre, probe height, count; -1: the probe does not fit)."""
    csv_path = npy.with_suffix(".csv")
    try:
        npy.parent.mkdir(parents=True, exist_ok=True)
        np.save(npy, result.counts)
        with csv_path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["x_mm", "y_mm", "z_mm", "count"])
            for (x, y), z, count in zip(result.centres, result.z, result.counts.ravel()):
                writer.writerow([f"{x:.3f}", f"{y:.3f}", f"{z:.3f}", int(count)])
    except OSError as exc:
        raise LofkitError(f"cannot write {npy}: {exc.strerror}") from None
    return str(npy), str(csv_path)


@click.command()
@scene_argument
@click.option("--zone", required=True, help="Side whose deployment zone holds the viewers.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="The heatmap PNG to write.")
@click.option("--counts", "counts_path", type=click.Path(dir_okay=False),
              help="Where the counts go (.npy, with a .csv beside it); default: next to the PNG.")
@force_option
@sight_options
@json_option
def heatmap(scene, zone, output, counts_path, force, executor, as_json, **named) -> None:
    """How many viewers in ZONE's deployment zone see a probe on each cell of SCENE: a heatmap over the top view."""
    from lofkit.viz.plots import heatmap_picture

    _picture_path(output)
    counts = Path(counts_path or Path(output).with_suffix(".npy"))
    if counts.suffix.lower() != ".npy":
        raise LofkitError(f"--counts {counts}: give a file name ending in .npy (the CSV is written beside it)")
    check_outputs([output, counts, counts.with_suffix(".csv")], force, scene_inputs(scene))
    world = load_world(scene, quiet=as_json)
    options = _options(**named)
    with open_executor(executor) as pool, _progress() as progress:
        result = analysis.heatmap(world, zone, options, pool, progress)
    npy, csv_path = _write_counts(result, counts)
    heatmap_picture(world, result, output)
    document = {"scene": scene, **result.to_dict(), "counts_file": npy, "csv_file": csv_path, "picture": output}
    if as_json:
        emit_json(document)
        return
    out.print(f"{scene}: {result.exposed_cells} of {result.cells} cells ({100 * result.exposed_share:.1f}%) are seen "
              f"from {zone}'s zone by at least one of {document['viewers']} viewers; the most-watched cell by "
              f"{document['max_count']}", highlight=False)
    out.print(f"  wrote {output}, {npy} and {csv_path}", highlight=False)


@click.command()
@scene_argument
@click.option("--zones", default=None, help="The two sides, e.g. blue,red (default: the scene's first two zones).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Draw the lanes over the top view (PNG).")
@force_option
@sight_options
@json_option
def lanes(scene, zones, output, force, executor, as_json, **named) -> None:
    """Firing lanes between two deployment zones: spots of one with sight of spots of the other."""
    _picture_path(output)
    check_outputs([output], force, scene_inputs(scene))
    world = load_world(scene, quiet=as_json)
    sides = _two_sides(world, zones)
    with open_executor(executor) as pool, _progress() as progress:
        result = analysis.lanes(world, sides, _options(**named), pool, progress)
    if output:
        from lofkit.viz.plots import lanes_picture

        lanes_picture(world, result, output)
    if as_json:
        emit_json({"scene": scene, **result.to_dict()})
        return
    shares = result.visible_share()
    out.print(f"{scene}: {result.count} lanes between {sides[0]} and {sides[1]}; longest "
              f"{result.longest_mm:.0f} mm ({result.longest_mm / INCH:.1f}\")", highlight=False)
    for side, share in shares.items():
        out.print(f"  {100 * share:.1f}% of {side}'s spots are seen from the other zone", highlight=False)
    if output:
        out.print(f"  wrote {output}", highlight=False)


def _picture_path(output: str | None) -> None:
    """Pictures are PNG files: say so before any work is done."""
    if output is not None and Path(output).suffix.lower() != ".png":
        raise LofkitError(f"-o {output}: pictures are written as PNG; give a file name ending in .png")


def _two_sides(world, zones: str | None) -> tuple[str, str]:
    """`--zones A,B`, each one of the scene's zone sides (default: its first two zones)."""
    known = list(dict.fromkeys(z.side for z in world.scene.deployment_zones))
    sides = [s.strip() for s in zones.split(",")] if zones else known[:2]
    unknown = [side for side in sides if side not in known]
    if len(sides) != 2 or unknown:
        given = f"--zones {zones}: " if zones else ""
        problem = f"no deployment zone for side '{unknown[0]}'" if len(sides) == 2 else "lanes need two deployment zones"
        how = (f"write two of them with a comma, e.g. --zones {known[0]},{known[1]}" if len(known) > 1
               else "add a zone per side under deployment_zones")
        raise LofkitError(f"{world.scene.source or 'the scene'}: {given}{problem} (the scene's zones: "
                          f"{', '.join(known) or 'none'}); {how}")
    return sides[0], sides[1]


def _scorecards(scenes, options, executor, quiet) -> list[tuple[str, object, analysis.Scorecard]]:
    """Every layout's scorecard; all scenes are read and checked before the long work starts."""
    worlds = [load_world(scene, quiet=quiet) for scene in scenes]
    for scene, world in zip(scenes, worlds):
        analysis.scored_sides(world, scene)
    found = []
    with open_executor(executor) as pool, _progress() as progress:
        for scene, world in zip(scenes, worlds):
            named = lambda task, done, total, s=Path(scene).stem: progress(f"{s}: {task}", done, total)  # noqa: E731
            found.append((scene, world, analysis.scorecard(world, scene, options, pool, named)))
    return found


def _scorecard_table(cards: list[analysis.Scorecard]) -> Table:
    table = Table(title="layout scorecard", title_justify="left")
    table.add_column("metric")
    for card in cards:
        table.add_column(Path(card.scene).name, justify="right")
    docs = [card.to_dict() for card in cards]
    sides = list(dict.fromkeys(side for d in docs for side in d["exposed_share"]))
    for side in sides:
        table.add_row(f"exposed to {side}'s zone", *[_percent(d["exposed_share"].get(side)) for d in docs])
    table.add_row("safe cells (seen by no zone)", *[_percent(d["safe_share"]) for d in docs])
    table.add_row("DZ-to-DZ lanes", *[f"{d['lanes']:,}" for d in docs])
    table.add_row("longest lane", *[f"{d['longest_lane_mm'] / INCH:.1f}\"" for d in docs])
    for side in sides:
        seen_from_other = [_percent(d["zone_visible_share"].get(side)) for d in docs]
        table.add_row(f"{side}'s zone seen from the other", *seen_from_other)
    table.add_row("terrain density", *[_percent(d["terrain_density"]) for d in docs])
    table.add_row("symmetry of the halves", *[_percent(d["symmetry"]) for d in docs])
    table.add_row("exposure balance", *[_percent(d["exposure_balance"]) for d in docs])
    return table


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.1f}%"


def _picture_names(scenes: list[str]) -> list[str]:
    """A file-name stem per layout: the scene's own, or numbered when two layouts share one."""
    stems = [Path(scene).stem for scene in scenes]
    return [stem if stems.count(stem) == 1 else f"{k + 1}-{stem}" for k, stem in enumerate(stems)]


def _fresh_folder(folder: Path, force: bool, scenes) -> None:
    """Analyses write into a new or empty folder; with --force, also into one holding other files or an earlier
    analysis (whose scorecard and pictures are replaced); never over a file the scenes analysed read."""
    if folder.exists() and not folder.is_dir():
        raise LofkitError(f"{folder} is a file; give a folder for the scorecard and pictures")
    check_outputs([folder / "scorecard.json"], True)  # under no file, and a folder that can be written
    taken = [path for path in scene_inputs(*scenes) if path.parent == folder.resolve() and _analysis_file(path)]
    if taken:
        raise LofkitError(f"{taken[0]} is an input of this run, and an analysis writes (or replaces) files of that "
                          f"name in {folder}; give another folder")
    present = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    if present and not force:
        earlier = [path.name for path in _earlier_analysis(folder)]
        what = "an earlier analysis" if earlier else "other files"
        raise LofkitError(f"{folder} holds {what} ({', '.join((earlier or present)[:3])}); choose a new or empty "
                          f"folder, or pass --force to write into it")


def _analysis_file(path: Path) -> bool:
    """Whether `path` is named as an analysis names its files: the scorecard, or a heatmap picture."""
    return path.name == "scorecard.json" or ("-heatmap-" in path.name and path.suffix == ".png")


def _earlier_analysis(folder: Path) -> list[Path]:
    """The files an earlier analysis wrote in `folder`: its scorecard and heatmap pictures."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and _analysis_file(p))


@click.command()
@click.argument("scenes", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-o", "--output", default="analysis", show_default=True, type=click.Path(),
              help="Folder for scorecard.json and one heatmap picture per layout and zone (new or empty).")
@click.option("--pictures/--no-pictures", default=True, show_default=True, help="Draw the heatmaps.")
@click.option("--force", is_flag=True,
              help="Write into a folder that holds other files or an earlier analysis (whose scorecard and heatmaps "
                   "are replaced as a whole).")
@sight_options
@json_option
def analyze(scenes, output, pictures, force, executor, as_json, **named) -> None:
    """A scorecard per layout: exposure to each zone, safe cells, lanes, terrain density, symmetry."""
    folder = Path(output)
    _fresh_folder(folder, force, scenes)
    found = _scorecards(scenes, _options(**named), executor, as_json)
    document = {"layouts": [card.to_dict() for _, _, card in found]}
    for stale in _earlier_analysis(folder):  # replaced as a whole: no heatmap of a layout no longer analysed stays
        stale.unlink()
    write_json(folder / "scorecard.json", document)
    if pictures:
        from lofkit.viz.plots import heatmap_picture

        for name, (_, world, card) in zip(_picture_names([scene for scene, _, _ in found]), found):
            for result in card.heatmaps:
                heatmap_picture(world, result, folder / f"{name}-heatmap-{result.side}.png")
    if as_json:
        emit_json(document)
        return
    out.print(_scorecard_table([card for _, _, card in found]))
    out.print(f"wrote {folder / 'scorecard.json'}" + (" and the heatmaps" if pictures else ""), highlight=False)


@click.command()
@click.argument("first", type=click.Path(dir_okay=False))
@click.argument("second", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The side-by-side heatmaps (PNG).")
@force_option
@sight_options
@json_option
def compare(first, second, output, force, executor, as_json, **named) -> None:
    """Two layouts side by side: their scorecards and their heatmaps for each zone."""
    from lofkit.viz.plots import comparison_picture

    _picture_path(output)
    check_outputs([output], force, scene_inputs(first, second))
    found = _scorecards((first, second), _options(**named), executor, as_json)
    sides = list(dict.fromkeys(h.side for _, _, card in found for h in card.heatmaps))
    layouts = [(Path(scene).name, world, next((h for h in card.heatmaps if h.side == side), None))
               for side in sides for scene, world, card in found]
    comparison_picture(layouts, output, columns=len(found))
    document = {"layouts": [card.to_dict() for _, _, card in found], "picture": output}
    if as_json:
        emit_json(document)
        return
    out.print(_scorecard_table([card for _, _, card in found]))
    out.print(f"wrote {output}", highlight=False)


COMMANDS: list[click.Command] = [heatmap, lanes, analyze, compare]
