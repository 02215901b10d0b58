"""Where importers and exporters write: one policy for output files and folders, and writing scene files.

Policy: nothing a user made is ever replaced. An output file is written only where no file is, unless `overwrite`;
an output folder must be new, empty, or hold only the outputs of an earlier run of the same import (replaced only
with `overwrite`). Checks come before any work, so a refused run writes nothing. What every importer produces is a
normal scene file, validated before it is written (README "Scene files"); its other outputs (a mesh, a table map)
are written before it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Collection
from pathlib import Path

import yaml

from lofkit.errors import LofkitError
from lofkit.exchange.messages import SettingError
from lofkit.scene.loading import scene_from_data
from lofkit.scene.model import Scene


class OutputExistsError(SettingError):
    """An output file that is already there, without `overwrite`."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        super().__init__("{path}: the file already exists; choose another name or pass {overwrite} to replace it",
                         path=path)


class OutputFolderError(LofkitError):
    """An output folder an import may not write into: a file (`is_file`), or a folder holding `others` (files that
    are not this import's outputs) or, without `overwrite`, an `earlier` run's outputs. Names are sorted."""

    def __init__(self, folder: Path | str, is_file: bool = False, others: Collection[str] = (),
                 earlier: Collection[str] = (), overwrite: bool = False):
        self.folder, self.is_file, self.overwrite = Path(folder), is_file, overwrite
        self.others, self.earlier = sorted(others), sorted(earlier)
        if is_file:
            text = f"{folder} is a file; give a new or empty folder"
        elif self.others:
            text = f"{folder} already holds other files ({', '.join(self.others[:5])}); give a new or empty folder"
        else:
            text = (f"{folder} already holds {', '.join(self.earlier)} from an earlier import; allow overwriting to "
                    "replace them, or give a new folder")
        super().__init__(text)


def _existing_folder(path: Path) -> Path:
    """The nearest of `path`'s parents that is there (where its folder would be made); refuses one that is a file."""
    parent = next(parent for parent in path.parents if parent.exists())  # "." or "/" at the latest
    if not parent.is_dir():
        raise LofkitError(f"{path}: {parent} is a file, not a folder; give a path in a folder")
    return parent


def _check_writable(folder: Path, path: Path) -> None:
    """Refuse, before any work, to write `path`: a file that is there must take writing (it is replaced in place);
    otherwise `folder` must take a new file (not read-only, not /proc). The probes change nothing: the file is
    opened to append nothing, and the new file is a nameless one where the system has them, else removed at once."""
    try:
        if path.is_file():
            with path.open("ab"):
                pass
            return
    except OSError as exc:
        raise LofkitError(f"cannot write {path}: {exc.strerror or exc}; make it writable or give another name") from None
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise LofkitError(f"cannot write {path}: the folder {folder} takes no new file ({exc.strerror or exc}); "
                          "give a folder you can write to") from None


def _is_input(path: Path, inputs: Collection[Path | str]) -> bool:
    """Whether `path` is one of the files a run reads."""
    return path.exists() and any(path.resolve() == Path(i).resolve() for i in inputs)


def check_output_file(path: Path | str, overwrite: bool, inputs: Collection[Path | str] = ()) -> None:
    """Refuse to replace an existing file unless `overwrite`, to write where a parent is a file or into a folder
    that cannot be written, and ever to replace one of the run's `inputs`."""
    path = Path(path)
    folder = _existing_folder(path)
    if path.is_dir():
        raise LofkitError(f"{path} is a folder; give a file name")
    if _is_input(path, inputs):
        raise LofkitError(f"{path} is an input of this run; write the output elsewhere")
    if path.exists() and not overwrite:
        raise OutputExistsError(path)
    _check_writable(folder, path)


def check_output_files(paths: Collection[Path | str], overwrite: bool, inputs: Collection[Path | str] = ()) -> None:
    """`check_output_file` for each of a run's output files, before any work."""
    for path in paths:
        check_output_file(path, overwrite, inputs)


def check_output_folder(folder: Path | str, outputs: Collection[str], overwrite: bool,
                        inputs: Collection[Path | str] = ()) -> None:
    """Refuse a folder that is a file (or lies under one), holds files other than `outputs` (names), holds an
    earlier run's outputs unless `overwrite`, or cannot be written; and never let an output replace one of the
    run's `inputs`."""
    folder = Path(folder)
    nearest = _existing_folder(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputFolderError(folder, is_file=True)
    for name in outputs:
        if _is_input(folder / name, inputs):
            raise LofkitError(f"{folder / name} is an input of this run, and this run writes its {name} there; "
                              f"give another folder")
    present = [p.name for p in folder.iterdir()] if folder.is_dir() else []
    others = [name for name in present if name not in outputs]
    earlier = [name for name in present if name in outputs]
    if others or (earlier and not overwrite):
        raise OutputFolderError(folder, others=others, earlier=earlier, overwrite=overwrite)
    _check_writable(folder if folder.is_dir() else nearest, folder)


def make_folder(folder: Path | str) -> Path:
    """Create `folder` (and its parents) if it is not there yet; returns it. A failure names it (exit 2)."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise LofkitError(f"cannot make the folder {folder}: it or one of its parents is a file") from None
    except OSError as exc:
        raise LofkitError(f"cannot make the folder {folder}: {exc.strerror}") from None
    return folder


def write_bytes(path: Path | str, data: bytes) -> None:
    """Write `data` to an output file, its folder made if need be; a failure names the file (exit 2)."""
    path = Path(path)
    try:
        make_folder(path.parent)
        path.write_bytes(data)
    except OSError as exc:
        raise LofkitError(f"cannot write {path}: {exc.strerror or exc}") from None


def write_text(path: Path | str, text: str) -> None:
    """Write `text` to an output file as UTF-8 (`write_bytes`)."""
    write_bytes(path, text.encode("utf-8"))


def write_scene_file(data: dict, path: Path | str, comment: str = "", overwrite: bool = False) -> Scene:
    """Validate `data` as a scene, then write it to `path` as YAML; returns the validated scene.

    The data is validated before anything is written, so a bad import never leaves a half-written file, and an
    existing file is never replaced unless `overwrite` is given. Relative mesh or image paths in `data` are read
    relative to `path`'s folder, as the loader will read them.
    """
    path = Path(path)
    check_output_file(path, overwrite)
    if path.suffix.lower() not in (".yaml", ".yml"):
        raise LofkitError(f"{path}: scene files are written as YAML; give a name ending in .yaml")
    scene = scene_from_data(data, source=path)
    header = "".join(f"# {line}\n" for line in comment.splitlines()) if comment else ""
    text = header + yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=110)
    write_text(path, text)
    return scene
