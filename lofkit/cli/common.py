"""What every `lofkit` sub-command shares: the consoles, scene loading with warnings, JSON output, library errors
worded with flag names, the common arguments and options, and reading lengths, points and table sizes."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from lofkit.errors import LofkitError
from lofkit.exchange.messages import SettingError, render
from lofkit.exchange.output import OutputFolderError, check_output_files, write_text
from lofkit.geometry.world import World
from lofkit.scene.loading import load_scene
from lofkit.scene.model import Scene
from lofkit.units import parse_length

out = Console(soft_wrap=True, emoji=False)  # emoji=False: ":abc:" in an id or a message is text, not a picture
err = Console(stderr=True, soft_wrap=True, highlight=False, emoji=False)
BAD_INPUT = 2


LOADED: dict[str, Scene] = {}
"""The scene files this command read, and their scenes: a message about a trooper id can name the file, and a scene
read to check a command's outputs is not read again for its work. Cleared for each command."""


def read_scene(scene_path: str) -> Scene:
    """The scene in `scene_path`, read once per command."""
    if str(scene_path) not in LOADED:
        LOADED[str(scene_path)] = load_scene(scene_path)
    return LOADED[str(scene_path)]


def load_world(scene_path: str, quiet: bool = False) -> World:
    world = World.from_scene(read_scene(scene_path))
    if not quiet:
        for warning in world.warnings:
            err.print(f"[yellow]warning:[/] {escape(f'{scene_path}: {warning.where}: {warning.message}')}", highlight=False)
    prepare_parts(world)
    return world


def prepare_parts(world: World) -> None:
    """Compute the proof parts of the blocking meshes the disk cache does not hold yet, with a progress bar (about
    a second per new mesh; once per mesh file)."""
    new = [world.pieces[i] for i in world.blocking_pieces if not world.pieces[i].parts_ready]
    if not new:
        return
    columns = (TextColumn("proof parts of new meshes"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as bar:
        for piece in bar.track(new):
            piece.parts  # noqa: B018 - computed and cached here, with the bar


def emit_json(document: dict) -> None:
    click.echo(json.dumps(document, indent=2))


def emit_text(text: str, output: str | None, force: bool = False) -> None:
    """`text` on stdout, or into the file `output` when given (a schema, for instance), which replaces a file
    already there only with `force` (`check_outputs`)."""
    if output:
        check_outputs([output], force)
        write_text(output, text)
    else:
        click.echo(text, nl=False)


def warn(source: str, warnings) -> None:
    """Each warning on stderr, naming the file it is about (the text is the user's: no rich markup in it)."""
    for warning in warnings:
        err.print(f"[yellow]warning:[/] {escape(f'{source}: {warning}')}", highlight=False)


def report_import(source: str, result, flags: Mapping[str, str], as_json: bool) -> bool:
    """An importer's warnings on stderr, its settings named by their `flags`; with `--json` also its result, and then
    True: nothing more to print."""
    warnings = [render(warning, flags) for warning in result.warnings]
    warn(source, warnings)
    if as_json:
        emit_json({**result.to_dict(), "warnings": warnings})
    return as_json


@contextmanager
def stages(task: str) -> Iterator[Callable[[str], None]]:
    """A progress line on stderr for a long job told its stages one by one (`say(stage)`), with the time taken;
    silent when stderr is not a terminal."""
    columns = (TextColumn(f"{escape(task)}: {{task.description}}"), BarColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as bar:
        job = bar.add_task("starting", total=None)
        yield lambda stage: bar.update(job, description=escape(stage))


@contextmanager
def naming(flags: Mapping[str, str],
           folder_message: Callable[[OutputFolderError], str] | None = None) -> Iterator[None]:
    """Library errors raised inside, worded for the command line: settings named by their `flags`, and a refused
    output folder in the command's own words (`folder_message`)."""
    try:
        yield
    except SettingError as exc:
        raise LofkitError(exc.message.render(flags)) from None
    except OutputFolderError as exc:
        if folder_message is None:
            raise
        raise LofkitError(folder_message(exc)) from None


def folder_message(contents: str, run: str) -> Callable[[OutputFolderError], str]:
    """How a command words a refused output folder (`naming`'s `folder_message`): the folder is for `contents`,
    written by a `run`."""
    def message(exc: OutputFolderError) -> str:
        if exc.is_file:
            return f"{exc.folder} is a file; give a folder for {contents}"
        if exc.others:
            return f"{exc.folder} already holds other files ({', '.join(exc.others[:5])}); give an empty or new folder"
        names = ", ".join(exc.earlier[:3]) + (", ..." if len(exc.earlier) > 3 else "")
        return f"{exc.folder} already holds {names} from an earlier {run}; pass --force to replace them or give a new folder"
    return message


def scene_inputs(*scenes: str) -> list[Path]:
    """Every file the scene files `scenes` read (`Scene.input_files`: each scene file, its table image and its
    meshes), for `check_outputs` before any work (`read_scene`: the work reads them no more)."""
    return [file for scene in scenes for file in read_scene(scene).input_files()]


def check_outputs(paths, force: bool, inputs=()) -> None:
    """Before any work: refuse to replace an output file that is already there without --force, ever to replace
    an input, to write under a file, or where nothing can be written (`exchange.output`'s policy: nothing a user
    made is replaced unasked)."""
    with naming({"overwrite": "--force"}):
        check_output_files([Path(p) for p in paths if p is not None], force, inputs)


scene_argument = click.argument("scene", type=click.Path(dir_okay=False))
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
table_option = click.option("--table", "table_text", default="48inx48in", show_default=True,
                            help="The real table's size, WIDTHxDEPTH with units: 48inx48in, 48x36in, 1200mmx900mm.")
force_option = click.option("--force", is_flag=True, help="Replace output files that are already there.")


def length_option(text: str, flag: str, unit: str = "mm", *, given: str | None = None, quote: bool = True,
                  note: str = "") -> float:
    """The length `text` given to `flag`, in mm (a bare number is in `unit`). Text that is no length is an error
    "FLAG 'GIVEN': why" (`given`: the option's whole text, by default `text`), or "FLAG: why" without `quote`,
    followed by `note`."""
    try:
        return parse_length(text, unit)
    except ValueError as exc:
        where = f"{flag} '{text if given is None else given}'" if quote else flag
        raise LofkitError(f"{where}: {exc}{note}") from None


def point_option(text: str, flag: str, unit: str) -> tuple[float, float]:
    """'X,Y' given to `flag`: a table point in mm (bare numbers in `unit`)."""
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError(text)
        x, y = (length_option(part.strip(), flag, unit) for part in parts)
    except (ValueError, LofkitError):
        raise LofkitError(f"{flag} '{text}' is not a point X,Y (mm, or with units: 14in,22in)") from None
    return x, y


def parse_table_size(text: str) -> tuple[float, float]:
    """'48inx48in' -> (1219.2, 1219.2) mm. A bare number takes the other side's unit ('48x36in'); two bare numbers
    are an error, since 48x48 could be inches or millimetres."""
    parts = [p.strip() for p in text.lower().split("x")]
    if len(parts) != 2 or not all(parts):
        raise LofkitError(f"--table '{text}': give WIDTHxDEPTH with units, e.g. 48inx48in or 1200mmx900mm")
    units = [next((u for u in ("mm", "cm", "in", '"') if p.endswith(u)), None) for p in parts]
    if units == [None, None]:
        raise LofkitError(f"--table '{text}': give units, e.g. 48inx48in, 48x36in or 1200mmx900mm")
    unit = units[0] or units[1]
    width, depth = (length_option(p, "--table", unit, given=text) for p in parts)
    if width <= 0 or depth <= 0:
        raise LofkitError(f"--table '{text}': both sides must be positive")
    return width, depth


def write_json(path: Path, document: dict) -> None:
    """A JSON document into an output file (its folder made if need be); an error names the file."""
    write_text(path, json.dumps(document, indent=2))
