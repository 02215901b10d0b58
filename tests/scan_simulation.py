"""A scanner simulation: a known scene becomes what a phone scan of a game in progress would be.

The scene's terrain (bodies that overlap fused into one surface, as a reconstruction fuses them) and a miniature
for every trooper (a 3 mm base with a figure on it: a body, a head round from above and, for most, a rifle along
the facing) stand on a table top with its edge and legs, in a room with a floor. Every surface is remeshed finely,
and a vertex is kept when a station (a ring around the table and a few overhead, as one walks around with a phone)
sees it: the first surface along the ray is that vertex, facing the station. Faces with at least two corners seen
are the reconstructed surface; its vertices move along their normals by noise of a few tenths of a millimetre; the
surface is decimated, then written in metres, y up, turned and offset, as phone apps write GLB.

Used by tests/test_scan_troopers.py and benchmarks/bench_scan.py; the answers (troopers, verdicts) come from the
scene scanned, never from the importer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trimesh

from lofkit import World, scene_from_data
from lofkit.ray.embree import EmbreeRays
from lofkit.scene.model import Scene
from lofkit.scene.silhouettes import volume_size

BASE_THICKNESS = 3.0
TABLE_HEIGHT = 750.0
Z_UP_TO_Y_UP = trimesh.transformations.rotation_matrix(-math.pi / 2, [1, 0, 0])
"""(x, y, z) -> (x, z, -y): how a glTF file (y up) holds what stands on a z-up table."""


@dataclass(frozen=True)
class Scanner:
    """How the scan is taken and rebuilt: remeshing edge lengths (mm), noise (mm, along normals), decimation."""

    miniature_edge: float = 1.5
    terrain_edge: float = 5.0
    table_edge: float = 25.0
    noise: float = 0.25
    keep: float = 0.5
    """Share of the faces decimation keeps."""
    ring: int = 14
    """Stations on the ring around the table."""


def miniature(centre, diameter: float, z: float, height: float, facing_deg: float | None,
              bevel: float = 0.0) -> trimesh.Trimesh:
    """A base (`BASE_THICKNESS` high, its top `bevel` mm narrower than its foot all round) with a figure whose top
    is `height` above the base's underside: a round body, a head round from above, and a rifle pointing along
    `facing_deg` (None: no rifle, a symmetric figure)."""
    radius = diameter / 2
    base = trimesh.creation.cylinder(radius=radius, height=BASE_THICKNESS, sections=96)
    top = base.vertices[:, 2] > 0
    base.vertices[top, :2] *= (radius - bevel) / radius
    base.apply_translation((0, 0, BASE_THICKNESS / 2))
    parts = [base]
    head = min(0.12 * height, 0.3 * radius)
    body_top = height - 2 * head
    body = trimesh.creation.cylinder(radius=min(0.32 * radius, 9.0), height=body_top - BASE_THICKNESS, sections=40)
    body.apply_translation((0, 0, (body_top + BASE_THICKNESS) / 2))
    sphere = trimesh.creation.icosphere(subdivisions=3, radius=head)
    sphere.apply_translation((0, 0, height - head))
    parts += [body, sphere]
    if facing_deg is not None:
        length = 0.55 * diameter
        rifle = trimesh.creation.box(extents=(length, 2.5, 3.0))
        rifle.apply_translation((length / 2, 0, 0.62 * height))
        rifle.apply_transform(trimesh.transformations.rotation_matrix(math.radians(facing_deg), [0, 0, 1]))
        parts.append(rifle)
    figure = trimesh.util.concatenate(parts)
    figure.apply_translation((centre[0], centre[1], z))
    return figure


def miniatures(world: World, symmetric: set[str] = frozenset(), bevel: float = 0.0) -> list[trimesh.Trimesh]:
    """A miniature for every trooper of `world` (markers included: they are models too), at its base and facing,
    standing (a prone trooper's model stands; its state is a token); the ids in `symmetric` get no rifle; every
    base is `bevel` mm narrower on top."""
    volumes = world.troopers
    standing = [volume_size(t.silhouette, t.base, t.height, marker=t.marker)[1] for t in world.scene.troopers]
    return [miniature(volumes.centre[i], 2 * volumes.radius[i], volumes.z[i], standing[i],
                      None if trooper.id in symmetric else float(volumes.facing[i]), bevel)
            for i, trooper in enumerate(world.scene.troopers)]


def room(width: float, depth: float) -> list[trimesh.Trimesh]:
    """The table top (20 mm thick, its top at z = 0), its four legs and the room's floor 750 mm below."""
    top = trimesh.creation.box(extents=(width, depth, 20.0))
    top.apply_translation((width / 2, depth / 2, -10.0))
    legs = []
    for x in (40.0, width - 40.0):
        for y in (40.0, depth - 40.0):
            leg = trimesh.creation.box(extents=(50.0, 50.0, TABLE_HEIGHT - 20.0))
            leg.apply_translation((x, y, -20.0 - (TABLE_HEIGHT - 20.0) / 2))
            legs.append(leg)
    floor = trimesh.creation.box(extents=(width + 2400.0, depth + 2000.0, 10.0))
    floor.apply_translation((width / 2 + 200.0, depth / 2 - 100.0, -TABLE_HEIGHT - 5.0))
    return [top, *legs, floor]


def stations(width: float, depth: float, ring: int) -> np.ndarray:
    """Where the phone is: a ring around the table at two heights, and five points overhead."""
    centre = np.array([width / 2, depth / 2])
    reach = 0.5 * math.hypot(width, depth) + 450.0
    points = []
    for k in range(ring):
        angle = 2 * math.pi * (k + 0.5) / ring
        for height, scale in ((350.0, 1.0), (700.0, 0.75)):
            points.append([*(centre + scale * reach * np.array([math.cos(angle), math.sin(angle)])), height])
    for dx, dy in ((0, 0), (-0.3, -0.3), (0.3, -0.3), (-0.3, 0.3), (0.3, 0.3)):
        points.append([centre[0] + dx * width, centre[1] + dy * depth, 900.0])
    return np.array(points)


def _fine(mesh: trimesh.Trimesh, edge: float) -> trimesh.Trimesh:
    vertices, faces = trimesh.remesh.subdivide_to_size(mesh.vertices, mesh.faces, max_edge=edge, max_iter=12)
    return trimesh.Trimesh(vertices, faces)


def seen_from(rays: EmbreeRays, points: np.ndarray, eyes: np.ndarray, normals: np.ndarray | None = None,
              slack: float = 0.0) -> np.ndarray:
    """Whether some station of `eyes` sees each point: the first surface along the ray to it is the point itself
    (within 0.05 mm and `slack` of the distance) and, given `normals`, the point's surface faces the station."""
    seen = np.zeros(len(points), dtype=bool)
    for eye in eyes:  # a station at a time, its points in one cast
        unseen = np.flatnonzero(~seen)  # a point seen once is seen
        offset = points[unseen] - eye
        distance = np.linalg.norm(offset, axis=1)
        direction = offset / distance[:, None]
        facing = np.ones(len(unseen), dtype=bool) if normals is None else (
            np.einsum("ij,ij->i", direction, normals[unseen]) < -0.05)
        hit, _ = rays.first_hit(np.broadcast_to(eye, direction[facing].shape), direction[facing])
        seen[unseen[facing]] = hit >= distance[facing] * (1 - slack) - 0.05
    return seen


def held_miniatures(world: World, scanner: Scanner = Scanner(), share: float = 0.6) -> frozenset[str]:
    """The ids of the troopers whose base the scan holds: around at least `share` of its rim, some station sees the
    top of the base (0.5 mm in from its edge) and some station the surface it stands on (1.5 mm out), past every
    model, piece of terrain and the table: the drop from one to the other is how a base shows in a scan. A base no
    station sees so (one under a roof, inside a building) is in no scan, and no import can find it."""
    volumes = world.troopers
    occluders = [*miniatures(world), *(p.mesh for p in world.pieces if p.solid), *room(world.scene.table.width,
                                                                                         world.scene.table.depth)]
    rays = EmbreeRays([trimesh.util.concatenate(occluders)])
    angles = np.linspace(0.0, 2 * np.pi, 72, endpoint=False)
    ring = np.column_stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)])
    tops = np.column_stack([volumes.centre, volumes.z + BASE_THICKNESS])
    feet = np.column_stack([volumes.centre, volumes.z + 0.01])
    points = np.concatenate([(tops[:, None] + (volumes.radius - 0.5)[:, None, None] * ring).reshape(-1, 3),
                             (feet[:, None] + (volumes.radius + 1.5)[:, None, None] * ring).reshape(-1, 3)])
    seen = seen_from(rays, points, stations(world.scene.table.width, world.scene.table.depth, scanner.ring))
    top, foot = seen.reshape(2, len(tops), len(angles))
    held = (top & foot).mean(axis=1) >= share
    return frozenset(trooper_id for trooper_id, yes in zip(volumes.ids, held) if yes)


def fused_terrain(world: World) -> list[trimesh.Trimesh]:
    """The solid terrain as a reconstruction sees it: bodies that overlap or touch are one surface (a phone's
    reconstruction fuses what it sees into one mesh; an L-shaped wall of two boxes has no seam), their union by
    manifold3d; a body that is not a closed volume stays as it is."""
    bodies = [body for piece in world.pieces if piece.solid for body in piece.mesh.split(only_watertight=False)]
    volumes = [body for body in bodies if body.is_volume]
    fused = [trimesh.boolean.union(volumes, engine="manifold")] if volumes else []
    return fused + [body for body in bodies if not body.is_volume]


def scan_scene(world: World, scanner: Scanner = Scanner(), seed: int = 0, symmetric: set[str] = frozenset(),
               bevel: float = 0.0) -> trimesh.Trimesh:
    """The reconstructed surface (table mm, z up) of `world` with its miniatures (bases `bevel` mm narrower on top),
    table, legs and floor. Its visibility zones (smoke, dust) are rules the players lay on the table, not models: the
    scan holds none of them (`true_troopers_on` puts them back)."""
    rng = np.random.default_rng(seed)
    width, depth = world.scene.table.width, world.scene.table.depth
    parts = ([_fine(m, scanner.miniature_edge) for m in miniatures(world, symmetric, bevel)]
             + [_fine(m, scanner.terrain_edge) for m in fused_terrain(world)]
             + [_fine(m, scanner.table_edge) for m in room(width, depth)])
    whole = trimesh.util.concatenate(parts)
    whole.merge_vertices()
    seen = seen_from(EmbreeRays([whole]), whole.vertices, stations(width, depth, scanner.ring), whole.vertex_normals,
                     slack=0.001)  # a vertex is kept where a station sees it, 0.05 mm + 0.1% of the way
    whole.update_faces(seen[whole.faces].sum(axis=1) >= 2)
    whole.remove_unreferenced_vertices()
    noisy = whole.vertices + whole.vertex_normals * rng.normal(0.0, scanner.noise, (len(whole.vertices), 1))
    surface = trimesh.Trimesh(noisy, whole.faces, process=False)
    if scanner.keep < 1.0:
        surface = surface.simplify_quadric_decimation(face_count=int(len(surface.faces) * scanner.keep))
    return surface


def as_phone_file(surface: trimesh.Trimesh, path: Path, yaw_deg: float = 23.0, metres: float = 0.001,
                  offset=(0.8, -0.3, 1.1)) -> Path:
    """`surface` (table mm, z up) written as a phone app writes it: in metres (`metres` per mm), y up, turned by
    `yaw_deg` about the vertical and offset (metres)."""
    placed = surface.copy()
    turn = trimesh.transformations.rotation_matrix(math.radians(yaw_deg), [0, 0, 1])
    placed.apply_transform(trimesh.transformations.translation_matrix(offset) @ Z_UP_TO_Y_UP
                           @ np.diag([metres, metres, metres, 1.0]) @ turn)
    placed.export(str(path))
    return path


def scene_of(path: Path | str) -> tuple[Scene, World]:
    """The scene file at `path` and its World (the source table a scan is made of)."""
    from lofkit import load_scene

    scene = load_scene(path)
    return scene, World.from_scene(scene)


@dataclass(frozen=True)
class Comparison:
    """An imported scan against the scene scanned: which troopers were proposed where, and how many verdicts
    agree with the true troopers standing on the imported terrain."""

    turn: int
    """Quarter turns between the two tables (a square table's scan does not say which edge is which)."""
    matched: dict[str, str]
    """True trooper id -> proposal id, for proposals within `NEAR` mm and `NEAR` mm of height, of the right base."""
    offsets: dict[str, float]
    missed: tuple[str, ...]
    """True troopers the scan holds (`held_miniatures`) and no proposal matches."""
    invented: tuple[str, ...]
    wrong_size: tuple[str, ...]
    unseen: tuple[str, ...] = ()
    """True troopers no proposal matches whose base is in no scan (no station saw it)."""
    pairs: int = 0
    """Pairs whose verdicts were compared (none when `compare` was asked for the proposals only)."""
    agreeing: int = 0

    @property
    def agreement(self) -> float:
        return self.agreeing / self.pairs if self.pairs else 1.0


NEAR = 5.0


def _turned(points: np.ndarray, turn: int, width: float, depth: float) -> np.ndarray:
    """`points` (n, 2) turned by `turn` quarter turns about the table's centre."""
    centre = np.array([width / 2, depth / 2])
    angle = turn * math.pi / 2
    rotation = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    return (points - centre) @ rotation.T + centre


def _matches(truth: np.ndarray, truth_z: np.ndarray, found: np.ndarray, found_z: np.ndarray) -> dict[int, int]:
    """True index -> found index, nearest first, each used once, within `NEAR` in plan and in height."""
    if len(found) == 0:
        return {}
    apart = np.linalg.norm(truth[:, None] - found[None], axis=2)
    apart[np.abs(truth_z[:, None] - found_z[None]) > NEAR] = np.inf
    pairs: dict[int, int] = {}
    for flat in np.argsort(apart, axis=None):
        i, j = np.unravel_index(flat, apart.shape)
        if apart[i, j] > NEAR:
            break
        if i not in pairs and j not in pairs.values():
            pairs[int(i)] = int(j)
    return pairs


def true_troopers_on(source: World, imported_path: Path, turn: int) -> World:
    """The imported table with `source`'s troopers (not the proposals) standing where they stood, turned by `turn`
    quarter turns as the import turned the table."""
    from lofkit import load_scene

    imported = load_scene(imported_path)
    volumes = source.troopers
    truth = _turned(volumes.centre, turn, imported.table.width, imported.table.depth)
    data = imported.model_dump(mode="json", exclude_none=True)
    for piece in data.get("terrain", []):
        piece["mesh"] = str(imported.resolve(piece["mesh"]))
    troopers = []
    for i, trooper in enumerate(source.scene.troopers):
        entry = trooper.model_dump(mode="json", exclude_none=True, exclude={"facing_towards"})
        entry.update(position=[float(v) for v in truth[i]], z=float(volumes.z[i]),
                     facing=float((volumes.facing[i] + 90 * turn) % 360))
        troopers.append(entry)
    data["troopers"] = troopers
    data.setdefault("terrain", []).extend(_zones(source, imported_path.parent / "zones", turn))
    return World.from_scene(scene_from_data(data, source=imported_path))


def _zones(source: World, folder: Path, turn: int) -> list[dict]:
    """`source`'s visibility zones (not in a scan: `scan_scene`) as terrain entries of the imported table, turned by
    `turn` quarter turns as the import turned the table, their meshes written to `folder`."""
    centre = np.array([source.scene.table.width / 2, source.scene.table.depth / 2, 0.0])
    turning = trimesh.transformations.rotation_matrix(turn * math.pi / 2, [0, 0, 1], centre)
    entries = []
    for piece in source.pieces:
        if piece.solid:
            continue
        folder.mkdir(exist_ok=True)
        path = folder / f"{piece.id}.ply"
        piece.mesh.copy().apply_transform(turning).export(path)
        entries.append({"id": piece.id, "mesh": str(path), "kind": piece.kind, "blocks_lof": piece.blocks_lof})
    return entries


def compare(source: World, imported_path: Path, verdicts: bool = True, held: frozenset[str] | None = None
            ) -> Comparison:
    """The scene imported at `imported_path` against `source`, the scene its scan was made of: its proposals, and
    (when `verdicts`) the LoF verdicts of every pair of the true troopers standing on the imported terrain. A trooper
    not proposed is `missed` when its base is in `held` (`held_miniatures`; all of them when None), else `unseen`."""
    from lofkit import load_scene, matrix

    imported = load_scene(imported_path)
    width, depth = imported.table.width, imported.table.depth
    volumes = source.troopers
    proposals = [t for t in imported.troopers if t.proposed]
    placed = World.from_scene(imported).troopers  # `z: auto` resolved
    found = np.array([t.position for t in proposals]).reshape(-1, 2)
    found_z = np.array([placed.z[placed.index(t.id)] for t in proposals], dtype=float)
    turn = max(range(4), key=lambda k: len(_matches(_turned(volumes.centre, k, width, depth), volumes.z, found,
                                                      found_z)))
    truth = _turned(volumes.centre, turn, width, depth)
    pairs = _matches(truth, volumes.z, found, found_z)
    ids = volumes.ids
    wrong = tuple(ids[i] for i, j in pairs.items() if abs(proposals[j].size[0] - 2 * volumes.radius[i]) > 0.5)
    compared, agreeing = 0, 0
    if verdicts:
        truth_verdicts = matrix(source, evidence=False).verdicts
        scan_verdicts = matrix(true_troopers_on(source, imported_path, turn), evidence=False).verdicts
        compared, agreeing = len(truth_verdicts), sum(a.lof == b.lof for a, b in zip(truth_verdicts, scan_verdicts))
    not_found = [ids[i] for i in range(len(ids)) if i not in pairs]
    in_scan = set(ids) if held is None else held
    return Comparison(turn, {ids[i]: proposals[j].id for i, j in pairs.items()},
                      {ids[i]: float(np.linalg.norm(truth[i] - found[j])) for i, j in pairs.items()},
                      tuple(t for t in not_found if t in in_scan),
                      tuple(proposals[j].id for j in range(len(proposals)) if j not in pairs.values()),
                      wrong, tuple(t for t in not_found if t not in in_scan), compared, agreeing)


MODELS = Path(__file__).resolve().parent.parent / "terrain_models"


def game_scene(path: Path) -> Path:
    """A 32" x 24" game in progress written to `path`: a building with a trooper on its roof and a flat token
    beside it, a ruin with windows (a kit's mesh), a wall, a barrel and a crate (round and square tops that are
    not bases), and troopers on every standard base and a 32 mm one, two in base contact, one prone, one whose
    figure is symmetric (`GAME_SYMMETRIC`)."""
    import yaml

    scene = {
        "lofkit": 1, "units": "mm", "table": {"width": "32in", "depth": "24in"},
        "terrain": [
            {"id": "building", "box": {"size": [200, 150, 100]}, "position": [230, 330, 0]},
            {"id": "token", "cylinder": {"diameter": 25, "height": 2}, "position": [180, 300, 100]},
            {"id": "ruin", "mesh": str(MODELS / "real_ruined_hab.stl"), "position": [560, 420, 0], "rotation": 30},
            {"id": "wall", "wall": {"from": [420, 150], "to": [620, 170], "thickness": 8, "height": 60}},
            {"id": "barrel", "cylinder": {"diameter": 30, "height": 35}, "position": [700, 250, 0]},
            {"id": "crate", "box": {"size": [30, 30, 30]}, "position": [380, 520, 0], "rotation": 20},
        ],
        "troopers": [
            {"id": "roof", "side": "blue", "silhouette": 2, "position": [260, 350], "z": "auto", "facing": 10},
            {"id": "s2", "side": "blue", "silhouette": 2, "position": [90, 80], "facing": 45},
            {"id": "s3", "side": "blue", "silhouette": 3, "position": [330, 90], "facing": 80},
            {"id": "s5", "side": "blue", "silhouette": 5, "position": [720, 90], "facing": 120},
            {"id": "s4", "side": "red", "silhouette": 4, "position": [110, 540], "facing": 300},
            {"id": "s8", "side": "red", "silhouette": 8, "position": [700, 530], "facing": 250},
            {"id": "odd", "side": "red", "base": 32, "height": 35, "position": [520, 250], "facing": 200},
            {"id": "pair-a", "side": "red", "silhouette": 2, "position": [280, 560], "facing": 270},
            {"id": "pair-b", "side": "red", "silhouette": 2, "position": [305, 560], "facing": 270},
            {"id": "prone", "side": "blue", "silhouette": 2, "position": [60, 300], "facing": 0, "state": ["prone"]},
            {"id": "round", "side": "blue", "silhouette": 2, "position": [420, 60], "facing": 90},
        ],
    }
    path.write_text(yaml.safe_dump(scene, sort_keys=False))
    return path


GAME_SYMMETRIC = frozenset({"round"})
