"""What every `lofkit` sub-command shares: the consoles, scene loading with warnings, JSON output, and the
common arguments. Sub-commands live in `cli` and in topic modules (`cli_analysis`, `cli_photo`, `cli_imports`)."""

from __future__ import annotations

import json

import click
from rich.console import Console

from lofkit.scene.loading import load_scene
from lofkit.geometry.world import World

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True, highlight=False)
BAD_INPUT = 2


def load_world(scene_path: str, quiet: bool = False) -> World:
    world = World.from_scene(load_scene(scene_path))
    if not quiet:
        for warning in world.warnings:
            err.print(f"[yellow]warning:[/] {scene_path}: {warning.where}: {warning.message}", highlight=False)
    return world


def emit_json(document: dict) -> None:
    click.echo(json.dumps(document, indent=2))


scene_argument = click.argument("scene", type=click.Path(dir_okay=False))
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
