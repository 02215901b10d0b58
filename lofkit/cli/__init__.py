"""The `lofkit` command: flags, messages and printing only; one module per topic."""

from lofkit.cli.group import cli, main

__all__ = ["cli", "main"]
