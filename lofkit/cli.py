"""The `lofkit` command: one sub-command per question, `--json` for machines, rich tables for people.

Exit status (CLI.md): 0 when the question was answered, 2 for bad input (a message, no traceback), 1 for an
internal error. Presentation only: every answer comes from a query's result object.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from . import queries
from .errors import LofkitError
from .loading import load_scene
from .schema import scene_schema_json
from .units import to_inches
from .validation import validate_file
from .world import World

out = Console()
err = Console(stderr=True, soft_wrap=True, highlight=False)
BAD_INPUT = 2


class LofkitGroup(click.Group):
    """Turns a user's mistake into a message and exit status 2, and a bug into status 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except LofkitError as exc:
            err.print(f"[bold red]error:[/] {exc}")
            ctx.exit(BAD_INPUT)
        except Exception:
            if os.environ.get("LOFKIT_DEBUG"):
                traceback.print_exc()
            err.print("[bold red]internal error[/] in lofkit; run again with LOFKIT_DEBUG=1 for the traceback")
            ctx.exit(1)


def _world(scene_path: str, quiet: bool = False) -> World:
    world = World.from_scene(load_scene(scene_path))
    if not quiet:
        for warning in world.warnings:
            err.print(f"[yellow]warning:[/] {scene_path}: {warning.where}: {warning.message}", highlight=False)
    return world


def _emit_json(document: dict) -> None:
    click.echo(json.dumps(document, indent=2))


scene_argument = click.argument("scene", type=click.Path(dir_okay=False))
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")


@click.group(cls=LofkitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="lofkit")
def cli() -> None:
    """Line-of-fire rulings for Infinity tables, in 3D."""


@cli.command()
@scene_argument
@json_option
def validate(scene: str, as_json: bool) -> None:
    """Is SCENE well-formed? Lists every error and warning; exit status 2 when there are errors."""
    result, _ = validate_file(scene)
    if as_json:
        _emit_json(result.to_dict())
    else:
        for problem in result.errors:
            err.print(f"[bold red]error:[/] {scene}: {problem.where}: {problem.message}", highlight=False)
        for problem in result.warnings:
            err.print(f"[yellow]warning:[/] {scene}: {problem.where}: {problem.message}", highlight=False)
        verdict = "[green]valid[/]" if result.ok else "[bold red]not valid[/]"
        out.print(f"{scene}: {verdict} ({len(result.errors)} errors, {len(result.warnings)} warnings)", highlight=False)
    if not result.ok:
        sys.exit(BAD_INPUT)


@cli.command()
@scene_argument
@json_option
def info(scene: str, as_json: bool) -> None:
    """Summarise SCENE: table, deployment zones, terrain and troopers."""
    result = queries.info(_world(scene, quiet=as_json))
    if as_json:
        _emit_json(result.to_dict())
        return
    width, depth = result.table_mm
    kinds = ", ".join(f"{n} {kind}" for kind, n in result.terrain_by_kind.items()) or "none"
    out.print(f"[bold]{scene}[/]: table {to_inches(width):g}\" x {to_inches(depth):g}\" ({width:g} x {depth:g} mm)")
    out.print(f"terrain: {sum(result.terrain_by_kind.values())} pieces ({kinds}), {result.triangles} triangles")
    out.print(f"deployment zones: {', '.join(result.deployment_zones) or 'none'}")
    table = Table(title=f"{len(result.troopers)} troopers", title_justify="left")
    for column in ("id", "side", "volume mm", "x, y, z mm", "facing", "state"):
        table.add_column(column, justify="right" if column == "facing" else "left", no_wrap=True)
    for row in result.troopers:
        table.add_row(
            row.id,
            row.side,
            f"{row.silhouette} {row.base_mm:g} x {row.height_mm:g}",
            ", ".join(f"{c:.0f}" for c in row.position),
            f"{row.facing:.0f}°",
            ", ".join(row.state),
        )
    out.print(table)


@cli.command()
@scene_argument
@click.argument("a")
@click.argument("b")
@json_option
def distance(scene: str, a: str, b: str, as_json: bool) -> None:
    """Base-to-base distance from A to B, its range band and base contact."""
    result = queries.distance(_world(scene, quiet=as_json), a, b)
    if as_json:
        _emit_json(result.to_dict())
        return
    contact = "[green]yes[/]" if result.base_contact else "no"
    out.print(
        f"{a} → {b}: [bold]{result.distance_mm:.1f} mm[/] ({to_inches(result.distance_mm):.2f}\"), "
        f"range band {result.range_band}, base contact: {contact}",
        highlight=False,
    )


@cli.command()
@scene_argument
@click.argument("a")
@json_option
def zoc(scene: str, a: str, as_json: bool) -> None:
    """Zone of Control relations of A: who is inside A's ZoC, and inside whose ZoC A stands."""
    result = queries.zoc(_world(scene, quiet=as_json), a)
    if as_json:
        _emit_json(result.to_dict())
        return
    out.print(f"inside {a}'s ZoC: {', '.join(result.inside_zoc_of_a) or 'nobody'}", highlight=False)
    out.print(f"{a} is inside the ZoC of: {', '.join(result.a_inside_zoc_of) or 'nobody'}", highlight=False)


@cli.command()
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to this file instead of stdout.")
def schema(output: str | None) -> None:
    """Print the JSON Schema of the scene format."""
    text = scene_schema_json()
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


def main() -> None:
    cli(prog_name="lofkit")
