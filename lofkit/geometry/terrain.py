"""Terrain pieces as triangle meshes placed in table coordinates (mm, z up).

Every piece is built in its own frame, then scaled, rotated about z by `rotation` (degrees, counter-clockwise)
and moved to `position`: boxes and cylinders have the centre of their bottom face at their origin, a prism's
polygon and a wall's `from`/`to` are written in that frame, a mesh file keeps its own origin.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import shapely
import trimesh
import xxhash

from lofkit.errors import Problem
from lofkit.geometry.flat import outline
from lofkit.geometry.inner import (
    MeshParts,
    capped_surface,
    inside_closed,
    mesh_parts,
    parts_cached,
    placed_boxes,
)
from lofkit.geometry.voxels import boxes_along, boxes_next
from lofkit.scene.model import Scene, Terrain
from lofkit.units import MM_PER_UNIT

MESH_SUFFIXES = (".stl", ".obj", ".ply", ".off", ".glb", ".gltf")
CYLINDER_SECTIONS = 64
READ_MESHES_KEPT = 16
"""Mesh files a process keeps as read (a table's kinds of piece, read again by each World and each worker's job)."""
_GLTF = (".glb", ".gltf")
CHUNK = 8
"""Parts per chunk of neighbours that `ConvexParts.along` passes over whole when a segment misses their box."""
FLAT = 1e-12
"""A face whose area is at most this share of the square of its mesh's size has none (its corners lie on one
line)."""


@dataclass(frozen=True, eq=False)
class Piece:
    """A terrain piece compiled for queries: its placed mesh and what it does to sight."""

    id: str
    kind: str
    blocks_lof: bool
    mesh: trimesh.Trimesh
    local: trimesh.Trimesh
    """The mesh in the piece's own frame; `mesh` is it placed by `transform` (`placement`)."""
    transform: np.ndarray

    @property
    def solid(self) -> bool:
        """Solid scenery supports bases and can grant cover; visibility zones do neither."""
        return self.kind == "solid"

    @cached_property
    def bounds(self) -> np.ndarray:
        """(2, 3) lowest and highest corner of the placed mesh (kept: trimesh re-hashes the mesh to look it up)."""
        return self.mesh.bounds

    @cached_property
    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """The placed mesh's edges, each once: their end points (m, 2, 3) and their boxes seen from above (m, 4: x
        and y low, then high)."""
        ends = self.mesh.vertices[self.mesh.edges_unique]
        return ends, np.hstack([ends[:, :, :2].min(axis=1), ends[:, :, :2].max(axis=1)])

    @cached_property
    def outline(self) -> shapely.Geometry:
        """The placed mesh seen from above (`flat.outline`), kept with the piece: worlds rebuilt from the same pieces
        (the workbench's after each change) draw and measure it again without uniting a triangle."""
        return outline(self.mesh)

    @cached_property
    def parts(self) -> MeshParts:
        """The convex parts proofs may use, in the piece's own frame (`inner.mesh_parts`; cached on disk)."""
        return mesh_parts(self.local)

    @cached_property
    def placed_parts(self) -> tuple[list[np.ndarray], list[np.ndarray], int]:
        """The convex parts placed: each one's planes (f, 4: unit normal, offset) and bounds (6,), its convex
        components first (how many: the last number), then its inner boxes. Kept with the piece, so that worlds
        rebuilt from the same pieces (the layout search's steps) only gather them."""
        mesh, parts = self.mesh, self.parts
        planes, bounds = [], []
        for faces in np.split(np.argsort(parts.component, kind="stable"),
                              np.cumsum(np.bincount(parts.component + 1)))[1:-1]:
            normals = mesh.face_normals[faces]
            found = np.column_stack([normals, np.einsum("ij,ij->i", normals, mesh.triangles[faces, 0])])
            planes.append(np.unique(np.round(found, 9), axis=0))
            corners = mesh.vertices[mesh.faces[faces]].reshape(-1, 3)
            bounds.append(np.ravel([corners.min(axis=0), corners.max(axis=0)]))
        components = len(planes)
        if len(parts.boxes):
            box_planes, box_bounds = placed_boxes(parts.boxes, self.transform)
            planes.extend(box_planes)
            bounds.extend(box_bounds)
        return planes, bounds, components

    @property
    def parts_ready(self) -> bool:
        """Whether `parts` is at hand without computing it."""
        return "parts" in self.__dict__ or parts_cached(self.local)

    @cached_property
    def closed(self) -> bool:
        """Whether the mesh is watertight, so that it has an inside."""
        return bool(self.mesh.is_watertight)

    @cached_property
    def _capped(self) -> np.ndarray | None:
        """The placed open mesh closed by caps over its holes (`inner.capped_surface`), built once per piece."""
        return capped_surface(self.mesh)

    def holds(self, points: np.ndarray) -> np.ndarray:
        """Whether each point (n, 3) lies inside the piece's solid: inside the mesh when it is watertight, else
        inside it closed by caps over its holes (never, when caps cannot close it)."""
        return self.mesh.contains(points) if self.closed else inside_closed(self._capped, points)


class MeshFileError(ValueError):
    """A mesh file that is missing, unreadable or empty."""


def load_mesh_file(path: Path, units: str | None = None, up_axis: str | None = None) -> trimesh.Trimesh:
    """Load a mesh file as one triangle mesh in mm, z up (glTF defaults: metres, y up): a copy of the one this
    process read before from the same bytes, when it did."""
    suffix = path.suffix.lower()
    if suffix not in MESH_SUFFIXES:
        raise MeshFileError(f"'{path}' is not a supported mesh file; use one of {', '.join(MESH_SUFFIXES)}")
    if path.is_dir():
        raise MeshFileError(f"'{path}' is a folder, not a mesh file; name the mesh file in it")
    if not path.is_file():
        raise MeshFileError(f"mesh file '{path}' not found (paths are relative to the scene file's folder)")
    if suffix == ".gltf":  # its buffers may lie in other files
        return _read_mesh_file.__wrapped__(path, "", units, up_axis)
    return _read_mesh_file(path, xxhash.xxh3_128_hexdigest(path.read_bytes()), units, up_axis).copy()


@functools.lru_cache(maxsize=READ_MESHES_KEPT)
def _read_mesh_file(path: Path, digest: str, units: str | None, up_axis: str | None) -> trimesh.Trimesh:
    """`load_mesh_file`'s reading, kept per file and `digest` of its bytes."""
    suffix = path.suffix.lower()
    try:
        mesh = trimesh.load(str(path), force="mesh", process=False)
    except Exception as exc:  # trimesh raises many types for unreadable files
        named = _obj_missing_vertex(path) if suffix == ".obj" and isinstance(exc, IndexError) else None
        raise MeshFileError(named or f"cannot read '{path}' as a mesh: {exc}") from None
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise MeshFileError(f"'{path}' has no faces: it is empty or not a {suffix[1:].upper()} mesh")
    if suffix == ".obj" and _OBJ_ZERO.search(path.read_bytes()):  # trimesh takes vertex 0 as the last one
        raise MeshFileError(_obj_missing_vertex(path) or f"'{path}' names vertex 0; an OBJ counts from 1")
    _check_faces(mesh, path)
    mesh.process()  # merges duplicate vertices, as loading with processing does
    mesh = trimesh.Trimesh(vertices=mesh.vertices.copy(), faces=mesh.faces.copy(), process=False)
    up = up_axis or ("y" if suffix in _GLTF else "z")
    if up == "y":  # (x, y, z) with y up -> (x, -z, y) with z up
        mesh.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 2, [1, 0, 0]))
    mesh.apply_scale(MM_PER_UNIT[units or ("m" if suffix in _GLTF else "mm")])
    return mesh


def _check_faces(mesh: trimesh.Trimesh, path: Path) -> None:
    """Refuse faces that name a vertex the file lacks, or a corner that is not a number (processing would drop the
    latter without a word, leaving holes in the terrain), and a mesh with no face that has an area."""
    if mesh.faces.min() < 0 or mesh.faces.max() >= len(mesh.vertices):
        raise MeshFileError(f"'{path}' has a face naming a vertex it does not have (it has {len(mesh.vertices)}); "
                            "repair or export the mesh again")
    broken = int((~np.isfinite(mesh.vertices[mesh.faces]).all(axis=(1, 2))).sum())
    if broken:
        raise MeshFileError(f"'{path}' has {broken} of {len(mesh.faces)} faces with a corner that is not a number "
                            "(NaN or infinity); repair or export the mesh again")
    if mesh.area_faces.max() <= FLAT * mesh.scale**2:
        raise MeshFileError(f"'{path}' has no face with area: each face's corners lie on one line; repair or export "
                            "the mesh again")


_OBJ_ZERO = re.compile(rb"^f[ \t][^\n]*?(?<=[ \t])0+(?=[/ \t\r\n]|$)", re.MULTILINE)
"""A face naming vertex 0 in an OBJ file (it counts its vertices from 1)."""


def _obj_missing_vertex(path: Path) -> str | None:
    """The first face of an OBJ file that names a vertex the file lacks, worded as the file counts its vertices
    (from 1; negative: back from the last one read so far), or None."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    count, seen = sum(line.split(maxsplit=1)[:1] == ["v"] for line in lines), 0
    for number, line in enumerate(lines, start=1):
        words = line.split()
        seen += words[:1] == ["v"]
        for word in words[1:] if words[:1] == ["f"] else []:
            index = word.split("/")[0]
            if index.lstrip("-").isdigit() and not (1 <= int(index) <= count or 1 <= -int(index) <= seen):
                return (f"'{path}' line {number}: a face names vertex {index}, but the file has {count} vertices, "
                        f"{seen} of them before this line (an OBJ counts them from 1, or back from the last one "
                        "read when negative); repair or export the mesh again")
    return None


def local_mesh(terrain: Terrain, scene: Scene) -> trimesh.Trimesh:
    """The piece's mesh in its own frame, before scale, rotation and position."""
    if terrain.box is not None:
        mesh = trimesh.creation.box(extents=terrain.box.size)
        mesh.apply_translation((0, 0, terrain.box.size[2] / 2))
    elif terrain.cylinder is not None:
        c = terrain.cylinder
        mesh = trimesh.creation.cylinder(radius=c.diameter / 2, height=c.height, sections=CYLINDER_SECTIONS)
        mesh.apply_translation((0, 0, c.height / 2))
    elif terrain.wall is not None:
        w = terrain.wall
        (x0, y0), (x1, y1) = w.start, w.to
        centreline = shapely.LineString([(x0, y0), (x1, y1)])
        footprint = centreline.buffer(w.thickness / 2, cap_style="flat")
        mesh = trimesh.creation.extrude_polygon(footprint, w.height)
    elif terrain.prism is not None:
        mesh = trimesh.creation.extrude_polygon(shapely.Polygon(terrain.prism.polygon), terrain.prism.height)
    else:
        mesh = load_mesh_file(scene.resolve(terrain.mesh), terrain.mesh_units, terrain.up_axis)
    return mesh


def placement(terrain: Terrain) -> np.ndarray:
    """The 4 x 4 matrix that places a piece: scale, then turn about the table's fixed x, y and z axes in that order,
    then move to `position`."""
    scale = np.broadcast_to(np.asarray(terrain.scale, dtype=float), (3,))
    turn = terrain.rotation
    transform = trimesh.transformations.euler_matrix(*np.radians([turn.x, turn.y, turn.z]), axes="sxyz")
    transform[:3, :3] = transform[:3, :3] @ np.diag(scale)
    transform[:3, 3] = terrain.position
    return transform


def placed_mesh(terrain: Terrain, scene: Scene) -> trimesh.Trimesh:
    """The piece's mesh in table coordinates (`placement`)."""
    return local_mesh(terrain, scene).apply_transform(placement(terrain))


def build_pieces(scene: Scene) -> tuple[list[Piece], list[Problem]]:
    """Compile every terrain piece; mesh-file problems are collected with their place in the scene."""
    pieces, problems = [], []
    for i, terrain in enumerate(scene.terrain):
        try:
            local = local_mesh(terrain, scene)
        except MeshFileError as exc:
            problems.append(Problem(f"terrain[{i}].mesh", str(exc)))
            continue
        transform = placement(terrain)
        mesh = local.copy().apply_transform(transform)
        pieces.append(Piece(terrain.id, terrain.kind, terrain.blocks, mesh, local, transform))
    return pieces, problems


@dataclass(frozen=True)
class ConvexParts:
    """Convex parts of blocking pieces as padded half-space sets {x: normals @ x <= offsets}: `normals` (p, f, 3),
    `offsets` (p, f), `faces` (p,) the planes each really has (the first ones), `bounds` (p, 6) axis-aligned
    boxes (min x, y, z, max x, y, z), `piece`, the index of the piece each part belongs to; and per chosen piece,
    `face_part`, the component part each of its mesh's faces belongs to (-1: none), `first_box`, the index of its
    first inner box part, and `framed`, its `MeshParts` with the matrix from table to piece coordinates (`part_at`
    finds the box a hit leads to)."""

    normals: np.ndarray
    offsets: np.ndarray
    faces: np.ndarray
    bounds: np.ndarray
    piece: np.ndarray
    face_part: tuple[np.ndarray, ...]
    first_box: np.ndarray
    framed: tuple[tuple[MeshParts, np.ndarray], ...]

    @cached_property
    def sizes(self) -> np.ndarray:
        """Each part's size, as the volume of its axis-aligned box (p,): which of two parts more segments cross."""
        return np.prod(self.bounds[:, 3:] - self.bounds[:, :3], axis=1)

    @cached_property
    def _face_table(self) -> tuple[np.ndarray, np.ndarray]:
        """`face_part` as one array, and where each piece's faces start in it."""
        starts = np.cumsum([0] + [len(f) for f in self.face_part])[:-1]
        return np.concatenate([*self.face_part, np.zeros(0, dtype=np.int64)]), starts.astype(np.int64)

    @cached_property
    def _chunks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The parts in chunks of neighbours, for `along`: each piece's parts (they are contiguous) in Morton order of
        their boxes' middles, cut into runs of `CHUNK`. Returns the part order, the chunks (first, stop in that
        order, then the box around their parts) and the pieces (first, stop chunk, then the box around theirs)."""
        count = len(self.piece)
        if count == 0:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 8)), np.zeros((0, 8))
        starts = np.flatnonzero(np.r_[True, self.piece[1:] != self.piece[:-1]])
        owner = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, count]))
        middles = (self.bounds[:, :3] + self.bounds[:, 3:]) / 2
        low = np.minimum.reduceat(middles, starts)
        span = (np.maximum.reduceat(middles, starts) - low).max(axis=1)
        cells = ((middles - low[owner]) / np.maximum(span, 1e-9)[owner, None] * 1023).astype(np.uint64)
        codes = np.zeros(count, dtype=np.uint64)
        for bit in range(10):
            for axis in range(3):
                codes |= ((cells[:, axis] >> np.uint64(bit)) & np.uint64(1)) << np.uint64(3 * bit + axis)
        order = np.lexsort((codes, owner))  # stable: pieces keep their places
        firsts = np.flatnonzero((np.arange(count) - starts[owner]) % CHUNK == 0)
        ordered = self.bounds[order]
        chunks = np.column_stack([firsts, np.r_[firsts[1:], count], box_around(ordered, firsts)])
        first_chunk = np.searchsorted(firsts, starts)
        groups = np.column_stack([first_chunk, np.r_[first_chunk[1:], len(firsts)], box_around(self.bounds, starts)])
        return order, chunks.astype(float), groups.astype(float)

    def along(self, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every (row, part) such that the segment from `starts[row]` to `ends[row]` ((n, 3) each) meets the part's
        box, ordered by row, then part (`voxels.boxes_along`)."""
        starts, ends = np.ascontiguousarray(starts, dtype=float), np.ascontiguousarray(ends, dtype=float)
        order, chunks, groups = self._chunks
        size = max(1024, 16 * len(starts))
        while True:
            rows, found = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
            count = boxes_along(starts, ends, self.bounds, order, chunks, groups, rows, found)
            if count >= 0:
                rows, found = rows[:count], found[:count]
                by_row = np.lexsort((found, rows))
                return rows[by_row], found[by_row]
            size *= 4

    def part_at(self, mesh: np.ndarray, face: np.ndarray, points: np.ndarray, directions: np.ndarray) -> np.ndarray:
        """The part each segment that first hit face `face` of chosen piece `mesh` at `points` (n, 3), going along
        `directions` (n, 3), leads to: the convex component of that face, else the largest inner box it is likely to
        cross soon after (`voxels.boxes_next`); -1 where `mesh` is -1 or there is neither."""
        table, starts = self._face_table
        hit = mesh >= 0
        part = np.full(len(mesh), -1, dtype=np.int64)
        part[hit] = table[starts[mesh[hit]] + face[hit]]
        points, directions = np.ascontiguousarray(points, dtype=float), np.ascontiguousarray(directions, dtype=float)
        for k in np.unique(mesh[hit & (part < 0)]).tolist():
            parts, to_piece = self.framed[k]
            if len(parts.boxes):
                boxes_next(points, directions, mesh, k, to_piece, parts.lookup, parts.lookup_origin,
                           parts.lookup_pitch, parts.boxes, self.first_box[k], part)
        return part


def box_around(boxes: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The box (6,) around each run of `boxes` (k, 6) that starts at `starts` and stops where the next one starts."""
    return np.hstack([np.minimum.reduceat(boxes[:, :3], starts), np.maximum.reduceat(boxes[:, 3:], starts)])


def convex_parts(pieces: Sequence[Piece], chosen: Sequence[int]) -> ConvexParts:
    """The convex parts of the chosen pieces (`Piece.parts`), placed, used to prove cheaply that a blocker hides a
    pair: their meshes' convex closed components (the hollow building's walls, a crate, a smoke cylinder) and boxes
    inside the rest of their solids."""
    planes, owners, bounds, face_part, first_box = [], [], [], [], []
    for index in chosen:
        piece = pieces[index]
        its_planes, its_bounds, components = piece.placed_parts
        face_part.append(np.where(piece.parts.component >= 0, len(planes) + piece.parts.component, -1))
        first_box.append(len(planes) + components)
        planes.extend(its_planes)
        bounds.extend(its_bounds)
        owners.extend([index] * len(its_planes))
    faces = max((len(p) for p in planes), default=1)
    padded = np.tile([0.0, 0.0, 0.0, 1.0], (len(planes), faces, 1))  # 0 . x <= 1 holds everywhere
    for k, p in enumerate(planes):
        padded[k, : len(p)] = p
    # C-contiguous whatever the count of parts: the kernels are compiled once per array layout
    return ConvexParts(np.ascontiguousarray(padded[..., :3]), np.ascontiguousarray(padded[..., 3]),
                       np.array([len(p) for p in planes], dtype=np.int64),
                       np.array(bounds, dtype=float).reshape(-1, 6), np.array(owners, dtype=np.int64),
                       tuple(face_part), np.array(first_box, dtype=np.int64),
                       tuple((pieces[i].parts, np.linalg.inv(pieces[i].transform)) for i in chosen))
