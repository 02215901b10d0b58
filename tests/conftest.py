"""Shared fixtures, and the hypothesis profiles.

The tests' disk cache of inner parts is .cache/lofkit in the repository, unless LOFKIT_CACHE says otherwise. Its
entries are keyed on the code that computes them (`geometry.inner.code_digest`), and the tests of the parts themselves
(tests/test_inner_parts.py) compute them afresh.

Profiles: `ci` (the default) is derandomized, so every run, on any machine, draws the same examples and a failure
is reproducible from the test's name alone; `random` draws new examples on each run, for exploring locally:
`pytest --hypothesis-profile=random`, or `HYPOTHESIS_PROFILE=random pytest` (the command-line option wins).
A failing example prints a `@reproduce_failure` blob in both. Tests that give `max_examples` keep their own count.
Property tests whose claim holds only when something fires (a proof of "hidden") count how often it did over the run
and fail when it seldom did: the strategies that feed them (`tests.strategies.screened_layouts`) make it common.

In parallel (`make test`: pytest-xdist, `-n`) each worker is a session of its own (its own scratch folders, its own
`example_run`, its own ports: `helpers.free_port`), and the tests marked slow are handed out first, so that no worker
is left with a long test at the end while the other has nothing to do. Shared files are written whole, then renamed
(the inner parts' cache, numba's compiled kernels, the test meshes).
"""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner
from hypothesis import settings

from lofkit.cli import cli
from lofkit.cli.memory import keep_freed_memory
from tests.helpers import REPO, run_example

settings.register_profile("ci", derandomize=True, database=None, print_blob=True, max_examples=50, deadline=None)
settings.register_profile("random", derandomize=False, print_blob=True, max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

os.environ.setdefault("LOFKIT_CACHE", str(REPO / ".cache" / "lofkit"))
"""The tests keep the inner parts they compute in the repository (git ignores .cache/), not in the user's cache."""

keep_freed_memory()
"""The test processes allocate as the `lofkit` command does (lofkit.cli.memory)."""


@pytest.hookimpl(wrapper=True)  # around pytest-xdist's own, which reads the groups
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist, the tests marked slow first (each worker collects, and sorts, the same way), and the
    tests that share a module- or session-scoped fixture of ours in one `xdist_group` (`--dist loadgroup`), so that
    the fixture (a rendered photo sweep, a simulated scan, the example scripts) is made by one worker only."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    for item, group in shared_fixture_groups(items).items():
        item.add_marker(pytest.mark.xdist_group(group))
    return (yield)


def shared_fixture_groups(items) -> dict:
    """Each test that uses a shared fixture of tests/ (module- or session-scoped, directly or through another),
    with the name of its group: tests are joined when they share such a fixture, and a group is named after one."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    keys = {}
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        defs = [(name, info.name2fixturedefs[name][-1]) for name in item.fixturenames
                if info is not None and name in info.name2fixturedefs]
        keys[item] = [f"{item.module.__name__ if d.scope == 'module' else 'session'}.{name}" for name, d in defs
                      if d.scope in ("module", "session") and d.func.__module__.startswith("tests")]
        for key in keys[item]:
            parent[root(key)] = root(keys[item][0])
    names = {}
    for key in sorted(parent):
        names.setdefault(root(key), key)
    return {item: names[root(found[0])] for item, found in keys.items() if found}


@pytest.fixture
def run_cli():
    """Run `lofkit ARGS...` in-process; the result has exit_code, stdout and stderr."""
    runner = CliRunner()

    def run(*args):
        return runner.invoke(cli, [str(a) for a in args])

    return run


@pytest.fixture(scope="session")
def example_run(tmp_path_factory):
    """Each example script run at most once per session, in one scratch folder that holds the repository's
    `examples/`: `example_run(script)` gives the finished process and that folder (read its outputs, do not write)."""
    folder = tmp_path_factory.mktemp("examples")
    (folder / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    env = {**os.environ, "VTK_DEFAULT_OPENGL_WINDOW": "vtkEGLRenderWindow"}
    done = {}

    def run(script: str):
        if script not in done:
            done[script] = run_example(script, folder, env=env)
        return done[script], folder

    return run
