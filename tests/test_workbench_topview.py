"""The workbench's drawings without a browser: the top view's SVG (what tests and the page rely on), the 3D
view's terrain, and terrain catalogues (placing a piece, bad catalogues)."""

import io
import re

import numpy as np
import pytest
import trimesh

from lofkit import World
from lofkit.errors import LofkitError
from lofkit.scene.catalog import bundled_catalogs, load_catalog, load_catalogs
from lofkit.scene.loading import load_scene, scene_from_data
from lofkit.workbench.session import Session
from lofkit.workbench.terrain_tools import unused_id
from lofkit.workbench.topview import TABLE_IMAGE_URL, Marks, reactions_by_trooper, top_view
from lofkit.workbench.view3d import DISPLAY_TRIANGLES, terrain_glb
from tests.helpers import build_world, scene_data, trooper, write_scene

BOX = {"id": "crate", "box": {"size": [100, 50, 40]}, "position": [300, 300, 0]}


def _world(**fields):
    return build_world([trooper("a", 100, 100, facing=0), trooper("b", 500, 100, side="red", state=["moving"])],
                       [BOX], **fields)


def test_every_trooper_and_piece_is_tagged_and_drawn_to_scale():
    svg = top_view(_world())
    assert re.findall(r'data-trooper="(\w+)"', svg) == ["a", "b"]
    assert 'data-piece="crate"' in svg and "data-arc" not in svg and "<image" not in svg
    depth = 48 * 25.4
    assert f'cx="100.0" cy="{depth - 100:.1f}"' in svg  # y flipped: the far edge on top


def test_the_front_arc_is_a_half_disc_and_all_round_while_moving():
    world = _world()
    facing_x = top_view(world, Marks(selected=["a"]))
    arc = re.search(r'<path d="M ([\d. ]+) L ([\d. -]+) A [\d. ]+ 0 0 1 ([\d. -]+) Z" data-arc="a"', facing_x)
    centre, start, end = (np.array(group.split(), dtype=float) for group in arc.groups())
    zoc_edge = 12.5 + 203.2  # out to the Zone of Control's edge: base radius + 8"
    assert np.allclose(start - centre, [0, -zoc_edge], atol=0.06) and np.allclose(end - centre, [0, zoc_edge], atol=0.06)
    assert re.search(r'<circle cx="500.0" cy="[\d.]+" r="215.7" data-arc="b"', top_view(world, Marks(selected=["b"])))


def test_answers_are_drawn_where_the_page_looks_for_them():
    world = _world()
    ruling = {"blockers": [{"id": "crate"}], "witness": None}
    marks = Marks(selected=["a", "b"], ruling=ruling, sees={"b": "both"}, path=[(200, 200)],
                  reactions=reactions_by_trooper({"reactions": [{"trooper": "b", "by": "zoc"}]}), trace=[(1, 1), (5, 1)])
    svg = top_view(world, marks)
    assert 'data-blocker="crate"' in svg and 'data-sees="both" data-of="b"' in svg
    assert 'data-aro="zoc" data-of="b"' in svg and 'data-path="1"' in svg and 'data-trace="2"' in svg


def test_the_table_picture_lies_under_everything(tmp_path):
    from PIL import Image

    Image.new("RGB", (8, 8), "green").save(tmp_path / "table.png")
    world = World.from_scene(load_scene(write_scene(tmp_path, scene_data(
        [trooper("a", 100, 100)], table={"width": 600, "depth": 400, "image": "table.png"}))))
    svg = top_view(world)
    assert svg.startswith(f'<image href="{TABLE_IMAGE_URL}" x="0" y="0" width="600.0" height="400.0"')


def test_new_ids_take_the_first_free_number():
    assert unused_id("box", {"box-1", "box-3"}) == "box-2" and unused_id("blue", ()) == "blue-1"


def test_the_terrain_in_3d_is_in_table_millimetres_with_z_up():
    world = _world()
    scene = trimesh.load(io.BytesIO(terrain_glb(world)), file_type="glb")
    assert sorted(scene.geometry) == ["table", "terrain/crate"]
    assert np.allclose(scene.geometry["terrain/crate"].bounds, [[250, 275, 0], [350, 325, 40]])
    assert np.allclose(scene.geometry["table"].bounds, [[0, 0, -20], [48 * 25.4, 48 * 25.4, 0]])


def test_a_catalogue_piece_stands_centred_where_it_is_placed():
    catalog = load_catalogs(bundled_catalogs())
    assert {"container", "real_ruined_hab"} <= set(catalog)
    session = Session(scene_from_data(scene_data()), catalog)
    session.add_terrain({"catalog": "container", "position": [400, 300], "rotation": 90})
    bounds = session.world.pieces[0].mesh.bounds
    assert np.allclose(bounds.mean(axis=0)[:2], [400, 300]) and np.allclose(bounds[1] - bounds[0], [60, 150, 65])


@pytest.mark.parametrize("text, words", [
    ("- {name: a, file: missing.stl, footprint: [1, 1], height: 1}", "mesh file"),
    ("- {name: a, footprint: [1, 1]}", "piece 1: `file` is missing"),
    ("name: a", "a list of pieces"),
    ("- [", "cannot read"),
])
def test_a_bad_catalogue_names_its_file_and_entry(tmp_path, text, words):
    path = tmp_path / "catalog.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LofkitError, match=words) as caught:
        load_catalog(path)
    assert str(path) in str(caught.value)


def test_the_3d_view_gets_a_decimated_copy_of_a_big_table_and_the_rulings_the_full_meshes(tmp_path):
    """Two spheres of 81,920 triangles each, over the 3D view's budget of 100,000: the view's copy holds about the
    budget (decimation may overshoot by a few per cent), each piece where and as big as it is; the World keeps them
    whole."""
    sphere = trimesh.creation.icosphere(subdivisions=6, radius=60.0)
    sphere.apply_translation((0, 0, 60.0))
    sphere.export(tmp_path / "sphere.stl")
    terrain = [{"id": f"ball-{k}", "mesh": "sphere.stl", "position": [200 + 400 * k, 300, 0]} for k in range(2)]
    world = World.from_scene(load_scene(write_scene(tmp_path, scene_data([], terrain))))
    scene = trimesh.load(io.BytesIO(terrain_glb(world)), file_type="glb")
    shown = {name: len(mesh.faces) for name, mesh in scene.geometry.items()}
    assert shown["table"] == 12 and sum(shown.values()) <= 1.05 * DISPLAY_TRIANGLES
    for k, piece in enumerate(world.pieces):
        copy = scene.geometry[f"terrain/ball-{k}"]
        assert 0.4 * DISPLAY_TRIANGLES <= len(copy.faces) <= 0.55 * DISPLAY_TRIANGLES
        assert np.allclose(copy.bounds, piece.mesh.bounds, atol=1.0)
        assert len(piece.mesh.faces) == 81_920
    small = trimesh.load(io.BytesIO(terrain_glb(_world())), file_type="glb")
    assert len(small.geometry["terrain/crate"].faces) == len(_world().pieces[0].mesh.faces)  # under budget: whole
