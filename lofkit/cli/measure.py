"""Distances on the table: `distance`, `zoc`."""

from __future__ import annotations

import click
from rich.markup import escape

from lofkit.cli.common import emit_json, json_option, load_world, out, scene_argument
from lofkit.rules import queries
from lofkit.units import to_inches


@click.command()
@scene_argument
@click.argument("a")
@click.argument("b")
@json_option
def distance(scene: str, a: str, b: str, as_json: bool) -> None:
    """Base-to-base distance from A to B, its range band and base contact."""
    result = queries.distance(load_world(scene, quiet=as_json), a, b)
    if as_json:
        emit_json(result.to_dict())
        return
    contact = "[green]yes[/]" if result.base_contact else "no"
    a, b = escape(a), escape(b)  # ids are the user's text, never markup
    out.print(
        f"{a} → {b}: [bold]{result.distance_mm:.1f} mm[/] ({to_inches(result.distance_mm):.2f}\"), "
        f"range band {result.range_band}, base contact: {contact}",
        highlight=False,
    )


@click.command()
@scene_argument
@click.argument("a")
@json_option
def zoc(scene: str, a: str, as_json: bool) -> None:
    """Zone of Control relations of A: who is inside A's ZoC, and inside whose ZoC A stands."""
    result = queries.zoc(load_world(scene, quiet=as_json), a)
    if as_json:
        emit_json(result.to_dict())
        return
    a = escape(a)
    out.print(f"inside {a}'s ZoC: {escape(', '.join(result.inside_zoc_of_a)) or 'nobody'}", highlight=False)
    out.print(f"{a} is inside the ZoC of: {escape(', '.join(result.a_inside_zoc_of)) or 'nobody'}", highlight=False)


COMMANDS: list[click.Command] = [distance, zoc]
