"""The package's shape, pinned: few top-level modules, short modules, no import cycles, layers that only import
downwards, and a light `import lofkit`. Imports are read from the source with `ast`, never by importing."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from functools import cache

from tests.helpers import REPO

PACKAGE = REPO / "lofkit"
MAX_TOP_LEVEL_MODULES = 8
MAX_LINES = 450

LAYERS = {
    "units": 0,
    "errors": 0,
    "scene": 1,
    "ray": 2,
    "geometry": 3,
    "sight": 4,
    "rules": 5,
    "dice": 6,
    "design": 7,
    "exchange": 7,
    "game": 7,
    "viz": 8,
    "workbench": 9,
    "cli": 10,
    "testing": 11,
}
"""Layer of each subpackage (and of the two base modules), lowest first. A module may import its own layer and
lower ranks only; layers of equal rank (design, exchange; units, errors) do not import each other. The order is
read off the code: scene is plain data; ray casts rays and knows no scene; geometry compiles a Scene into a World
(placed meshes, volumes, a ray back-end); sight runs the 3 x 3 mm search over a World's arrays; rules answer
questions with it; dice rolls numbers and needs no geometry, but sits above rules since odds are taken of
rulings; design and exchange use the rules and the World, game the rules (AROs) and dice (the Initiative roll); viz draws rules' and design's results; the workbench
edits a table live and answers with all of them; cli uses all. testing (the slow references and test data that
tests and benchmarks compare lofkit with) sits above them all: it may import any layer, and no layer imports it."""

OUTSIDE_LAYERS = {"lofkit": "the public API", "lofkit.__main__": "`python -m lofkit`"}
"""Modules above every layer: they may import any layer, and no layered module may import them."""

HEAVY = ("pyvista", "vtk", "vtkmodules", "matplotlib", "trame", "cv2", "dask", "distributed", "playwright",
         "fastapi", "nicegui", "uvicorn", "pxr", "lofkit.testing")
"""What `import lofkit` must not import: the optional extras, and the test references."""


def _module_name(path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> dict[str, object]:
    """Module name -> path, for every module of the package."""
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST, top_level_only: bool):
    """Import statements of a module: all of them, or only those run when it is imported (not inside functions,
    nor under `if TYPE_CHECKING:`)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        if top_level_only and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if top_level_only and isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The lofkit modules an import statement loads (the named module itself, not its parent packages)."""
    modules = _modules()
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    base = node.module or ""
    if node.level:
        package = module.split(".") if _modules()[module].name == "__init__.py" else module.split(".")[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join(package + ([base] if base else []))
    found = set()
    for alias in node.names:
        if f"{base}.{alias.name}" in modules:
            found.add(f"{base}.{alias.name}")  # a submodule
        elif base in modules:
            found.add(base)  # a name defined in the module (or package)
    return found


@cache
def _imports(top_level_only: bool) -> dict[str, set[str]]:
    """lofkit module -> the lofkit modules it imports."""
    graph = {}
    for module, path in _modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[module] = {t for node in _import_nodes(tree, top_level_only) for t in _targets(module, node)} - {module}
    return graph


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and module not in OUTSIDE_LAYERS else None


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_is_read():
    """A guard for the tests below: the graph holds every module and some known edges."""
    graph = _imports(top_level_only=True)
    assert {"lofkit", "lofkit.units", "lofkit.geometry.world", "lofkit.cli"} <= set(graph)
    assert "lofkit.ray" in graph["lofkit.geometry.world"]
    assert "lofkit.viz.render" not in graph["lofkit.cli.pictures"]  # imported inside a function only
    assert "lofkit.viz.render" in _imports(top_level_only=False)["lofkit.cli.pictures"]


def test_at_most_eight_modules_directly_under_lofkit():
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, f"{len(top)} modules directly under lofkit/: {top}; put new ones in " \
                                              "the subpackage of their layer"


def test_no_module_is_longer_than_450_lines():
    lengths = {module: len(path.read_text(encoding="utf-8").splitlines()) for module, path in _modules().items()}
    long = {module: n for module, n in sorted(lengths.items()) if n > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def test_no_import_cycle_at_module_level():
    cycles = _cycles(_imports(top_level_only=True))
    assert not cycles, f"modules that import each other, directly or not, when imported: {cycles}"


def test_every_subpackage_has_a_layer():
    layers = {_layer(module) for module in _modules()} - {None}
    assert layers == set(LAYERS), f"add the new subpackage to LAYERS: {sorted(layers ^ set(LAYERS))}"


def test_layers_import_only_their_own_and_lower_layers():
    """Every import counts here, also those inside functions: a lazy import is still a dependency."""
    wrong = []
    for module, targets in sorted(_imports(top_level_only=False).items()):
        layer = _layer(module)
        for target in sorted(targets):
            if target in OUTSIDE_LAYERS:
                if layer is not None:
                    wrong.append(f"{module} imports {target} ({OUTSIDE_LAYERS[target]}), which no layer may import")
                continue
            other = _layer(target)
            if layer is None or other == layer:
                continue
            if LAYERS[other] >= LAYERS[layer]:
                wrong.append(f"{module} ({layer}, rank {LAYERS[layer]}) imports {target} ({other}, rank "
                             f"{LAYERS[other]})")
    assert not wrong, "imports against the layer order:\n" + "\n".join(wrong)


def test_importing_lofkit_stays_light():
    """`import lofkit` loads none of the optional extras (rendering, photos, clusters) nor the test references."""
    code = f"import json, sys, lofkit; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in " \
           f"{sorted({h.split('.')[0] for h in HEAVY})!r})))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    loaded = json.loads(done.stdout)
    heavy = sorted(m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY))
    assert not heavy, f"`import lofkit` imports {heavy}"


def test_the_sight_oracle_shares_no_code_with_the_sight_search():
    """`lofkit.testing.sight` is the reference the sight search is tested against: written from the rule, it imports
    nothing of `lofkit.sight` (every import counts, also those inside functions), so it cannot share a mistake."""
    shared = sorted(t for t in _imports(top_level_only=False)["lofkit.testing.sight"]
                    if t == "lofkit.sight" or t.startswith("lofkit.sight."))
    assert not shared, f"the sight oracle imports {shared}"
