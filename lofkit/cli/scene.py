"""Questions about a scene file: `validate`, `info`, `schema`."""

from __future__ import annotations

import sys

import click
from rich import box
from rich.markup import escape
from rich.table import Table

from lofkit.cli.common import (
    BAD_INPUT,
    emit_json,
    emit_text,
    err,
    force_option,
    json_option,
    load_world,
    out,
    scene_argument,
)
from lofkit.rules import queries
from lofkit.rules.validation import validate_file
from lofkit.scene.schema import scene_schema_json
from lofkit.units import to_inches


@click.command()
@scene_argument
@json_option
def validate(scene: str, as_json: bool) -> None:
    """Is SCENE well-formed? Lists every error and warning; exit status 2 when there are errors."""
    result, _ = validate_file(scene)
    if as_json:
        emit_json(result.to_dict())
    else:
        for problem in result.errors:
            err.print(f"[bold red]error:[/] {escape(f'{scene}: {problem.where}: {problem.message}')}", highlight=False)
        for problem in result.warnings:
            err.print(f"[yellow]warning:[/] {escape(f'{scene}: {problem.where}: {problem.message}')}", highlight=False)
        verdict = "[green]valid[/]" if result.ok else "[bold red]not valid[/]"
        out.print(f"{escape(scene)}: {verdict} ({len(result.errors)} errors, {len(result.warnings)} warnings)", highlight=False)
    if not result.ok:
        sys.exit(BAD_INPUT)


@click.command()
@scene_argument
@json_option
def info(scene: str, as_json: bool) -> None:
    """Summarise SCENE: table, deployment zones, terrain and troopers."""
    result = queries.info(load_world(scene, quiet=as_json))
    if as_json:
        emit_json(result.to_dict())
        return
    width, depth = result.table_mm
    kinds = ", ".join(f"{n} {kind}" for kind, n in result.terrain_by_kind.items()) or "none"
    out.print(f"[bold]{escape(scene)}[/]: table {to_inches(width):g}\" x {to_inches(depth):g}\" ({width:g} x {depth:g} mm)")
    out.print(f"terrain: {sum(result.terrain_by_kind.values())} pieces ({kinds}), {result.triangles} triangles")
    out.print(f"deployment zones: {escape(', '.join(result.deployment_zones)) or 'none'}")
    pieces = Table(title="terrain, with the convex parts that prove what each piece hides (covered: the share of its "
                   "solid they fill; holes: holes of an open mesh closed by caps; unused: faces no part could use; "
                   "-: blocks nothing)",
                   title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for column in ("id", "triangles", "parts", "covered", "holes", "unused"):
        pieces.add_column(column, justify="left" if column == "id" else "right", no_wrap=True)
    for row in result.pieces:
        blocks = row.parts is not None
        pieces.add_row(escape(row.id), f"{row.triangles:,}",
                       *((str(row.parts), f"{row.covered:.0%}", str(row.holes_closed), str(row.faces_skipped))
                         if blocks else ("-",) * 4))
    out.print(pieces)
    table = Table(title=f"{len(result.troopers)} troopers", title_justify="left")
    for column in ("id", "side", "volume mm", "x, y, z mm", "facing", "state"):
        table.add_column(column, justify="right" if column == "facing" else "left", no_wrap=True)
    for row in result.troopers:
        table.add_row(
            escape(row.id),
            escape(row.side),
            f"{row.silhouette} {row.base_mm:g} x {row.height_mm:g}",
            ", ".join(f"{c:.0f}" for c in row.position),
            f"{row.facing:.0f}°",
            ", ".join(row.state),
        )
    out.print(table)


@click.command()
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to this file instead of stdout.")
@force_option
def schema(output: str | None, force: bool) -> None:
    """Print the JSON Schema of the scene format."""
    emit_text(scene_schema_json(), output, force)


COMMANDS: list[click.Command] = [validate, info, schema]
