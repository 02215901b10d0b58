"""Errors a user can cause. Each one says what is wrong, where, and how to fix it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class LofkitError(Exception):
    """Base of every error caused by bad input; the CLI prints it and exits with status 2.

    Its message says what is wrong and how to fix it; catch it to catch every error a user can cause.

    Examples
    --------
    >>> import lofkit
    >>> lofkit.distance(lofkit.load("examples/rulebook_lof.yaml"), "fusilier", "fusilier")
    Traceback (most recent call last):
        ...
    lofkit.errors.LofkitError: a trooper and itself: a distance runs between two different troopers
    """


@dataclass(frozen=True)
class Problem:
    """One problem found in a scene, at its place: an error in `SceneError.problems`, or a warning.

    Attributes
    ----------
    where : str
        The place: a key's path like ``troopers[2].silhouette``, ``line 3, column 5``, ``(file)`` or ``(top)``.
    message : str
        What is wrong there, and how to fix it.

    Examples
    --------
    >>> import lofkit
    >>> report, world = lofkit.validate_file("examples/no-such-scene.yaml")
    >>> report.errors[0].to_dict()
    {'where': '(file)', 'message': 'file not found'}
    """

    where: str
    message: str

    def to_dict(self) -> dict:
        return {"where": self.where, "message": self.message}


class SceneError(LofkitError):
    """A scene that cannot be used; carries every problem found, not just the first.

    Attributes
    ----------
    source : str
        The scene file, or ``"<scene>"`` for data read from no file.
    problems : list of Problem
        Every problem, each at its place; the message has one line per problem.

    Examples
    --------
    >>> import lofkit
    >>> try:
    ...     lofkit.scene_from_data({"lofkit": 1, "troopers": [
    ...         {"id": "a", "side": "blue", "silhouette": 9, "position": [0, 0]}, {"id": "b", "side": "red"}]})
    ... except lofkit.SceneError as error:
    ...     print(error)
    <scene>: troopers[0].silhouette: unknown silhouette 9; use 1..8 (S0 is `state: [prone]`)
    <scene>: troopers[1].position: required field is missing
    """

    def __init__(self, source: Path | str | None, problems: list[Problem]):
        self.source = str(source) if source is not None else "<scene>"
        self.problems = list(problems)
        lines = [f"{self.source}: {p.where}: {p.message}" for p in self.problems]
        super().__init__("\n".join(lines))

    def __reduce__(self):  # errors cross process boundaries (executors): rebuild from the same arguments
        return type(self), (self.source, self.problems)


class UnknownTrooperError(LofkitError):
    """A trooper id that the scene does not have; the message lists the ids it has.

    Attributes
    ----------
    trooper_id : str
        The id asked for.
    known : list of str
        The scene's trooper ids.

    Examples
    --------
    >>> import lofkit
    >>> try:
    ...     lofkit.check(lofkit.load("examples/rulebook_lof.yaml"), "fusilier", "ghost")
    ... except lofkit.UnknownTrooperError as error:
    ...     print(error.trooper_id, error.known[:3])
    ghost ['fusilier', 'grenzer', 'alguacil']
    """

    def __init__(self, trooper_id: str, known: list[str]):
        self.trooper_id, self.known = trooper_id, list(known)
        shown = ", ".join(known[:20]) + (" ..." if len(known) > 20 else "")
        super().__init__(f"no trooper with id '{trooper_id}' in the scene; known ids: {shown}")

    def __reduce__(self):
        return type(self), (self.trooper_id, self.known)
