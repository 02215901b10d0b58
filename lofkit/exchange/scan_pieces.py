"""A scan's terrain split into pieces, each closed where the scan left it open.

Once the table top and the miniatures are gone, every connected surface left is one piece of terrain (its own
mesh file), so inner parts, footprints, pictures and the workbench work piece by piece. Fragments smaller than
`CRUMB` (a scan's specks, the tip of a rifle past its base) are dropped.

A scan is open where the scanner saw nothing: under each piece (it stood on the table), where a miniature stood
on a roof, in a corner no station reached. A hole is closed by capping its rim (triangulated in its best-fit
plane) where that is sound: on the table (a piece's underside), under a miniature (the surface it stood on goes
on under its base) and when it is small (`SMALL_HOLE`). A larger hole may be a surface the scan missed or a window
the scan looked through, and a cap across a window blocks sight the table has; so large holes are left open and
named, unless the user asks for every hole closed (`close="all"`, blocking wherever the scan is unsure). Wherever a
rim comes within the table top's noise of the table, it is brought down onto it (z = 0): the piece rests on the
table there, and its lowest millimetre went with the table top, which would let a line skimming the table pass
under it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mapbox_earcut
import numpy as np
import trimesh

from lofkit.exchange.messages import Message
from lofkit.exchange.scan_bases import FoundBase

CRUMB = 10.0
"""Pieces whose bounding box is smaller than this (mm) on its longest side, whose surface is smaller than a square
of this side, or that rise less than this over the table, are dropped: specks, the tip of a rifle past its base,
the table's own edge; and so are pieces of fewer than 4 faces (the fewest a closed solid has): stray triangles."""
SMALL_HOLE = 40.0
"""A hole whose rim is at most this long (mm; about 12 mm across) is small: a speck the scan missed; a window is
larger."""
UNDER_REACH = 15.0
"""How far (mm) past a base's edge the hole it leaves may reach (the scan's faces are that coarse at most)."""
UNDER_HEIGHT = 3.0
"""How far (mm) from a base's underside the rim of the hole it leaves may lie."""


@dataclass
class Holes:
    """The holes found in the pieces and what was done with them (`close_holes`)."""

    on_table: int = 0
    under_miniatures: int = 0
    small: int = 0
    large: dict[str, int] = field(default_factory=dict)
    """Piece id -> large holes capped in it (`--holes all`)."""
    open: dict[str, int] = field(default_factory=dict)
    """Piece id -> large holes left open in it."""
    stray_edges: int = 0
    """Boundary edges on no closed loop (where the scan's faces disagree on their winding), left open."""

    def to_dict(self) -> dict:
        return {"on_table": self.on_table, "under_miniatures": self.under_miniatures, "small": self.small,
                "large_closed": dict(self.large), "large_open": dict(self.open), "edges_left_open": self.stray_edges}

    def warnings(self) -> list[str | Message]:
        said = []
        if self.large:
            said.append(f"{sum(self.large.values())} large holes were closed, so that sight cannot pass where the "
                        f"scan saw no surface ({_most(self.large)}): a window or a door the scan did not see through is "
                        "closed too; look at these pieces in a picture (`lofkit render`)")
        if self.open:
            said.append(Message("{count} large holes were left open ({most}): a scan cannot tell a surface it missed "
                                "from a window or a door, and sight passes through them; look at these pieces in a "
                                "picture (`lofkit render`), or close them all with {holes} all",
                                count=sum(self.open.values()), most=_most(self.open)))
        if self.stray_edges:
            said.append(f"{self.stray_edges} edges of the scan's holes could not be closed (its faces disagree on "
                        "their winding there); sight may pass through them")
        return said


def _most(counts: dict[str, int]) -> str:
    most = sorted(counts.items(), key=lambda item: -item[1])
    return "most in " + ", ".join(f"{piece} ({count})" for piece, count in most[:5]) + (", ..." if len(most) > 5
                                                                                       else "")


def split_pieces(terrain: trimesh.Trimesh, table: float) -> tuple[list[trimesh.Trimesh], int]:
    """The connected pieces of `terrain` that stand above the table (higher than `table` mm: not the table's
    edge), largest first; and how many crumbs and remnants of the table were dropped."""
    if len(terrain.faces) == 0:
        return [], 0
    welded = terrain.copy()
    welded.merge_vertices()
    parts = welded.split(only_watertight=False, repair=False)
    kept = [p for p in parts if len(p.faces) >= 4 and float(np.ptp(p.vertices, axis=0).max()) >= CRUMB
            and p.area >= CRUMB**2 and p.bounds[1, 2] > table + CRUMB]
    kept.sort(key=lambda p: -len(p.faces))
    return kept, len(parts) - len(kept)


def _cap(points: np.ndarray) -> np.ndarray | None:
    """Triangles (indices into `points`) closing the loop `points` (n, 3), triangulated in its best-fit plane and
    wound against the loop (the loop runs as the faces beside it wind), so the cap agrees with its neighbours."""
    centred = points - points.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    flat = centred @ axes[:2].T
    triangles = mapbox_earcut.triangulate_float64(np.ascontiguousarray(flat), np.array([len(points)], dtype=np.uint32))
    if len(triangles) == 0:
        return None
    triangles = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    n = len(points)
    edges = {(int(a), int(b)) for a, b, c in triangles for a, b in ((a, b), (b, c), (c, a))}
    if any((k, (k + 1) % n) in edges for k in range(n)):  # runs along the loop as the faces beside it do: flip
        triangles = triangles[:, ::-1]
    return triangles


def _one_face_edges(faces: np.ndarray) -> np.ndarray:
    """The edges (k, 2) that only one face has, each running as its face winds it, in the faces' order."""
    directed = faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
    _, inverse, counts = np.unique(trimesh.grouping.hashable_rows(np.sort(directed, axis=1)), return_inverse=True,
                                   return_counts=True)
    return directed[counts[inverse.ravel()] == 1]


def boundary_loops(faces: np.ndarray) -> tuple[list[np.ndarray], int]:
    """The closed loops (vertex indices, in order) of the edges only one face has, and how many of those edges no
    loop could take (where neighbouring faces disagree on their winding). Each edge runs as its face winds it, so
    at a vertex where two holes touch, the walk still closes every loop."""
    edges = _one_face_edges(faces)
    outgoing: dict[int, list[int]] = {}
    for index, start in enumerate(edges[:, 0].tolist()):
        outgoing.setdefault(start, []).append(index)
    used = np.zeros(len(edges), dtype=bool)
    loops, stray = [], 0
    for first in range(len(edges)):
        if used[first]:
            continue
        path, edge = [], first
        while edge is not None and not used[edge]:
            used[edge] = True
            path.append(edge)
            end = int(edges[edge, 1])
            if end == edges[first, 0]:
                break
            edge = next((e for e in outgoing.get(end, ()) if not used[e]), None)
        if edges[path[-1], 1] == edges[first, 0] and len(path) >= 3:
            loops.append(edges[path, 0])
        else:
            stray += len(path)
    return loops, stray


def unpinch(vertices: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertices where two holes' rims touch (a bow tie: the faces around the vertex form separate fans) split into
    one vertex per fan, so that every rim is a simple loop and capping closes the surface edge by edge."""
    starts, times = np.unique(_one_face_edges(faces)[:, 0], return_counts=True)
    pinched = starts[times > 1]
    if len(pinched) == 0:
        return vertices, faces
    faces = faces.copy()
    extra = []
    for vertex in pinched.tolist():
        around = np.nonzero((faces == vertex).any(axis=1))[0]
        others = [set(faces[f].tolist()) - {vertex} for f in around]
        fan = np.full(len(around), -1)
        for seed in range(len(around)):  # the faces around one vertex: a handful
            if fan[seed] >= 0:
                continue
            fan[seed], stack = fan.max() + 1, [seed]
            while stack:
                here = stack.pop()
                for k in range(len(around)):
                    if fan[k] < 0 and others[k] & others[here]:
                        fan[k] = fan[seed]
                        stack.append(k)
        for group in range(1, fan.max() + 1):
            copy = len(vertices) + len(extra)
            extra.append(vertices[vertex])
            block = faces[around[fan == group]]
            block[block == vertex] = copy
            faces[around[fan == group]] = block
    return np.vstack([vertices, extra]) if extra else vertices, faces


def close_holes(piece: trimesh.Trimesh, name: str, holes: Holes, table: float, stands: list[FoundBase],
                close: str = "sound") -> trimesh.Trimesh:
    """`piece` with its boundary loops capped (module docstring), each counted into `holes`: on the table (every
    point within twice `table`, the table top's noise, of z = 0), under a miniature (around one of `stands`, at
    its underside's height), small (`SMALL_HOLE`) or large. `close`: "sound" caps all but the large ones, "all"
    caps every one. Bow ties are split first (`unpinch`), and rims that reach the table set on it
    (`_feet_on_the_table`)."""
    vertices, faces = unpinch(piece.vertices, piece.faces)
    vertices = _feet_on_the_table(vertices, faces, 2 * table)
    piece = trimesh.Trimesh(vertices, faces, process=False)
    loops, stray = boundary_loops(piece.faces)
    holes.stray_edges += stray
    caps = []
    for loop in loops:
        points = piece.vertices[loop]
        rim = float(np.linalg.norm(points - np.roll(points, 1, axis=0), axis=1).sum())
        if np.abs(points[:, 2]).max() <= 2 * table:
            kind = "on_table"
        elif any(_under(points, base) for base in stands):
            kind = "under_miniatures"
        elif rim <= SMALL_HOLE:
            kind = "small"
        else:
            kind = "large"
        if kind == "large" and close != "all":
            holes.open[name] = holes.open.get(name, 0) + 1
            continue
        triangles = _cap(points)
        if triangles is None:
            holes.stray_edges += len(loop)
            continue
        caps.append(loop[triangles])
        if kind == "large":
            holes.large[name] = holes.large.get(name, 0) + 1
        else:
            setattr(holes, kind, getattr(holes, kind) + 1)
    closed = trimesh.Trimesh(piece.vertices, np.vstack([piece.faces, *caps]), process=False) if caps else piece
    if not closed.is_winding_consistent:
        trimesh.repair.fix_winding(closed)  # one orientation throughout: proofs of "hidden" need it (geometry.inner)
    return closed


def _feet_on_the_table(vertices: np.ndarray, faces: np.ndarray, noise: float) -> np.ndarray:
    """`vertices` with those on the surface's rims (edges of one face) within `noise` of the table brought down to
    it (z = 0): there the piece rests on the table, and its lowest millimetre went with the table top."""
    rim = np.unique(_one_face_edges(faces))
    vertices = vertices.copy()
    vertices[rim[np.abs(vertices[rim, 2]) <= noise], 2] = 0.0
    return vertices


def _under(points: np.ndarray, base: FoundBase) -> bool:
    """Whether a loop rims the hole a miniature's base left in what it stood on: around the base (within
    `UNDER_REACH` of its edge) and at its underside's height."""
    reach = np.hypot(points[:, 0] - base.centre[0], points[:, 1] - base.centre[1]).max()
    return bool(reach <= base.diameter / 2 + UNDER_REACH and np.abs(points[:, 2] - base.z).max() <= UNDER_HEIGHT)
