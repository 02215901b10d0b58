"""Opening whatever a player has of a table as a scene: a scene file, the folder `lofkit photo` wrote, a Tabletop
Simulator save, a 3D scan. `lofkit.load` and `lofkit serve` open tables through `open_table`.

- A scene file (`.yaml`, `.yml`, `.toml`, or `.json` with a `lofkit` key) is read as it is; saves go beside it.
- A folder is the scene file it holds (`scene.yaml`: what `lofkit photo` and `lofkit import-scan` write).
- A `.json` with `ObjectStates` at its top level is a Tabletop Simulator save, imported as `lofkit import-tts`
  imports it into a scratch folder; the scene reads as if from the save, naming its meshes by absolute paths.
- A 3D scan (`SCAN_SUFFIXES`: .glb, .obj, .ply, .usdz, ...) is imported, with the standard table size it fits,
  into the folder `<stem>-lofkit` beside it (`scan_folder`); a scan imported before opens its earlier import, so
  that what was confirmed and saved there is kept. The import is written into a scratch folder and renamed into
  place only when whole; a folder holding other files is refused.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lofkit.errors import LofkitError, SceneError
from lofkit.exchange.messages import Message, SettingError
from lofkit.geometry.world import World
from lofkit.scene.loading import load_scene, relocated, scene_from_data
from lofkit.scene.model import Scene

SCAN_FOLDER = "{stem}-lofkit"
"""The folder beside a scan that it is imported into (`game.glb` -> `game-lofkit/`) and reopened from."""


@dataclass(frozen=True)
class Opened:
    """A table opened by `open_table`.

    Attributes
    ----------
    scene : Scene
        The validated scene.
    folder : Path
        Where the scene's saves belong (beside the scene file, the save, or in the scan's folder).
    kind : str
        What was opened: ``"scene"``, ``"save"`` (Tabletop Simulator), ``"scan"``, or ``"empty"``.
    warnings : tuple
        The importer's warnings (`Message` or text), each about the file opened.
    notes : tuple of str
        What was done that the user should know (an earlier import reopened, a scan imported into a folder).
    skipped : dict or None
        For a save, its objects that became neither troopers nor terrain (`unresolved`, `skipped`), as
        `lofkit import-tts --json` gives them.
    """

    scene: Scene
    folder: Path
    kind: str
    warnings: tuple = ()
    notes: tuple[str, ...] = ()
    skipped: dict | None = None


def load(source: str | Path, mesh_cache: str | Path | None = None) -> World:
    """Open a table and make it ready to rule on: whatever `lofkit serve` opens.

    Parameters
    ----------
    source : str or Path
        A scene file, the folder `lofkit photo` or `lofkit import-scan` wrote, a Tabletop Simulator save (`.json`
        with `ObjectStates`), or a 3D scan (imported into the folder `<stem>-lofkit` beside it, or opened from
        there when imported before).
    mesh_cache : str, Path or None
        For a save only: the folder of Tabletop Simulator's downloaded meshes.

    Returns
    -------
    World
        The table compiled for questions: meshes placed, ray scenes and indexes built. The importer's warnings
        are issued as Python warnings (`UserWarning`), each naming the file.

    Raises
    ------
    SceneError
        The scene is invalid; its `problems` name each place and its fix.
    LofkitError
        The file is missing or is no table lofkit can open.

    Examples
    --------
    >>> import lofkit
    >>> world = lofkit.load("examples/rulebook_lof.yaml")
    >>> [trooper.id for trooper in world.scene.troopers][:3]
    ['fusilier', 'grenzer', 'alguacil']
    >>> lofkit.check(world, "fusilier", "iguana").lof
    True
    """
    opened = open_table(source, mesh_cache)
    for warning in opened.warnings:
        warnings.warn(f"{source}: {warning}", UserWarning, stacklevel=2)
    return World.from_scene(opened.scene)


def open_table(source: str | Path | None, mesh_cache: str | Path | None = None,
               progress: Callable[[str], None] | None = None) -> Opened:
    """Open a scene file, a photo or scan folder, a Tabletop Simulator save or a 3D scan (see the module).

    Parameters
    ----------
    source : str, Path or None
        What to open; None opens an empty 48" x 48" table whose saves go in the current folder.
    mesh_cache : str, Path or None
        For a save only: the folder of Tabletop Simulator's downloaded meshes (as `import-tts --mesh-cache`).
    progress : callable, optional
        Told each stage of a scan's import by name.

    Returns
    -------
    Opened
        The scene, the folder its saves go to, and what the importer had to say.

    Raises
    ------
    LofkitError
        The file is missing, is neither a scene nor a save, or a scan's folder holds other files.
    SceneError
        The scene is invalid (its problems name their places).
    """
    path = Path(source) if source is not None else None
    is_save = path is not None and path.suffix.lower() == ".json" and is_tts_save(path)
    if mesh_cache is not None and not is_save:
        raise SettingError("{mesh_cache} is for a Tabletop Simulator save: give the save (.json) to open"
                           + ("; {source} is a {kind}, so leave {mesh_cache} out" if path is not None else ""),
                           source=source, kind="scan" if path is not None and is_scan(path) else "scene")
    if path is None:
        return Opened(scene_from_data({"lofkit": 1}), Path.cwd(), "empty")  # the default table is 48" x 48"
    if is_save:
        return _opened_save(path, mesh_cache)
    if is_scan(path):
        return _opened_scan(path, progress)
    if path.is_dir():
        if not (path / "scene.yaml").is_file():
            raise LofkitError(f"{source}: a folder holding no scene.yaml; give a scene file or the folder "
                              "`lofkit photo` wrote")
        path = path / "scene.yaml"
    return Opened(load_scene(path), path.resolve().parent, "scene")


def is_tts_save(path: Path) -> bool:
    """Whether a `.json` file is a Tabletop Simulator save (`ObjectStates` at its top level) rather than a scene
    written in JSON (`lofkit`); the file is read once to tell, and one that is neither is refused. Broken JSON that
    names `ObjectStates` (a save cut short) goes on as a save, and any other text that is no JSON as a scene: each
    importer says where it breaks in its own words."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, ValueError):  # ValueError: not UTF-8 text
        return False
    try:
        data = json.loads(text)
    except ValueError:
        return '"ObjectStates"' in text
    if isinstance(data, dict) and ("ObjectStates" in data or "lofkit" in data):
        return "ObjectStates" in data
    raise LofkitError(f"{path}: not a Tabletop Simulator save (no `ObjectStates` at the top level) nor a scene (no "
                      "`lofkit` key); give a save or a scene file")


def is_scan(path: Path) -> bool:
    """Whether `path` names a 3D scan (`lofkit import-scan`'s suffixes) rather than a scene or a folder."""
    from lofkit.exchange.scan import SCAN_SUFFIXES

    return path.suffix.lower() in SCAN_SUFFIXES and not path.is_dir()


def scan_folder(scan: Path) -> Path:
    """Where a scan is imported: `SCAN_FOLDER` beside it.

    >>> scan_folder(Path("/games/game.glb")).as_posix()
    '/games/game-lofkit'
    """
    return scan.parent / SCAN_FOLDER.format(stem=scan.stem)


def _opened_save(save: Path, mesh_cache: str | Path | None) -> Opened:
    """A TTS save imported into a scratch folder, its scene read as if from the save itself."""
    from lofkit.exchange.tts import import_tts

    with tempfile.TemporaryDirectory(prefix="lofkit-tts-") as scratch:
        result = import_tts(save, Path(scratch) / "scene.yaml", mesh_cache=mesh_cache)
        try:
            scene = relocated(load_scene(result.scene), save)
        except SceneError as exc:
            raise SceneError(save, exc.problems) from None
    document = result.to_dict()
    return Opened(scene, save.resolve().parent, "save",
                  skipped={key: document[key] for key in ("unresolved", "skipped")})


def _opened_scan(scan: Path, progress: Callable[[str], None] | None) -> Opened:
    """A scan's earlier import, or the scan imported into `scan_folder(scan)` (see the module)."""
    from lofkit.exchange.scan import import_scan

    folder = scan_folder(scan)
    scene = folder / "scene.yaml"
    if not scan.is_file():
        raise LofkitError(f"{scan}: file not found")
    if scene.is_file():
        stale = ((f"the scan changed after {scene} was written; move or remove {folder} to import it again",)
                 if scan.stat().st_mtime > scene.stat().st_mtime else ())
        note = f"opening its earlier import {scene} (move or remove {folder} to import the scan again)"
        return Opened(load_scene(scene), scene.resolve().parent, "scan", stale, (note,))
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        what = "is a file" if not folder.is_dir() else (
            f"holds other files ({', '.join(sorted(p.name for p in folder.iterdir())[:5])}) and no scene.yaml")
        raise LofkitError(f"{scan}: a scan is imported into {folder}, which {what}; move it away, or import the "
                          f"scan yourself (`lofkit import-scan {scan} -o FOLDER`) and open FOLDER")
    try:
        scratch = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=scan.parent))
    except OSError as exc:
        raise LofkitError(f"{scan}: cannot import it into {folder} ({exc.strerror or exc}); import it yourself "
                          f"(`lofkit import-scan {scan} -o FOLDER`) and open FOLDER") from None
    try:
        result = import_scan(scan, None, scratch / "import", progress=progress)
        try:
            os.rename(scratch / "import", folder)  # whole or not at all; over an empty folder only
        except OSError as exc:
            raise LofkitError(f"{scan}: cannot write {folder} ({exc.strerror or exc})") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    opened = folder / Path(result.scene).name
    warnings: tuple[Message | str, ...] = tuple(result.warnings)
    return Opened(load_scene(opened), opened.resolve().parent, "scan", warnings, (f"imported into {folder}",))
