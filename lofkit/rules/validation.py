"""`lofkit validate`: the whole input pipeline, reading the file and compiling its World, as one verdict."""

from __future__ import annotations

from pathlib import Path

from lofkit.errors import SceneError
from lofkit.geometry.world import World
from lofkit.rules.results import Validation
from lofkit.scene.loading import load_scene


def validate_file(path: str | Path) -> tuple[Validation, World | None]:
    """Load and compile a scene file; every error and warning is collected instead of raised."""
    try:
        world = World.from_scene(load_scene(path))
    except SceneError as exc:
        return Validation(str(path), tuple(exc.problems), ()), None
    return Validation(str(path), (), tuple(world.warnings)), world
