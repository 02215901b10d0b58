"""The files a mesh file reads besides itself: an OBJ's material libraries, a glTF's buffers and images.

A run never writes over a file its scene reads (`Scene.input_files`), and these are read with the mesh."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

_MTLLIB = re.compile(rb"^[ \t]*mtllib[ \t]+([^\r\n]+)", re.MULTILINE)


def mesh_side_files(path: Path) -> list[Path]:
    """The files mesh `path` names (relative to its folder); none for other formats, or a file that cannot be read
    (loading it says why)."""
    try:
        if path.suffix.lower() == ".obj":
            return [path.parent / name for line in _MTLLIB.findall(path.read_bytes())
                    for name in line.decode("utf-8", "replace").split()]
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
