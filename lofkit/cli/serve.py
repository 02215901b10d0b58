"""`lofkit serve`: the workbench, a page in the browser over a table edited live (`lofkit.workbench`).

"With no argument it opens an empty 48" x 48" table; otherwise what `lofkit.load` opens
(`lofkit.exchange.opening`): a scene file, a photo or scan folder, a Tabletop Simulator save (`--mesh-cache` as
for `import-tts`) or a 3D scan, imported into the folder `<stem>-lofkit` beside it or reopened from there. Troopers
found in a scan or photo open as proposals (`proposed: true`).
When ready it prints exactly one line `lofkit workbench: http://HOST:PORT/...` on stdout, then opens a browser
unless `--no-browser`. Ctrl-C stops it cleanly. Binds 127.0.0.1 by default. `--share` binds all interfaces for a
phone on the same network, and then every request needs the random token printed in that URL."
"""

from __future__ import annotations

import atexit
import ipaddress
import os
import secrets
import socket
import sys
import threading
import webbrowser
from pathlib import Path

import click
from rich.markup import escape

from lofkit.cli.common import err, naming, prepare_parts, stages, warn
from lofkit.cli.imports import SCAN_FLAGS, TTS_FLAGS, import_tts_command
from lofkit.errors import LofkitError, SceneError
from lofkit.exchange.messages import render
from lofkit.exchange.opening import is_scan, open_table
from lofkit.scene.loading import scene_from_data
from lofkit.scene.model import Scene

READY = "lofkit workbench: {url}"
"""The one line `serve` prints on stdout once it listens."""
URL = "http://{host}:{port}/{query}"
"""The page's address (`query`: `?token=...` with `--share`)."""
LOCAL_HOST, SHARED_HOST = "127.0.0.1", "0.0.0.0"
"""Where `serve` listens: this computer only, or (`--share`) every network it is on."""
ROUTE_PROBE = ("192.0.2.1", 9)
"""A documentation address (RFC 5737) a UDP socket is "connected" to, to learn which of this computer's addresses
faces the network; a UDP connect sends nothing."""
TOKEN_BYTES = 24
"""Randomness of `--share`'s token (192 bits; 32 URL-safe characters)."""
MESH_CACHE_HELP = next(option.help for option in import_tts_command.params if option.name == "mesh_cache")
"""`--mesh-cache` means what it means to `lofkit import-tts`."""


SERVE_SCAN_FLAGS = {setting: f"`lofkit import-scan {flag}`" for setting, flag in SCAN_FLAGS.items()}
"""How the importer's messages name its settings when `serve` imports: `serve` has none of them, import-scan does."""

RECONNECT_SECONDS = 30.0
"""How long an open page waits for the server after losing it before reloading itself (NiceGUI's default is 3 s): a
busy server or a phone on weak Wi-Fi would otherwise reload the page and lose what the user was doing."""
STOP_GRACE_SECONDS = 3.0
"""After Ctrl-C, how long the requests being answered may take to finish before they are dropped and the workbench
stops anyway (those waiting for the background are answered at once: `stop_background_at_exit`)."""


def open_scene(source: str | None, mesh_cache: str | None) -> tuple[Scene, Path]:
    """The scene to open and the working folder its saves go to (`lofkit.exchange.opening.open_table`): what the
    importer had to say on stderr, its settings named as `import-tts` and `import-scan` name them."""
    path = Path(source) if source is not None else None
    task = f"importing {path.name}" if path is not None and is_scan(path) else "opening"
    with naming({**TTS_FLAGS, **SERVE_SCAN_FLAGS}, str), stages(task) as say:
        opened = open_table(source, mesh_cache, progress=say)
    flags = TTS_FLAGS if opened.kind == "save" else SERVE_SCAN_FLAGS
    for note in opened.notes:
        err.print(f"{escape(str(source))}: {escape(note)}", highlight=False)
    warn(str(source), [render(warning, flags) for warning in opened.warnings])
    if opened.skipped is not None:
        warn(str(source), import_notes(opened.skipped))
    return opened.scene, opened.folder


def import_notes(document: dict) -> list[str]:
    """The objects of a TTS save that did not become troopers or terrain, worded as `lofkit import-tts` words them."""
    notes = [f"unresolved: {item['name'] or '?'} ({item['guid']}): {item['url']} — {render(item['reason'], TTS_FLAGS)}"
             for item in document["unresolved"]]
    return notes + [f"skipped: {item['name'] or '?'} ({item['guid']}): {item['reason']}"
                    for item in document["skipped"]]


def listening_host(host: str | None, share: bool) -> str:
    """Where to listen: `--host` if given, else 127.0.0.1, or every interface with `--share`. Listening beyond
    this computer without `--share` (no token asked) is allowed, with a warning."""
    chosen = host or (SHARED_HOST if share else LOCAL_HOST)
    if not share and not is_loopback(chosen):
        err.print(f"[yellow]warning:[/] --host {chosen}: anyone on that network can open and change this table; "
                  "--share asks them for a token", highlight=False)
    return chosen


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def shown_host(host: str) -> str:
    """The host the READY line names: the one listened on, or, listening on every interface, this computer's
    address on its network (127.0.0.1 with no network); an IPv6 address in brackets, as URLs write it."""
    if host in ("0.0.0.0", "::", ""):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                probe.connect(ROUTE_PROBE)
                return probe.getsockname()[0]
            except OSError:
                return LOCAL_HOST
    return f"[{host}]" if ":" in host else host


def check_port_free(host: str, port: int) -> None:
    """Refuse, before anything starts, a host and port that cannot be listened on (in use, or no such address)."""
    try:
        family, kind, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
            probe.bind(address)
    except OSError as exc:
        raise LofkitError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); give another --port or "
                          "--host") from None


SERVER_POLL_SECONDS = 0.1
"""How often `when_server` looks at the server (the READY line comes at most this late; a stop watch wakes ten
times a second for the life of the server)."""


def when_server(ready, then, name: str) -> None:
    """Call `then()` in the server's loop once `ready(server)` holds (uvicorn's `Server`: `started`, `should_exit`),
    looked at every SERVER_POLL_SECONDS from startup: NiceGUI's startup handlers run before uvicorn binds the port,
    and its shutdown handlers only after uvicorn has waited for the requests it is answering."""
    import asyncio

    from nicegui import app, background_tasks
    from nicegui.server import Server

    async def wait() -> None:
        while not ready(Server.instance):
            await asyncio.sleep(SERVER_POLL_SECONDS)
        then()

    app.on_startup(lambda: background_tasks.create(wait(), name=name))


def announce_when_listening(url: str, open_browser: bool) -> None:
    """Print the READY line once the server listens (a test that reads it connects at once), then open a browser."""

    def announce() -> None:
        print(READY.format(url=url), flush=True)
        if open_browser:  # some browsers block until closed: never in the server's loop
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    when_server(lambda server: server.started, announce, "lofkit ready line")


def stop_background_at_exit(session) -> None:
    """On Ctrl-C, stop the matrix and the pictures being worked out before the server waits for the requests it is
    answering: a page that asked for many pictures of a large table would otherwise keep it running until all were
    drawn."""
    when_server(lambda server: server.should_exit, session.stop_background, "lofkit stop watch")


@click.command()
@click.argument("scene", required=False, metavar="[SCENE.yaml | PHOTO-MAP-DIR | SAVE.json | SCAN]")
@click.option("--host", help=f"Where to listen [default: {LOCAL_HOST}, this computer only; {SHARED_HOST} with "
                             "--share].")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="The port to listen on.")
@click.option("--share", is_flag=True, help="Listen on every network, for a phone on the same one; every request "
                                            "then needs the random token in the printed URL.")
@click.option("--mesh-cache", type=click.Path(file_okay=False), help=MESH_CACHE_HELP)
@click.option("--catalog", "catalogs", multiple=True, type=click.Path(dir_okay=False),
              help="A terrain catalogue (YAML) whose pieces the page can place; repeatable [default: lofkit's own, "
                   "terrain_models/catalog*.yaml].")
@click.option("--no-browser", is_flag=True, help="Do not open a browser.")
@click.option("--restore", "journal_choice", flag_value="restore",
              help="Take back the changes a session that did not end cleanly left in the scene's journal.")
@click.option("--discard", "journal_choice", flag_value="discard",
              help="Drop the changes a session that did not end cleanly left in the scene's journal.")
def serve(scene: str | None, host: str | None, port: int, share: bool, mesh_cache: str | None,
          catalogs: tuple[str, ...], no_browser: bool, journal_choice: str | None) -> None:
    """Open SCENE in the workbench: the table from above in a browser page; drag troopers, tap two for the verdict.
    Every change is journaled beside the scene until it is saved or the workbench stops cleanly. A 3D scan (.glb,
    .obj, .ply, .usdz, ...) is imported as `lofkit import-scan` would into <stem>-lofkit/ beside it, or reopened
    from there."""
    from lofkit.scene.catalog import bundled_catalogs, load_catalogs

    catalog = load_catalogs([Path(c) for c in catalogs] or bundled_catalogs())
    try:
        run_workbench(scene, listening_host(host, share), port, share, mesh_cache, catalog, not no_browser,
                      journal_choice)
    except KeyboardInterrupt:  # Ctrl-C: the server stopped as asked (uvicorn raises it again once it has stopped)
        pass
    leave_now()


def leave_now() -> None:
    """End the process once the server has stopped, as NiceGUI's own stop does (exit handlers, then `os._exit`),
    skipping the interpreter's teardown: a picture still being drawn on the renderer's daemon thread would crash it
    (VTK in mid-render), and NiceGUI's worker threads, in the middle of a verdict, would be waited for."""
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def run_workbench(source: str | None, host: str, port: int, share: bool, mesh_cache: str | None, catalog: dict,
                  open_browser: bool, journal_choice: str | None = None) -> None:
    """Open the scene (or what its journal holds) and serve its workbench on `host`:`port` (with `share`, behind a
    new token) until Ctrl-C."""
    opened, folder = open_scene(source, mesh_cache)
    opened, journal, version = with_journal(opened, folder, journal_choice)
    check_port_free(host, port)
    token = secrets.token_urlsafe(TOKEN_BYTES) if share else None
    build_workbench(opened, folder, token, catalog, journal, version)
    announce_when_listening(URL.format(host=shown_host(host), port=port, query=f"?token={token}" if token else ""),
                            open_browser)
    from nicegui import ui

    ui.run(host=host, port=port, show=False, reload=False, show_welcome_message=False, title="lofkit workbench",
           uvicorn_logging_level="warning", reconnect_timeout=RECONNECT_SECONDS,
           timeout_graceful_shutdown=STOP_GRACE_SECONDS)


def with_journal(scene: Scene, folder: Path, choice: str | None):
    """The scene to open, its journal and the version to start at. A journal left by a session that did not end
    cleanly is said and refused until the user chooses: `restore` opens what it holds (at its version), `discard`
    removes it; with no journal both flags are refused too (they would mean nothing)."""
    from lofkit.workbench.journal import Journal, journal_path

    journal = Journal(journal_path(scene.source, folder))
    if choice == "discard":
        if not journal.path.exists():
            raise LofkitError(f"--discard: {journal.path} does not exist; there are no unsaved changes to drop")
        journal.remove()
        return scene, journal, 0
    entry = journal.read()
    if entry is None:
        if choice == "restore":
            raise LofkitError(f"--restore: {journal.path} does not exist; there are no unsaved changes to take back")
        return scene, journal, 0
    said = journal.describe(entry, scene.source)
    if choice != "restore":
        raise LofkitError(f"{said}; give --restore to take those changes back or --discard to drop them")
    try:
        restored = scene_from_data(entry.scene, scene.source)
    except SceneError as exc:
        raise SceneError(journal.path, exc.problems) from None
    err.print(f"restored: {said}", highlight=False)
    return restored, journal, entry.version


def build_workbench(scene: Scene, folder: Path, token: str | None, catalog: dict, journal=None,
                    version: int = 0) -> None:
    """The workbench's page and API over `scene` on NiceGUI's app (saves in `folder`, pieces placed from `catalog`,
    changes journaled in `journal`), behind `token` if given."""
    from nicegui import app

    from lofkit.workbench.api import install
    from lofkit.workbench.guard import ShareToken
    from lofkit.workbench.page import build_page
    from lofkit.workbench.session import Session

    session = Session(scene, catalog, journal, version)
    app.on_shutdown(session.close)  # a clean exit (Ctrl-C) lets the journal go
    stop_background_at_exit(session)
    for warning in session.world.warnings:
        err.print(f"warning: {warning.where}: {warning.message}", highlight=False)
    prepare_parts(session.world)
    session.world.convex_parts  # noqa: B018 - every piece's parts gathered now, not on the first tap
    install(app, session, folder)
    build_page(session, folder)
    if token is not None:
        app.add_middleware(ShareToken, token=token)  # added last: the outermost, before anything else is read


COMMANDS: list[click.Command] = [serve]
