"""Dice without a table: `f2f` (a face-to-face roll's exact odds) and `roll` (one normal roll's)."""

from __future__ import annotations

import click
from rich.table import Table

from lofkit.cli.common import emit_json, json_option, out
from lofkit.dice.distribution import f2f_distribution
from lofkit.dice.parsing import parse_mods, parse_roll_spec
from lofkit.dice.rolls import roll_odds, success_value


def print_distribution(dist, first: str, second: str, indent: str = "") -> None:
    """A summary line and one table row per outcome of a face-to-face distribution."""
    win1 = sum(o.count for o in dist.p1) / dist.total
    win2 = sum(o.count for o in dist.p2) / dist.total
    out.print(f"{indent}{first} succeeds {win1:.2%} · {second} succeeds {win2:.2%} · "
              f"nobody {dist.none / dist.total:.2%}  (of {dist.total:,} equally likely rolls)", highlight=False)
    table = Table(show_edge=False, box=None, padding=(0, 2))
    for column in ("side", "hits", "crits", "probability", "count"):
        table.add_column(column, justify="left" if column == "side" else "right")
    for side, outcomes in ((first, dist.p1), (second, dist.p2)):
        for o in outcomes:
            table.add_row(side, str(o.hits), str(o.crits), f"{o.probability:.2%}", f"{o.count:,}")
    table.add_row("nobody", "", "", f"{dist.none / dist.total:.2%}", f"{dist.none:,}")
    out.print(table)


@click.command()
@click.argument("first")
@click.argument("second")
@json_option
def f2f(first: str, second: str, as_json: bool) -> None:
    """Exact odds of a face-to-face roll FIRST against SECOND, each SVxB (MODs applied; burst 0 = no reply)."""
    a, b = parse_roll_spec(first), parse_roll_spec(second)
    dist = f2f_distribution(a.sv, a.burst, b.sv, b.burst)
    if as_json:
        emit_json(dist.to_dict())
        return
    print_distribution(dist, f"side 1 ({a})", f"side 2 ({b})")


@click.command()
@click.argument("attribute", type=int)
@click.option("--mods", default="", metavar="+3,-6", help="MODs to add (their sum is clamped to +-12).")
@json_option
def roll(attribute: int, mods: str, as_json: bool) -> None:
    """The odds of one normal roll against ATTRIBUTE plus MODs."""
    sv = success_value(attribute, parse_mods(mods))
    odds = roll_odds(sv)
    if as_json:
        emit_json(odds.to_dict())
        return
    out.print(f"SV {sv}: success {odds.p_success:.0%} ({odds.successes} of 20 faces), "
              f"critical {odds.p_critical:.0%} ({odds.criticals} of 20)", highlight=False)


COMMANDS: list[click.Command] = [f2f, roll]
