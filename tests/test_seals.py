"""Holes a mesh closes itself (lofkit/geometry/seals.py): a kit's house made of bodies that leave out the faces
another body covers (walls open at the foot on a base plate, at the top under a roof slab, one storey open onto the
next) gets boxes inside all of it, and every segment through a box still hits the mesh; where the bodies stand
apart, the gap stays a way through. The oracle is Embree on the full mesh, as in test_inner_parts."""

from __future__ import annotations

import numpy as np
import trimesh

from lofkit.geometry.inner import compute_mesh_parts, mesh_surface
from lofkit.geometry.seals import welded
from tests.test_inner_parts import blocked, crosses_box, holed_crate, lines_through_boxes

ROUNDING = 1e-5
"""A single-precision kit's rounding: one storey's top and the next one's foot this far apart."""


def walls(low: float, high: float, size: float = 60.0) -> trimesh.Trimesh:
    """Four walls of a square storey, open at the top and at the foot (a box's sides only)."""
    box = trimesh.creation.box([size, size, high - low]).apply_translation([0, 0, (low + high) / 2])
    box.update_faces(np.abs(box.face_normals[:, 2]) < 0.5)
    box.remove_unreferenced_vertices()
    return box


def slab(low: float, high: float, size: float) -> trimesh.Trimesh:
    return trimesh.creation.box([size, size, high - low]).apply_translation([0, 0, (low + high) / 2])


def house(gap: float = -ROUNDING) -> trimesh.Trimesh:
    """A base plate (0-5 mm), two storeys of open walls (5-50, then from 50 + `gap` to 95) and a roof slab whose
    underside lies `ROUNDING` below the upper walls' top: one mesh of four bodies, as kits export them."""
    return trimesh.util.concatenate([slab(0, 5, 70), walls(5, 50), walls(50 + gap, 95), slab(95 - ROUNDING, 100, 70)])


def test_holes_the_house_closes_itself_are_sealed_and_boxes_fill_it():
    """All four holes are sealed (the plate's top under the lower walls, the two storeys' caps cancelling a rounding
    apart, the roof holding the upper walls' top); boxes fill most of the house, and 20,000 lines through them all
    hit it."""
    mesh = house()
    surface = mesh_surface(mesh)
    assert len(surface.rims) == 4 and len(surface.open_rims) == 0
    parts = compute_mesh_parts(mesh)
    assert parts.coverage > 0.8
    rng = np.random.default_rng(8)
    assert blocked(mesh, *lines_through_boxes(parts.boxes, 300, 20_000, rng)).all()


def test_storeys_standing_apart_leave_a_way_through_that_no_box_crosses():
    """The upper storey 1 mm above the lower one: their caps face each other across open air, so neither is sealed,
    and level lines through the gap pass through the house without touching it; no box lies on them."""
    mesh = house(gap=1.0)
    surface = mesh_surface(mesh)
    assert len(surface.open_rims) == 2
    parts = compute_mesh_parts(mesh)
    rng = np.random.default_rng(9)
    count = 5000
    starts = np.column_stack([np.full(count, -100.0), rng.uniform(-25, 25, count), rng.uniform(50.05, 50.95, count)])
    ends = starts * [-1, 1, 1] + np.column_stack([np.zeros(count), rng.uniform(-5, 5, count), np.zeros(count)])
    directions = (ends - starts) / np.linalg.norm(ends - starts, axis=1)[:, None]
    lengths = np.linalg.norm(ends - starts, axis=1)
    clear = ~blocked(mesh, starts, directions, lengths)
    assert clear.mean() > 0.9  # the gap is a way through
    assert not crosses_box(starts[clear], directions[clear], lengths[clear], parts.boxes).any()
    assert blocked(mesh, *lines_through_boxes(parts.boxes, 300, 20_000, rng)).all()


def test_a_roof_slab_above_the_walls_does_not_seal_them():
    """A roof 0.5 mm above the open walls' top holds nothing: the hole stays open."""
    mesh = trimesh.util.concatenate([slab(0, 5, 70), walls(5, 50), slab(50.5, 55, 70)])
    assert len(mesh_surface(mesh).open_rims) == 1


def test_a_mesh_whose_faces_are_all_exported_twice_is_a_closed_solid():
    """A kit's fence post written with every face twice (the copies the same way): each edge then has four faces and
    the mesh is not watertight as it stands, but counted once it is a closed box, covered whole."""
    post = slab(0, 60, 10)
    twice = trimesh.Trimesh(post.vertices, np.vstack([post.faces, post.faces]), process=False)
    assert not twice.is_watertight
    surface = mesh_surface(twice)
    assert surface.skipped == 0 and len(surface.rims) == 0
    assert compute_mesh_parts(twice).coverage > 0.95


def test_an_open_part_caps_cannot_close_leaves_the_others_their_boxes():
    """A house of open walls (sealed by its plate and roof) beside a folded sheet whose two faces run along their
    shared edge the same way (one turned over), which caps cannot close: the sheet is skipped, the house still gets
    its boxes."""
    sheet = trimesh.Trimesh([[100, 0, 0], [110, 0, 0], [105, 5, 0], [105, -5, 5]], [[0, 1, 2], [0, 1, 3]],
                            process=False)
    mesh = trimesh.util.concatenate([house(), sheet])
    surface = mesh_surface(mesh)
    assert surface.skipped == len(sheet.faces)
    assert compute_mesh_parts(mesh).coverage > 0.8


def test_holes_of_parts_apart_are_not_taken_together():
    """Two crates, each with two facing holes, side by side but apart: a hole of one and a hole of the other are
    never taken together (no segment crossing no face goes from one's inside to the other's), so the boxes fill
    both crates but the tunnels through their holes, and every line through a box hits them."""
    crates = trimesh.util.concatenate([holed_crate(), holed_crate().apply_translation([60, 30, 0])])
    surface = mesh_surface(crates)
    assert len(surface.open_rims) == 4 and len(set(surface.reach)) == 2
    parts = compute_mesh_parts(crates)
    assert parts.coverage > 0.5
    rng = np.random.default_rng(10)
    for shift in ([0, 0, 0], [60, 30, 0]):
        starts = np.column_stack([np.full(3000, -20.0), rng.uniform(-2.5, 2.5, (3000, 2))]) + shift
        ends = np.column_stack([np.full(3000, 20.0), rng.uniform(-2.5, 2.5, (3000, 2))]) + shift
        directions = (ends - starts) / np.linalg.norm(ends - starts, axis=1)[:, None]
        origins, lengths = starts - 10 * directions, np.linalg.norm(ends - starts, axis=1) + 20
        clear = ~blocked(crates, origins, directions, lengths)
        assert clear.sum() > 500
        assert not crosses_box(origins[clear], directions[clear], lengths[clear], parts.boxes).any()
    assert blocked(crates, *lines_through_boxes(parts.boxes, 150, 20_000, rng)).all()


def test_a_cap_of_a_part_turned_inside_out_does_not_seal_another():
    """Open walls whose faces are turned in, around the top of an open storey and ending a rounding below it: their
    top cap, seen by its triangles, faces down onto the storey's top cap facing up, but their solid lies below it,
    not above. Facing is read with each part's orientation, so the storey's top stays a hole."""
    sleeve = walls(40, 50 - ROUNDING, size=62)
    sleeve.invert()
    mesh = trimesh.util.concatenate([slab(0, 5, 70), walls(5, 50), sleeve])
    assert any((rim[:, 2] == 50).all() for rim in mesh_surface(mesh).open_rims)


def test_a_pipe_against_a_wall_does_not_pair_its_hole_with_the_houses():
    """An open drainpipe standing against a house with a window: their boxes only touch, and no hole of either lies
    where they touch, so no segment crossing no face goes from the pipe's inside into the house's. The pipe's top
    and the window are not taken together, and the house keeps the boxes it has alone."""
    lower = walls(5, 50).subdivide().subdivide().subdivide()
    centres = lower.triangles_center
    window = (np.abs(centres[:, 0] + 30) < 1e-9) & (np.abs(centres[:, 1]) < 6) & (np.abs(centres[:, 2] - 27.5) < 6)
    lower = trimesh.Trimesh(lower.vertices, lower.faces[~window], process=False)
    alone = trimesh.util.concatenate([slab(0, 5, 70), lower, walls(50 - ROUNDING, 95), slab(95 - ROUNDING, 100, 70)])
    with_pipe = trimesh.util.concatenate([alone, walls(5, 90, size=4).apply_translation([32, 0, 0])])
    assert len(set(mesh_surface(with_pipe).reach)) == 2
    parts = compute_mesh_parts(with_pipe)
    assert parts.coverage > compute_mesh_parts(alone).coverage - 0.002
    assert blocked(with_pipe, *lines_through_boxes(parts.boxes, 300, 20_000, np.random.default_rng(11))).all()


def seamed(mesh: trimesh.Trimesh, side: int = 0) -> trimesh.Trimesh:
    """`mesh` with the faces of its +x `side` given vertices of their own, those at y < 0 one single-precision step
    further along x: the seams at both of that wall's corners are open, one a step wide, as a kit's export leaves
    them."""
    faces = mesh.faces.copy()
    wall = np.flatnonzero(mesh.face_normals[:, side] > 0.5)
    used = np.unique(faces[wall])
    copies = mesh.vertices[used].copy()
    at = copies[:, 1] < 0
    copies[at, side] = np.nextafter(copies[at, side].astype(np.float32), np.float32(np.inf)).astype(float)
    faces[wall] = len(mesh.vertices) + np.searchsorted(used, faces[wall])
    return trimesh.Trimesh(np.vstack([mesh.vertices, copies]), faces, process=False)


def test_walls_whose_corner_seams_are_a_rounding_apart_are_sealed_as_one():
    """A house whose lower walls' +x side has vertices of its own, one corner a single-precision step off: the rims
    at the walls' foot and top run down one seam and up the other, in no plane, until the vertices a rounding apart
    are one (`seals.welded`); then the house is covered as if whole, and lines through its boxes all hit the mesh
    as it was exported (Embree)."""
    mesh = trimesh.util.concatenate([slab(0, 5, 70), seamed(walls(5, 50)), slab(50, 55, 70)])
    assert not trimesh.Trimesh(mesh.vertices, mesh.faces).is_watertight
    parts = compute_mesh_parts(mesh)
    assert parts.coverage > 0.8
    rng = np.random.default_rng(10)
    assert blocked(mesh, *lines_through_boxes(parts.boxes, 300, 20_000, rng)).all()


def peg_in_beam(low: float) -> trimesh.Trimesh:
    """A closed beam (z -10 to 10) and a peg 6 mm wide from z = `low` up to `low` + 40, capped at the top and open at
    the foot: set into the beam when `low` is inside it, standing above it otherwise."""
    peg = trimesh.creation.cylinder(radius=3, height=40, sections=16).apply_translation([0, 0, low + 20])
    peg.update_faces(peg.face_normals[:, 2] > -0.5)
    peg.remove_unreferenced_vertices()
    return trimesh.util.concatenate([slab(-10, 10, 40), peg])


def test_a_peg_whose_open_foot_is_set_into_a_closed_beam_is_sealed():
    """The peg's open foot lies inside the beam, clear of its faces: a segment leaving the peg there is inside the
    beam, and leaves it through the beam's faces, so the hole is sealed (`seals._buried`) and lines through the boxes
    all hit the mesh (Embree). Standing on nothing, the same foot stays a hole."""
    assert len(mesh_surface(peg_in_beam(0.0)).open_rims) == 0
    assert len(mesh_surface(peg_in_beam(15.0)).open_rims) == 1
    parts = compute_mesh_parts(peg_in_beam(0.0))
    rng = np.random.default_rng(11)
    assert blocked(peg_in_beam(0.0), *lines_through_boxes(parts.boxes, 100, 20_000, rng)).all()


def test_a_rim_a_single_precision_step_off_its_plane_is_sealed_by_the_face_it_lies_on():
    """Walls whose top rim has half of its corners one single-precision step above the roof's underside: the rim lies
    in no plane until the coordinates a rounding apart are snapped together (`seals.welded`), and then the roof's
    face covers its cap; boxes fill the house and lines through them hit it (Embree)."""
    upper = walls(5, 50)
    top = np.flatnonzero(upper.vertices[:, 2] == 50)[::2]
    upper.vertices[top, 2] = float(np.nextafter(np.float32(50), np.float32(100)))
    mesh = trimesh.util.concatenate([slab(0, 5, 70), upper, slab(50, 55, 70)])
    surface = mesh_surface(welded(mesh))
    assert (len(surface.rims), len(surface.open_rims)) == (2, 0) and compute_mesh_parts(mesh).coverage > 0.8
    rng = np.random.default_rng(12)
    assert blocked(mesh, *lines_through_boxes(compute_mesh_parts(mesh).boxes, 300, 20_000, rng)).all()


def open_slab(low: float, high: float, x: tuple[float, float], open_side: int) -> trimesh.Trimesh:
    """A slab from x[0] to x[1] (80 mm deep in y, z from `low` to `high`) without its side facing `open_side` along
    x (+1 or -1): one open part, as kits leave faces out where another body stands."""
    box = trimesh.creation.box([x[1] - x[0], 80, high - low])
    box.apply_translation([(x[0] + x[1]) / 2, 0, (low + high) / 2])
    box.update_faces(box.face_normals[:, 0] * open_side < 0.5)
    box.remove_unreferenced_vertices()
    return box


def pillar(x: float, y: float, low: float, high: float) -> trimesh.Trimesh:
    """A tube 6 mm wide from z = `low` to `high`, open at both ends (a kit's post without its end faces)."""
    tube = trimesh.creation.cylinder(radius=3, height=high - low, sections=12)
    tube.update_faces(np.abs(tube.face_normals[:, 2]) < 0.5)
    tube.remove_unreferenced_vertices()
    return tube.apply_translation([x, y, (low + high) / 2])


def feet_in_floor() -> trimesh.Trimesh:
    """Two posts whose open feet lie 5 mm deep inside a floor slab left open at its far +x side."""
    posts = [pillar(-20, y, -5, 40) for y in (-20, 20)]
    return trimesh.util.concatenate([open_slab(-10, 0, (-40, 40), 1), *posts])


def test_open_feet_inside_an_open_floor_are_no_way_out_and_the_floor_between_them_keeps_its_boxes():
    """The floor is open (at its far side), so no closed body holds the posts' feet; but on both sides of each foot's
    cap lies the capped solid (the floor below, floor and post above), so no segment leaves the solid there
    (`seals.enclosed`): only the floor's open side and the posts' tops are holes, the floor between the feet (a
    strip the hull of the two feet would have taken) is in a box, and lines through the boxes all hit the mesh
    (Embree on the full mesh)."""
    mesh = feet_in_floor()
    rims = mesh_surface(mesh).open_rims
    assert sorted(round(float(rim[:, 2].max())) for rim in rims) == [0, 40, 40]
    parts = compute_mesh_parts(mesh)
    between = np.array([-20.0, 0.0, -5.0])
    assert ((parts.boxes[:, :3] < between) & (parts.boxes[:, 3:] > between)).all(axis=1).any()
    assert blocked(mesh, *lines_through_boxes(parts.boxes, 150, 20_000, np.random.default_rng(13))).all()


def test_a_foot_half_over_the_floors_edge_stays_a_way_out():
    """A post standing across the floor's closed edge (x = 40; the post's axis at 39) with its foot 5 mm down: the
    floor's side face cuts the foot's cap in two, and below the outer part is air, so the foot stays a hole (a segment
    from below may come up the post); lines through the boxes all hit the mesh."""
    mesh = trimesh.util.concatenate([open_slab(-10, 0, (-40, 40), -1), pillar(39, 0, -5, 40)])
    rims = mesh_surface(mesh).open_rims
    assert sorted(round(float(rim[:, 2].max())) for rim in rims) == [-5, 0, 40]
    parts = compute_mesh_parts(mesh)
    assert blocked(mesh, *lines_through_boxes(parts.boxes, 150, 20_000, np.random.default_rng(14))).all()


def test_a_foot_half_on_the_floors_top_and_half_inside_a_higher_slab_is_no_way_out():
    """A post's foot at the floor's top (z = 0) across where a slab 2 mm higher begins (x = 40): on the floor's side
    the floor's top face covers the cap, a segment crossing there meets it; on the other side the higher slab holds
    the cap, the solid on both sides of it. Neither face covers the whole cap, but no segment leaves through it."""
    floor = trimesh.util.concatenate([open_slab(-10, 0, (-40, 40), -1), open_slab(-10, 2, (40, 60), 1)])
    mesh = trimesh.util.concatenate([floor, pillar(40, 0, 0, 40)])
    assert sorted(round(float(rim[:, 0].min())) for rim in mesh_surface(mesh).open_rims) == [-40, 37, 60]
    parts = compute_mesh_parts(mesh)
    assert blocked(mesh, *lines_through_boxes(parts.boxes, 150, 20_000, np.random.default_rng(15))).all()


def test_a_foot_on_the_open_underside_of_a_slab_stays_a_way_out():
    """A post through a slab left open underneath, both open at z = 0: the slab's cap over the post's foot, in the
    same plane, is no face a segment would meet, and below both is air, so the foot stays a hole."""
    slab = trimesh.creation.box([80, 80, 10]).apply_translation([0, 0, 5])
    slab.update_faces(slab.face_normals[:, 2] > -0.5)
    slab.remove_unreferenced_vertices()
    mesh = trimesh.util.concatenate([slab, pillar(0, 0, 0, 40)])
    assert sorted(round(float(rim[:, 2].max())) for rim in mesh_surface(mesh).open_rims) == [0, 0, 40]


def test_two_holes_touching_at_one_vertex_are_capped_as_one_rim():
    """A ball missing two faces that meet only at a vertex (the bow tie a scan or a decimated export leaves): that
    vertex starts two rim edges, so the rim is no simple loop; its caps (a fan over every rim edge) still close the
    surface, every edge used once each way, so the ball gets boxes, and lines through them all hit it (Embree)."""
    ball = trimesh.creation.icosphere(subdivisions=2, radius=30)
    fan = np.flatnonzero((ball.faces == 0).any(axis=1))
    apart = next((a, b) for a in fan for b in fan if len(set(ball.faces[a]) & set(ball.faces[b])) == 1)
    mesh = trimesh.Trimesh(ball.vertices, np.delete(ball.faces, apart, axis=0), process=False)
    assert [len(rim) for rim in mesh_surface(mesh).rims] == [6]
    parts = compute_mesh_parts(mesh)
    assert parts.skipped_faces == 0 and parts.coverage > 0.5
    assert blocked(mesh, *lines_through_boxes(parts.boxes, 100, 20_000, np.random.default_rng(16))).all()
