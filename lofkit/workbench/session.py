"""One table the workbench edits: its scene, the World compiled from it and the live LoF matrix, a version that
counts changes, undo and redo. The HTTP API is a thin layer over a `Session`.

Every change is checked as a scene file is (`scene_from_data`, then what `World` checks) before it is kept: a
refused change raises `Refused` with the problems in `lofkit validate`'s words and leaves the scene, the World and
the version as they were. A change may name the version it was made against (`if_match`); a stale one is refused
(409). Trooper changes keep the terrain's ray scenes (`World.with_scene`); terrain changes compile the table again.
The matrix, when next asked for, recomputes only the pairs either may have changed (`rules.live`).

Several players ask at once (the HTTP server answers each request in a thread of its own), so each engine that
is not safe to share has one owner:
- changes are made one at a time (`_changing`): each reads the scene, changes it and keeps it whole, so two moves
  at once are ordered, the last one accepted wins, and the version counts exactly the accepted changes;
- a question reads `self.world` once and answers on that snapshot: a World is never changed once built, so a change
  made meanwhile replaces it without disturbing the answer;
- the live matrix is brought up to date on one thread of its own (`_ringer`); others wait for its answer;
- every picture is drawn on one thread of its own (`_renderer`): VTK and its OpenGL context are not thread-safe.
Both are `BackgroundWorker`s: they yield the CPU to verdicts and to the browser, so the rings and the eye picture
follow the verdict and never hold it up, and a stop does not wait for the matrix or picture they are in.
The answers to `check`, `aro` and `picture` are kept with the World they were asked of (the last `KEPT_WORLDS`): the
same question asked again of the same table (by another player, by the page and then the API, after an undo) is
answered at once, and one asked while another caller works it out waits for that answer.
Every accepted change is written to the `journal`, when there is one, before it is answered.
"""

from __future__ import annotations

import copy
import functools
import subprocess
import sys
import threading
from collections import OrderedDict
from concurrent.futures import Future
from pathlib import Path

from lofkit.errors import LofkitError, Problem, SceneError, UnknownTrooperError
from lofkit.exchange.messages import SettingError
from lofkit.exchange.output import write_scene_file
from lofkit.geometry.world import World
from lofkit.rules.aro import aro
from lofkit.rules.live import LiveMatrix
from lofkit.rules.lof import check, matrix, sample_segments
from lofkit.rules.results import LofVerdict
from lofkit.scene.catalog import CatalogPiece
from lofkit.scene.loading import scene_data, scene_from_data
from lofkit.scene.model import Scene
from lofkit.workbench.background import BackgroundWorker, Stopping
from lofkit.workbench.journal import Journal

KEPT_WORLDS = 8
"""Worlds whose answers a session keeps (`Session._kept_answer`): the current one and those an undo returns to."""
TROOPER_FIELDS = ("position", "z", "facing", "facing_towards", "silhouette", "side", "state", "marker", "proposed")
"""What a change to a trooper may set (WORKBENCH: `PUT /api/troopers/{id}`); `proposed: false` confirms a trooper
found in a scan or photo."""


class Refused(LofkitError):
    """A request the session will not carry out: an HTTP status, a message and the problems found (`where`,
    `message`, as `lofkit validate` words them)."""

    def __init__(self, status: int, message: str, problems: list[Problem] | None = None):
        self.status, self.problems = status, list(problems or [])
        super().__init__(message)

    def to_dict(self) -> dict:
        return {"error": str(self), "problems": [problem.to_dict() for problem in self.problems]}


def one_change_at_a_time(method):
    """Run a change of the session holding its `_changing` lock (see the module docstring)."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._changing:
            return method(self, *args, **kwargs)
    return locked


class Session:
    """The table being edited (see the module docstring)."""

    def __init__(self, scene: Scene, catalog: dict[str, CatalogPiece] | None = None, journal: Journal | None = None,
                 version: int = 0):
        self.catalog = dict(catalog or {})
        """Terrain pieces a new piece may name (`{"catalog": NAME, ...}`), by name."""
        self._now = (World.from_scene(scene), version)
        """The table as it is now and its version, replaced together (one assignment) by each change."""
        self.journal = journal
        """Where each accepted change is written (None: nowhere)."""
        self._live: LiveMatrix | None = None
        """The LoF matrix of the World it was last asked of (`matrix` brings it up to date)."""
        self._kept: OrderedDict[int, tuple[World, dict]] = OrderedDict()
        """The Worlds last asked of (at most `KEPT_WORLDS`, by id) and the answers given on each, by question."""
        self._keeping = threading.Lock()
        self._undo: list[World] = []
        self._redo: list[World] = []
        self._changing = threading.RLock()
        self._ringer = BackgroundWorker("lofkit-matrix")
        self._renderer = BackgroundWorker("lofkit-render")

    @property
    def world(self) -> World:
        """The table as it is now (its scene is `world.scene`); replaced whole by each change, never changed."""
        return self._now[0]

    @property
    def version(self) -> int:
        """+1 on every accepted change (a session restored from its journal goes on from the journal's)."""
        return self._now[1]

    @property
    def scene(self) -> Scene:
        return self.world.scene

    def document(self) -> dict:
        """The scene as a scene file would hold it (lengths in mm), its version and its warnings (`GET /api/scene`),
        read together: the version always names the scene it comes with. The warnings are `lofkit validate`'s
        (`{"where", "message"}`): among them one notice per trooper still `proposed` (found in a scan or photo, not
        confirmed), which rules as placed."""
        world, version = self._now
        return {"scene": scene_data(world.scene), "version": version,
                "warnings": [warning.to_dict() for warning in world.warnings]}

    def proposed(self) -> list[str]:
        """The troopers found in a scan or photo and not confirmed yet (`proposed: true`), in the scene's order."""
        return [trooper.id for trooper in self.scene.troopers if trooper.proposed]

    # --- changes -------------------------------------------------------------------------------------------------

    @one_change_at_a_time
    def change_trooper(self, trooper_id: str, changes: dict, if_match: int | None = None) -> dict:
        """Set any of TROOPER_FIELDS of one trooper; a new `facing` drops `facing_towards` and the reverse."""
        self._check_version(if_match)
        unknown = sorted(set(changes) - set(TROOPER_FIELDS))
        if unknown:
            raise Refused(422, f"a trooper change may set {', '.join(TROOPER_FIELDS)}; not {', '.join(unknown)}")
        data = scene_data(self.scene)
        index = self._trooper_index(trooper_id)
        trooper = data["troopers"][index]
        for one, other in (("facing", "facing_towards"), ("facing_towards", "facing")):
            if one in changes:
                trooper.pop(other, None)
        trooper.update(changes)
        self._keep(data, troopers_only=True)
        return scene_data(self.scene)["troopers"][index]

    @one_change_at_a_time
    def add_trooper(self, fields: dict, if_match: int | None = None) -> dict:
        """Add a trooper (the fields of a scene file's trooper)."""
        return self._add("troopers", fields, if_match)

    @one_change_at_a_time
    def remove_trooper(self, trooper_id: str, if_match: int | None = None) -> int:
        """Remove a trooper; answers the version it made."""
        self._remove("troopers", self._trooper_index, trooper_id, if_match)
        return self.version

    @one_change_at_a_time
    def add_terrain(self, fields: dict, if_match: int | None = None) -> dict:
        """Add a terrain piece: the fields of a scene file's piece (a box, a prism traced on the table, a mesh), or a
        catalogue piece by name, `{"catalog": NAME, "position": [x, y], "rotation": ...}` (its `id` may be left out:
        NAME-1, NAME-2, ...)."""
        if "catalog" in fields:
            fields = self._from_catalog(fields)
        return self._add("terrain", fields, if_match)

    @one_change_at_a_time
    def change_terrain(self, piece_id: str, changes: dict, if_match: int | None = None) -> dict:
        self._check_version(if_match)
        data = scene_data(self.scene)
        index = self._terrain_index(piece_id)
        data["terrain"][index].update(changes)
        self._keep(data, troopers_only=False)
        return scene_data(self.scene)["terrain"][index]

    @one_change_at_a_time
    def remove_terrain(self, piece_id: str, if_match: int | None = None) -> int:
        """Remove a terrain piece; answers the version it made."""
        self._remove("terrain", self._terrain_index, piece_id, if_match)
        return self.version

    @one_change_at_a_time
    def undo(self) -> int:
        """Step back one change (409 when there is none); answers the version it made."""
        if not self._undo:
            raise Refused(409, "nothing to undo")
        self._redo.append(self.world)
        self._become(self._undo.pop())
        return self.version

    @one_change_at_a_time
    def redo(self) -> int:
        """Step forward again (409 when nothing was undone since the last change); answers the version it made."""
        if not self._redo:
            raise Refused(409, "nothing to redo")
        self._undo.append(self.world)
        self._become(self._redo.pop())
        return self.version

    @one_change_at_a_time
    def save(self, folder: Path, name: str, force: bool = False) -> Path:
        """Write the scene as `name` in `folder` (never elsewhere; never over a file unless `force`). "A saved scene
        must still find its meshes": the files it names stay as written when `folder` is the opened scene's own,
        and are written as absolute paths anywhere else. Saved, the table needs its journal no more."""
        path = (folder / name).resolve()
        if path.parent != folder.resolve() or not name or Path(name).name != name:
            raise Refused(400, f"{name!r}: give a file name only; scenes are saved in {folder}")
        elsewhere = folder.resolve() != self.scene.resolve(".")
        try:
            write_scene_file(scene_data(self.scene, absolute=elsewhere), path, overwrite=force)
        except LofkitError as exc:  # a setting is named as the API names it ("force")
            text = exc.message.render({"overwrite": "force"}) if isinstance(exc, SettingError) else str(exc)
            raise Refused(409 if path.exists() and not force else 400, text) from None
        if self.journal is not None:
            self.journal.remove()
        return path

    # --- questions -----------------------------------------------------------------------------------------------

    def check(self, shooter: str, target: str) -> dict:
        """Exactly `lofkit check --json` on the current scene."""
        return self._verdict(shooter, target).to_dict()

    def _verdict(self, shooter: str, target: str, world: World | None = None) -> LofVerdict:
        """`check` on `world` (the current one when None), kept as the answers are."""
        return self._kept_answer(("check", shooter, target), lambda world: check(world, shooter, target), world)

    def matrix(self, recompute_all: bool = False) -> dict:
        """Exactly `lofkit matrix --json`, from the live matrix (`recompute_all`: from scratch, for benchmarks)."""
        if recompute_all:
            return matrix(self.world, evidence=False).to_dict()
        return self.live_matrix().result()

    def live_matrix(self) -> Future:
        """`matrix()`'s answer to come, worked out on the matrix's own thread (`_ringer`), for a caller that must hold
        no thread while it waits: the page, whose checks share a small pool of threads with its waits."""
        return self._ringer.submit(self._live_matrix)

    def _live_matrix(self) -> dict:
        """The live matrix brought up to date with the current World (on `_ringer`'s thread)."""
        live, world = self._live, self.world
        if live is None or live.world.troopers.ids != world.troopers.ids:
            self._live = LiveMatrix(world)  # troopers added or removed: start over
        elif live.world is not world:
            live.update(world)  # troopers changed, or terrain: only the pairs they may have changed
        return self._live.result.to_dict()

    def aro(self, active: str, path: list[tuple[float, float]] | None = None) -> dict:
        """Exactly `lofkit aro --json`."""
        drawn = None if path is None else tuple((float(x), float(y)) for x, y in path)
        return self._kept_answer(("aro", active, drawn), lambda world: aro(world, active, path).to_dict())

    def picture(self, view: str, shooter: str | None = None, target: str | None = None,
                size: tuple[int, int] = (1200, 900)) -> bytes:
        """The PNG `lofkit render` would draw of the current scene (with the ruling when both troopers are given)."""
        from lofkit.viz.render import VIEWS, Overlay, render_png

        if view not in VIEWS:
            raise Refused(400, f"view={view!r}: use one of {', '.join(VIEWS)}")
        if (shooter is None) != (target is None):
            raise Refused(400, "give both shooter and target, or neither")

        def draw(world: World) -> bytes:
            overlay = Overlay()
            if shooter is not None:  # the verdict the page has just asked for, kept
                overlay = Overlay(verdict=self._verdict(shooter, target, world),
                                  segments=sample_segments(world, shooter, target))
            return render_png(world, view=view, size=size, shooter=shooter, target=target, overlay=overlay)

        return self._kept_answer(("picture", view, shooter, target, tuple(size)),
                                 lambda world: self._renderer.submit(draw, world).result())

    def report(self, shooter: str, target: str, folder: Path) -> Path:
        """Write the ruling page `lofkit report` would into `folder` (empty or new); returns its index.html. The page's
        3D view is exported by trame, which must run in a main thread: so `lofkit report` runs in a process of its
        own, on the current scene written beside the page with every file it names made absolute."""
        self._answer(lambda: [self.world.troopers.index(t) for t in (shooter, target)])  # unknown: 404 first
        folder.mkdir(parents=True, exist_ok=True)
        scene = folder / "scene.yaml"
        write_scene_file(scene_data(self.scene, absolute=True), scene)
        page = folder / "page"
        done = subprocess.run([sys.executable, "-m", "lofkit", "report", str(scene), shooter, target, "-o", str(page)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise Refused(422, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "no ruling page")
        return page / "index.html"

    # --- inside --------------------------------------------------------------------------------------------------

    def _answer(self, question):
        try:
            return question()
        except Refused:  # a question asked within this one (a picture's verdict) already says why
            raise
        except UnknownTrooperError as exc:
            raise Refused(404, str(exc)) from None
        except Stopping as exc:
            raise Refused(503, str(exc)) from None
        except LofkitError as exc:
            raise Refused(422, str(exc)) from None

    def _kept_answer(self, question: tuple, answer, world: World | None = None):
        """`answer(world)` on `world` (the current one when None), or (a copy of) the answer kept for `question` on it,
        or being worked out for another caller (then this one waits for it). The answers of the last `KEPT_WORLDS`
        Worlds asked of are kept, so an undo or a redo finds those of the table it returns to; a question that failed
        is asked anew."""
        world = self.world if world is None else world
        with self._keeping:
            kept = self._kept.pop(id(world), None)
            if kept is None or kept[0] is not world:
                kept = (world, {})
            self._kept[id(world)] = kept  # the latest last
            while len(self._kept) > KEPT_WORLDS:
                self._kept.popitem(last=False)
            coming = kept[1].get(question)
            mine = coming is None
            if mine:  # the others asking it meanwhile wait for this one's answer
                coming = kept[1][question] = Future()
        if mine:
            try:
                coming.set_result(self._answer(lambda: answer(world)))
            except BaseException as exc:  # not kept: asked again next time
                with self._keeping:
                    kept[1].pop(question, None)
                coming.set_exception(exc)
                raise
        return copy.deepcopy(coming.result())

    def _add(self, group: str, fields: dict, if_match: int | None) -> dict:
        """Append `fields` to the scene's `group` ("troopers" or "terrain"); answers the new entry."""
        self._check_version(if_match)
        data = scene_data(self.scene)
        data[group].append(fields)
        self._keep(data, troopers_only=group == "troopers")
        return scene_data(self.scene)[group][-1]

    def _remove(self, group: str, index_of, item_id: str, if_match: int | None) -> None:
        self._check_version(if_match)
        data = scene_data(self.scene)
        del data[group][index_of(item_id)]
        self._keep(data, troopers_only=group == "troopers")

    def _from_catalog(self, fields: dict) -> dict:
        """A catalogue piece's scene-file entry, with any other fields given (position, rotation, kind, ...)."""
        name = fields["catalog"]
        if name not in self.catalog:
            choices = ", ".join(sorted(self.catalog)) or "none: this workbench has no catalogue"
            raise Refused(422, "the change would make the scene invalid",
                          [Problem("terrain.catalog", f"no catalogue piece {name!r}; choose one of {choices}")])
        others = {key: value for key, value in fields.items() if key != "catalog"}
        taken = {piece.id for piece in self.scene.terrain}
        return {"id": unused_id(str(name), taken), "mesh": str(self.catalog[name].mesh), **others}

    def _check_version(self, if_match: int | None) -> None:
        if if_match is not None and if_match != self.version:
            raise Refused(409, f"the scene changed since version {if_match} (it is at version {self.version}); "
                               "reload it and try again")

    def _trooper_index(self, trooper_id: str) -> int:
        index = self.scene.trooper_index(trooper_id)
        if index is None:
            raise Refused(404, str(UnknownTrooperError(trooper_id, [t.id for t in self.scene.troopers])))
        return index

    def _terrain_index(self, piece_id: str) -> int:
        index = next((i for i, piece in enumerate(self.scene.terrain) if piece.id == piece_id), None)
        if index is None:
            raise Refused(404, f"no terrain piece with id '{piece_id}' in the scene")
        return index

    def _keep(self, data: dict, troopers_only: bool) -> None:
        """Check `data` as the new scene and keep it, or refuse it and keep everything as it was."""
        try:
            scene = scene_from_data(data, self.scene.source)
            world = self.world.with_scene(scene) if troopers_only else World.from_scene(scene)
        except SceneError as exc:
            raise Refused(422, "the change would make the scene invalid", exc.problems) from None
        self._undo.append(self.world)
        self._redo.clear()
        self._become(world)

    def _become(self, world: World) -> None:
        """Make `world` the current table (the live matrix catches up when it is next asked for) and journal it."""
        if self.journal is not None:
            try:
                self.journal.write(scene_data(world.scene, absolute=True), self.version + 1)
            except OSError as exc:  # a folder that cannot be written: the change stands, unjournaled, and it is said
                print(f"warning: {self.journal.path}: cannot write the journal ({exc.strerror or exc}); changes "
                      "from now on are lost if the workbench stops before a save", file=sys.stderr, flush=True)
                self.journal = None
        self._now = (world, self.version + 1)

    def stop_background(self) -> None:
        """The workbench is stopping: the matrix's and the renderer's threads end, and whoever waits for their answers
        is told so (503) at once."""
        self._renderer.shutdown()
        self._ringer.shutdown()

    def close(self) -> None:
        """A clean exit: the background stops and the journal goes (what was not saved is let go)."""
        self.stop_background()
        if self.journal is not None:
            self.journal.remove()


def unused_id(stem: str, taken) -> str:
    """`stem-1`, `stem-2`, ...: the first not in `taken`."""
    k = 1
    while f"{stem}-{k}" in taken:
        k += 1
    return f"{stem}-{k}"
