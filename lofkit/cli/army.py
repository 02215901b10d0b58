"""Army lists: `army check` (is the list legal) and `army schema` (the file format's JSON Schema)."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.table import Table

from lofkit.cli.common import emit_json, emit_text, force_option, json_option, out
from lofkit.game.army import army_schema_json, load_army
from lofkit.game.listcheck import check_list


@click.group()
def army() -> None:
    """Army lists: whether one is legal, and the file format."""


@army.command()
@click.argument("army_list", metavar="LIST")
@json_option
def check(army_list: str, as_json: bool) -> None:
    """Is LIST legal: points, AVA, SWC, combat groups, the Lieutenant, Remotes, Mercenaries (every problem)."""
    result = check_list(load_army(army_list))
    if as_json:
        emit_json(result.to_dict())
        return
    verdict = "[bold green]legal[/]" if result.valid else f"[bold red]not legal[/] ({len(result.problems)} problems)"
    out.print(f"{escape(army_list)}: {escape(result.name)} is {verdict}")
    table = Table(show_edge=False, box=None, padding=(0, 2))
    for column in ("", "used", "limit"):
        table.add_column(column, justify="left" if not column else "right")
    table.add_row("points", str(result.points), str(result.points_limit))
    table.add_row("SWC", f"{result.swc:g}", f"{result.swc_limit:g}")
    for group, ids in result.groups:
        table.add_row(f"combat group {group}", str(len(ids)), "10")
    table.add_row("Lieutenant", escape(result.lieutenant or "none"), "")
    out.print(table)
    for problem in result.problems:
        out.print(f"  [red]{problem.rule}[/] {escape(problem.where)}: {escape(problem.message)}", highlight=False)


@army.command()
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to this file instead of stdout.")
@force_option
def schema(output: str | None, force: bool) -> None:
    """Print the JSON Schema of the army-list format."""
    emit_text(army_schema_json(), output, force)


COMMANDS: list[click.Command] = [army]
