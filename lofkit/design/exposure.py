"""Exposure of a table to a deployment zone: sight from viewers to probes laid out by `layout`, in batches any
executor can run (for designers).

A cell's count is the number of viewers that have sight of the probe there (docs/rules.md, LoF: the 3 x 3 mm rule with
mutual awareness, the same `sight` as `lofkit check`). Only terrain blocks: the scene's troopers are left out, and
the probe and viewers never block each other. Options are named for what they mean, as in GRASS `r.viewshed`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from lofkit.design.layout import Placements, terrain_only, within_range
from lofkit.errors import LofkitError
from lofkit.geometry.volumes import base_volumes
from lofkit.geometry.world import World
from lofkit.scene.model import Scene
from lofkit.scene.silhouettes import SILHOUETTES
from lofkit.sight.casting import Progress
from lofkit.sight.glimpse import glimpse, seen_pairs
from lofkit.units import INCH

VIEWERS_PER_BATCH = 4
"""Viewers whose sight of every cell is one unit of work for an executor."""
TAIL_VIEWERS = 8
"""The last viewers are units of one each, so that workers finish together: a unit of `VIEWERS_PER_BATCH` takes
about 5 s on table-c's heatmap, which one worker would otherwise run while the others wait."""


@dataclass(frozen=True)
class SightOptions:
    """What is placed and how hard sight is searched: names as a user means them."""

    probe_silhouette: int = 2
    viewer_silhouette: int = 2
    cell_size: float = INCH
    viewer_spacing: float = 2 * INCH
    max_range: float | None = None
    quick: bool = False

    def __post_init__(self) -> None:
        for name in ("probe_silhouette", "viewer_silhouette"):
            if getattr(self, name) not in SILHOUETTES:
                raise LofkitError(f"{name.replace('_', ' ')} must be one of 1..8, not {getattr(self, name)}")
        for name in ("cell_size", "viewer_spacing"):
            if not getattr(self, name) > 0:
                raise LofkitError(f"{name.replace('_', ' ')} must be a positive length")
        if self.max_range is not None and not self.max_range > 0:
            raise LofkitError("max range must be a positive length")

    def seen(self, world: World, pairs: np.ndarray, progress: Progress | None = None) -> np.ndarray:
        """Sight for each pair: the exact rule, or with `quick` a glimpse (5 eyes and 8 points each way);
        `progress(cast, tested=0)` counts the segments cast, and those settled by compiled tests."""
        return glimpse(world, pairs, progress) if self.quick else seen_pairs(world, pairs, progress)


@dataclass(frozen=True)
class SightJob:
    """One unit of work an executor can run anywhere: sight from viewers to targets on a scene's terrain."""

    scene: Scene
    viewers: Placements
    targets: Placements
    options: SightOptions


_WORLDS: dict[str, World] = {}
_WORLDS_LOCK = threading.Lock()


def _key(scene: Scene) -> str:
    return f"{scene.source}\n{scene.model_dump_json()}"


def _remember(world: World) -> World:
    """Keep a terrain-only World for the jobs of this process."""
    with _WORLDS_LOCK:
        _WORLDS.clear()
        _WORLDS[_key(world.scene)] = world
    return world


def _terrain_world(scene: Scene) -> World:
    """The terrain-only World of `scene`: the caller's own in its process; built once in a worker process (workers
    receive the Scene, not the World)."""
    with _WORLDS_LOCK:
        world = _WORLDS.get(_key(scene))
    return world if world is not None else _remember(terrain_only(World.from_scene(scene)))


@dataclass(frozen=True)
class SightTable:
    """Sight from viewers to targets (viewers x targets, bool), the segments cast (Embree) to settle it and the segments
    found blocked one by one by compiled tests against convex parts instead
    (`sight.screen.prove_hidden_before_casting`)."""

    seen: np.ndarray
    segments: int
    tested: int = 0


def run_sight_job(job: SightJob) -> SightTable:
    """Sight (viewers, targets); pairs out of range or where a base does not fit are False. Base-to-base distance
    decides the range (docs/rules.md: distances run base to base)."""
    world = _terrain_world(job.scene)
    if not job.options.quick:
        world.convex_parts  # noqa: B018 - built once here, so that the copies below share it
    v, t = job.viewers, job.targets
    wanted = within_range(v, t, v.fits[:, None] & t.fits[None, :], job.options.max_range)
    rows, cols = np.nonzero(wanted)
    result = np.zeros(wanted.shape, dtype=bool)
    if len(rows) == 0:
        return SightTable(result, 0)
    volumes = base_volumes(np.vstack([v.centres, t.centres]), np.concatenate([v.z, t.z]),  # they block no LoF
                           np.concatenate([np.full(len(v.z), v.diameter / 2), np.full(len(t.z), t.diameter / 2)]),
                           np.concatenate([np.full(len(v.z), v.height), np.full(len(t.z), t.height)]))
    pairs = np.stack([rows, len(v.z) + cols], axis=1)
    counted = np.zeros(2, dtype=np.int64)  # segments cast, and settled by compiled tests

    def count(cast: int, tested: int = 0) -> None:
        counted[:] += (cast, tested)

    result[rows, cols] = job.options.seen(world.with_troopers(volumes), pairs, count)
    return SightTable(result, int(counted[0]), int(counted[1]))


def sight_table(world: World, viewers: Placements, targets: Placements, options: SightOptions,
                executor: Executor | None = None, progress: Callable[[int, int], None] | None = None) -> SightTable:
    """Sight from every viewer to every target on `world`'s terrain, in batches of viewers that fit
    (`viewer_batches`) run by `executor` (in this process, on this World, when None); `progress(done, total)`
    counts the viewers that fit (the others see nothing)."""
    scene = _remember(terrain_only(world)).scene
    fitting = np.flatnonzero(viewers.fits)
    batches = viewer_batches(fitting)
    jobs = [SightJob(scene, viewers.take(rows), targets, options) for rows in batches]
    seen = np.zeros((len(viewers.z), len(targets.z)), dtype=bool)
    segments = tested = done = 0
    if progress:
        progress(0, len(fitting))
    outputs = executor.map(run_sight_job, jobs) if executor is not None else map(run_sight_job, jobs)
    for rows, part in zip(batches, outputs):
        seen[rows] = part.seen
        segments += part.segments
        tested += part.tested
        done += len(rows)
        if progress:
            progress(done, len(fitting))
    return SightTable(seen, segments, tested)


def viewer_batches(viewers: np.ndarray) -> list[np.ndarray]:
    """`viewers` in order, in units of `VIEWERS_PER_BATCH`, the last `TAIL_VIEWERS` of them one by one."""
    split = max(len(viewers) - TAIL_VIEWERS, 0)
    head = [viewers[k : min(k + VIEWERS_PER_BATCH, split)] for k in range(0, split, VIEWERS_PER_BATCH)]
    return head + [viewers[k : k + 1] for k in range(split, len(viewers))]
