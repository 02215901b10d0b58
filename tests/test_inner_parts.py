"""Inner parts (lofkit/geometry/inner.py): boxes provably inside a mesh's solid, the proofs of "hidden" on real,
non-convex terrain. Sound: every segment through a box hits the mesh itself; exact: the sight search that uses them
still equals the brute-force reference; cached on disk by the mesh's content and the code that computes them.
The tests of the parts themselves compute them afresh: a warm cache must not stand in for the code under test."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
import trimesh
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon, box

from lofkit.geometry import cache, inner, voxels
from lofkit.geometry.inner import compute_mesh_parts, mesh_key, mesh_parts, placed_boxes
from lofkit.geometry.terrain import load_mesh_file
from lofkit.ray import backend
from lofkit.sight.kernels import all_cross
from lofkit.sight.search import sight
from lofkit.sight.segments import Segments, blocked_first_parts
from lofkit.testing import sight_brute_force
from tests.helpers import REPO, build_world
from tests.strategies import SETTINGS

MODELS = REPO / "terrain_models"
REAL = [e["name"] for e in yaml.safe_load((MODELS / "catalog-real.yaml").read_text())]


def lines_through_boxes(boxes: np.ndarray, reach: float, count: int, rng) -> tuple[np.ndarray, ...]:
    """`count` segments through random points of random boxes, in random directions, `reach` mm to either side."""
    chosen = boxes[rng.integers(0, len(boxes), count)]
    points = chosen[:, :3] + rng.uniform(0, 1, (count, 3)) * (chosen[:, 3:] - chosen[:, :3])
    directions = rng.normal(size=(count, 3))
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    return points - reach * directions, directions, np.full(count, 2 * reach)


def blocked(mesh: trimesh.Trimesh, origins, directions, lengths) -> np.ndarray:
    as32 = lambda a: np.ascontiguousarray(a, dtype=np.float32)  # noqa: E731
    return backend()([mesh]).occluded(as32(origins), as32(directions), as32(lengths))


def crosses_box(origins, directions, lengths, boxes) -> np.ndarray:
    """Whether each segment runs through the inside of one of `boxes` (slab test)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = (boxes[None, :, :3] - origins[:, None]) / directions[:, None]
        t1 = (boxes[None, :, 3:] - origins[:, None]) / directions[:, None]
    near = np.nan_to_num(np.minimum(t0, t1), nan=-np.inf).max(axis=2)
    far = np.nan_to_num(np.maximum(t0, t1), nan=np.inf).min(axis=2)
    return ((np.minimum(far, lengths[:, None]) - np.maximum(near, 0)) > 1e-6).any(axis=1)


@functools.cache
def fresh_parts(name: str) -> tuple[trimesh.Trimesh, inner.MeshParts]:
    """Real piece `name` and its parts, computed by the code under test (never read from the disk cache), once per
    test process."""
    mesh = load_mesh_file(MODELS / f"{name}.stl")
    return mesh, compute_mesh_parts(mesh)


@pytest.mark.xdist_group("real-parts")  # with `--dist loadgroup` (make test), one worker computes each piece's parts
@pytest.mark.parametrize("name", REAL)
def test_every_segment_through_an_inner_box_of_a_real_piece_hits_the_piece(name):
    """Watertight and open pieces alike: 20,000 lines through the boxes, ends outside the piece, all blocked by
    Embree against the full mesh; and the boxes cover a good share of the solid."""
    mesh, parts = fresh_parts(name)
    assert len(parts.boxes) >= 50 and parts.skipped_faces == 0 and parts.coverage > 0.4
    assert parts.holes == 0 if mesh.is_watertight else parts.holes > 0
    segments = lines_through_boxes(parts.boxes, 2 * np.linalg.norm(mesh.extents), 20_000, np.random.default_rng(3))
    assert blocked(mesh, *segments).all()


@pytest.mark.xdist_group("real-parts")
@pytest.mark.parametrize("name", REAL)
def test_boxes_reach_down_to_the_table_and_segments_there_hit_the_piece(name):
    """Boxes at a piece's foot are lowered to 0.001 mm above its underside, so that segments that skim the table
    (the lowest samples stand 0.01 mm up) cross them; nearly flat lines through those low slabs all hit the piece."""
    mesh, parts = fresh_parts(name)
    low = parts.boxes
    low = low[low[:, 2] < mesh.bounds[0, 2] + 0.01]
    assert len(low) >= 10
    rng = np.random.default_rng(4)
    chosen = low[rng.integers(0, len(low), 20_000)]
    points = chosen[:, :3] + rng.uniform(0, 1, (20_000, 3)) * (chosen[:, 3:] - chosen[:, :3])
    points[:, 2] = mesh.bounds[0, 2] + rng.uniform(0.002, 0.3, 20_000)
    directions = rng.normal(size=(20_000, 3)) * [1, 1, 0.002]
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    assert blocked(mesh, points - 500 * directions, directions, np.full(20_000, 1000.0)).all()


def holed_crate(size: float = 40.0) -> trimesh.Trimesh:
    """A closed cube, subdivided, with one small square hole in its -x side and one in its +x side, in line."""
    mesh = trimesh.creation.box(extents=[size] * 3).subdivide().subdivide().subdivide()
    centres = mesh.triangles_center
    hole = (np.abs(np.abs(centres[:, 0]) - size / 2) < 1e-9) & (np.abs(centres[:, 1]) < 5) & (np.abs(centres[:, 2]) < 5)
    return trimesh.Trimesh(mesh.vertices, mesh.faces[~hole], process=False)


def test_caps_close_the_holes_of_an_open_surface_and_refuse_what_they_cannot_close():
    """Caps over the crate's two holes leave every edge shared by two faces, once each way, so the capped surface
    is closed and consistently turned; a closed surface needs none; a surface with an edge of three faces, or with two
    faces running along an edge the same way, gets none (None: it cannot be closed)."""
    crate = holed_crate()
    caps, rims = inner.caps_over_holes(crate.vertices, crate.faces)
    assert len(rims) == 2
    closed = trimesh.Trimesh(**trimesh.triangles.to_kwargs(np.concatenate([crate.triangles, caps])))
    assert closed.is_watertight and closed.is_winding_consistent
    fan = np.array([[0, 1, 2], [1, 0, 3], [0, 1, 4]])  # edge 0-1 in three faces
    tetrahedron = np.array([[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]])
    flipped = tetrahedron.copy()
    flipped[0] = flipped[0, ::-1]  # closed, but it runs along each of its edges the same way as its neighbour
    points = np.random.default_rng(0).normal(size=(5, 3))
    assert len(inner.caps_over_holes(points, tetrahedron[1:])[0]) == 3  # one cap per edge of the missing face
    caps, rims = inner.caps_over_holes(points, tetrahedron)
    assert caps.shape == (0, 3, 3) and rims == ()  # closed already
    for faces in (fan, flipped):
        assert inner.caps_over_holes(points, faces) == (None, ())


def test_no_box_lies_where_a_segment_can_pass_through_two_holes():
    """The crate's two holes face each other: segments through both cross its inside and touch nothing. The boxes
    keep clear of every such segment, and still fill most of the crate."""
    crate = holed_crate()
    assert not crate.is_watertight
    parts = compute_mesh_parts(crate)
    assert parts.holes == 2 and parts.coverage > 0.5
    rng = np.random.default_rng(5)
    starts = np.column_stack([np.full(5000, -20.0), rng.uniform(-2.5, 2.5, (5000, 2))])
    ends = np.column_stack([np.full(5000, 20.0), rng.uniform(-2.5, 2.5, (5000, 2))])
    lengths = np.linalg.norm(ends - starts, axis=1) + 20
    directions = (ends - starts) / np.linalg.norm(ends - starts, axis=1)[:, None]
    origins = starts - 10 * directions
    clear = ~blocked(crate, origins, directions, lengths)
    assert clear.sum() > 1000  # the tunnel is there
    assert not crosses_box(origins[clear], directions[clear], lengths[clear], parts.boxes).any()
    assert blocked(crate, *lines_through_boxes(parts.boxes, 100, 20_000, rng)).all()


def test_a_closed_mesh_is_covered_by_boxes_and_a_convex_one_by_itself():
    ring = trimesh.creation.extrude_polygon(box(-30, -30, 30, 30).difference(box(-25, -25, 25, 25)), 20)
    parts = compute_mesh_parts(ring)
    assert parts.component.max() == -1 and parts.holes == 0 and 0.5 < parts.coverage <= 1
    assert parts.volume == pytest.approx(ring.volume)
    crate = compute_mesh_parts(trimesh.creation.box(extents=[10, 10, 10]))
    assert len(crate.boxes) == 0 and crate.component.tolist() == [0] * 12 and crate.coverage == 1
    assert crate.parts == 1


def test_winding_numbers_say_inside_as_the_mesh_does_on_a_real_piece():
    """On a closed non-convex real piece the winding number is 1 inside its solid and 0 outside: the same answer as
    trimesh's own containment test, at points all over its box."""
    mesh = load_mesh_file(REPO / "terrain_models" / "real_tower_block.stl")
    assert mesh.is_watertight
    points = np.random.default_rng(5).uniform(mesh.bounds[0] - 5, mesh.bounds[1] + 5, (400, 3))
    winding = inner.winding_numbers(mesh.triangles.copy(), points)
    assert np.allclose(winding, np.round(winding), atol=1e-6) and set(np.round(winding)) <= {0.0, 1.0}
    assert (inner.inside_closed(mesh.triangles, points) == mesh.contains(points)).all()
    assert 0 < inner.inside_closed(mesh.triangles, points).sum() < len(points)


def test_a_segment_that_hits_a_non_convex_piece_learns_a_box_it_crosses():
    """An L-shaped block, turned and moved on the table: segments aimed through its arms lead, from where they first
    hit it, to an inner box they cross (what a pair learns as a candidate for its next proofs)."""
    l_shape = [[0, 0], [120, 0], [120, 30], [30, 30], [30, 100], [0, 100]]
    world = build_world([], [{"id": "ell", "prism": {"polygon": l_shape, "height": 60}, "position": [400, 300, 0],
                              "rotation": 30}])
    rng = np.random.default_rng(2)
    inside = np.array([[400, 300, 0.0]]) + rng.uniform([5, 5, 5], [25, 95, 55], (3000, 3))
    turn = trimesh.transformations.rotation_matrix(np.radians(30), [0, 0, 1])[:3, :3]
    inside = (inside - [400, 300, 0]) @ turn.T + [400, 300, 0]
    directions = rng.normal(size=(3000, 3)) * [1, 1, 0.2]
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    origins = inside - 300 * directions
    hit, part = blocked_first_parts(world, Segments(origins, directions, np.full(3000, 600.0)), np.full((3000, 0), -1))
    assert hit.all() and (part >= 0).mean() > 0.95
    parts = world.convex_parts
    ends = origins + 600 * directions
    crossed = np.zeros(3000, dtype=bool)
    learned = np.flatnonzero(part >= 0)
    all_cross(origins[learned, None].copy(), ends[learned, None].copy(), np.arange(len(learned)), part[learned],
              parts.normals, parts.offsets, parts.faces, crossed[: len(learned)])
    assert crossed[: len(learned)].mean() > 0.9


def test_a_hit_on_a_real_rock_learns_the_largest_box_it_goes_on_into():
    """On the real rock outcrop (1,000 small boxes), turned on the table: segments that hit it learn a box they cross,
    most often a larger one than the box the lookup grid holds where they hit (what they learned before), and
    seldom a smaller one (that box may lie beyond the cells a hit looks along)."""
    world = build_world([], [{"id": "rock", "mesh": str(MODELS / "real_rock_outcrop.stl"), "position": [500, 500, 0],
                              "rotation": 20}])
    parts = world.convex_parts
    rng = np.random.default_rng(4)
    count = 4000
    low, high = parts.bounds[:, :3].min(axis=0), parts.bounds[:, 3:].max(axis=0)
    aims = low + rng.uniform(0.2, 0.8, (count, 3)) * (high - low)
    directions = rng.normal(size=(count, 3)) * [1, 1, 0.3]
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    origins = aims - 300 * directions
    segments = Segments(origins, directions, np.full(count, 600.0))
    distance, mesh, face = world.blocking_rays.first_face(origins, directions, segments.lengths)
    learned = world.convex_parts.part_at(mesh, face, origins + distance[:, None] * directions, directions)
    hit = np.flatnonzero(learned >= 0)
    assert len(hit) > count / 2
    crossed = np.zeros(len(hit), dtype=bool)
    ends = origins + 600 * directions
    all_cross(origins[hit, None].copy(), ends[hit, None].copy(), np.arange(len(hit)), learned[hit], parts.normals,
              parts.offsets, parts.faces, crossed)
    assert crossed.mean() > 0.95
    rock, to_rock = parts.framed[0]
    local = (origins[hit] + distance[hit, None] * directions[hit]) @ to_rock[:3, :3].T + to_rock[:3, 3]
    cell = np.floor((local - rock.lookup_origin) / rock.lookup_pitch).astype(int)
    held = np.flatnonzero(np.all((cell >= 0) & (cell < rock.lookup.shape), axis=1))
    held = held[rock.lookup[tuple(cell[held].T)] >= 0]
    at_hit = parts.first_box[0] + rock.lookup[tuple(cell[held].T)]  # what a hit learned before it looked further
    crosses = np.zeros(len(held), dtype=bool)
    all_cross(origins[hit[held], None].copy(), ends[hit[held], None].copy(), np.arange(len(held)), at_hit,
              parts.normals, parts.offsets, parts.faces, crosses)
    mine, before = parts.sizes[learned[hit[held[crosses]]]], parts.sizes[at_hit[crosses]]
    assert crosses.sum() > 300 and (mine >= before).mean() > 0.9 and (mine > before).mean() > 0.5


def test_faces_turned_the_wrong_way_make_no_boxes():
    """A closed mesh whose faces are not consistently oriented has no trustworthy inside: it is skipped."""
    ring = trimesh.creation.extrude_polygon(box(-30, -30, 30, 30).difference(box(-25, -25, 25, 25)), 20)
    faces = ring.faces.copy()
    faces[:5] = faces[:5, ::-1]
    parts = compute_mesh_parts(trimesh.Trimesh(ring.vertices, faces, process=False))
    assert len(parts.boxes) == 0 and parts.skipped_faces == len(faces)


@given(st.floats(0.2, 4), st.floats(0.2, 4), st.floats(0.2, 4), st.floats(-720, 720), st.floats(-500, 500),
       st.floats(-180, 180), st.floats(-180, 180))
def test_placed_boxes_are_the_boxes_moved(sx, sy, sz, degrees, shift, tilt_x, tilt_y):
    """Half-spaces of a placed box hold the placed corners on their planes and points just outside beyond them, for
    pieces turned about z and tilted or flipped about x and y (`terrain.placement`)."""
    transform = trimesh.transformations.euler_matrix(*np.radians([tilt_x, tilt_y, degrees]), axes="sxyz")
    transform[:3, :3] = transform[:3, :3] @ np.diag([sx, -sy, sz])
    transform[:3, 3] = [shift, -shift / 2, 3.0]
    boxes = np.array([[-1.0, 2.0, 0.0, 3.0, 5.0, 4.0]])
    planes, bounds = placed_boxes(boxes, transform)
    centre = np.array([1.0, 3.5, 2.0])
    for corner in trimesh.bounds.corners(boxes.reshape(2, 3)):
        placed = transform[:3, :3] @ corner + transform[:3, 3]
        sides = planes[0, :, :3] @ placed - planes[0, :, 3]
        assert sides.max() == pytest.approx(0, abs=1e-9)
        outside = placed + 1e-3 * (placed - (transform[:3, :3] @ centre + transform[:3, 3]))
        assert (planes[0, :, :3] @ outside - planes[0, :, 3]).max() > 0
        assert np.all(bounds[0, :3] <= placed + 1e-9) and np.all(placed <= bounds[0, 3:] + 1e-9)


def test_parts_are_cached_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("LOFKIT_CACHE", str(tmp_path))
    ring = trimesh.creation.extrude_polygon(box(-30, -30, 30, 30).difference(box(-26, -26, 26, 26)), 15)
    first = mesh_parts(ring)
    entry = tmp_path / f"{mesh_key(ring)}.npz"
    assert entry.is_file()
    monkeypatch.setattr(inner, "compute_mesh_parts", lambda mesh: pytest.fail("computed again"))
    again = mesh_parts(ring)
    assert np.array_equal(again.boxes, first.boxes) and again.coverage == first.coverage
    moved = ring.copy()
    moved.vertices[0] += 0.5
    assert mesh_key(moved) != mesh_key(ring)
    monkeypatch.setattr(inner, "compute_mesh_parts", compute_mesh_parts)
    entry.write_bytes(b"not an npz file")
    assert np.array_equal(mesh_parts(ring).boxes, first.boxes)  # an unreadable entry is computed again
    assert cache.load(mesh_key(ring), inner.MeshParts) is not None  # and saved over


BOTH_ASK = """
import dataclasses, sys, time
from pathlib import Path
import numpy as np
from lofkit.geometry import cache

@dataclasses.dataclass
class Entry:
    value: np.ndarray

def compute():
    with open(Path(sys.argv[1]) / "computed", "a") as log:
        log.write(sys.argv[2] + "\\n")
    time.sleep(1.0)
    return Entry(np.arange(3))

folder, me, other = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
(folder / f"ready-{me}").touch()
for _ in range(6000):  # both ask at once (the other has a minute to start)
    if (folder / f"ready-{other}").exists():
        break
    time.sleep(0.01)
print(cache.kept("parts-asked-twice", Entry, compute).value.tolist())
"""


@pytest.mark.slow
def test_two_processes_asking_for_one_entry_compute_it_once(tmp_path):
    """The second waits while the first computes, then reads what it saved; no lock file is left behind."""
    env = {**os.environ, "LOFKIT_CACHE": str(tmp_path)}
    asking = [subprocess.Popen([sys.executable, "-c", BOTH_ASK, str(tmp_path), me, other], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE) for me, other in (("a", "b"), ("b", "a"))]
    answers = [process.communicate(timeout=120) for process in asking]
    assert [out for out, _ in answers] == ["[0, 1, 2]\n"] * 2, answers
    assert len((tmp_path / "computed").read_text().split()) == 1
    assert sorted(p.suffix for p in tmp_path.glob("parts-*")) == [".npz"]


@pytest.mark.parametrize("module", [inner, voxels], ids=["inner", "voxels"])
def test_an_edit_to_the_code_that_computes_parts_gives_every_mesh_a_new_key(module, tmp_path, monkeypatch):
    """Parts are keyed on the source of the modules that compute them (read once per process): a warm cache never
    serves parts the code before an edit made, and the same code finds the same key again."""
    ring = trimesh.creation.extrude_polygon(box(-30, -30, 30, 30).difference(box(-26, -26, 26, 26)), 15)
    before = mesh_key(ring)
    edited = tmp_path / Path(module.__file__).name
    edited.write_text(Path(module.__file__).read_text(encoding="utf-8") + "# one line more\n", encoding="utf-8")
    with monkeypatch.context() as patch:
        patch.setattr(module, "__file__", str(edited))
        inner.code_digest.cache_clear()
        assert mesh_key(ring) != before
    inner.code_digest.cache_clear()
    assert mesh_key(ring) == before


def test_a_cache_folder_that_cannot_be_written_costs_only_the_saving(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    monkeypatch.setenv("LOFKIT_CACHE", str(blocker / "cache"))
    ring = trimesh.creation.extrude_polygon(box(-20, -20, 20, 20).difference(box(-16, -16, 16, 16)), 10)
    assert len(mesh_parts(ring).boxes) > 0 and blocker.read_text() == "in the way"


# --- the search on random scenes of non-convex meshes ---------------------------------------------------------------

MESHES = REPO / ".cache" / "test-meshes"


@st.composite
def hollow_pieces(draw, index: int) -> dict:
    """A non-convex closed body: a ring (a hollow tower), a U or an L in plan, 2-8 mm walls, 20-90 mm tall; open at
    the top (its top faces left out, so not watertight) one time in three; written as an STL file."""
    outer, wall = draw(st.floats(40, 120)), draw(st.floats(2, 8))
    shape = draw(st.sampled_from(["ring", "u", "l"]))
    whole = box(0, 0, outer, outer)
    inside = box(wall, wall, outer - wall, outer - wall)
    if shape == "u":
        inside = box(wall, wall, outer - wall, outer + 1)
    elif shape == "l":
        inside = box(wall, wall, outer + 1, outer + 1)
    plan = whole.difference(inside)
    assert isinstance(plan, Polygon)
    height = draw(st.floats(20, 90))
    mesh = trimesh.creation.extrude_polygon(plan, height)
    mesh.apply_translation([-outer / 2, -outer / 2, 0])
    if draw(st.integers(0, 2)) == 0:
        top = (mesh.face_normals[:, 2] > 0.99) & (mesh.triangles_center[:, 2] > height - 1e-6)
        mesh = trimesh.Trimesh(mesh.vertices, mesh.faces[~top], process=False)
    MESHES.mkdir(parents=True, exist_ok=True)
    path = MESHES / f"{mesh_key(mesh)}.stl"
    if not path.is_file():  # written whole, then renamed: another test process may be reading the same mesh
        with tempfile.NamedTemporaryFile(dir=MESHES, suffix=".stl", delete=False) as handle:
            mesh.export(handle, file_type="stl")
        os.replace(handle.name, path)
    x, y = draw(st.floats(150, 450)), draw(st.floats(240, 360))
    return {"id": f"piece{index}", "mesh": str(path), "position": [x, y, 0], "rotation": draw(st.floats(0, 360))}


@st.composite
def scenes_of_hollow_pieces(draw):
    troopers = []
    for k, (x, y) in enumerate(draw(st.permutations([(100, 60), (300, 60), (500, 60), (150, 540), (450, 540)]))[:3]):
        troopers.append({"id": f"t{k}", "side": "blue" if y < 300 else "red", "silhouette": draw(st.integers(1, 5)),
                         "position": [x + draw(st.floats(-30, 30)), y], "z": draw(st.sampled_from([0.0, 30.0])),
                         "facing": 90 if y < 300 else 270})
    terrain = [draw(hollow_pieces(i)) for i in range(draw(st.integers(1, 3)))]
    return build_world(troopers, terrain, table={"width": 600, "depth": 600})


@pytest.mark.slow
@settings(max_examples=12, **SETTINGS)
@given(scenes_of_hollow_pieces())
def test_search_equals_brute_force_among_non_convex_meshes(world):
    """Rings, U and L shapes, closed or open at the top, between troopers on both sides, some raised to see over."""
    pairs = [(0, 1), (0, 2), (1, 2)]
    fast, brute = sight(world, pairs), sight_brute_force(world, pairs)
    assert {k: s.seen for k, s in fast.items()} == {k: s.seen for k, s in brute.items()}



def test_a_trooper_buried_whole_in_an_open_mesh_is_warned_about(tmp_path):
    """Inside proofs, segments end outside the solid: a trooper standing inside a piece must be reported even when
    the piece is not watertight (its solid is the one caps over its holes close)."""
    crate = holed_crate().apply_scale(3.0).apply_translation([0, 0, 60])  # 120 mm, two 30 mm holes
    assert not crate.is_watertight
    path = tmp_path / "crate.stl"
    crate.export(path)
    piece = {"id": "crate", "mesh": str(path), "position": [300, 300, 0]}
    world = build_world([{"id": "buried", "side": "blue", "silhouette": 2, "position": [300, 300], "z": 20,
                          "facing": 0}, {"id": "outside", "side": "red", "silhouette": 2, "position": [300, 500],
                                         "facing": 270}], [piece])
    assert [w.where for w in world.warnings] == ["troopers[0]"] and "crate" in world.warnings[0].message
