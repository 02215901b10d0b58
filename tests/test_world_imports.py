"""The World is compiled from the layers below it: geometry/world.py imports only scene/, geometry/, ray/, units and
errors, never the queries built on it (rules/, sight/, design/ ...)."""

from __future__ import annotations

import ast

from tests.helpers import REPO

ALLOWED = ("lofkit.scene", "lofkit.geometry", "lofkit.ray", "lofkit.units", "lofkit.errors")


def test_world_imports_only_lower_layers():
    tree = ast.parse((REPO / "lofkit" / "geometry" / "world.py").read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    lofkit = {name for name in imported if name.split(".")[0] == "lofkit"}
    assert lofkit and all(name.split(".")[:2] in [a.split(".") for a in ALLOWED] for name in lofkit), sorted(lofkit)
