"""Errors a user can cause. Each one says what is wrong, where, and how to fix it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class LofkitError(Exception):
    """Base of every error caused by bad input; the CLI prints it and exits with status 2."""


@dataclass(frozen=True)
class Problem:
    """One problem found in a scene: `where` is a path like ``troopers[2].silhouette``."""

    where: str
    message: str

    def to_dict(self) -> dict:
        return {"where": self.where, "message": self.message}


class SceneError(LofkitError):
    """A scene file that cannot be used; carries every problem found, not just the first."""

    def __init__(self, source: Path | str | None, problems: list[Problem]):
        self.source = str(source) if source is not None else "<scene>"
        self.problems = list(problems)
        lines = [f"{self.source}: {p.where}: {p.message}" for p in self.problems]
        super().__init__("\n".join(lines))

    def __reduce__(self):  # errors cross process boundaries (executors): rebuild from the same arguments
        return type(self), (self.source, self.problems)


class UnknownTrooperError(LofkitError):
    """A trooper id that the scene does not have."""

    def __init__(self, trooper_id: str, known: list[str]):
        self.trooper_id, self.known = trooper_id, list(known)
        shown = ", ".join(known[:20]) + (" ..." if len(known) > 20 else "")
        super().__init__(f"no trooper with id '{trooper_id}' in the scene; known ids: {shown}")

    def __reduce__(self):
        return type(self), (self.trooper_id, self.known)
