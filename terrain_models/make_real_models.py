"""Build terrain pieces the way real kits are exported, as binary STL files `real_*.stl`, plus `catalog-real.yaml`.

Run: `python terrain_models/make_real_models.py` (seeded, deterministic, idempotent; writes next to this script).
Needs manifold3d for the boolean operations (in lofkit's `dev` extra, which `make` installs); the STL files are
committed, so users of lofkit never need it.

Unlike make_models.py, whose pieces are sets of separate convex shells, every piece here is ONE connected,
non-convex body, as CAD and kit exports are: its parts fused with a boolean union, doors and windows cut with a
boolean difference, with stairs, railings, rubble, jagged ruined tops, thin walls (2-3 mm) and thousands of small
triangles (subdivided faces, frames, pipes, sandbags). Three pieces are not watertight: a roofless shell whose wall
tops were left out, an open-backed facade and a rock outcrop with a few faces missing. These are the engine's hard
case: no piece has a convex component, so proofs of "hidden" use boxes inside their solids (lofkit/geometry/inner.py).
Units are millimetres, z up, the origin at the centre of the footprint's bounding box with the bottom at z = 0.
`catalog-real.yaml` is separate from `catalog.yaml` so that each generator owns exactly one catalog file and
neither has to merge with or preserve the other's entries.
"""

from __future__ import annotations

from pathlib import Path

import make_models
import numpy as np
import shapely
import trimesh
from make_models import box, centred, prism_along_x, write_catalog

HERE = Path(__file__).resolve().parent
SEED = 2024
ENGINE = "manifold"
THIN = 2.5  # wall thickness of the buildings
FINE = 12  # facets of rods, pipes and rails


def rod(p0, p1, diameter, sections=FINE) -> trimesh.Trimesh:
    """`make_models.rod`, with fewer facets by default."""
    return make_models.rod(p0, p1, diameter, sections)


def union(parts) -> trimesh.Trimesh:
    return trimesh.boolean.union(parts, engine=ENGINE)


def cut(body, holes) -> trimesh.Trimesh:
    return trimesh.boolean.difference([body, *holes], engine=ENGINE)


def prism_xz(profile, y0, y1) -> trimesh.Trimesh:
    """Extrude an (x, z) polygon across y from y0 to y1."""
    mesh = trimesh.creation.extrude_polygon(shapely.Polygon(profile), y1 - y0)
    mesh.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 2, [1, 0, 0]))  # (a, b, c) -> (a, -c, b)
    mesh.apply_translation((0, y1, 0))
    return mesh


def turned(mesh, degrees, axis=(0, 0, 1)) -> trimesh.Trimesh:
    mesh.apply_transform(trimesh.transformations.rotation_matrix(np.radians(degrees), axis))
    return mesh


def stairs(x0, y0, width, step_run, step_rise, steps, along="x") -> list[trimesh.Trimesh]:
    """Solid steps from the ground, climbing along +x (or +y) from (x0, y0)."""
    out = []
    for k in range(steps):
        top = (k + 1) * step_rise
        if along == "x":
            out.append(box(x0 + k * step_run, y0, 0, x0 + (k + 1) * step_run + 0.5, y0 + width, top))
        else:
            out.append(box(x0, y0 + k * step_run, 0, x0 + width, y0 + (k + 1) * step_run + 0.5, top))
    return out


def railing(p0, p1, z0, height, spacing=20.0, post=2.0) -> list[trimesh.Trimesh]:
    """Posts every `spacing` mm from p0 to p1 standing on z0 (sunk 0.5 mm into it), a top rail and a mid rail."""
    p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
    count = max(1, int(np.ceil(np.linalg.norm(p1 - p0) / spacing)))
    parts = [rod((*p, z0 - 0.5), (*p, z0 + height), post) for p in np.linspace(p0, p1, count + 1)]
    for z in (z0 + height - post / 2, z0 + height / 2):
        parts.append(rod((*p0, z), (*p1, z), post * 0.8))
    return parts


def framed_window(x, z, w, h, y_face, outward) -> tuple[trimesh.Trimesh, list[trimesh.Trimesh]]:
    """The hole (a box through the wall) and its frame and sill, standing `outward` (+1 or -1 in y) off the face
    y = y_face of a wall along x; the frame overlaps the wall by 0.5 mm so that it fuses with it."""
    hole = box(x - w / 2, y_face - 20, z, x + w / 2, y_face + 20, z + h)
    y0, y1 = sorted((y_face - outward * 0.5, y_face + outward * 1.2))
    f = 1.5
    frame = [
        box(x - w / 2 - f, y0, z - f, x + w / 2 + f, y1, z),
        box(x - w / 2 - f, y0, z + h, x + w / 2 + f, y1, z + h + f),
        box(x - w / 2 - f, y0, z, x - w / 2, y1, z + h),
        box(x + w / 2, y0, z, x + w / 2 + f, y1, z + h),
    ]
    ys0, ys1 = sorted((y_face - outward * 0.5, y_face + outward * 3.5))
    frame.append(box(x - w / 2 - 3, ys0, z - f - 2, x + w / 2 + 3, ys1, z - f))  # the sill
    return hole, frame


def on_y_walls(depth, x, z, w, h, sides=(0, 1)) -> tuple[list, list]:
    """A framed window at x on the front (0) and/or back (1) wall of a building `depth` deep."""
    holes, frames = [], []
    for side in sides:
        hole, frame = framed_window(x, z, w, h, 0.0 if side == 0 else depth, -1 if side == 0 else 1)
        holes.append(hole)
        frames += frame
    return holes, frames


def swap_xy(meshes, width) -> list[trimesh.Trimesh]:
    """Turn meshes made for the front/back walls of a building `width` deep onto its left/right walls."""
    out = []
    for mesh in meshes:
        m = mesh.copy()
        turned(m, 90)  # (x, y) -> (-y, x)
        m.apply_translation((width, 0, 0))
        out.append(m)
    return out


def shell(width, depth, height, wall=THIN, floor=2.0) -> trimesh.Trimesh:
    """A box building without a roof: four thin walls on a floor slab."""
    return cut(box(0, 0, 0, width, depth, height), [box(wall, wall, floor, width - wall, depth - wall, height + 5)])


def lump(rng, radius, stretch, subdivisions=3, roughness=0.25) -> trimesh.Trimesh:
    """A rock: an icosphere scaled radially by smooth random noise (so it stays star-shaped, never self-crossing)."""
    sphere = trimesh.creation.icosphere(subdivisions=subdivisions, radius=1.0)
    v = sphere.vertices
    noise = np.zeros(len(v))
    for _ in range(6):
        k = rng.normal(size=3) * rng.uniform(1.5, 4.0)
        noise += np.sin(v @ k + rng.uniform(0, 2 * np.pi)) / 6
    sphere.vertices = v * (1 + roughness * noise)[:, None] * radius * np.asarray(stretch)
    return sphere


def subdivided(mesh, times) -> trimesh.Trimesh:
    for _ in range(times):
        mesh = mesh.subdivide()
    return mesh


def ground_cut(mesh) -> trimesh.Trimesh:
    """Cut off whatever is below z = 0 (rocks sunk into the ground)."""
    return cut(mesh, [box(-1000, -1000, -1000, 1000, 1000, 0)])


def drop_faces(mesh, keep) -> trimesh.Trimesh:
    """The mesh without the faces where `keep` is false (leaving it open)."""
    out = mesh.copy()
    out.update_faces(keep)
    out.remove_unreferenced_vertices()
    return out


# --- the pieces ----------------------------------------------------------------------------------------------------


def ruined_hab(rng):
    """A two-storey building in ruins: 3 mm walls with a jagged top, a broken upper floor, stairs and rubble."""
    width, depth, height, wall = 180.0, 140.0, 130.0, 3.0
    body = shell(width, depth, height, wall)
    floor = box(wall - 0.5, wall - 0.5, 70, width * 0.6, depth - wall + 0.5, 73)  # the surviving half of floor 1
    holes = [box(70, -5, 2, 100, 10, 55)]  # the door
    frames = []
    for x in (30, 140):
        h, f = on_y_walls(depth, x, 28, 24, 22)
        holes += h
        frames += f
    for x in (30, 90, 150):
        h, f = on_y_walls(depth, x, 90, 22, 24, sides=(1,))
        holes += h
        frames += f
    for y in (45, 95):  # windows on the side walls
        holes.append(box(-5, y - 11, 30, width + 5, y + 11, 52))
    body = cut(union([body, floor, *frames]), holes)
    # the jagged top: a sawtooth cutter along each pair of walls
    for across in (False, True):
        span = depth if across else width
        xs = np.linspace(-5, span + 5, 23)
        zs = height - rng.uniform(0, 55, len(xs)) * np.r_[0.3, np.ones(len(xs) - 2), 0.3]
        profile = [(xs[0], 400), *zip(xs, zs), (xs[-1], 400)]
        cutter = prism_xz(profile, -10, (width if across else depth) + 10)
        if across:
            cutter = turned(cutter, 90)
            cutter.apply_translation((width, 0, 0))
            cutter = turned(cutter, 180)
            cutter.apply_translation((width, depth, 0))
        body = cut(body, [cutter])
    # a breach torn out of one corner, stairs inside, rubble in front and inside
    breach = turned(box(-30, -30, -30, 30, 30, 30), 35, (1, 1, 0.3))
    breach.apply_translation((width - 5, depth - 5, height - 10))
    body = cut(body, [breach])
    extra = stairs(wall + 2, depth - wall - 32, 30, 8, 8, 8, along="x")  # up to the floor at 70
    extra.append(box(wall + 2, depth - wall - 32, 0, wall + 2 + 64, depth - wall - 2, 69.5))
    for _ in range(26):
        size = rng.uniform(4, 14, 3)
        rock = trimesh.creation.box(extents=size)
        rock.apply_transform(trimesh.transformations.random_rotation_matrix(rng.random(3)))
        spot = rng.choice([0, 1, 2])
        x, y = [(rng.uniform(60, 120), rng.uniform(-12, 4)), (rng.uniform(120, 170), rng.uniform(10, 60)),
                (rng.uniform(-10, 6), rng.uniform(20, 120))][spot]
        rock.apply_translation((x, y, 1.0 - rock.bounds[0, 2] - rng.uniform(0, 2)))
        extra.append(rock)
    plinth = box(-14, -14, 0, width + 10, depth + 4, 1.5)  # the base the ruin and its rubble are glued to
    body = union([body, plinth, *extra])
    return ground_cut(subdivided(body, 1))


def tower_block(rng):
    """A closed two-storey block: 2.5 mm walls, framed windows, a door, pipes, a roof parapet and vents."""
    width, depth, storey = 170.0, 130.0, 70.0
    height = 2 * storey
    body = cut(box(0, 0, 0, width, depth, height),
               [box(THIN, THIN, 0, width - THIN, depth - THIN, storey - 1.5),
                box(THIN, THIN, storey + 1.5, width - THIN, depth - THIN, height - THIN)])
    holes, frames = [box(75, -5, 0, 103, 10, 50)], []
    for z in (25, 25 + storey):
        for x in (25, 60, 120, 150):
            h, f = on_y_walls(depth, x, z, 18, 24)
            holes += h
            frames += f
        for y in (35, 95):
            h, f = on_y_walls(width, y, z, 18, 24)
            side_holes, side_frames = swap_xy(h, width), swap_xy(f, width)
            holes += side_holes
            frames += side_frames
    parapet = cut(box(0, 0, height - 1, width, depth, height + 10), [box(THIN, THIN, height - 2, width - THIN,
                                                                        depth - THIN, height + 20)])
    pipes = [rod((x, -2, 0), (x, -2, height + 6), 5) for x in (6, 112)]
    pipes += [rod((width + 2, y, 0), (width + 2, y, height + 6), 5) for y in (10, 120)]
    pipes += [rod((x - 4, -2, z), (x + 4, -2, z), 6.5) for x in (6, 112) for z in (30, 90)]  # clamps
    vents = [rod((x, y, height - 1), (x, y, height + 14), 14, 20) for x, y in ((30, 30), (140, 100))]
    vents += [box(60, 80, height - 1, 100, 110, height + 12)]
    body = cut(union([body, parapet, *frames, *pipes, *vents]), holes)
    return subdivided(body, 1)


def roofless_shell(rng):
    """A one-storey hab without a roof, 2 mm walls; its wall tops are left out, so the mesh is not watertight."""
    width, depth, height, wall = 150.0, 110.0, 70.0, 2.0
    body = shell(width, depth, height, wall)
    partition = box(80, wall - 0.5, 1, 82, depth - wall + 0.5, height - 10)
    holes = [box(20, -5, 1.5, 46, 10, 50), box(70, 30, 1.5, 95, 60, 48)]
    frames = []
    for x in (80, 120):
        h, f = on_y_walls(depth, x, 25, 22, 22)
        holes += h
        frames += f
    holes += [box(-5, y - 10, 25, width + 5, y + 10, 47) for y in (35, 75)]
    body = subdivided(cut(union([body, partition, *frames]), holes), 2)
    top = (body.face_normals[:, 2] > 0.99) & (np.abs(body.triangles_center[:, 2] - height) < 1e-6)
    return drop_faces(body, ~top)


def open_facade(rng):
    """A three-storey facade with short side returns, a balcony with a railing and a cornice; open at the back
    (the inner faces of the front wall were never modelled), so the mesh is not watertight."""
    width, depth, height, wall = 200.0, 40.0, 160.0, 3.0
    body = union([box(0, 0, 0, width, wall, height), box(0, 0, 0, wall, depth, height),
                  box(width - wall, 0, 0, width, depth, height)])
    holes, frames = [box(85, -5, 0, 115, 10, 55)], []
    for z in (25, 75, 125):
        for x in (25, 60, 140, 175) if z == 25 else (25, 60, 100, 140, 175):
            h, f = on_y_walls(depth, x, z, 20, 26, sides=(0,))
            holes += h
            frames += f
    pilasters = [box(x - 4, -3, 0, x + 4, 0.5, height) for x in (4, 80, 120, 196)]
    cornices = [box(-3, -5, z, width + 3, 0.5, z + 4) for z in (62, 112)]
    cornices.append(prism_along_x([(-8, 0), (0.5, 0), (0.5, 8), (-8, 8)], width + 12).apply_translation(
        (width / 2, 0, height - 4)))
    balcony = [box(70, -25, 70, 130, 0.5, 74)] + railing((71, -24), (129, -24), 74, 16, spacing=12)
    balcony += railing((71, -24), (71, -1), 74, 16, spacing=12) + railing((129, -24), (129, -1), 74, 16, spacing=12)
    body = cut(union([body, *pilasters, *cornices, *frames, *balcony]), holes)
    body = subdivided(body, 1)
    back = (body.face_normals[:, 1] > 0.99) & (np.abs(body.triangles_center[:, 1] - wall) < 1e-6)
    return drop_faces(body, ~back)


def walkway(rng):
    """An elevated walkway: a 4 mm deck at 80 mm on I-beam legs with bracing, railings both sides, stairs down."""
    length, width, deck = 220.0, 56.0, 80.0
    parts = [box(0, 0, deck - 4, length, width, deck)]
    parts += [box(x, -1, deck - 10, x + 4, width + 1, deck - 3.5) for x in np.arange(10, length, 30)]  # joists
    for x in (30, 120, 210):
        for y in (4, width - 4):
            parts += [box(x - 4, y - 0.75, 0, x + 4, y + 0.75, deck - 3.5), box(x - 0.75, y - 3, 0, x + 0.75, y + 3,
                                                                                  deck - 3.5)]
            parts.append(box(x - 6, y - 6, 0, x + 6, y + 6, 2))  # foot plate
        parts.append(rod((x, 4, 10), (x, width - 4, deck - 12), 2.5))  # cross bracing
        parts.append(rod((x, width - 4, 10), (x, 4, deck - 12), 2.5))
    parts += railing((2, 2), (length - 2, 2), deck, 18) + railing((2, width - 2), (length - 2, width - 2), deck, 18)
    parts += railing((length - 2, 2), (length - 2, 16), deck, 18, spacing=14)
    # stairs down from the open end (x = 0) to the ground along -x, 20 mm wide, with a sloping hand rail
    parts += [box(-80 + 8 * k - 0.5, 18, 0, -72 + 8 * k + 0.5, 38, 8 * (k + 1)) for k in range(10)]
    tops = [(-76 + 8 * k, 19.5, 8 * (k + 1)) for k in range(0, 10, 2)]
    parts += [rod((x, y, z - 0.5), (x, y, z + 16), 2) for x, y, z in tops]
    parts.append(rod((tops[0][0], 19.5, tops[0][2] + 15), (tops[-1][0], 19.5, tops[-1][2] + 15), 1.6))
    return union(parts)


def barricade(rng):
    """A barricade line: three jersey segments at angles, sandbags piled against them, a tank trap."""
    profile = [(-10, 0), (10, 0), (10, 4), (5, 12), (4, 28), (-4, 28), (-5, 12), (-10, 4)]
    parts = []
    for x, turn in ((-58, 8), (0, -4), (58, 12)):
        segment = turned(prism_along_x(profile, 64), turn)
        segment.apply_translation((x, 0, 0))
        parts.append(segment)
    for k in range(22):
        bag = lump(rng, 1.0, (9, 5, 3.5), subdivisions=2, roughness=0.08)
        turned(bag, rng.uniform(-25, 25))
        row, spot = divmod(k, 8)
        bag.apply_translation((-85 + spot * 17 + 8 * row + rng.uniform(-2, 2), -14 + 4 * row + rng.uniform(-1, 1),
                               3 + 5 * row))
        parts.append(bag)
    for axis in ((1, 1, 0), (1, -1, 0), (0, 0, 1)):  # a tank trap of three crossed beams
        beam = trimesh.creation.box(extents=(40, 5, 5))
        beam.apply_transform(trimesh.transformations.rotation_matrix(np.radians(60 if axis[2] else 40), axis))
        beam.apply_translation((0, 24, 16))
        parts.append(beam)
    parts.append(box(-15, 8, 0, 15, 32, 3))  # its foot, touching the middle segment
    return ground_cut(union(parts))


def crystal_wall(rng):
    """Jagged crystals (hexagonal prisms with pointed tips, leaning) growing out of a rocky ridge."""
    parts = []
    for x in np.linspace(-95, 95, 6):
        parts.append(lump(rng, 1.0, (26, 22, 16), subdivisions=3, roughness=0.3).apply_translation((x, 0, 2)))
    for k in range(18):
        radius, length = rng.uniform(5, 12), rng.uniform(30, 85)
        crystal = union([trimesh.creation.cylinder(radius=radius, height=length, sections=6),
                         trimesh.creation.cone(radius=radius, height=radius * 2.2, sections=6).apply_translation(
                             (0, 0, length / 2 - 1))])
        crystal.apply_translation((0, 0, length / 2))
        crystal.apply_transform(trimesh.transformations.rotation_matrix(np.radians(rng.uniform(0, 28)),
                                                                        [rng.normal(), rng.normal(), 0]))
        crystal.apply_translation((-100 + 200 * (k + rng.uniform(0, 1)) / 18, rng.uniform(-10, 10), 0))
        parts.append(crystal)
    return ground_cut(union(parts))


def rock_outcrop(rng):
    """Four fused boulders sunk into the ground, with a few faces missing from the export (not watertight)."""
    parts = [lump(rng, 1.0, stretch, subdivisions=4, roughness=0.35).apply_translation(at) for stretch, at in (
        ((45, 35, 40), (0, 0, 10)), ((30, 28, 26), (45, 15, 2)), ((28, 24, 34), (-42, -10, 0)),
        ((22, 20, 18), (10, 38, 0)))]
    body = ground_cut(union(parts))
    up = np.flatnonzero(body.face_normals[:, 2] > 0.5)
    keep = np.ones(len(body.faces), bool)
    keep[rng.choice(up, 8, replace=False)] = False
    return drop_faces(body, keep)


PIECES = {  # name: (builder, watertight, levels: heights (mm) of floors and tops that fit a 25 mm base, notes)
    "ruined_hab": (ruined_hab, True, [1.5, 2, 73], "ruined two-storey building, 3 mm walls with a jagged top, half "
                   "an upper floor at 70-73 mm reached by stairs, framed windows, a door, a breach and rubble"),
    "tower_block": (tower_block, True, [0, 71.5, 140], "closed two-storey block, 2.5 mm walls, 18x24 mm framed "
                    "windows on every wall, a door, drainpipes, a 10 mm roof parapet and vents"),
    "roofless_shell": (roofless_shell, False, [2], "one-storey hab without a roof, 2 mm walls and a partition; "
                       "the wall tops are missing (open edges), so it is not watertight"),
    "open_facade": (open_facade, False, [], "three-storey facade with short side returns, a balcony with a "
                    "railing, pilasters and cornices; open at the back, so it is not watertight"),
    "walkway": (walkway, True, [80], "deck at 80 mm on I-beam legs with bracing, railings on both sides, "
                "stairs down to the ground at one end"),
    "barricade": (barricade, True, [], "three jersey segments at angles, sandbags piled against them, a tank trap"),
    "crystal_wall": (crystal_wall, True, [], "jagged leaning crystals on a rocky ridge"),
    "rock_outcrop": (rock_outcrop, False, [], "four fused boulders; eight faces missing, so it is not watertight"),
}


def build(mesh: trimesh.Trimesh) -> trimesh.Trimesh:
    """Keep the one body, move the footprint centre to the origin and the bottom to z = 0.

    A union can leave tiny extra shells (a void closed in between fused parts, a sliver where two parts nearly
    touch); they are dropped, and must be under 1% of the faces."""
    shells = mesh.split(only_watertight=False, repair=False)
    if len(shells) > 1:
        mesh = max(shells, key=lambda s: len(s.faces))
        assert len(mesh.faces) > 0.99 * sum(len(s.faces) for s in shells), [len(s.faces) for s in shells]
    return centred(mesh)


def main() -> None:
    catalog = []
    for k, (name, (make, watertight, levels, notes)) in enumerate(PIECES.items()):
        mesh = build(make(np.random.default_rng(SEED + k)))
        bodies = len(mesh.split(only_watertight=False, repair=False))
        assert bodies == 1 and mesh.is_watertight is watertight and 2000 <= len(mesh.faces) <= 20000, (
            name, bodies, mesh.is_watertight, len(mesh.faces))
        path = HERE / f"real_{name}.stl"
        path.write_bytes(trimesh.exchange.stl.export_stl(mesh))
        width, depth, height = (round(float(v), 3) for v in mesh.extents)
        catalog.append({"name": f"real_{name}", "file": path.name, "footprint": [width, depth], "height": height,
                        "levels": levels, "triangles": len(mesh.faces), "watertight": watertight, "bodies": bodies,
                        "notes": notes})
        print(f"real_{name:16s} {width:7.1f} x {depth:6.1f} x {height:6.1f} mm  {len(mesh.faces):6d} triangles"
              f"  {'watertight' if watertight else 'open'}")
    write_catalog(catalog, "catalog-real.yaml", "# Generated by make_real_models.py: sizes in mm (footprint = [x, y] "
                  "extents before rotation); each piece is one connected, non-convex body.\n")


if __name__ == "__main__":
    main()
