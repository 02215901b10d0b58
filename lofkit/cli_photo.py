"""`lofkit photo`: a top-down photo of a table becomes a rectified orthophoto and a scene stub."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
