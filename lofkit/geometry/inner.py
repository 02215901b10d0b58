"""The parts of a mesh that proofs of "hidden" may use: its convex closed components, the kernels of closed
components nearly convex (`star`: a low-poly rock), and boxes provably inside the solid of the rest, so that a
segment crossing one is blocked by the mesh itself.

A real terrain piece is one non-convex body, so none of its components is convex; boxes inside its solid still
prove what it hides. The construction, on a voxel grid of pitch h over the mesh's other closed components (and its
open ones, closed by caps over their holes, below):

1. Every voxel (a closed cube) that a triangle meets is marked (`voxels.surface_voxels`, an exact separating-axis
   test on a cube grown by a hair).
2. The unmarked voxels are split into 6-connected components. Two face-adjacent unmarked voxels share a face no
   triangle meets, so a component's voxels together form a connected set that no triangle meets: the whole set
   lies on one side of the surface.
3. The winding number of a closed, consistently oriented surface is constant off the surface; measured at one
   voxel centre of a component (half a voxel or more from every triangle) it says whether the whole component is
   inside the solid.
4. Boxes are grown inside those components (`voxels.grow_boxes`, deepest seeds first) and shrunk by `MARGIN`;
   those at the mesh's foot are lowered to just above its underside where the slab below them is clear
   (`lower_to_the_bottom`), so that segments skimming the table cross them.
5. A coarse grid holds the largest box near each place (`box_lookup`), where a segment that hits the mesh learns
   the largest box it goes on into soon after (`voxels.boxes_next`).

A segment from a point outside the solid to a point inside crosses the surface, so a segment between two points
outside the solid that crosses a box hits a triangle of the mesh. Embree always casts against the full mesh: a box
only ever proves what the mesh does.

A mesh that is not watertight has no inside of its own. Its holes are closed by caps (each rim joined to its
middle), which gives a closed surface S'; but a segment may leave S' through a cap, where the mesh has nothing. A
segment through a box leaves the capped solid on both sides of it, each time through the mesh or a cap; if through
caps both times, the part of it between those two caps lies in the convex hull of their rims. So the voxels that
may meet the hull of any two rims (or of one) are taken out before boxes are grown (`passages.through_holes`), and
every segment through a box that is left meets the mesh itself. A cap that lies on faces of the mesh (a wall's open
top under its roof's underside: `seals`) is no way out: a segment crossing it meets those faces; nor is one with the
capped solid on both sides of it (a post's open foot inside the floor it stands in: `seals.enclosed`). Each open
part is capped on its own, and two holes are taken together only when their parts may reach each other inside
(`reaches`: a segment crossing no face goes from one part's inside to another's only where they overlap, or through
holes of both in the plane where they touch). Open parts that caps cannot close consistently are skipped and counted.

The proofs assume segments end outside the solid: lofkit warns about troopers whose volumes cut into solid scenery.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import scipy.sparse
import scipy.sparse.csgraph
import trimesh
from scipy import ndimage

from lofkit.geometry import cache, passages, seals, star, voxels
from lofkit.geometry.passages import through_holes
from lofkit.geometry.seals import flat_planes, sealed_rims, welded
from lofkit.geometry.star import kernel_volume
from lofkit.geometry.voxels import (
    boxes_clear,
    first_voxels,
    grow_boxes,
    surface_voxels,
    winding_numbers,
)

MAX_VOXELS = 30e6
"""Voxels of a mesh's grid at most; the pitch is the smallest that keeps to it, and at least `MIN_PITCH`."""
MIN_PITCH = 0.25
GRID_LIMIT = 4 * MAX_VOXELS
"""Voxels of a grid at most, padding included: the pitch above keeps to `MAX_VOXELS` for a mesh about as deep as it
is wide, and is doubled until a mesh far flatter or thinner than that keeps to this."""
MAX_BOXES = 1000
KERNEL_SHARE = 0.9
"""A closed non-convex component whose kernel holds at least this share of it is a part as it is, the kernel (a
low-poly rock), rather than boxes."""
KERNEL_FACES = 128
"""Faces a component may have for its kernel to be its part: every part has as many planes as the one with the most."""
MIN_BOX_VOLUME = 2.0
"""Boxes smaller than this (mm^3) prove too little to be worth testing."""
MARGIN = 1e-3
"""Each box is shrunk by this (mm) on every side, against rounding in the placement."""
BOTTOM_LAYERS = 4
"""Boxes whose lowest voxel is at most this many layers up the grid are tried for lowering (`lower_to_the_bottom`;
the grid starts 1.5 voxels below the mesh)."""
LOOKUP = 4
"""Voxels along each side of a cell of the box lookup grid (`box_lookup`)."""


@dataclass(frozen=True)
class MeshParts:
    """The proof parts of one mesh, in its own frame. `component` (faces,): the closed component each face belongs
    to whose part is itself (convex) or its kernel (-1: none), with their total `convex_volume` (of the kernels, for
    the latter; what lies outside a kernel counts in `volume`); `boxes` (k, 6), lowest and highest corners of boxes
    inside the rest of the solid, and `lookup`, the largest box meeting each cell of a grid (-1: none) whose first
    cell starts at `lookup_origin` (3,) and whose cells are `lookup_pitch` mm a side (where a segment that hits the
    mesh goes on into a box); the `volume` of that rest and how much of it the boxes cover (`covered`, mm^3); the
    voxel `pitch` (mm); `holes` closed by caps and `skipped_faces`, faces of open parts that caps could not close."""

    component: np.ndarray
    convex_volume: float
    boxes: np.ndarray
    lookup: np.ndarray
    lookup_origin: np.ndarray
    lookup_pitch: float
    volume: float
    covered: float
    pitch: float
    holes: int
    skipped_faces: int

    @property
    def parts(self) -> int:
        """Convex parts in all: components and boxes."""
        return int(self.component.max(initial=-1)) + 1 + len(self.boxes)

    @property
    def coverage(self) -> float:
        """The share of the solid the parts cover (0 when it has no closed volume)."""
        whole = self.convex_volume + self.volume
        return (self.convex_volume + self.covered) / whole if whole > 0 else 0.0


def mesh_parts(mesh: trimesh.Trimesh) -> MeshParts:
    """The proof parts of `mesh`, computed once per mesh content and kept in the disk cache (`cache`)."""
    return cache.kept(mesh_key(mesh), MeshParts, lambda: compute_mesh_parts(mesh))


def parts_cached(mesh: trimesh.Trimesh) -> bool:
    """Whether the disk cache holds `mesh`'s parts (else `mesh_parts` computes them: a second or so per mesh)."""
    return cache.has(mesh_key(mesh))


@functools.cache
def code_digest() -> str:
    """A digest of the code that computes the parts (the source of this module and of those it builds on, and
    trimesh's version), read once per process: changed code never reads parts the old code saved."""
    files = (__file__, voxels.__file__, seals.__file__, star.__file__, passages.__file__)
    return cache.code_digest(trimesh.__version__, files)


def mesh_key(mesh: trimesh.Trimesh) -> str:
    """A digest of the mesh's vertices and faces, of the construction's settings and of its code (`code_digest`)."""
    settings = (MAX_VOXELS, MIN_PITCH, GRID_LIMIT, MAX_BOXES, MIN_BOX_VOLUME, passages.HULL_SLACK, passages.THICKNESS,
                MARGIN, BOTTOM_LAYERS, LOOKUP, seals.WELD_STEPS, KERNEL_SHARE, KERNEL_FACES)
    return cache.mesh_key("parts", mesh, f"{code_digest()} {settings!r}")


@dataclass(frozen=True)
class Surface:
    """A mesh split for its parts: `component`, as in `MeshParts`, and their `convex_volume` (of kernels, for the
    components whose kernel is their part: the volume of those components outside it is `beyond_kernels`); `faces`,
    those of its other closed components and of its open ones, with `caps` (t, 3, 3), triangles that close the open
    ones' holes, each hole's rim vertices in `rims`, and those whose caps no faces of the mesh cover in `open_rims`
    (`seals.sealed_rims`) with the `reach` of each (`reaches`); and faces skipped (open or inconsistently oriented
    parts that caps cannot close)."""

    component: np.ndarray
    convex_volume: float
    beyond_kernels: float
    faces: np.ndarray
    caps: np.ndarray
    rims: tuple[np.ndarray, ...]
    open_rims: tuple[np.ndarray, ...]
    reach: tuple[int, ...]
    skipped: int


def mesh_surface(mesh: trimesh.Trimesh) -> Surface:
    """Split the mesh into its connected components (faces that share an edge with no third face; a face exported
    twice counts once): watertight convex ones are parts as they are, and so are the other watertight ones whose kernel
    holds most of them (`KERNEL_SHARE`; the part is then the kernel), the rest are kept for boxes, and open ones too,
    each with caps over its holes when that closes it."""
    component = np.full(len(mesh.faces), -1, dtype=np.int64)
    convex_volume, beyond_kernels, closed, open_faces, skipped, solids = 0.0, 0.0, [], [], 0, []
    once = np.sort(np.unique(np.sort(mesh.faces, axis=1), axis=0, return_index=True)[1])
    once = once[(np.diff(np.sort(mesh.faces[once], axis=1), axis=1) > 0).all(axis=1)]  # flat once welded: no face
    single = trimesh.Trimesh(mesh.vertices, mesh.faces[once], process=False)
    caps, rims, owner, out = [], [], [], []
    for faces in trimesh.graph.connected_components(single.face_adjacency, nodes=np.arange(len(once))):
        faces = once[np.asarray(faces)]
        part = mesh.submesh([faces], append=True)
        if not part.is_watertight:
            cap, rim = caps_over_holes(mesh.vertices, mesh.faces[faces])
            if cap is None:
                skipped += len(faces)
            else:
                open_faces.append(faces)
                caps.append(cap)
                rims.extend(rim)
                owner.extend([len(open_faces) - 1] * len(rim))
                out.extend([1 if _signed_volume(np.concatenate([mesh.triangles[faces], cap])) >= 0 else -1] * len(rim))
            continue
        if not part.is_winding_consistent:
            skipped += len(faces)
            continue
        with np.errstate(divide="ignore", invalid="ignore"):  # a flat closed sheet has no volume, nor centre
            volume = float(part.volume)
        if volume != 0:
            solids.append(part.triangles if volume > 0 else part.triangles[:, ::-1])  # faces turned out
        kernel = abs(volume) if part.is_convex else _kernel_of(part, volume)
        if kernel > 0:
            component[faces] = component.max() + 1
            convex_volume += kernel
            beyond_kernels += abs(volume) - kernel
        else:
            closed.append(np.asarray(faces))
    caps = np.concatenate(caps) if caps else np.zeros((0, 3, 3))
    surface_faces = _joined(closed + open_faces)
    sealed = sealed_rims(mesh.triangles, caps, tuple(rims), solids, out, mesh.triangles[surface_faces])
    flat = [set() for _ in open_faces]
    for rim, part in zip(rims, owner):
        flat[part] |= flat_planes(rim)
    reach = reaches([mesh.vertices[mesh.faces[faces]].reshape(-1, 3) for faces in open_faces], flat)
    kept = np.flatnonzero(~sealed)
    return Surface(component, convex_volume, beyond_kernels, surface_faces, caps, tuple(rims),
                   tuple(rims[k] for k in kept), tuple(int(reach[owner[k]]) for k in kept), skipped)


def _kernel_of(part: trimesh.Trimesh, volume: float) -> float:
    """The volume of a closed non-convex component's kernel (`star.kernel_volume`) when it is to be the component's
    part: its faces turned out, at most `KERNEL_FACES` of them, and the kernel `KERNEL_SHARE` of it or more; else 0."""
    if volume <= 0 or len(part.faces) > KERNEL_FACES:
        return 0.0
    kernel = kernel_volume(part.triangles)
    return kernel if kernel >= KERNEL_SHARE * volume else 0.0


def reaches(parts: list[np.ndarray], flat: list[set[tuple[int, float]]] | None = None) -> np.ndarray:
    """For each open part (its points), the group of open parts it may reach inside: those whose boxes overlap, and
    on. A closed part is left only through its faces, and an open one only through its faces or its caps, so a
    segment crossing no face passes from one open part's inside to another's only where their insides overlap, or
    through caps of both that lie in one plane: parts whose boxes only touch are joined only when each has a hole
    whose rim lies flat in the plane where they touch (`flat`: each part's (axis, level) of such rims).

    >>> cube = lambda low, high: np.array([[low] * 3, [high] * 3])
    >>> reaches([cube(0, 1), cube(5, 6), cube(0.5, 5.5)]).tolist()  # the third joins the first two
    [0, 0, 0]
    >>> reaches([cube(0, 1), cube(1, 2)]).tolist()  # touching at x, y and z = 1, with no hole there
    [0, 1]
    >>> reaches([cube(0, 1), cube(1, 2)], [{(0, 1.0)}, {(0, 1.0)}]).tolist()  # holes on both sides of x = 1
    [0, 0]
    """
    if not parts:
        return np.zeros(0, dtype=np.int64)
    flat = flat or [set() for _ in parts]
    low = np.array([points.min(axis=0) for points in parts])
    high = np.array([points.max(axis=0) for points in parts])
    meet = ((low[:, None] < high[None]) & (low[None] < high[:, None])).all(axis=2)
    touch = ((low[:, None] <= high[None]) & (low[None] <= high[:, None])).all(axis=2) & ~meet
    for i, j in np.argwhere(np.triu(touch, 1)).tolist():
        planes = {(a, float(high[k, a])) for a in range(3) for k, m in ((i, j), (j, i)) if high[k, a] == low[m, a]}
        meet[i, j] = meet[j, i] = bool(planes & flat[i] & flat[j])
    return scipy.sparse.csgraph.connected_components(scipy.sparse.csr_matrix(meet), directed=False)[1]


def _signed_volume(triangles: np.ndarray) -> float:
    """The volume a closed surface (t, 3, 3) bounds, negative when its faces are turned in."""
    return float(np.einsum("ij,ij->i", triangles[:, 0], np.cross(triangles[:, 1], triangles[:, 2])).sum() / 6)


def _joined(groups: list[np.ndarray]) -> np.ndarray:
    return np.sort(np.concatenate(groups)) if groups else np.zeros(0, dtype=np.int64)


def caps_over_holes(vertices: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray | None, tuple[np.ndarray, ...]]:
    """Triangles (t, 3, 3) that close every hole of a surface (none when it is closed): each rim edge (u, v), an edge
    of one face only, joined to the middle of its rim's vertices as the triangle (v, u, middle), so that every edge
    is used as often one way as the other (where two holes touch at a vertex, it starts two rim edges and ends two);
    and each rim's vertices, one per rim edge (its start) and so one per cap triangle. (None, ()) when that does not
    close the surface consistently (an edge of three faces or more, two faces running along an edge the same way)."""
    directed = faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    edge = trimesh.grouping.hashable_rows  # an edge as one integer: np.unique on rows is ~4x slower
    keys, uses = np.unique(edge(np.sort(directed, axis=1)), return_inverse=True)
    counts = np.bincount(uses, minlength=len(keys))
    if (counts > 2).any() or len(np.unique(edge(directed))) != len(directed):
        return None, ()
    rim = directed[counts[uses] == 1]
    if len(rim) == 0:  # closed already
        return np.zeros((0, 3, 3)), ()
    groups = trimesh.graph.connected_components(rim, min_len=1)
    rims, caps = [], []
    for group in groups:
        mine = np.isin(rim[:, 0], group)
        middle = vertices[group].mean(axis=0)
        edges = rim[mine]
        caps.append(np.stack([vertices[edges[:, 1]], vertices[edges[:, 0]],
                              np.broadcast_to(middle, (len(edges), 3))], axis=1))
        rims.append(vertices[edges[:, 0]])
    return np.concatenate(caps), tuple(rims)


def capped_surface(mesh: trimesh.Trimesh) -> np.ndarray | None:
    """An open mesh's triangles with the caps that close its holes (t, 3, 3), or None when caps cannot close it
    consistently (`caps_over_holes`)."""
    caps, _ = caps_over_holes(mesh.vertices, mesh.faces)
    return None if caps is None else np.concatenate([mesh.triangles, caps])


def inside_closed(triangles: np.ndarray | None, points: np.ndarray) -> np.ndarray:
    """Whether each point (n, 3) lies inside the solid of the closed surface `triangles` (its winding number is a
    whole number other than 0); all False for None (no closed surface)."""
    if triangles is None:
        return np.zeros(len(points), dtype=bool)
    winding = winding_numbers(np.require(triangles, float, "CW"), np.require(points, float, "CW"))  # one compiled kind
    return (np.abs(winding - np.round(winding)) < 0.25) & (np.round(winding) != 0)


def inside_voxels(triangles: np.ndarray, origin: np.ndarray, pitch: float, shape: tuple[int, int, int]) -> np.ndarray:
    """Voxels that lie, whole, strictly inside the solid of the closed surface `triangles` (steps 1-3 above)."""
    surface = np.zeros(shape, dtype=bool)
    surface_voxels(triangles, origin, pitch, surface)
    labels, count = ndimage.label(~surface)
    border = np.unique(np.concatenate([labels[[0, -1]].ravel(), labels[:, [0, -1]].ravel(),
                                       labels[:, :, [0, -1]].ravel()]))
    candidates = np.setdiff1d(np.arange(1, count + 1), border)
    if len(candidates) == 0:
        return np.zeros(shape, dtype=bool)
    firsts = np.column_stack(np.unravel_index(first_voxels(labels.ravel(), count)[candidates], shape))
    centres = origin + (firsts + 0.5) * pitch
    kept = np.zeros(count + 1, dtype=bool)
    kept[candidates[inside_closed(triangles, centres)]] = True
    return kept[labels]


def compute_mesh_parts(mesh: trimesh.Trimesh) -> MeshParts:
    """The proof parts of `mesh` (see the module's docstring), its coordinates a rounding apart made one first
    (`seals.welded`)."""
    mesh = welded(mesh)
    surface = mesh_surface(mesh)
    if len(surface.faces) == 0:
        return MeshParts(surface.component, surface.convex_volume, np.zeros((0, 6)), np.full((1, 1, 1), -1),
                         np.zeros(3), 1.0, surface.beyond_kernels, 0.0, 0.0, 0, surface.skipped)
    triangles = np.ascontiguousarray(np.concatenate([mesh.triangles[surface.faces], surface.caps]), dtype=np.float64)
    low, high = triangles.reshape(-1, 3).min(axis=0), triangles.reshape(-1, 3).max(axis=0)
    pitch = max(MIN_PITCH, float(np.cbrt(np.prod(high - low + 0.1) / MAX_VOXELS)))
    while np.prod(np.ceil((high - low) / pitch) + 3) > GRID_LIMIT:  # far flatter or thinner than it is long
        pitch *= 2
    origin = low - 1.5 * pitch
    shape = tuple(int(n) for n in np.ceil((high + 1.5 * pitch - origin) / pitch).astype(int))
    holes = through_holes(surface.open_rims, surface.reach, origin, pitch, shape)
    inside = inside_voxels(triangles, origin, pitch, shape) & ~holes
    signed = _signed_volume(triangles)
    cells = grow_boxes(*_box_inputs(inside), MAX_BOXES, int(np.ceil(MIN_BOX_VOLUME / pitch**3)))
    covered = np.zeros(shape, dtype=bool)
    for lo0, lo1, lo2, hi0, hi1, hi2 in cells.tolist():
        covered[lo0:hi0, lo1:hi1, lo2:hi2] = True
    boxes = np.hstack([origin + cells[:, :3] * pitch + MARGIN, origin + cells[:, 3:] * pitch - MARGIN])
    lower_to_the_bottom(boxes, cells, triangles, holes)
    return MeshParts(surface.component, surface.convex_volume, boxes, box_lookup(cells, shape), origin,
                     LOOKUP * pitch, abs(float(signed)) + surface.beyond_kernels, float(covered.sum()) * pitch**3,
                     pitch, len(surface.rims), surface.skipped)


def lower_to_the_bottom(boxes: np.ndarray, cells: np.ndarray, triangles: np.ndarray, holes: np.ndarray) -> None:
    """Lower to just above the mesh's lowest point the boxes that stop a few voxels above it (where the voxels that
    touch a flat underside are marked), when no triangle meets the slab below them and no voxel of it lies where
    holes let segments through: slab and box then lie on one side of the surface, inside. Segments that run just
    above the table, under the boxes, still cross the mesh there; now they cross a box too."""
    bottom = float(triangles[..., 2].min())
    near = np.flatnonzero((cells[:, 2] <= BOTTOM_LAYERS) & (boxes[:, 2] > bottom + MARGIN))
    open_below = np.array([not holes[lo0:hi0, lo1:hi1, :lo2].any() for lo0, lo1, lo2, hi0, hi1, _ in cells[near]],
                          dtype=bool).reshape(-1)
    near = near[open_below]
    slabs = boxes[near].copy()
    slabs[:, 5], slabs[:, 2] = slabs[:, 2], bottom + MARGIN
    clear = np.zeros(len(slabs), dtype=bool)
    boxes_clear(triangles, slabs, clear)
    boxes[near[clear], 2] = bottom + MARGIN


def _box_inputs(inside: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What `voxels.grow_boxes` takes: the summed-volume table of `inside`, its voxels (flat indices) deepest first
    (chessboard distance to the outside; in index order among equals), and no voxel claimed yet."""
    table = np.zeros(tuple(n + 1 for n in inside.shape), dtype=np.int32)
    voxels.summed_volume(inside, table)
    depth = np.empty(inside.shape, dtype=np.int16)  # at most half the grid's smallest side (< GRID_LIMIT ** (1 / 3))
    voxels.chessboard_depth(inside, depth)
    return table, voxels.deepest_first(depth), np.zeros(inside.shape, dtype=bool)


def box_lookup(cells: np.ndarray, shape: tuple[int, int, int]) -> np.ndarray:
    """For each cell of `LOOKUP` x `LOOKUP` x `LOOKUP` voxels, the largest of the boxes `cells` (k, 6; voxel
    indices lo, hi) that meets it (-1: none)."""
    lookup = np.full([-(-n // LOOKUP) for n in shape], -1, dtype=np.int32)
    for k in np.argsort(np.prod(cells[:, 3:] - cells[:, :3], axis=1), kind="stable"):  # the largest painted last
        lo, hi = cells[k, :3] // LOOKUP, (cells[k, 3:] - 1) // LOOKUP + 1
        lookup[lo[0] : hi[0], lo[1] : hi[1], lo[2] : hi[2]] = k
    return lookup


def placed_boxes(boxes: np.ndarray, transform: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boxes (k, 6) placed by `transform` (4 x 4: a scale along the box axes, then any turn, then a shift; boxes stay
    boxes), as half-spaces (k, 6, 4) (unit normal, offset: normal . x <= offset) and axis-aligned bounds (k, 6)."""
    linear, shift = transform[:3, :3], transform[:3, 3]
    local = np.concatenate([-np.eye(3), np.eye(3)])  # the box's outward normals: -x, -y, -z, +x, +y, +z
    offsets = np.hstack([-boxes[:, :3], boxes[:, 3:]])  # (k, 6)
    normals = local @ np.linalg.inv(linear)  # n . x <= d becomes (inverse(linear)^T n) . x' <= d + that . shift
    lengths = np.linalg.norm(normals, axis=1)
    normals = normals / lengths[:, None]
    placed = (offsets / lengths + normals @ shift)[..., None]
    planes = np.concatenate([np.broadcast_to(normals, (len(boxes), 6, 3)), placed], axis=2)
    corners = np.stack(np.meshgrid(*[[0, 3]] * 3, indexing="ij"), axis=-1).reshape(-1, 3) + np.arange(3)
    points = boxes[:, corners] @ linear.T + shift  # (k, 8, 3)
    return planes, np.hstack([points.min(axis=1), points.max(axis=1)])
