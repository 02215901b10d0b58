"""Helpers for tests: build scenes from plain dicts and write scene files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from lofkit import World, scene_from_data

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_SCENES = sorted(p for p in (REPO / "examples").rglob("*.yaml") if p.parent.name != "armies")
"""Every example scene file (examples/armies holds army lists, not scenes)."""


def trooper(trooper_id: str, x: float, y: float, **fields) -> dict:
    """A blue S2 trooper facing +y unless told otherwise."""
    return {"id": trooper_id, "side": "blue", "silhouette": 2, "position": [x, y], "facing": 90, **fields}


def scene_data(troopers=(), terrain=(), **fields) -> dict:
    return {"lofkit": 1, "terrain": list(terrain), "troopers": list(troopers), **fields}


def build_world(troopers=(), terrain=(), **fields) -> World:
    return World.from_scene(scene_from_data(scene_data(troopers, terrain, **fields)))


def write_scene(folder: Path, data: dict, name: str = "scene.yaml") -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def copy_of_scene(scene: Path, folder: Path) -> Path:
    """`scene` written into `folder` under its own name, its meshes named by absolute paths: a served copy saves and
    journals in `folder`, never beside the repository's example."""
    data = yaml.safe_load(scene.read_text(encoding="utf-8"))
    for piece in data.get("terrain", []):
        if "mesh" in piece:
            piece["mesh"] = str((scene.parent / piece["mesh"]).resolve())
    path = folder / scene.name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def run_example(script: str, folder: Path, **options) -> subprocess.CompletedProcess:
    """Run the repository's example `script` (a path relative to the repository) in `folder`, capturing its text."""
    return subprocess.run([sys.executable, str(REPO / script)], cwd=folder, capture_output=True, text=True,
                          timeout=300, **options)
