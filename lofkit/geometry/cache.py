"""The disk cache of what is slow to compute from a mesh and depends on nothing else (`inner.mesh_parts`,
`flat.outline`).

Entries are .npz files named by a key that digests the mesh's content, the settings it was computed with and the
code that computed it (`mesh_key`), so an entry is never stale: a changed mesh, setting or
construction has a new key. Folder: $LOFKIT_CACHE, else $XDG_CACHE_HOME/lofkit, else ~/.cache/lofkit. An unreadable
entry is computed again; a folder that cannot be written only costs the saving. While one process computes an entry,
another that needs it waits for it rather than computing it too (`kept`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np

T = TypeVar("T")


def folder() -> Path:
    """Where entries are kept."""
    if os.environ.get("LOFKIT_CACHE"):
        return Path(os.environ["LOFKIT_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lofkit"


def code_digest(versions: str, files) -> str:
    """A digest of what computes an entry: the `versions` of the libraries it leans on and the source `files` that
    compute it, so that changed code never reads what the old code saved."""
    digest = hashlib.sha256(versions.encode())
    for file in files:
        digest.update(Path(file).read_bytes())
    return digest.hexdigest()


def mesh_key(kind: str, mesh, code: str) -> str:
    """The key of `kind` (what is kept: "parts", "outline") of `mesh`: a digest of `code` (the code and settings
    that compute it) and of the mesh's vertices and faces."""
    digest = hashlib.sha256(code.encode())
    digest.update(np.ascontiguousarray(mesh.vertices, dtype=np.float64).tobytes())
    digest.update(np.ascontiguousarray(mesh.faces, dtype=np.int64).tobytes())
    return f"{kind}-{digest.hexdigest()[:32]}"


def has(key: str) -> bool:
    """Whether an entry is saved under `key`."""
    return (folder() / f"{key}.npz").is_file()


def load(key: str, kind: type[T]) -> T | None:
    """The dataclass `kind` saved under `key`, or None when there is no readable entry."""
    try:
        with np.load(folder() / f"{key}.npz") as saved:
            fields = {f.name: saved[f.name] for f in dataclasses.fields(kind)}
    except (OSError, KeyError, ValueError):
        return None
    return kind(**{name: value if value.ndim else value.item() for name, value in fields.items()})


def kept(key: str, kind: type[T], compute: Callable[[], T]) -> T:
    """The entry under `key`, else `compute()`, saved under it. One process at a time computes a key: the others
    that ask for it meanwhile wait, then read what it saved."""
    found = load(key, kind)
    if found is None:
        with _computing(key):
            found = load(key, kind)  # saved by the process this one waited for
            if found is None:
                found = compute()
                save(key, found)
    return found


@contextlib.contextmanager
def _computing(key: str) -> Iterator[None]:
    """Hold the lock file of `key` (an advisory lock: `fcntl.flock`), where the system and the folder allow one; the
    file is removed after, and a process still waiting on it finds the entry saved."""
    try:
        import fcntl

        folder().mkdir(parents=True, exist_ok=True)
        handle = open(folder() / f"{key}.lock", "w")
    except (ImportError, OSError):  # no flock (Windows), or a folder that cannot be written: compute unlocked
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.unlink(handle.name)


def save(key: str, value) -> None:
    """Save the dataclass `value` (fields: arrays and numbers) under `key`, atomically."""
    try:
        folder().mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder(), suffix=".npz", delete=False) as handle:
            np.savez(handle, **{f.name: np.asarray(getattr(value, f.name)) for f in dataclasses.fields(value)})
        os.replace(handle.name, folder() / f"{key}.npz")
    except OSError:
        return
