"""Importers and exporters: `import-scan`, `import-tts`, `export`."""

from __future__ import annotations

import click

COMMANDS: list[click.Command] = []
