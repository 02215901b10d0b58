"""Designer commands: `heatmap`, `lanes`, `analyze`, `compare`."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
