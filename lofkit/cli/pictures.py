"""Pictures of a table: `render` (a PNG), `view` (a 3D window) and `report` (a ruling page). pyvista is imported
only when a picture is made."""

from __future__ import annotations

import os

import click

from lofkit.cli.common import (
    check_outputs,
    err,
    folder_message,
    force_option,
    load_world,
    naming,
    out,
    scene_argument,
    scene_inputs,
)
from lofkit.errors import LofkitError
from lofkit.exchange.output import check_output_folder
from lofkit.rules import lof


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


@click.command()
@scene_argument
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="The PNG to write.")
@picture_options
@force_option
def render(scene: str, output: str, view: str, shooter, target, show: str, size: str, force: bool) -> None:
    """Render SCENE to a PNG (off-screen, no display needed)."""
    from lofkit.viz.render import render as render_png

    if not output.lower().endswith(".png"):
        raise LofkitError(f"{output}: the picture is a PNG; give a file name ending in .png")
    check_outputs([output], force, scene_inputs(scene))
    world = load_world(scene)
    render_png(world, output, **_picture_options(world, view, shooter, target, show, size))
    err.print(f"wrote {output}")


@click.command()
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


@click.command()
@scene_argument
@click.argument("shooter")
@click.argument("target")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False), help="The folder to write.")
@click.option("--size", default="1000x750", show_default=True, help="Size of each picture, WIDTHxHEIGHT.")
@click.option("--force", is_flag=True, help="Replace an earlier report in the folder.")
def report(scene: str, shooter: str, target: str, output: str, size: str, force: bool) -> None:
    """Write a ruling page for SHOOTER -> TARGET: index.html, pictures, a 3D view and verdict.json."""
    from lofkit.viz.render import parse_size
    from lofkit.viz.report import FILES, write_report

    with naming({}, folder_message("the report", "report")):
        check_output_folder(output, FILES, force, scene_inputs(scene))  # before any work
        size_px = parse_size(size)
        world = load_world(scene)
        verdict = lof.check(world, shooter, target)
        index = write_report(world, verdict, lof.sample_segments(world, shooter, target), output, size_px, force)
    out.print(f"{shooter} → {target}: {verdict.reason}", highlight=False)
    out.print(f"ruling page: {index}", highlight=False)


COMMANDS: list[click.Command] = [render, view, report]
