"""Orders and AROs: `order-check` (what one order may hold), and the army lists `aro --army` joins to the table."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.table import Table

from lofkit.cli.common import emit_json, err, json_option, out
from lofkit.errors import LofkitError
from lofkit.game.army import load_army
from lofkit.game.reactions import SideArmy
from lofkit.game.skills import CATEGORY_NAMES, default_catalogue, load_catalogue, order_check, parse_skills

skills_option = click.option("--skills", "skills_file", type=click.Path(dir_okay=False), metavar="FILE",
                             help="A skill catalogue to use instead of lofkit's own (the same YAML format).")


def catalogue_from(skills_file: str | None):
    """The catalogue `--skills` names, else lofkit's own."""
    return load_catalogue(skills_file) if skills_file else default_catalogue()


@click.command("order-check")
@click.argument("skills", nargs=-1, required=True)
@skills_option
@json_option
def order_check_command(skills: tuple[str, ...], skills_file: str | None, as_json: bool) -> None:
    """Is SKILLS one legal order? e.g. "Move, BS Attack" (names in any case; a lone skill pairs with Idle)."""
    catalogue = catalogue_from(skills_file)
    result = order_check(parse_skills(skills), catalogue)
    if as_json:
        emit_json(result.to_dict())
        return
    played = " + ".join(f"{name} ({CATEGORY_NAMES[category]})" for name, category in
                        zip(result.skills, result.categories))
    verdict = "[green]legal[/]" if result.legal else "[red]not legal[/]"
    out.print(f"{verdict}: {escape(played)}", highlight=False)
    out.print(escape(result.reason), highlight=False)
    assumed = [name for name in dict.fromkeys(result.skills) if "category" in catalogue.skills[name].assumed]
    if assumed:
        out.print(f"[dim]the category of {escape(', '.join(assumed))}: assumed by lofkit's skill catalogue, not "
                  "given by the rules[/]", highlight=False)


def side_army(text: str) -> SideArmy:
    """`--army SIDE=LIST`: the side's army list, read from the file."""
    side, equals, file = (part.strip() for part in text.partition("="))
    if not equals or not side or not file:
        raise LofkitError(f"--army '{text}': give SIDE=LIST, e.g. --army red=red.yaml")
    return SideArmy(side, load_army(file), file)


def army_catalogue(skills_file: str | None, armies: list[SideArmy]):
    """The catalogue `aro --army` lists skills from; `--skills` means nothing without `--army`."""
    if not armies:
        if skills_file:
            raise LofkitError("--skills lists the skills each reaction may declare: give it with --army SIDE=LIST")
        return None
    return catalogue_from(skills_file)


def print_army_reactions(result, path) -> None:
    """`aro --army` for people: the reactions with their skills, who cannot react and why, and the warnings."""
    for warning in result.warnings:
        err.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    geometry = result.geometry
    moving = f"moving along {len(geometry.path) - 1} legs ({geometry.stations} stations)" if path else "standing still"
    marker = " (a marker: only AROs usable against one)" if result.active_is_marker else ""
    out.print(f"{escape(geometry.active)}{marker}, {moving}: {len(result.reactions)} enemies may react",
              highlight=False)
    table = Table(show_edge=False, box=None, padding=(0, 2))
    for column in ("trooper", "by", "from", "may declare"):
        table.add_column(column)
    for r in result.reactions:
        table.add_row(escape(r.trooper), {"lof": "LoF", "zoc": "ZoC"}.get(r.by, "no LoF"), _place(r.geometry, path),
                      escape(", ".join(r.skills) or "nothing"))
    out.print(table)
    for unable in result.cannot_react:
        out.print(f"{escape(unable.trooper)} ({escape(unable.side)}) cannot react: {escape(unable.reason)}",
                  highlight=False)


def _place(reaction, path) -> str:
    if reaction is None:
        return "anywhere"
    if not path:
        return "here"
    return f"{reaction.path_fraction:.0%} of the path ({reaction.point[0]:.0f}, {reaction.point[1]:.0f})"


COMMANDS: list[click.Command] = [order_check_command]
