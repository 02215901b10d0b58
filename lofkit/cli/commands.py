"""The `lofkit` command: one sub-command per question, `--json` for machines, rich tables for people.

Exit status (CLI.md): 0 when the question was answered, 2 for bad input (a message, no traceback), 1 for an
internal error. Presentation only: every answer comes from a query's result object.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

import click
from rich.markup import escape
from rich.table import Table
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from lofkit.cli import analysis as cli_analysis
from lofkit.cli import imports as cli_imports
from lofkit.cli import photo as cli_photo
from lofkit.dice.distribution import f2f_distribution
from lofkit.dice.parsing import parse_mods, parse_roll_spec
from lofkit.dice.rolls import roll_odds, success_value
from lofkit.rules import lof, queries
from lofkit.dice.odds import duel_odds, parse_duel, situational_mods
from lofkit.errors import LofkitError
from lofkit.scene.schema import scene_schema_json
from lofkit.rules.measure import range_band
from lofkit.units import to_inches
from lofkit.rules.validation import validate_file
from lofkit.cli.common import BAD_INPUT, emit_json, err, json_option, load_world, out, scene_argument


OPTIONAL_EXTRAS = {"pyvista": "render", "vtk": "render", "matplotlib": "render", "trame": "render",
                   "cv2": "photo", "distributed": "cluster", "dask": "cluster"}
"""Modules of the optional extras (pyproject.toml), and the extra that installs each."""


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
        except Exception as exc:
            missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
            extra = OPTIONAL_EXTRAS.get((missing or "").partition(".")[0])
            if extra is not None:
                err.print(f"[bold red]error:[/] this command needs {missing}, which is not installed: "
                          + escape(f"pip install 'lofkit[{extra}]'"), highlight=False)
                ctx.exit(BAD_INPUT)
            if os.environ.get("LOFKIT_DEBUG"):
                traceback.print_exc()
            err.print("[bold red]internal error[/] in lofkit; run again with LOFKIT_DEBUG=1 for the traceback")
            ctx.exit(1)


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
        emit_json(result.to_dict())
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
    result = queries.info(load_world(scene, quiet=as_json))
    if as_json:
        emit_json(result.to_dict())
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
    result = queries.distance(load_world(scene, quiet=as_json), a, b)
    if as_json:
        emit_json(result.to_dict())
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
    result = queries.zoc(load_world(scene, quiet=as_json), a)
    if as_json:
        emit_json(result.to_dict())
        return
    out.print(f"inside {a}'s ZoC: {', '.join(result.inside_zoc_of_a) or 'nobody'}", highlight=False)
    out.print(f"{a} is inside the ZoC of: {', '.join(result.a_inside_zoc_of) or 'nobody'}", highlight=False)


def _point(xyz) -> str:
    return "(" + ", ".join(f"{c:.1f}" for c in xyz) + ")"


@cli.command()
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
    if verdict.can_target:
        head = "[bold green]LoF[/] (a valid target)"
    elif verdict.lof:
        head = "[bold blue]LoF[/] (not a valid target)"
    else:
        head = "[bold red]no LoF[/]"
    out.print(f"{shooter} → {target}: {head}", highlight=False)
    out.print(f"  {verdict.reason}", highlight=False)
    arc = "inside" if verdict.in_arc else "[red]outside[/]"
    out.print(f"  arc: {arc} {shooter}'s arc; sight: {'yes' if verdict.sight else '[red]no[/]'}", highlight=False)
    if verdict.witness is not None:
        w = verdict.witness
        out.print(f"  witness: eye {_point(w.eye)} in {w.eye_of} sees the 3 x 3 mm square centred "
                  f"{_point(w.centre)} on {w.patch_of}'s silhouette template", highlight=False)
    elif verdict.blockers:
        names = ", ".join(f"{name} ({count} segments)" if count else name for name, count in verdict.blockers)
        out.print(f"  blocked by: {names}", highlight=False)
    zoc_text = "inside" if verdict.in_zoc else "outside"
    out.print(
        f"  distance: {verdict.distance_mm:.1f} mm ({to_inches(verdict.distance_mm):.2f}\"), range band "
        f"{verdict.range_band}; {target} is {zoc_text} {shooter}'s ZoC",
        highlight=False,
    )
    if verdict.cover:
        out.print(f"  {target} is in Partial Cover from {verdict.cover_from} (-3 to {shooter}'s BS)", highlight=False)
    if verdict.visibility_mod:
        out.print(f"  the line of fire passes visibility zone {verdict.visibility_zone} "
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
    _print_distribution(odds.distribution, shooter, target, indent="  ")


def _print_distribution(dist, first: str, second: str, indent: str = "") -> None:
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


@cli.command()
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
    _print_distribution(dist, f"side 1 ({a})", f"side 2 ({b})")


@cli.command()
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


MATRIX_MARKS = {
    "target": ("●", "green"),
    "lof": ("○", "blue"),
    "sight": ("s", "yellow"),
    "none": ("·", "dim"),
}


@cli.command()
@scene_argument
@json_option
def matrix(scene: str, as_json: bool) -> None:
    """Line of Fire for every ordered pair of troopers (sight computed once per pair)."""
    world = load_world(scene, quiet=as_json)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TextColumn("{task.completed:,} segments"),
               TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task(f"sight for {len(world.troopers)} troopers", total=None)
        result = lof.matrix(world, progress=lambda cast, tested=0: bar.advance(task, cast + tested))
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
        table.add_row(str(i + 1), shooter, *marks)
    out.print(table)
    out.print("● LoF to a valid target   ○ LoF, not a valid target   s sight, but out of arc or engaged   · no sight",
              highlight=False)


def _layers(text: str) -> set[str]:
    return {part.strip() for part in text.split(",") if part.strip()}


def _picture_options(world, view, shooter, target, show, size):
    """Plotter options for a picture, with the ruling overlaid when a shooter and a target are given."""
    from lofkit.viz.render import Overlay, parse_size

    overlay = Overlay()
    if shooter and target:
        verdict = lof.check(world, shooter, target)
        overlay = Overlay(verdict=verdict, segments=lof.sample_segments(world, shooter, target))
    elif shooter or target:
        raise LofkitError("give both --shooter and --target, or neither")
    return {"view": view, "size": parse_size(size), "layers": _layers(show), "shooter": shooter, "target": target,
            "overlay": overlay}


def picture_options(function):
    for option in reversed([
        click.option("--view", default="iso", type=click.Choice(["top", "iso", "eye", "target"]),
                     help="Camera: top (to scale), iso, eye (from the shooter's eye) or target (the reverse)."),
        click.option("--shooter", help="Overlay the LoF ruling from this trooper..."),
        click.option("--target", help="...to this one."),
        click.option("--show", default="arcs,zones", show_default=True, help="Layers: arcs, zoc, zones, rays."),
        click.option("--size", default="1200x900", show_default=True, help="Picture size WIDTHxHEIGHT in pixels."),
    ]):
        function = option(function)
    return function


@cli.command()
@scene_argument
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="The PNG to write.")
@picture_options
def render(scene: str, output: str, view: str, shooter, target, show: str, size: str) -> None:
    """Render SCENE to a PNG (off-screen, no display needed)."""
    from lofkit.viz.render import render as render_png

    if not output.lower().endswith(".png"):
        raise LofkitError(f"{output}: the picture is a PNG; give a file name ending in .png")
    world = load_world(scene)
    render_png(world, output, **_picture_options(world, view, shooter, target, show, size))
    err.print(f"wrote {output}")


@cli.command()
@scene_argument
@picture_options
def view(scene: str, view: str, shooter, target, show: str, size: str) -> None:
    """Open SCENE in an interactive 3D window (needs a display; use `render` or `report` without one)."""
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        raise LofkitError("no display here (DISPLAY is not set): use `lofkit render` for a PNG or `lofkit report` "
                          "for a page with an interactive 3D view that opens in any browser")
    os.environ["VTK_DEFAULT_OPENGL_WINDOW"] = "vtkXOpenGLRenderWindow"
    from lofkit.viz.render import build_plotter

    world = load_world(scene)
    build_plotter(world, off_screen=False, **_picture_options(world, view, shooter, target, show, size)).show()


@cli.command()
@scene_argument
@click.argument("shooter")
@click.argument("target")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False), help="The folder to write.")
@click.option("--size", default="1000x750", show_default=True, help="Size of each picture, WIDTHxHEIGHT.")
def report(scene: str, shooter: str, target: str, output: str, size: str) -> None:
    """Write a ruling page for SHOOTER -> TARGET: index.html, pictures, a 3D view and verdict.json."""
    from lofkit.viz.render import parse_size
    from lofkit.viz.report import write_report

    world = load_world(scene)
    verdict = lof.check(world, shooter, target)
    index = write_report(world, verdict, lof.sample_segments(world, shooter, target), output, parse_size(size))
    out.print(f"{shooter} → {target}: {verdict.reason}", highlight=False)
    out.print(f"ruling page: {index}", highlight=False)


@cli.command()
@scene_argument
@click.argument("active")
@click.option("--path", "path_text", metavar="x,y;x,y;...", help="The declared move, as points in mm.")
@json_option
def aro(scene: str, active: str, path_text: str | None, as_json: bool) -> None:
    """Which enemies may declare an ARO against ACTIVE, standing still or moving along --path."""
    from lofkit.rules.aro import aro as reactions_to, parse_path

    path = parse_path(path_text) if path_text is not None else None
    result = reactions_to(load_world(scene, quiet=as_json), active, path)
    if as_json:
        emit_json(result.to_dict())
        return
    moving = f"moving along {len(result.path) - 1} legs ({result.stations} stations)" if path else "standing still"
    out.print(f"{active}, {moving}: {len(result.reactions)} enemies may react", highlight=False)
    table = Table(show_edge=False, box=None, padding=(0, 2))
    for column in ("trooper", "by", "from", "may declare"):
        table.add_column(column)
    for r in result.reactions:
        where = f"{r.path_fraction:.0%} of the path ({r.point[0]:.0f}, {r.point[1]:.0f})" if path else "here"
        table.add_row(r.trooper, "LoF" if r.by == "lof" else "ZoC", where, ", ".join(r.allowed))
    out.print(table)


def _table_point(text: str, units: str) -> tuple[float, float]:
    from lofkit.units import parse_length

    try:
        x, y = (parse_length(part.strip(), units) for part in text.split(","))
    except ValueError:
        raise LofkitError(f"--at '{text}' is not a point X,Y (mm, or with units: 14in,22in)") from None
    return x, y


def _landing_text(result) -> str:
    if result.placed:
        x, y, z = result.landing
        return f"lands at ({x:.1f}, {y:.1f}), z {z:.1f}"
    fallback = result.fallback
    spot = ("no legal spot: " + fallback.message) if fallback.position is None else (
        "placed in its deployment zone at (" + ", ".join(f"{c:.1f}" for c in fallback.position)
        + f") on edge {fallback.edge}; the owner chooses")
    return f"cannot stand there ({', '.join(result.reasons)}) → {spot}"


@cli.command()
@scene_argument
@click.argument("element")
@click.option("--at", "at_text", required=True, metavar="X,Y", help="The intended point (template centre).")
@click.option("--roll", type=int, help="The d20 result, 1..20.")
@click.option("--all", "all_rolls", is_flag=True, help="All 20 outcomes at once.")
@json_option
def disperse(scene: str, element: str, at_text: str, roll: int | None, all_rolls: bool, as_json: bool) -> None:
    """Where dispersing ELEMENT lands: 16 inches from --at in the direction the d20 picks."""
    from lofkit.rules.dispersion import disperse as disperse_one, disperse_all

    if (roll is None) == (not all_rolls):
        raise LofkitError("give --roll N (1..20) or --all")
    world = load_world(scene, quiet=as_json)
    at = _table_point(at_text, world.scene.units)
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


@cli.command("deploy-check")
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
        table.add_row(p.trooper, p.rule, p.message)
    out.print(table)


@cli.command()
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to this file instead of stdout.")
def schema(output: str | None) -> None:
    """Print the JSON Schema of the scene format."""
    text = scene_schema_json()
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


for topic in (cli_analysis, cli_photo, cli_imports):
    for command in topic.COMMANDS:
        cli.add_command(command)


def main() -> None:
    cli(prog_name="lofkit")
