"""Shared fixtures."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from lofkit.cli import cli


@pytest.fixture
def run_cli():
    """Run `lofkit ARGS...` in-process; the result has exit_code, stdout and stderr."""
    runner = CliRunner()

    def run(*args):
        return runner.invoke(cli, [str(a) for a in args])

    return run
