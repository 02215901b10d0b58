"""The `lofkit` command: one sub-command per question, `--json` for machines, rich tables for people.

Exit status (README): 0 when the question was answered, 2 for bad input (a message, no traceback), 1 for an
internal error. Presentation only: every answer comes from a query's result object. The sub-commands live in one
module per topic; the package adds them to `cli`.
"""

from __future__ import annotations

import os
import traceback
import warnings

import click
from rich.markup import escape

from lofkit.cli.common import BAD_INPUT, LOADED, err
from lofkit.cli.memory import keep_freed_memory
from lofkit.errors import LofkitError, UnknownTrooperError

OPTIONAL_EXTRAS = {"pyvista": "render", "vtk": "render", "matplotlib": "render", "trame": "render",
                   "cv2": "photo", "distributed": "cluster", "dask": "cluster", "fastapi": "serve", "nicegui": "serve",
                   "fast_simplification": "serve", "pxr": "scan"}
"""Modules of the optional extras (pyproject.toml), and the extra that installs each."""


class LofkitGroup(click.Group):
    """Turns a user's mistake into a message and exit status 2, and a bug into status 1."""

    def invoke(self, ctx: click.Context):
        LOADED.clear()
        try:
            with warnings.catch_warnings():
                if not os.environ.get("LOFKIT_DEBUG"):  # numpy's notes on odd numbers in a file, with source lines
                    warnings.simplefilter("ignore", RuntimeWarning)
                return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort):
            raise
        except LofkitError as exc:
            text = f"{next(iter(LOADED))}: {exc}" if isinstance(exc, UnknownTrooperError) and len(LOADED) == 1 else str(exc)
            err.print(f"[bold red]error:[/] {escape(text)}", highlight=False)
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


def main() -> None:
    keep_freed_memory()
    cli(prog_name="lofkit")
