"""Line of Fire: `check` (one pair, with its evidence and the odds of the duel) and `matrix` (every pair)."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from lofkit.cli.common import emit_json, err, json_option, load_world, out, scene_argument
from lofkit.cli.dice import print_distribution
from lofkit.dice.odds import duel_odds, parse_duel, situational_mods
from lofkit.errors import LofkitError
from lofkit.rules import lof
from lofkit.rules.measure import range_band
from lofkit.units import to_inches


def _point(xyz) -> str:
    return "(" + ", ".join(f"{c:.1f}" for c in xyz) + ")"


@click.command()
@scene_argument
@click.argument("shooter")
@click.argument("target")
@click.option("--odds", "duel", metavar='"BSxB vs BSxB"',
              help='Add the face-to-face odds of the shooter\'s attack and the target\'s reply, e.g. "12x3 vs 11x1".')
@click.option("--range-mods", metavar="+3,0,-3,...", help="The attacking weapon's MOD per 8-inch band (with --odds).")
@click.option("--reply-range-mods", metavar="+3,0,-3,...", help="The replying weapon's MOD per band (with --odds).")
@json_option
def check(scene: str, shooter: str, target: str, duel: str | None, range_mods: str | None,
          reply_range_mods: str | None, as_json: bool) -> None:
    """Line of Fire from SHOOTER to TARGET, with its evidence."""
    for flag, given in (("--range-mods", range_mods), ("--reply-range-mods", reply_range_mods)):
        if given is not None and not duel:
            raise LofkitError(f"{flag} needs --odds (its MODs change the rolls of the odds); add e.g. --odds "
                              f"\"12x3 vs 11x1\" or leave {flag} out")
    world = load_world(scene, quiet=as_json)
    attack, reply = parse_duel(duel) if duel else (None, None)
    a, b = world.troopers.index(shooter), world.troopers.index(target)
    verdict, *rest = lof.verdicts(world, [(a, b), (b, a)] if duel else [(a, b)])
    odds = None
    if duel and verdict.lof:
        back = rest[0]  # the target's LoF back: may it reply, and with which MODs
        band = int(range_band(verdict.distance_mm)[0])
        odds = duel_odds(attack, reply, band, back.lof, situational_mods(verdict), situational_mods(back),
                         range_mods=range_mods, reply_range_mods=reply_range_mods)
    if as_json:
        emit_json({**verdict.to_dict(), **({"odds": odds.to_dict() if odds else None} if duel else {})})
        return
    shooter, target = escape(shooter), escape(target)  # ids are the user's text, never markup
    if verdict.can_target:
        head = "[bold green]LoF[/] (a valid target)"
    elif verdict.lof:
        head = "[bold blue]LoF[/] (not a valid target)"
    else:
        head = "[bold red]no LoF[/]"
    out.print(f"{shooter} → {target}: {head}", highlight=False)
    out.print(f"  {escape(verdict.reason)}", highlight=False)
    arc = "inside" if verdict.in_arc else "[red]outside[/]"
    out.print(f"  arc: {arc} {shooter}'s arc; sight: {'yes' if verdict.sight else '[red]no[/]'}", highlight=False)
    if verdict.witness is not None:
        w = verdict.witness
        out.print(f"  witness: eye {_point(w.eye)} in {escape(w.eye_of)} sees the 3 x 3 mm square centred "
                  f"{_point(w.centre)} on {escape(w.patch_of)}'s silhouette template", highlight=False)
    elif verdict.blockers:
        names = escape(", ".join(f"{name} ({count} segments)" if count else name for name, count in verdict.blockers))
        out.print(f"  blocked by: {names}", highlight=False)
    zoc_text = "inside" if verdict.in_zoc else "outside"
    out.print(
        f"  distance: {verdict.distance_mm:.1f} mm ({to_inches(verdict.distance_mm):.2f}\"), range band "
        f"{verdict.range_band}; {target} is {zoc_text} {shooter}'s ZoC",
        highlight=False,
    )
    if verdict.cover:
        out.print(f"  {target} is in Partial Cover from {escape(verdict.cover_from)} (-3 to {shooter}'s BS)",
                  highlight=False)
    if verdict.visibility_mod:
        out.print(f"  the line of fire passes visibility zone {escape(verdict.visibility_zone)} "
                  f"({verdict.visibility_mod:+d})", highlight=False)
    if odds:
        _print_odds(odds, shooter, target)
    elif duel:
        out.print("  odds: no LoF, so no attack to roll", highlight=False)


def _print_odds(odds, shooter: str, target: str) -> None:
    def mods(items) -> str:
        return ", ".join(f"{why} {mod:+d}" for why, mod in items) or "no MODs"

    out.print(f"  odds: {shooter} {odds.attack} ({mods(odds.mods1)}: SV {odds.sv1}) vs {target} {odds.reply} "
              f"({mods(odds.mods2)}: SV {odds.sv2}, burst {odds.burst2})", highlight=False)
    if odds.note:
        out.print(f"  note: {odds.note}", highlight=False)
    print_distribution(odds.distribution, shooter, target, indent="  ")


MATRIX_MARKS = {
    "target": ("●", "green"),
    "lof": ("○", "blue"),
    "sight": ("s", "yellow"),
    "none": ("·", "dim"),
}


@click.command()
@scene_argument
@json_option
def matrix(scene: str, as_json: bool) -> None:
    """Line of Fire for every ordered pair of troopers (sight computed once per pair; ask `check` for a pair's
    evidence)."""
    world = load_world(scene, quiet=as_json)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TextColumn("{task.completed:,} segments"),
               TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task(f"sight for {len(world.troopers)} troopers", total=None)
        result = lof.matrix(world, progress=lambda cast, tested=0: bar.advance(task, cast + tested), evidence=False)
    if as_json:
        emit_json(result.to_dict())
        return
    ids = world.troopers.ids
    cell = {(v.shooter, v.target): v for v in result.verdicts}
    table = Table(title="LoF matrix: row shooter, column target", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("shooter", no_wrap=True)
    for k in range(len(ids)):
        table.add_column(str(k + 1), justify="center")
    for i, shooter in enumerate(ids):
        marks = []
        for target in ids:
            verdict = cell.get((shooter, target))
            kind = ("target" if verdict.can_target else "lof" if verdict.lof else "sight" if verdict.sight
                    else "none") if verdict else None
            marks.append(f"[{MATRIX_MARKS[kind][1]}]{MATRIX_MARKS[kind][0]}[/]" if kind else "")
        table.add_row(str(i + 1), escape(shooter), *marks)
    out.print(table)
    out.print("● LoF to a valid target   ○ LoF, not a valid target   s sight, but out of arc or engaged   · no sight",
              highlight=False)


COMMANDS: list[click.Command] = [check, matrix]
