"""The game's orders: `orders` (the Tactical phase's order count of an army list)."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.table import Table

from lofkit.cli.common import emit_json, json_option, out
from lofkit.errors import LofkitError
from lofkit.game.army import load_army
from lofkit.game.orders import OrderCount, check_list_for_orders, count_orders, in_retreat
from lofkit.game.turn import STEP_NAMES, turn_sequence

REGULAR, IRREGULAR, IMPETUOUS, LIEUTENANT = "●", "◆", "▲", "★"
"""The markers drawn for each kind of order."""


def markers(symbol: str, count: int) -> str:
    """'●●● 3': one marker per order, then the number."""
    return f"{symbol * count} {count}".lstrip()


def _pool_rows(count: OrderCount) -> list[tuple[str, str, str]]:
    rows = []
    for pool in count.pools:
        who = f"any trooper of group {pool.group}"
        if pool.deployed_by_impetuous_order:
            who += f"; {', '.join(pool.deployed_by_impetuous_order)}: deployed by Impetuous order"
        rows.append((f"group {pool.group} Regular", f"[green]{markers(REGULAR, pool.regular)}[/]", escape(who)))
    return rows


def _own_rows(count: OrderCount) -> list[tuple[str, str, str]]:
    rows = [("Irregular", f"[yellow]{markers(IRREGULAR, 1)}[/]", escape(t)) for t in count.irregular]
    rows += [("Impetuous", f"[red]{markers(IMPETUOUS, 1)}[/]", escape(f"{t}, in the Impetuous phase"))
             for t in count.impetuous]
    rows += [("Impetuous", "0", escape(f"{t}: no Impetuous phase in Retreat!")) for t in count.impetuous_unusable]
    if count.lieutenant_order:
        rows.append(("Lieutenant", f"[cyan]{markers(LIEUTENANT, 1)}[/]", escape(f"the Lieutenant, {count.lieutenant}")))
    else:
        why = "Retreat!" if count.retreat and not count.loss_of_lieutenant else "Loss of Lieutenant"
        rows.append(("Lieutenant", "0", f"none: {why}"))
    return rows


def print_count(count: OrderCount, name: str) -> None:
    """The count for people: a status line per army status in force, then every order as markers."""
    when = "at the start of the turn, before the Impetuous phase" if count.turn_start else "this turn"
    out.print(escape(f"{name}: {count.total} orders {when}"), highlight=False)
    for reason in count.reasons:
        out.print(f"[bold red]{escape(reason)}[/]", highlight=False)
    table = Table(show_edge=False, box=None, padding=(0, 2))
    for column in ("order", "markers", "for"):
        table.add_column(column)
    for row in _pool_rows(count) + _own_rows(count):
        table.add_row(*row)
    out.print(table)
    threshold = "" if count.retreat else " (the rules give no Retreat! threshold: say --retreat when in it)"
    out.print(f"Victory Points {count.victory_points}{threshold} · turn: "
              + " → ".join(STEP_NAMES[step] for step in turn_sequence(count.retreat)), highlight=False)
    for note in count.notes:
        out.print(f"[dim]{escape(note)}[/]", highlight=False)


@click.command()
@click.argument("army_list", metavar="LIST", type=click.Path(dir_okay=False))
@click.option("--retreat", is_flag=True,
              help="The army is in Retreat! (no Lieutenant order, no Impetuous phase); the Victory Points that "
                   "put it there are not in the rules, so you say so.")
@click.option("--turn-start", is_flag=True,
              help="The count at the Tactical phase itself, before the Impetuous phase: troopers marked "
                   "deployed_by_impetuous_order bring only the Impetuous order that deploys them.")
@click.option("--retreat-below", type=int, metavar="VP",
              help="The army is in Retreat! when its Victory Points (the cost of its troopers not in a Null state) "
                   "are below VP: the threshold your game uses, 1 to the list's points.")
@json_option
def orders(army_list: str, retreat: bool, turn_start: bool, retreat_below: int | None, as_json: bool) -> None:
    """The orders of LIST's turn: a Regular pool per combat group, Irregular, Impetuous and Lieutenant orders."""
    army = load_army(army_list)
    if retreat_below is not None and not 1 <= retreat_below <= army.points:
        raise LofkitError(f"{army_list}: --retreat-below {retreat_below}: give a threshold from 1 to {army.points}, "
                          "the list's points limit (a legal list never has more Victory Points)")
    check_list_for_orders(army, army_list)
    retreat = retreat or (retreat_below is not None and in_retreat(army, retreat_below))
    count = count_orders(army, retreat=retreat, turn_start=turn_start)
    if as_json:
        emit_json({**count.to_dict(), "turn_sequence": list(turn_sequence(retreat))})
        return
    print_count(count, army.name)


COMMANDS: list[click.Command] = [orders]
