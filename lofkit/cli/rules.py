"""Rules beyond Line of Fire: `aro` (who may react), `disperse` (where a template lands), `deploy-check`."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.table import Table

from lofkit.cli.common import emit_json, json_option, load_world, out, point_option, scene_argument
from lofkit.errors import LofkitError


@click.command()
@scene_argument
@click.argument("active")
@click.option("--path", "path_text", metavar="x,y;x,y;...", help="The declared move, as points in mm.")
@click.option("--army", "army_texts", multiple=True, metavar="SIDE=LIST",
              help="A side's army list (repeatable): Null and undeployed troopers cannot react, and each reaction "
                   "lists the skills it may declare.")
@click.option("--skills", "skills_file", type=click.Path(dir_okay=False), metavar="FILE",
              help="With --army: a skill catalogue to use instead of lofkit's own.")
@json_option
def aro(scene: str, active: str, path_text: str | None, army_texts: tuple[str, ...], skills_file: str | None,
        as_json: bool) -> None:
    """Which enemies may declare an ARO against ACTIVE, standing still or moving along --path."""
    from lofkit.cli.reactions import army_catalogue, print_army_reactions, side_army
    from lofkit.game.reactions import join_armies, match_armies
    from lofkit.rules.aro import aro as reactions_to
    from lofkit.rules.aro import parse_path

    path = parse_path(path_text) if path_text is not None else None
    armies = [side_army(text) for text in army_texts]
    catalogue = army_catalogue(skills_file, armies)
    world = load_world(scene, quiet=as_json)
    roster = match_armies(world.scene, armies) if armies else None
    result = reactions_to(world, active, path)
    if roster is not None:
        result = join_armies(world, result, roster, catalogue)
    if as_json:
        emit_json(result.to_dict())
        return
    if roster is not None:
        print_army_reactions(result, path)
        return
    moving = f"moving along {len(result.path) - 1} legs ({result.stations} stations)" if path else "standing still"
    marker = " (a marker: only Discover or Change Facing until it is discovered)" if world.troopers.marker[
        world.troopers.index(active)] else ""
    out.print(f"{escape(active)}{marker}, {moving}: {len(result.reactions)} enemies may react", highlight=False)
    table = Table(show_edge=False, box=None, padding=(0, 2))
    for column in ("trooper", "by", "from", "may declare"):
        table.add_column(column)
    for r in result.reactions:
        where = f"{r.path_fraction:.0%} of the path ({r.point[0]:.0f}, {r.point[1]:.0f})" if path else "here"
        table.add_row(escape(r.trooper), "LoF" if r.by == "lof" else "ZoC", where, ", ".join(r.allowed))
    out.print(table)


def _landing_text(result) -> str:
    if result.placed:
        x, y, z = result.landing
        return f"lands at ({x:.1f}, {y:.1f}), z {z:.1f}"
    fallback = result.fallback
    spot = ("no legal spot: " + fallback.message) if fallback.position is None else (
        "placed in its deployment zone at (" + ", ".join(f"{c:.1f}" for c in fallback.position)
        + f") on edge {fallback.edge}; the owner chooses")
    reasons = [f"contact with {', '.join(result.forbidden_contact)}" if reason == "contact" else reason
               for reason in result.reasons]
    return f"cannot stand there ({', '.join(reasons)}) → {spot}"


@click.command()
@scene_argument
@click.argument("element")
@click.option("--at", "at_text", required=True, metavar="X,Y", help="The intended point (template centre).")
@click.option("--roll", type=int, help="The d20 result, 1..20.")
@click.option("--all", "all_rolls", is_flag=True, help="All 20 outcomes at once.")
@json_option
def disperse(scene: str, element: str, at_text: str, roll: int | None, all_rolls: bool, as_json: bool) -> None:
    """Where dispersing ELEMENT lands: 16 inches from --at in the direction the d20 picks."""
    from lofkit.rules.dispersion import disperse as disperse_one
    from lofkit.rules.dispersion import disperse_all

    if roll is not None and all_rolls:
        raise LofkitError(f"--roll {roll} and --all cannot be used together: --roll answers for one d20 result, --all "
                          "for all 20; give one of them")
    if roll is None and not all_rolls:
        raise LofkitError("give --roll N (1..20) or --all")
    world = load_world(scene, quiet=as_json)
    at = point_option(at_text, "--at", world.scene.units)
    result = disperse_all(world, element, at) if all_rolls else disperse_one(world, element, at, roll)
    if as_json:
        emit_json(result.to_dict())
        return
    if not all_rolls:
        out.print(f"roll {roll} → {result.direction_deg:.0f}°: {_landing_text(result)}", highlight=False)
        return
    table = Table(title=f"{element} dispersing from ({at[0]:.0f}, {at[1]:.0f})", title_justify="left")
    for column in ("roll", "direction", "outcome"):
        table.add_column(column, justify="right" if column != "outcome" else "left")
    for r in result:
        table.add_row(str(r.roll), f"{r.direction_deg:.0f}°", _landing_text(r))
    out.print(table)
    out.print(f"{sum(r.placed for r in result)} of 20 landings stand", highlight=False)


@click.command("deploy-check")
@scene_argument
@json_option
def deploy_check(scene: str, as_json: bool) -> None:
    """Is every deployment legal? Lists each broken rule with the trooper and the numbers."""
    from lofkit.rules.deployment import deploy_check as check_deployment

    result = check_deployment(load_world(scene, quiet=as_json))
    if as_json:
        emit_json(result.to_dict())
        return
    if result.ok:
        out.print(f"every deployment is legal ({len(result.checked)} checked, {len(result.exempt)} exempt)")
        return
    table = Table(title=f"{len(result.problems)} deployment problems", title_justify="left")
    for column in ("trooper", "rule", "problem"):
        table.add_column(column)
    for p in result.problems:
        table.add_row(escape(p.trooper), p.rule, escape(p.message))
    out.print(table)


COMMANDS: list[click.Command] = [aro, disperse, deploy_check]
