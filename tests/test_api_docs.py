"""The public API (`lofkit.__all__`) is documented in numpydoc form, as the API reference renders it: every function
with Parameters (naming each of its parameters), Returns and a runnable Example; every class with an Example, and
every result with Attributes naming each of its fields, typed (no field typed `object`). The examples themselves
run as doctests (`pytest --doctest-modules`); a constant's example, which doctest does not collect, runs here."""

from __future__ import annotations

import ast
import dataclasses
import doctest
import inspect
import re
import typing

import pytest

import lofkit
from tests.helpers import REPO

METHODS = ("World.from_scene", "World.with_scene")
"""Methods the API reference renders (docs/reference.md), documented like functions."""

INSTANCE_ATTRIBUTES = {
    "World": ("scene", "pieces", "troopers", "warnings"),
    "SceneError": ("source", "problems"),
    "UnknownTrooperError": ("trooper_id", "known"),
}
"""Public attributes of classes that are not dataclasses, which their Attributes section must name."""

DASHES = re.compile(r"-{3,}")


def sections(doc: str) -> dict[str, list[str]]:
    """numpydoc sections of a docstring: a title line underlined by a line of dashes as long as it, and the lines
    up to the next title (the summary, before any title, is left out)."""
    lines = inspect.cleandoc(doc).splitlines()
    found: dict[str, list[str]] = {}
    current = None
    i = 0
    while i < len(lines):
        title, under = lines[i].strip(), lines[i + 1].strip() if i + 1 < len(lines) else ""
        if title and DASHES.fullmatch(under) and len(under) == len(title):
            current = title
            found[current] = []
            i += 2
            continue
        if current is not None:
            found[current].append(lines[i])
        i += 1
    return found


def entry_names(lines: list[str]) -> set[str]:
    """The names an entries section (Parameters, Attributes) documents: its unindented lines, ``name : type`` or
    ``a, b : type``."""
    names = set()
    for line in lines:
        if line.strip() and not line[0].isspace():
            names.update(name.strip().lstrip("*") for name in line.split(" : ")[0].split(","))
    return names


def has_example(found: dict[str, list[str]]) -> bool:
    return any(line.lstrip().startswith(">>> ") for line in found.get("Examples", []))


def own_doc(obj) -> str:
    """The object's own docstring (`inspect.getdoc` would inherit a class's from its base)."""
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__
    assert doc and doc.strip(), f"{obj.__qualname__} has no docstring"
    return doc


def public(kind) -> list[str]:
    return [name for name in lofkit.__all__ if kind(getattr(lofkit, name))]


def _resolve(path: str):
    obj = lofkit
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def test_sections_are_read_as_numpydoc():
    """A guard for the tests below."""
    found = sections(lofkit.load.__doc__)
    assert list(found) == ["Parameters", "Returns", "Raises", "Examples"]
    assert entry_names(found["Parameters"]) == {"source", "mesh_cache"}
    assert has_example(found)
    assert entry_names(["a, b : str", "    The two ids.", "*args"]) == {"a", "b", "args"}


@pytest.mark.parametrize("name", public(inspect.isfunction) + list(METHODS))
def test_every_public_function_has_parameters_returns_and_an_example(name):
    function = _resolve(name)
    found = sections(own_doc(function))
    parameters = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
    if parameters:
        assert "Parameters" in found, f"{name}: no Parameters section"
        missing = set(parameters) - entry_names(found["Parameters"])
        assert not missing, f"{name}: Parameters does not name {sorted(missing)}"
    assert found.get("Returns"), f"{name}: no Returns section"
    assert has_example(found), f"{name}: no Examples section with a `>>>` line"


@pytest.mark.parametrize("name", public(inspect.isclass))
def test_every_public_class_has_an_example_and_its_attributes(name):
    cls = getattr(lofkit, name)
    found = sections(own_doc(cls))
    assert has_example(found), f"{name}: no Examples section with a `>>>` line"
    if dataclasses.is_dataclass(cls):
        attributes = [field.name for field in dataclasses.fields(cls) if not field.name.startswith("_")]
    else:
        attributes = INSTANCE_ATTRIBUTES.get(name, ())
    if attributes:
        assert "Attributes" in found, f"{name}: no Attributes section"
        missing = set(attributes) - entry_names(found["Attributes"])
        assert not missing, f"{name}: Attributes does not name {sorted(missing)}"


def _holds_object(hint) -> bool:
    return hint is object or any(_holds_object(arg) for arg in typing.get_args(hint))


@pytest.mark.parametrize("name", public(dataclasses.is_dataclass))
def test_public_results_are_typed(name):
    """`witness: Witness | None`, not `object`: every field of a public result names its type."""
    hints = typing.get_type_hints(getattr(lofkit, name))
    untyped = sorted(field for field, hint in hints.items() if _holds_object(hint))
    assert not untyped, f"{name}: fields typed `object`: {untyped}"


def _constant_docstrings() -> dict[str, str]:
    """The docstrings of the public constants: the string right after each one's assignment in its module."""
    found = {}
    for node in ast.parse((REPO / "lofkit" / "__init__.py").read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.ImportFrom):
            continue
        names = {alias.asname or alias.name for alias in node.names}
        path = REPO / (node.module.replace(".", "/") + ".py")
        body = ast.parse(path.read_text(encoding="utf-8")).body
        for statement, following in zip(body, body[1:]):
            if (isinstance(statement, ast.Assign) and isinstance(following, ast.Expr)
                    and isinstance(following.value, ast.Constant) and isinstance(following.value.value, str)):
                found.update({target.id: following.value.value for target in statement.targets
                              if isinstance(target, ast.Name) and target.id in names})
    return found


CONSTANTS = [name for name in lofkit.__all__ if not callable(getattr(lofkit, name))]


@pytest.mark.parametrize("name", CONSTANTS)
def test_every_public_constant_has_an_example_that_runs(name, monkeypatch):
    doc = _constant_docstrings().get(name)
    assert doc, f"{name} has no docstring"
    assert has_example(sections(doc)), f"{name}: no Examples section with a `>>>` line"
    monkeypatch.chdir(REPO)  # examples name the bundled scenes from the repository's root
    test = doctest.DocTestParser().get_doctest(doc, {}, f"lofkit.{name}", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0, f"{name}: its example fails (see the output above)"


def test_the_api_reference_renders_every_public_name():
    listed = set(re.findall(r"^::: lofkit\.(\w+)", (REPO / "docs" / "reference.md").read_text(encoding="utf-8"),
                            re.MULTILINE))
    assert set(lofkit.__all__) <= listed, f"docs/reference.md leaves out {sorted(set(lofkit.__all__) - listed)}"
