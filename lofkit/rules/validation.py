"""`lofkit validate`: the whole input pipeline, reading the file and compiling its World, as one verdict."""

from __future__ import annotations

from pathlib import Path

from lofkit.errors import SceneError
from lofkit.geometry.world import World
from lofkit.rules.results import Validation
from lofkit.scene.loading import load_scene


def validate_file(path: str | Path) -> tuple[Validation, World | None]:
    """Read and compile a scene file as `lofkit validate` does, collecting every error and warning instead of raising.

    Parameters
    ----------
    path : str or Path
        A scene file (`.yaml`, `.yml`, `.json` or `.toml`).

    Returns
    -------
    report : Validation
        The errors (each stops every query) and the warnings, each at its place in the file.
    world : World or None
        The compiled table, or None when there are errors.

    Examples
    --------
    >>> import lofkit
    >>> report, world = lofkit.validate_file("examples/quickstart.yaml")
    >>> report.ok, len(world.troopers)
    (True, 7)
    >>> report, world = lofkit.validate_file("examples/no-such-scene.yaml")
    >>> report.ok, world, report.errors
    (False, None, (Problem(where='(file)', message='file not found'),))
    """
    try:
        world = World.from_scene(load_scene(path))
    except SceneError as exc:
        return Validation(str(path), tuple(exc.problems), ()), None
    return Validation(str(path), (), tuple(world.warnings)), world
