"""The files a mesh file reads besides itself: an OBJ's material libraries and the texture maps they name, a glTF's
buffers and images.

A run never writes over a file its scene reads (`Scene.input_files`), and these are read with the mesh."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

_MTLLIB = re.compile(rb"^[ \t]*mtllib[ \t]+([^\r\n]+)", re.MULTILINE)
_TEXTURE = re.compile(rb"^[ \t]*(?:map_\w+|bump|disp|decal|refl|norm)[ \t]+([^\r\n]+)", re.MULTILINE)
"""A material's texture map: options (`-s 1 1 1`, `-bm 0.5`) first, the file name last."""


def mesh_side_files(path: Path) -> list[Path]:
    """The files mesh `path` names (relative to its folder); none for other formats, or a file that cannot be read
    (loading it says why)."""
    try:
        if path.suffix.lower() == ".obj":
            libraries = [path.parent / name for line in _MTLLIB.findall(path.read_bytes())
                         for name in line.decode("utf-8", "replace").split()]
            return libraries + [texture for library in libraries for texture in _textures(library)]
        if path.suffix.lower() == ".gltf":
            document = json.loads(path.read_text(encoding="utf-8-sig"))
            uris = [item.get("uri") for key in ("buffers", "images") for item in document.get(key) or ()
                    if isinstance(item, dict)]
            names = {name for uri in uris if isinstance(uri, str) and not uri.startswith("data:")
                     for name in (uri, unquote(uri))}  # readers differ on whether "%20" is a space
            return [path.parent / name for name in sorted(names)]
    except (OSError, ValueError, AttributeError):
        return []
    return []


def _textures(library: Path) -> list[Path]:
    """The texture maps a material library names (relative to its folder); none when it cannot be read."""
    try:
        lines = _TEXTURE.findall(library.read_bytes())
    except OSError:
        return []
    return [library.parent / words[-1] for line in lines if (words := line.decode("utf-8", "replace").split())]
