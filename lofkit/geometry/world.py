"""The World: a Scene compiled once for queries.

Placed terrain meshes (mm, table coordinates), trooper volumes as arrays, Embree scenes for narrow-phase ray tests
and rtree indexes of terrain pieces and trooper volumes for broad-phase questions.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from typing import Sequence

import numpy as np
import rtree

from lofkit.errors import Problem, SceneError
from lofkit.geometry.clearance import CLEARANCE, scenery_overlaps
from lofkit.geometry.support import rest_height
from lofkit.geometry.terrain import ConvexParts, Piece, build_pieces, convex_parts
from lofkit.geometry.volumes import Volumes
from lofkit.ray import RayBackend, RayFactory
from lofkit.ray import backend as ray_backend
from lofkit.scene.model import Scene, scene_problems
from lofkit.scene.table import ON_TABLE_TOLERANCE, table_overhang
from lofkit.units import EPS


def _box_index(boxes: np.ndarray) -> rtree.index.Index:
    properties = rtree.index.Property(dimension=3)
    if len(boxes) == 0:
        return rtree.index.Index(properties=properties)
    return rtree.index.Index(((i, tuple(b), None) for i, b in enumerate(boxes)), properties=properties)


class World:
    """A scene compiled once for questions: every ruling (`check`, `distance`, `aro`, ...) takes one.

    Get one with `lofkit.load` (a file) or `World.from_scene` (a `Scene`); `with_scene` gives the same table with
    other troopers, cheaply.

    Attributes
    ----------
    scene : Scene
        The validated scene it was compiled from.
    pieces : tuple of Piece
        The terrain pieces in scene order, placed: each one's `id`, `kind`, `blocks_lof` and `mesh` (a trimesh in
        table coordinates, mm).
    troopers : Volumes
        Every trooper's and marker's volume cylinder as arrays, in scene order (`z: auto` resolved).
    warnings : list of Problem
        What does not stop queries: terrain past the table edge, no facing, overlapping bases, a trooper inside
        scenery or below the table, one found in a scan and not confirmed.
    backend : callable
        What its ray scenes are built with (`lofkit.ray.backend`; Embree unless told).

    Examples
    --------
    >>> import lofkit
    >>> world = lofkit.load("examples/rulebook_lof.yaml")
    >>> [piece.id for piece in world.pieces], world.troopers.ids[:2], world.warnings
    (['building'], ('fusilier', 'grenzer'), [])
    """

    def __init__(
        self,
        scene: Scene,
        pieces: Sequence[Piece],
        troopers: Volumes,
        backend: RayFactory | None = None,
    ):
        self.scene = scene
        self.pieces = tuple(pieces)
        self.troopers = troopers
        self.warnings: list[Problem] = []
        """Problems that do not stop queries (README "Scene files": terrain past the table edge, volumes in scenery)."""
        self.blocking_pieces = np.array([i for i, p in enumerate(pieces) if p.blocks_lof], dtype=np.int64)
        self.solid_pieces = np.array([i for i, p in enumerate(pieces) if p.solid], dtype=np.int64)
        self.backend = backend or ray_backend()
        """What every ray scene of this world is built with (`lofkit.ray.backend`; Embree unless told)."""
        self.blocking_rays = self.backend([pieces[i].mesh for i in self.blocking_pieces])
        """Rays against terrain that blocks LoF; hit indices point into `blocking_pieces`."""
        self.solid_rays = (self.blocking_rays if np.array_equal(self.solid_pieces, self.blocking_pieces) else
                           self.backend([pieces[i].mesh for i in self.solid_pieces]))
        """Rays against solid scenery (surfaces that support bases; the scene above when the same pieces block LoF);
        hit indices point into `solid_pieces`."""
        self.zero_visibility = tuple(i for i, p in enumerate(pieces) if p.kind == "zero_visibility" and p.blocks_lof)
        """Zero Visibility zones: they block even segments that stay inside them."""
        self.piece_index = _box_index(np.array([np.ravel(p.bounds) for p in pieces]).reshape(-1, 6))

    @functools.cached_property
    def trooper_index(self) -> rtree.index.Index:
        """The troopers' volume boxes (`Volumes.boxes`) in an R-tree, built when first asked (analyses that let only
        terrain block never ask)."""
        return _box_index(self.troopers.boxes)

    @functools.cached_property
    def convex_parts(self) -> ConvexParts:
        """Convex parts of every blocking piece, as half-spaces, for cheap proofs that a pair is hidden."""
        return convex_parts(self.pieces, self.blocking_pieces.tolist())

    @functools.cached_property
    def zone_rays(self) -> tuple[tuple[int, RayBackend], ...]:
        """Low and Poor Visibility zones (they add MODs, never block), each with its own ray scene."""
        return tuple((i, self.backend([p.mesh])) for i, p in enumerate(self.pieces)
                     if p.kind in ("low_visibility", "poor_visibility"))

    def piece_rays(self, index: int) -> RayBackend:
        """A ray scene of one piece alone (built once, on first use)."""
        cache = self.__dict__.setdefault("_piece_rays", {})
        if index not in cache:
            cache[index] = self.backend([self.pieces[index].mesh])
        return cache[index]

    def with_troopers(self, troopers: Volumes) -> World:
        """The same table with other trooper volumes (terrain, ray scenes and caches are shared)."""
        other = copy.copy(self)
        other.troopers = troopers
        other.__dict__.pop("trooper_index", None)
        return other

    @classmethod
    def from_scene(cls, scene: Scene, backend: RayFactory | None = None) -> World:
        """Compile `scene` for questions: meshes placed, `z: auto` resolved, ray scenes and indexes built.

        Parameters
        ----------
        scene : Scene
            A validated scene (`load_scene`, `scene_from_data`).
        backend : callable, optional
            What ray scenes are built with (`lofkit.ray.backend(name)`); Embree by default.

        Returns
        -------
        World
            The compiled table; its `warnings` list what does not stop queries.

        Raises
        ------
        SceneError
            Problems found only with the meshes at hand, or in a scene changed without validation.

        Examples
        --------
        >>> import lofkit
        >>> scene = lofkit.scene_from_data({"lofkit": 1, "troopers": [
        ...     {"id": "a", "side": "blue", "silhouette": 2, "position": [100, 100]}]})
        >>> lofkit.World.from_scene(scene).warnings
        [Problem(where='troopers[0]',
                 message="'a' has no `facing` or `facing_towards`; assuming 0 degrees (facing +x)")]
        """
        pieces, problems = build_pieces(scene)
        facing = _trooper_facings(scene, scene_problems(scene) + problems)
        world = cls(scene, pieces, _placed_volumes(scene, facing), backend)
        world._settle_and_warn()
        return world

    def with_scene(self, scene: Scene) -> World:
        """The same terrain with the troopers of `scene`: terrain, ray scenes and caches are shared.

        Parameters
        ----------
        scene : Scene
            A scene that differs from this world's only in its troopers (as the workbench edits it).

        Returns
        -------
        World
            A new world; this one is unchanged.

        Raises
        ------
        SceneError
            The problems `from_scene` would find in the troopers (a base off the table, an unknown `facing_towards`).

        Examples
        --------
        >>> import lofkit
        >>> world = lofkit.load("examples/rulebook_lof.yaml")
        >>> spektr = world.scene.troopers[4].model_copy(update={"position": (700.0, 850.0)})  # out from behind
        >>> troopers = (*world.scene.troopers[:4], spektr, *world.scene.troopers[5:])
        >>> moved = world.with_scene(world.scene.model_copy(update={"troopers": troopers}))
        >>> lofkit.check(moved, "fusilier", "spektr").lof, lofkit.check(world, "fusilier", "spektr").lof
        (True, False)
        """
        world = self.with_troopers(_placed_volumes(scene, _trooper_facings(scene, scene_problems(scene))))
        world.scene = scene
        world.warnings = []
        world._settle_and_warn()
        return world

    def _settle_and_warn(self) -> None:
        """Rest `z: auto` troopers on what is below them, then note the warnings (README "Scene files")."""
        scene = self.scene
        auto = np.array([t.z == "auto" for t in scene.troopers], dtype=bool)
        if auto.any():  # `z: auto` rests on what is below: settle it before anyone queries the world
            v = self.troopers
            z = v.z.copy()
            z[auto] = rest_height(self, v.centre[auto], v.radius[auto])
            self.troopers = dataclasses.replace(v, z=z)
            self.__dict__.pop("trooper_index", None)
        self.warnings.extend(_table_edge_warnings(scene, self.pieces))
        self.warnings.extend(_facing_warnings(scene))
        self.warnings.extend(_overlap_warnings(self.troopers))
        self.warnings.extend(_proposal_notices(scene))
        self.warnings.extend(_below_table_warnings(self.troopers))
        for trooper, piece_ids in scenery_overlaps(self).items():
            self.warnings.append(
                Problem(
                    f"troopers[{trooper}]",
                    f"'{self.troopers.ids[trooper]}' stands inside solid scenery ({', '.join(piece_ids)}); "
                    "move it or set its `z`",
                )
            )


def _trooper_facings(scene: Scene, problems: list[Problem]) -> np.ndarray:
    """Every trooper's facing (`_facings`); raises `SceneError` for `problems` and those it finds."""
    facing, facing_problems = _facings(scene)
    if problems or facing_problems:
        raise SceneError(scene.source, problems + facing_problems)
    return facing


def _placed_volumes(scene: Scene, facing: np.ndarray) -> Volumes:
    """The troopers' volumes where the scene puts them (`z: auto` at 0 until `_settle_and_warn`)."""
    sizes = np.array([t.size for t in scene.troopers], dtype=float).reshape(-1, 2)
    centre = np.array([t.position for t in scene.troopers], dtype=float).reshape(-1, 2)
    z = np.array([0.0 if t.z == "auto" else t.z for t in scene.troopers], dtype=float)
    return _volumes(scene, centre, z, sizes[:, 0] / 2, sizes[:, 1], facing)


def _volumes(scene: Scene, centre, z, radius, height, facing) -> Volumes:
    troopers = scene.troopers

    def flag(test) -> np.ndarray:
        return np.array([test(t) for t in troopers], dtype=bool)

    return Volumes(
        ids=tuple(t.id for t in troopers),
        sides=tuple(t.side for t in troopers),
        centre=centre,
        z=z,
        radius=radius,
        height=height,
        facing=facing,
        neutral=flag(lambda t: t.neutral),
        marker=flag(lambda t: t.marker),
        moving=flag(lambda t: "moving" in t.state),
        engaged=flag(lambda t: "engaged" in t.state),
        prone=flag(lambda t: t.prone),
        blocks_lof=flag(lambda t: not t.marker and "moving" not in t.state),
    )


def _facings(scene: Scene) -> tuple[np.ndarray, list[Problem]]:
    """Facing in degrees for every trooper; `facing_towards` turns to a trooper's centre or a point."""
    positions = {t.id: t.position for t in scene.troopers}
    facing = np.zeros(len(scene.troopers))
    problems = []
    for i, trooper in enumerate(scene.troopers):
        towards = trooper.facing_towards
        if towards is None:
            facing[i] = trooper.facing or 0.0
            continue
        target = positions.get(towards) if isinstance(towards, str) else towards
        if target is None:
            continue  # reported by scene_problems
        dx, dy = target[0] - trooper.position[0], target[1] - trooper.position[1]
        if np.hypot(dx, dy) <= EPS:
            problems.append(Problem(f"troopers[{i}].facing_towards", "points at the trooper's own position"))
        facing[i] = np.degrees(np.arctan2(dy, dx))
    return facing, problems


def _table_edge_warnings(scene: Scene, pieces: Sequence[Piece]) -> list[Problem]:
    """README "Scene files": "terrain reaching past the table edge" is a warning."""
    bounds = np.array([p.bounds[:, :2] for p in pieces], dtype=float).reshape(-1, 2, 2)
    overhangs = table_overhang(bounds[:, 0], bounds[:, 1], scene.table.width, scene.table.depth)
    return [
        Problem(f"terrain[{i}]", f"'{piece.id}' reaches {overhang:.1f} mm past the table edge")
        for i, (piece, overhang) in enumerate(zip(pieces, overhangs.tolist()))
        if overhang > ON_TABLE_TOLERANCE
    ]


def _facing_warnings(scene: Scene) -> list[Problem]:
    return [
        Problem(f"troopers[{i}]", f"'{t.id}' has no `facing` or `facing_towards`; assuming 0 degrees (facing +x)")
        for i, t in enumerate(scene.troopers)
        if t.facing is None and t.facing_towards is None and not t.marker
    ]


def _proposal_notices(scene: Scene) -> list[Problem]:
    """A trooper found in a scan or photo (`proposed: true`) rules as placed until confirmed, with this notice."""
    return [
        Problem(f"troopers[{i}].proposed", f"'{t.id}' was found in a scan or photo and is not confirmed: ruled as "
                "placed; check its side, silhouette and facing, then remove `proposed`")
        for i, t in enumerate(scene.troopers)
        if t.proposed
    ]


def _overlap_warnings(v) -> list[Problem]:
    """Troopers whose bases overlap (deeper than `CLEARANCE`, at heights that meet): two models cannot stand
    there; touching bases are base contact."""
    apart = np.linalg.norm(v.centre[:, None] - v.centre[None], axis=-1)
    depth = v.radius[:, None] + v.radius[None] - apart
    level = (v.z[:, None] < v.top[None]) & (v.z[None] < v.top[:, None])
    first, second = np.nonzero(np.triu((depth > CLEARANCE) & level, k=1))
    return [Problem(f"troopers[{j}]", f"'{v.ids[j]}' overlaps '{v.ids[i]}' (their bases cross by {depth[i, j]:.2f} mm); "
                                      "move one of them") for i, j in zip(first.tolist(), second.tolist())]


def _below_table_warnings(v) -> list[Problem]:
    """Troopers whose base is below the table top (z = 0), where nothing stands."""
    return [Problem(f"troopers[{i}].z", f"'{v.ids[i]}' stands {-z:g} mm below the table top; give z 0 or more, or "
                                        "z: auto") for i, z in enumerate(v.z.tolist()) if z < -EPS]
