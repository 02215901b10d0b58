"""Writing scene files: what every importer produces is a normal, validated scene file (SCENE_FORMAT.md)."""

from __future__ import annotations

from pathlib import Path

import yaml

from lofkit.errors import LofkitError
from lofkit.scene.loading import scene_from_data
from lofkit.scene.model import Scene


def write_scene_file(data: dict, path: Path | str, comment: str = "", overwrite: bool = False) -> Scene:
    """Validate `data` as a scene, then write it to `path` as YAML; returns the validated scene.

    The data is validated before anything is written, so a bad import never leaves a half-written file, and an
    existing file is never replaced unless `overwrite` is given. Relative mesh or image paths in `data` are read
    relative to `path`'s folder, as the loader will read them.
    """
    path = Path(path)
    if path.exists() and not overwrite:
        raise LofkitError(f"{path}: the file already exists; choose another name or pass --force to replace it")
    if path.suffix.lower() not in (".yaml", ".yml"):
        raise LofkitError(f"{path}: scene files are written as YAML; give a name ending in .yaml")
    scene = scene_from_data(data, source=path)
    header = "".join(f"# {line}\n" for line in comment.splitlines()) if comment else ""
    text = header + yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=110)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return scene
