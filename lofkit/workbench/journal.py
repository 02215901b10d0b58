"""The workbench's journal: every accepted change written beside the scene, so that a crash loses no edit.

The journal of `table.yaml` is `.table.yaml.lofkit-session` in the same folder (of an empty table, opened with no
scene, `.untitled.lofkit-session` in the working folder). It holds the whole scene as the session has it (lengths
in mm, the files it names made absolute) and the session's version. Each write goes to a temporary file in the same
folder, flushed to disk, then renamed over the journal: a reader finds the previous state or the new one, never
half of one. A clean save or a clean exit removes it; `lofkit serve` refuses to open a scene that still has one
until told to `--restore` or `--discard` it.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from lofkit.errors import LofkitError

SUFFIX = ".lofkit-session"
UNTITLED = "untitled"
"""The journal's stem for a table opened with no scene file."""
FORMAT = 1
"""`lofkit_session` in the file: its format, so that a later lofkit can tell."""


def journal_path(source: Path | None, folder: Path) -> Path:
    """Where the journal of the scene read from `source` lives (an empty table's: in `folder`).

    >>> journal_path(Path("/games/table-b.yaml"), Path("/games")).as_posix()
    '/games/.table-b.yaml.lofkit-session'
    """
    if source is None:
        return folder / f".{UNTITLED}{SUFFIX}"
    return source.parent / f".{source.name}{SUFFIX}"


@dataclass(frozen=True)
class Entry:
    """What a journal holds: the scene data (as a scene file would, lengths in mm) at `version`."""

    scene: dict
    version: int
    written: float
    """When it was written (seconds since the epoch)."""


class Journal:
    """The journal file at `path` (see the module docstring)."""

    def __init__(self, path: Path):
        self.path = Path(path)

    def write(self, scene: dict, version: int) -> None:
        """Replace the journal with this state, atomically (temporary file, flush, rename)."""
        document = {"lofkit_session": FORMAT, "version": version, "scene": scene}
        handle, temporary = tempfile.mkstemp(prefix=self.path.name + ".", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(document, stream)
                stream.flush()
                os.fsync(stream.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def read(self) -> Entry | None:
        """The journal's state, or None when there is no journal; one lofkit cannot read raises LofkitError."""
        try:
            text = self.path.read_text(encoding="utf-8")
            written = self.path.stat().st_mtime
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise LofkitError(f"{self.path}: cannot read the workbench's journal ({exc.strerror}); move it away to "
                              "open the scene without it") from None
        try:
            document = json.loads(text)
            if document.get("lofkit_session") != FORMAT:
                raise ValueError("not a lofkit_session")
            return Entry(dict(document["scene"]), int(document["version"]), written)
        except (ValueError, KeyError, TypeError, AttributeError):
            raise LofkitError(f"{self.path}: not a journal this lofkit can read; give --discard to drop it, or move "
                              "it away") from None

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)

    def describe(self, entry: Entry, source: Path | None) -> str:
        """One sentence for the user: what the journal holds and how it compares with the scene's last save."""
        when = datetime.fromtimestamp(entry.written).strftime("%Y-%m-%d %H:%M:%S")
        newer = ""
        if source is not None and source.exists():
            newer = (", newer than the scene's last save" if entry.written >= source.stat().st_mtime
                     else ", older than the scene's last save")
        return (f"{self.path} holds the table at version {entry.version} of a session that did not end cleanly "
                f"({when}{newer})")
