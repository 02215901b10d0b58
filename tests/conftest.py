"""Shared fixtures, and the hypothesis profiles.

Profiles: `ci` (the default) is derandomized, so every run, on any machine, draws the same examples and a failure
is reproducible from the test's name alone; `random` draws new examples on each run, for exploring locally:
`pytest --hypothesis-profile=random`, or `HYPOTHESIS_PROFILE=random pytest` (the command-line option wins).
A failing example prints a `@reproduce_failure` blob in both. Tests that give `max_examples` keep their own count.
"""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner
from hypothesis import settings

from lofkit.cli import cli

settings.register_profile("ci", derandomize=True, database=None, print_blob=True, max_examples=50, deadline=None)
settings.register_profile("random", derandomize=False, print_blob=True, max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def run_cli():
    """Run `lofkit ARGS...` in-process; the result has exit_code, stdout and stderr."""
    runner = CliRunner()

    def run(*args):
        return runner.invoke(cli, [str(a) for a in args])

    return run
