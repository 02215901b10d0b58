"""Generate the example 48" x 48" tables `table-a.yaml` (inches), `table-b.yaml` (mm, the densest) and
`table-c.yaml` (mm, made only of the `real_` pieces: one non-convex body each, thousands of triangles).

Run: `python examples/tables/make_tables.py` (seeded, so the output is the same every time).
Terrain is laid out point-symmetrically: each piece of the blue half is placed at random (seeded) inside its band
of the table, kept an inch clear of every other piece and of the table edge, and copied to the red half turned
180 degrees about the table centre. Troopers stand in their 12" deployment strips, clear of scenery and of each
other (shapely footprints), or on or inside a tagged piece. The scene is then confirmed with lofkit itself:
no errors, no warnings, and every trooper standing at the height it was meant for.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path

import shapely
import yaml
from shapely import affinity

from lofkit import INCH, validate_file
from lofkit.scene.silhouettes import volume_size

HERE = Path(__file__).resolve().parent
MODELS = HERE.parent.parent / "terrain_models"
CATALOG = {entry["name"]: entry for catalog in ("catalog.yaml", "catalog-real.yaml")
           for entry in yaml.safe_load((MODELS / catalog).read_text())}
SIZE = 48 * INCH  # the table is SIZE x SIZE mm
ZONE = 12 * INCH  # depth of each deployment strip


class Flow(dict):
    """A mapping written on one line (`{size: [60, 60, 40]}`)."""


def _flow(dumper: yaml.SafeDumper, data: Flow) -> yaml.Node:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=True)


yaml.SafeDumper.add_representer(Flow, _flow)


@dataclass
class Piece:
    """A terrain piece for the blue half: a shape, the band of y (inches) it may go in, and an optional tag."""

    shape: dict  # {"mesh": name}, {"box": [x, y, z]}, {"cylinder": [d, h]}, {"wall": [len, t, h]}, {"prism": [poly, h]}
    band: tuple[float, float] = (0.0, 0.0)
    tag: str | None = None
    square: bool = False  # turn only by multiples of 90 degrees
    kind: str = "solid"
    name: str | None = None  # id prefix (default: the mesh or shape name)


@dataclass
class Post:
    """A trooper standing on or inside a tagged piece: `offset` in the piece's own frame (mm), `z` "auto" or mm."""

    silhouette: int
    tag: str
    offset: tuple[float, float] = (0.0, 0.0)
    z: float | str = "auto"
    inset: float = 1.0  # how far the base must stay inside the piece's footprint (mm)
    expect: float = 0.0  # the elevation lofkit must find (mm)


@dataclass
class Table:
    """One table being generated; every length is mm inside, written in `units`."""

    units: str
    seed: int
    catalog: dict = field(default_factory=lambda: CATALOG)  # mesh pieces by name (footprint, file, levels)
    meshes: str = "../../terrain_models"  # their folder, as the scene file names it
    script: str = "make_tables.py"  # what the file's header says made it
    rng: random.Random = field(init=False)
    terrain: list = field(default_factory=list)
    footprints: list = field(default_factory=list)  # shapely footprint of every piece
    tagged: dict = field(default_factory=dict)  # (tag, side) -> (footprint, x, y, rotation, id)
    troopers: list = field(default_factory=list)
    bases: list = field(default_factory=list)
    expected_z: dict = field(default_factory=dict)

    def __post_init__(self):
        self.rng = random.Random(self.seed)
        self.unit, self.digits = (INCH, 2) if self.units == "in" else (1.0, 1)

    def out(self, mm: float) -> float:
        """A coordinate in the scene's units, rounded to its grid."""
        return round(mm / self.unit, self.digits) + 0.0

    def snap(self, mm: float) -> float:
        return self.out(mm) * self.unit

    def size(self, mm: float):
        """A size: a string with mm in an inch table, where millimetres are clearer."""
        return f"{mm:g}mm" if self.units == "in" else mm

    # --- terrain ---------------------------------------------------------------------------------------------

    def footprint(self, shape: dict, x: float, y: float, rotation: float) -> shapely.Geometry:
        (name, value), = shape.items()
        if name == "mesh":
            w, d = self.catalog[value]["footprint"]
            local = shapely.box(-w / 2, -d / 2, w / 2, d / 2)
        elif name == "box":
            local = shapely.box(-value[0] / 2, -value[1] / 2, value[0] / 2, value[1] / 2)
        elif name == "cylinder":
            local = shapely.Point(0, 0).buffer(value[0] / 2, 32)
        elif name == "wall":
            local = shapely.LineString([(-value[0] / 2, 0), (value[0] / 2, 0)]).buffer(value[1] / 2, cap_style="flat")
        else:
            local = shapely.Polygon(value[0])
        return affinity.translate(affinity.rotate(local, rotation, origin=(0, 0)), x, y)

    def entry(self, piece_id: str, piece: Piece, x: float, y: float, rotation: float) -> dict:
        """The scene entry of a placed piece."""
        (name, value), = piece.shape.items()
        entry = {"id": piece_id}
        if name == "mesh":
            entry["mesh"] = f"{self.meshes}/{self.catalog[value]['file']}"
        elif name == "box":
            entry["box"] = Flow(size=[self.size(v) for v in value])
        elif name == "cylinder":
            entry["cylinder"] = Flow(diameter=self.size(value[0]), height=self.size(value[1]))
        elif name == "prism":
            polygon = [[self.size(u), self.size(v)] for u, v in value[0]]
            entry["prism"] = Flow(polygon=polygon, height=self.size(value[1]))
        if name == "wall":  # written with its ends in table coordinates
            ends = affinity.rotate(shapely.LineString([(-value[0] / 2, 0), (value[0] / 2, 0)]), rotation, origin=(0, 0))
            ends = [[self.out(x + u), self.out(y + v)] for u, v in ends.coords]
            thickness, height = self.size(value[1]), self.size(value[2])
            entry["wall"] = Flow({"from": ends[0], "to": ends[1], "thickness": thickness, "height": height})
        else:
            entry["position"] = [self.out(x), self.out(y), 0]
            entry["rotation"] = rotation
        if piece.kind != "solid":
            entry["kind"] = piece.kind
        return entry

    def fits(self, shape: shapely.Geometry, gap: float = INCH) -> bool:
        inside = shapely.box(0, 0, SIZE, SIZE).buffer(-INCH / 2)
        return inside.contains(shape) and all(shape.distance(other) >= gap for other in self.footprints)

    def add(self, piece_id: str, piece: Piece, x: float, y: float, rotation: float, side: str) -> None:
        shape = self.footprint(piece.shape, x, y, rotation)
        self.terrain.append(self.entry(piece_id, piece, x, y, rotation))
        self.footprints.append(shape)
        if piece.tag:
            self.tagged[piece.tag, side] = (shape, x, y, rotation, piece_id)

    def lay_out(self, half: list[Piece], centre: list[tuple[Piece, float, float]]) -> None:
        """Place `centre` pieces as given, then each piece of `half` and its point-symmetric twin."""
        for piece, x, y in centre:  # unpaired pieces get number 0
            self.add(f"{_name(piece)}-0", piece, x, y, 0, "centre")
        counts: dict[str, int] = {}
        for piece in half:
            name = _name(piece)
            counts[name] = counts.get(name, 0) + 1
            for _ in range(5000):
                x, y = self.snap(self.rng.uniform(0, SIZE)), self.snap(self.rng.uniform(*piece.band) * INCH)
                rotation = self.rng.randrange(0, 360, 90 if piece.square else 15)
                mine = self.footprint(piece.shape, x, y, rotation)
                twin = self.footprint(piece.shape, SIZE - x, SIZE - y, rotation + 180)
                if self.fits(mine) and self.fits(twin) and mine.distance(twin) >= INCH:
                    break
            else:
                raise RuntimeError(f"no room for {name} in band {piece.band}")
            self.add(f"{name}-{2 * counts[name] - 1}", piece, x, y, rotation, "blue")
            self.add(f"{name}-{2 * counts[name]}", piece, SIZE - x, SIZE - y, (rotation + 180) % 360, "red")

    # --- troopers --------------------------------------------------------------------------------------------

    def free(self, disc: shapely.Geometry) -> bool:
        """Clear of every other base by 5 mm and of every terrain footprint by 2 mm."""
        return all(disc.distance(b) >= 5 for b in self.bases) and all(disc.distance(f) >= 2 for f in self.footprints)

    def trooper(self, side: str, number: int, silhouette: int | None, x: float, y: float, **extra) -> dict:
        radius = base_radius(silhouette)
        self.bases.append(shapely.Point(x, y).buffer(radius, 32))
        entry = {"id": f"{side}-{number}", "side": side}
        entry.update({"silhouette": silhouette} if silhouette else {"marker": True})
        entry["position"] = [self.out(x), self.out(y)]
        entry.update(extra)
        self.troopers.append(entry)
        return entry

    def deploy(self, side: str, ground: list[int], posts: list[Post], markers: int, states: dict[int, list],
               depth: float = ZONE) -> None:
        """Posts first (on tagged pieces), then ground troopers and markers at random in the side's strip (`depth`
        mm from its table edge)."""
        number = 0
        for post in posts:
            shape, px, py, rotation, _ = self.tagged.get((post.tag, side)) or self.tagged[post.tag, "centre"]
            dx, dy = affinity.rotate(shapely.Point(post.offset), rotation, origin=(0, 0)).coords[0]
            x, y = self.snap(px + dx), self.snap(py + dy)
            disc = shapely.Point(x, y).buffer(base_radius(post.silhouette), 32)
            if not shape.buffer(-post.inset).contains(disc) or not all(disc.distance(b) >= 5 for b in self.bases):
                raise RuntimeError(f"{side} S{post.silhouette} does not fit on {post.tag}")
            number += 1
            z = post.z if post.z == "auto" else (self.size(post.z) if post.z else 0)
            self.trooper(side, number, post.silhouette, x, y, z=z)
            self.expected_z[f"{side}-{number}"] = post.expect
        for silhouette in [*ground, *[None] * markers]:
            radius = base_radius(silhouette)
            for _ in range(5000):
                x = self.snap(self.rng.uniform(radius + 5, SIZE - radius - 5))
                y = self.snap(self.rng.uniform(radius + 5, depth - radius - 1))
                y = y if side == "blue" else SIZE - y
                if self.free(shapely.Point(x, y).buffer(radius, 32)):
                    break
            else:
                raise RuntimeError(f"no room for {side} S{silhouette}")
            number += 1
            self.trooper(side, number, silhouette, x, y, **({"state": states[number]} if number in states else {}))
            self.expected_z[f"{side}-{number}"] = 0.0

    def face(self) -> None:
        """Every trooper faces the enemy: alternately a heading at the enemy edge, or its nearest enemy."""
        for k, entry in enumerate(self.troopers):
            if entry.get("marker"):
                continue
            enemies = [t for t in self.troopers if t["side"] != entry["side"] and not t.get("marker")]
            if k % 2:
                nearest = min(enemies, key=lambda t: math.dist(t["position"], entry["position"]))
                entry["facing_towards"] = nearest["id"]
            else:
                entry["facing"] = (90 if entry["side"] == "blue" else 270) + self.rng.randrange(-30, 31, 5)

    def write(self, path: Path) -> None:
        ends = [self.out(0), self.out(ZONE), self.out(SIZE - ZONE), self.out(SIZE)]
        zone = lambda y0, y1: [[ends[0], y0], [ends[3], y0], [ends[3], y1], [ends[0], y1]]
        scene = {
            "lofkit": 1,
            "units": self.units,
            "table": Flow(width="48in", depth="48in"),
            "deployment_zones": [
                Flow(side="blue", polygon=zone(ends[0], ends[1])),
                Flow(side="red", polygon=zone(ends[2], ends[3])),
            ],
            "terrain": self.terrain,
            "troopers": self.troopers,
        }
        header = f"# Generated by {self.script} (seed {self.seed}); edit the script, not this file.\n"
        text = yaml.safe_dump(scene, sort_keys=False, default_flow_style=None, width=120)
        path.write_text(header + text, encoding="utf-8")
        self.confirm(path)

    def confirm(self, path: Path) -> None:
        """lofkit must find the scene valid with no warnings, and every trooper at its intended height."""
        result, world = validate_file(path)
        problems = [f"{p.where}: {p.message}" for p in (*result.errors, *result.warnings)]
        if problems:
            raise RuntimeError(f"{path.name}:\n  " + "\n  ".join(problems))
        for trooper_id, z in self.expected_z.items():
            found = world.troopers.z[world.troopers.index(trooper_id)]
            if abs(found - z) > 0.01:
                raise RuntimeError(f"{path.name}: {trooper_id} stands at z = {found:.3f} mm, not {z:g}")
        print(f"{path.name}: {len(self.terrain)} terrain pieces, {len(self.troopers)} troopers, "
              f"{sum(z > 0 for z in self.expected_z.values())} raised; valid, no warnings")


def base_radius(silhouette: int | None) -> float:
    """Base radius in mm; `None` is a marker."""
    return volume_size(silhouette, None, None, marker=silhouette is None)[0] / 2


def _name(piece: Piece) -> str:
    (name, value), = piece.shape.items()
    return piece.name or (value if name == "mesh" else name)


def mesh(name: str, band=(0.0, 0.0), **kw) -> Piece:
    return Piece({"mesh": name}, band, **kw)


def level(name: str, index: int = -1) -> float:
    return float(CATALOG[name]["levels"][index])


def table_a() -> None:
    """A table in inches: 13 pieces a half and a watchtower in the middle; 10 troopers and a marker a side."""
    t = Table("in", seed=1)
    hexagon = [[40 * math.cos(math.radians(a)), 40 * math.sin(math.radians(a))] for a in range(0, 360, 60)]
    t.lay_out(
        [
            mesh("building_2storey", (14, 20), tag="roof", square=True),
            mesh("container", (4, 10), tag="box"),
            mesh("walkway", (13, 21), tag="deck"),
            mesh("l_wall", (8, 20)),
            mesh("crate_stack", (3, 11)),
            mesh("jersey_barrier", (2, 11)),
            mesh("fence", (13, 22)),
            mesh("pipe_stack", (4, 20)),
            mesh("ruined_wall", (13, 22)),
            Piece({"box": [60, 60, 40]}, (3, 20), name="cargo-block"),
            Piece({"cylinder": [60, 70]}, (8, 22), name="tank"),
            Piece({"wall": [5 * INCH, 10, 30]}, (10, 22), name="low-wall"),
            Piece({"prism": [[[round(u, 1), round(v, 1)] for u, v in hexagon], 50]}, (12, 22), name="hex-bunker"),
        ],
        centre=[(mesh("watchtower", tag="tower"), SIZE / 2, SIZE / 2)],
    )
    for side in ("blue", "red"):
        posts = [
            Post(2, "box", (-40, 0), expect=level("container")),
            Post(5, "roof", (30, 20), expect=level("building_2storey")),
        ]
        if side == "blue":
            posts.append(Post(1, "deck", (60, 0), expect=level("walkway")))
            posts.append(Post(2, "tower", inset=5, expect=level("watchtower")))
        else:
            posts.append(Post(2, "deck", (-60, 0), expect=level("walkway")))
        ground = [3, 4, 6, 7, 8, 2] if side == "blue" else [1, 2, 3, 4, 6, 7, 8]  # every side fields S1..S8
        t.deploy(side, ground, posts, markers=1, states={})
    t.face()
    t.write(HERE / "table-a.yaml")


def table_b() -> None:
    """The densest table, in mm: 21 pieces a half, smoke and a low-visibility zone; 15 troopers a side."""
    t = Table("mm", seed=7)
    t.lay_out(
        [
            mesh("building_2storey", (13, 22), tag="house", square=True),
            mesh("building_2storey", (13, 22), tag="roof", square=True),
            mesh("hab_module", (5, 20), square=True),
            mesh("container", (5, 11), tag="box"),
            mesh("container", (12, 22)),
            mesh("walkway", (13, 22), tag="deck"),
            mesh("watchtower", (12, 22), tag="tower"),
            mesh("l_wall", (12, 22)),
            mesh("l_wall", (4, 20)),
            mesh("crate_stack", (2, 11)),
            mesh("crate_stack", (12, 22)),
            mesh("jersey_barrier", (2, 11)),
            mesh("jersey_barrier", (12, 22)),
            mesh("fence", (12, 22)),
            mesh("pipe_stack", (4, 22)),
            mesh("comms_mast", (12, 22)),
            mesh("ruined_wall", (4, 22)),
            Piece({"box": [80, 50, 35]}, (2, 20), name="cargo-block"),
            Piece({"cylinder": [70, 90]}, (12, 22), name="tank"),
            Piece({"wall": [150, 10, 40]}, (12, 22), name="low-wall"),
            Piece({"prism": [[[0, 0], [90, 0], [90, 30], [30, 70], [0, 70]], 45]}, (12, 22), name="bunker"),
        ],
        centre=[
            (Piece({"box": [180, 120, 100]}, kind="low_visibility", name="dust-cloud"), SIZE / 2, SIZE / 2),
            (Piece({"cylinder": [2.5 * INCH, 500]}, kind="zero_visibility", name="smoke"), 16 * INCH, 27 * INCH),
        ],
    )
    floor = level("building_2storey", 1)
    for side in ("blue", "red"):
        posts = [
            Post(2, "box", (40, 0), expect=level("container")),
            Post(1, "deck", (-70, 0), expect=level("walkway")),
            Post(6, "tower", inset=5, expect=level("watchtower")),
            Post(5, "roof", (-40, 0), expect=level("building_2storey")),
            Post(3, "house", (-45, 20), z=0, inset=5),
            Post(7, "house", (40, -20), z=floor, inset=5, expect=floor),
        ]
        ground = [1, 2, 3, 4, 4, 5, 6, 8, 2]
        states = {15: ["prone"]} if side == "blue" else {8: ["moving"]}
        t.deploy(side, ground, posts, markers=1 if side == "blue" else 2, states=states)
    t.face()
    t.write(HERE / "table-b.yaml")


def table_c() -> None:
    """A table of pieces made the way real kits are exported (terrain_models/make_real_models.py): 8 pieces a
    half, 13 troopers and a marker a side, five of them on a roof, an upper floor, a walkway or inside a ruin."""
    t = Table("mm", seed=11)
    t.lay_out(
        [
            mesh("real_tower_block", (13, 22), tag="roof", square=True),
            mesh("real_ruined_hab", (13, 22), tag="ruin", square=True),
            mesh("real_walkway", (12, 22), tag="deck"),
            mesh("real_roofless_shell", (4, 20), tag="shell", square=True),
            mesh("real_open_facade", (12, 22)),
            mesh("real_crystal_wall", (12, 22)),
            mesh("real_rock_outcrop", (3, 20)),
            mesh("real_barricade", (2, 11)),
        ],
        centre=[],
    )
    for side in ("blue", "red"):
        posts = [
            Post(2, "roof", (0, -24), expect=level("real_tower_block")),
            Post(2, "ruin", (-36, -4), expect=level("real_ruined_hab")),
            Post(3, "ruin", (59, 41), inset=5, expect=level("real_ruined_hab", 1)),
            Post(1, "deck", (80, 0), expect=level("real_walkway")),
            Post(4, "shell", (-35, 5), inset=5, expect=level("real_roofless_shell")),
        ]
        ground = [1, 2, 3, 5, 6, 7, 8, 2]
        states = {13: ["prone"]} if side == "blue" else {9: ["moving"]}
        t.deploy(side, ground, posts, markers=1, states=states)
    t.face()
    t.write(HERE / "table-c.yaml")


if __name__ == "__main__":
    table_a()
    table_b()
    table_c()
