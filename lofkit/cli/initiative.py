"""`initiative`: who wins the Initiative roll between the Lieutenants of two army lists, exactly."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.table import Table

from lofkit.cli.common import emit_json, json_option, out
from lofkit.game.initiative import WINNER_CHOICES, InitiativeOdds, Lieutenant, initiative_from_lists

list_path = click.Path(dir_okay=False)


def _row(side: str, lieutenant: Lieutenant, chance) -> tuple[str, ...]:
    return (side, escape(lieutenant.list_name), escape(f"{lieutenant.trooper_id} ({lieutenant.isc})"),
            str(lieutenant.wip), f"{float(chance):.1%}", str(chance))


def print_initiative(odds: InitiativeOdds) -> None:
    """The two Lieutenants and their chances as a table, then the re-roll and what the winner chooses."""
    table = Table(show_edge=False, box=None, padding=(0, 1))
    for column in ("side", "list", "Lieutenant", "WIP", "wins", "exactly"):
        table.add_column(column, justify="right" if column in ("WIP", "wins", "exactly") else "left")
    table.add_row(*_row("A", odds.lieutenant_a, odds.p_a))
    table.add_row(*_row("B", odds.lieutenant_b, odds.p_b))
    out.print(table)
    out.print(f"Of {odds.total} equally likely rolls, A wins {odds.a_wins}, B wins {odds.b_wins}, nobody "
              f"{odds.again} (equal results, both critical, both failed: rolled again).", highlight=False)
    first, second = WINNER_CHOICES
    out.print(f"The winner chooses {first} (who plays the first turn of each round) or {second} (who deploys "
              "first, and which zone is whose); the loser gets the other.", highlight=False)


@click.command()
@click.argument("list_a", type=list_path)
@click.argument("list_b", type=list_path)
@json_option
def initiative(list_a: str, list_b: str, as_json: bool) -> None:
    """The odds of the Initiative roll: LIST_A's Lieutenant against LIST_B's, a face-to-face WIP roll re-rolled
    until someone wins."""
    odds = initiative_from_lists(list_a, list_b)
    if as_json:
        emit_json(odds.to_dict())
        return
    print_initiative(odds)


COMMANDS: list[click.Command] = [initiative]
