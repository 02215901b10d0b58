"""Build lofkit's original terrain pieces as binary STL files, plus `catalog.yaml`.

Run: `python terrain_models/make_models.py` (deterministic, idempotent; writes next to this script).
Every piece is a union of simple closed shells (boxes, cylinders, extrusions) placed side by side without
overlaps; openings (doors, windows, fence gaps) are gaps between shells, so no boolean library is needed.
Units are millimetres, z up, the origin at the centre of the footprint's bounding box with the bottom at z = 0,
so a scene places a piece with `mesh: ../../terrain_models/NAME.stl`, `position: [x, y, 0]`, `rotation: deg`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import shapely
import trimesh
import yaml

HERE = Path(__file__).resolve().parent
WALL = 4.0  # building wall thickness
SECTIONS = 24  # facets of round parts


def box(x0, y0, z0, x1, y1, z1) -> trimesh.Trimesh:
    """An axis-aligned box between two corners."""
    return trimesh.creation.box(bounds=[[x0, y0, z0], [x1, y1, z1]])


def rod(p0, p1, diameter, sections=SECTIONS) -> trimesh.Trimesh:
    """A cylinder of `diameter` from point p0 to point p1."""
    return trimesh.creation.cylinder(radius=diameter / 2, segment=[p0, p1], sections=sections)


def prism_along_x(profile, length) -> trimesh.Trimesh:
    """Extrude a (y, z) cross-section along x, centred on x = 0."""
    mesh = trimesh.creation.extrude_polygon(shapely.Polygon(profile), length)
    mesh.vertices = mesh.vertices[:, [2, 0, 1]] - [length / 2, 0, 0]  # (a, b, c) -> (c, a, b): a rotation
    return mesh


def pierced_wall(length, height, openings, place) -> list[trimesh.Trimesh]:
    """A straight wall as boxes, leaving `openings` [(u0, u1, z0, z1), ...] empty.

    The wall runs along u in [0, length]; `place(u0, u1, z0, z1)` turns a solid block into a box in the piece's frame.
    """
    cuts = sorted({0.0, float(length), *(u for o in openings for u in o[:2])})
    parts = []
    for u0, u1 in zip(cuts, cuts[1:]):
        holes = sorted((o[2], o[3]) for o in openings if o[0] <= u0 and u1 <= o[1])
        z = 0.0
        for z0, z1 in [*holes, (height, height)]:
            if z0 > z:
                parts.append(place(u0, u1, z, z0))
            z = max(z, z1)
    return parts


def hollow_building(width, depth, storeys, storey_height, openings) -> list[trimesh.Trimesh]:
    """Four pierced walls, a floor slab at each upper storey and a roof slab; the interior stays empty.

    `openings` maps "front" (y = 0), "back" (y = depth), "left" (x = 0) and "right" (x = width) to that wall's
    openings; u runs along x on the front and back walls, and along y from the front wall's inner face on the sides.
    """
    height = storeys * storey_height
    side = depth - 2 * WALL  # side walls fit between the front and back walls
    far_x, far_y = width - WALL, depth - WALL

    def along_x(y0, y1):
        return lambda u0, u1, z0, z1: box(u0, y0, z0, u1, y1, z1)

    def along_y(x0, x1):
        return lambda u0, u1, z0, z1: box(x0, WALL + u0, z0, x1, WALL + u1, z1)

    parts = pierced_wall(width, height, openings["front"], along_x(0, WALL))
    parts += pierced_wall(width, height, openings["back"], along_x(far_y, depth))
    parts += pierced_wall(side, height, openings["left"], along_y(0, WALL))
    parts += pierced_wall(side, height, openings["right"], along_y(far_x, width))
    for level in range(1, storeys):
        top = level * storey_height + WALL / 2
        parts.append(box(WALL, WALL, top - WALL, far_x, far_y, top))
    parts.append(box(0, 0, height, width, depth, height + WALL))
    return parts


def window(u, sill, w=25.0, h=20.0):
    return (u - w / 2, u + w / 2, sill, sill + h)


def container():
    return [box(0, 0, 0, 150, 60, 65)]


def building_2storey():
    ground, upper = 35.0, 110.0
    return hollow_building(200, 150, 2, 75, {
        "front": [(85, 115, 0, 50), window(40, ground), window(160, ground), window(40, upper), window(160, upper)],
        "back": [window(40, ground), window(160, ground), window(40, upper), window(100, upper), window(160, upper)],
        "left": [window(71, ground), window(71, upper)],
        "right": [window(71, ground), window(71, upper)],
    })


def hab_module():
    sill = 25.0
    return hollow_building(120, 90, 1, 60, {
        "front": [(20, 48, 0, 48), window(88, sill)],
        "back": [window(35, sill), window(85, sill)],
        "left": [window(41, sill)],
        "right": [window(41, sill)],
    })


def l_wall():
    return [box(0, 0, 0, 150, 8, 45), box(0, 8, 0, 8, 100, 45)]


def walkway():
    deck = [box(0, 0, 80, 250, 50, 85)]
    return deck + [box(x, y, 0, x + 5, y + 5, 80) for x in (10, 122.5, 235) for y in (5, 40)]


def crate_stack():
    return [
        box(0, 0, 0, 60, 40, 30),
        box(60, 0, 0, 100, 40, 25),
        box(8, 4, 30, 53, 36, 55),
        box(15, 8, 55, 40, 33, 75),
    ]


def jersey_barrier():
    profile = [(-10, 0), (10, 0), (10, 4), (5, 12), (4, 25), (-4, 25), (-5, 12), (-10, 4)]
    return [prism_along_x(profile, 120)]


def watchtower(size=80.0, floor=120.0, slab=5.0, parapet=15.0, rail=3.0):
    legs = [box(x, y, 0, x + 6, y + 6, floor) for x in (4, size - 10) for y in (4, size - 10)]
    top = floor + slab
    walls = [
        box(0, 0, top, size, rail, top + parapet),
        box(0, size - rail, top, size, size, top + parapet),
        box(0, rail, top, rail, size - rail, top + parapet),
        box(size - rail, rail, top, size, size - rail, top + parapet),
    ]
    return legs + [box(0, 0, floor, size, size, top)] + walls


def fence(length=160.0, spacing=40.0, post=4.0, height=35.0):
    xs = np.arange(0, length + 1e-9, spacing)
    posts = [box(x, 0, 0, x + post, post, height) for x in xs]
    rails = [box(x + post, 1, z, x + spacing, post - 1, z + 3) for x in xs[:-1] for z in (10, 25)]
    return posts + rails


def pipe_stack(diameter=30.0, length=120.0, sleeper=6.0):
    r = diameter / 2
    axes = [(-r, sleeper + r), (r, sleeper + r), (0, sleeper + r + diameter * np.sqrt(3) / 2)]
    pipes = [rod((0, y, z), (length, y, z), diameter) for y, z in axes]
    sleepers = [box(x, -diameter, 0, x + 8, diameter, sleeper) for x in (10, length - 18)]
    return pipes + sleepers


def comms_mast():
    return [
        box(0, 0, 0, 40, 40, 10),
        rod((20, 20, 10), (20, 20, 130), 10),
        box(10, 17, 130, 30, 23, 145),
        rod((20, 20, 145), (20, 20, 175), 3),
    ]


def ruined_wall():
    segments = [box(x0, 0, 0, x1, 10, z) for x0, x1, z in ((0, 40, 50), (40, 70, 32), (70, 85, 18), (115, 140, 40))]
    turns = (((14, 10, 8), 20), ((10, 8, 6), -35), ((12, 12, 7), 50))
    spin = trimesh.transformations.rotation_matrix
    rubble = [trimesh.creation.box(extents=size, transform=spin(np.radians(turn), [0, 0, 1])) for size, turn in turns]
    for mesh, (x, y) in zip(rubble, ((95, 5), (106, 20), (78, 22))):
        mesh.apply_translation((x, y, mesh.extents[2] / 2))
    return segments + rubble


PIECES = {  # name: (builder, levels: heights (mm) of floors and tops that fit a 25 mm base, notes)
    "container": (container, [65], "closed shipping container with a flat top"),
    "building_2storey": (building_2storey, [0, 77, 154], "hollow, two storeys; door 30x50 mm in the front; "
                         "25x20 mm windows with sills at 35 and 110 mm on all four walls"),
    "hab_module": (hab_module, [0, 64], "hollow one-storey hab; door 28x48 mm; "
                   "25x20 mm windows with sills at 25 mm on all four walls"),
    "l_wall": (l_wall, [], "L-shaped wall, legs 150 and 100 mm long, 8 mm thick, 45 mm high"),
    "walkway": (walkway, [85], "deck 250x50x5 mm on six 5 mm legs, open space beneath"),
    "crate_stack": (crate_stack, [25, 75], "four crates of different sizes in three tiers"),
    "jersey_barrier": (jersey_barrier, [], "concrete barrier, jersey profile 20 mm wide at the base, 8 mm at the top"),
    "watchtower": (watchtower, [125], "80x80 mm platform on four legs, 15 mm parapet; 74 mm of clear floor inside"),
    "fence": (fence, [], "posts every 40 mm with two thin rails; open gaps at 0-10, 13-25 and 28-35 mm"),
    "pipe_stack": (pipe_stack, [], "three 30 mm pipes stacked on two sleepers"),
    "comms_mast": (comms_mast, [], "10 mm mast on a 40 mm plinth with an equipment box at 130 mm"),
    "ruined_wall": (ruined_wall, [], "broken wall, 18 to 50 mm high, with a 30 mm breach and rubble"),
}


def centred(mesh: trimesh.Trimesh) -> trimesh.Trimesh:
    """`mesh` moved so that its footprint's centre is at the origin and its bottom at z = 0."""
    (x0, y0, z0), (x1, y1, _) = mesh.bounds
    mesh.apply_translation((-(x0 + x1) / 2, -(y0 + y1) / 2, -z0))
    return mesh


def build(parts: list[trimesh.Trimesh]) -> trimesh.Trimesh:
    """Join the shells and centre them (`centred`)."""
    return centred(trimesh.util.concatenate(parts))


def write_catalog(entries: list[dict], name: str, header: str) -> None:
    """Write the catalog `name` beside this script: a comment line, then one YAML mapping per piece."""
    text = yaml.safe_dump(entries, sort_keys=False, default_flow_style=None, width=120)
    (HERE / name).write_text(header + text, encoding="utf-8")


def main() -> None:
    catalog = []
    for name, (make, levels, notes) in PIECES.items():
        mesh = build(make())
        assert len(mesh.faces) < 5000, name
        path = HERE / f"{name}.stl"
        path.write_bytes(trimesh.exchange.stl.export_stl(mesh))
        width, depth, height = (round(float(v), 3) for v in mesh.extents)
        catalog.append({"name": name, "file": path.name, "footprint": [width, depth], "height": height,
                        "levels": levels, "triangles": len(mesh.faces), "notes": notes})
        print(f"{name:18s} {width:7.1f} x {depth:6.1f} x {height:6.1f} mm  {len(mesh.faces):5d} triangles")
    write_catalog(catalog, "catalog.yaml",
                  "# Generated by make_models.py: sizes in mm (footprint = [x, y] extents before rotation).\n")


if __name__ == "__main__":
    main()
