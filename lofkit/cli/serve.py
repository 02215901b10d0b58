"""`lofkit serve`: the workbench, a page in the browser over a table edited live (`lofkit.workbench`)."""

from __future__ import annotations

from pathlib import Path

import click

from lofkit.cli.common import err, prepare_parts
from lofkit.errors import LofkitError
from lofkit.scene.loading import load_scene, scene_from_data

READY = "lofkit workbench: http://{host}:{port}/"
"""The one line `serve` prints on stdout when the page can be opened."""


def _scene(source: str | None):
    """The scene to open: a scene file, the folder `lofkit photo` wrote, or an empty 48" x 48" table."""
    if source is None:
        return scene_from_data({"lofkit": 1}), Path.cwd()  # the default table is 48" x 48"
    path = Path(source)
    if path.is_dir():
        path = path / "scene.yaml"
        if not path.is_file():
            raise LofkitError(f"{source}: a folder holding no scene.yaml; give a scene file or the folder "
                              "`lofkit photo` wrote")
    if path.suffix.lower() == ".json" and path.is_file():
        raise LofkitError(f"{source}: the workbench does not open Tabletop Simulator saves yet; run "
                          "`lofkit import-tts` and open the scene it writes")
    return load_scene(path), path.resolve().parent


@click.command()
@click.argument("scene", required=False)
@click.option("--host", default="127.0.0.1", show_default=True, help="Where to listen (this computer only, by default).")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="The port to listen on.")
@click.option("--no-browser", is_flag=True, help="Do not open a browser.")
def serve(scene: str | None, host: str, port: int, no_browser: bool) -> None:
    """Open SCENE in the workbench: the table from above in a browser page; drag troopers, tap two for the verdict."""
    from nicegui import app, ui

    from lofkit.workbench.api import install
    from lofkit.workbench.page import build_page
    from lofkit.workbench.session import Session

    opened, folder = _scene(scene)
    session = Session(opened)
    for warning in session.world.warnings:
        err.print(f"warning: {warning.where}: {warning.message}", highlight=False)
    prepare_parts(session.world)
    install(app, session, folder)
    build_page(session)
    app.on_startup(lambda: print(READY.format(host=host, port=port), flush=True))
    ui.run(host=host, port=port, show=not no_browser, reload=False, show_welcome_message=False,
           title="lofkit workbench", uvicorn_logging_level="warning")


COMMANDS: list[click.Command] = [serve]
