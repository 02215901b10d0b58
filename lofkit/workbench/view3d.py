"""The workbench's 3D view (NiceGUI's three.js scene, z up, table millimetres), in a fold drawn only while open
(`View3D`): the terrain as one glTF binary served by the workbench (`terrain_glb`), each trooper as its volume
cylinder in its side's colour with a tick towards its facing; the selected troopers are lifted out by a ring on the
table, and a ruling's witness is drawn from the eye to the seen square. A trooper found in a scan or photo and not
confirmed (`proposed`) is see-through, with a "?" over it (named `lofkit:proposed:ID`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import trimesh
from nicegui import ui

from lofkit.exchange.gltf import table_nodes
from lofkit.scene.palette import NEUTRAL_COLOUR, side_colour
from lofkit.workbench.topview import MARK, Marks, _sides

if TYPE_CHECKING:
    from lofkit.workbench.session import Session

TERRAIN_URL = "/workbench/terrain.glb"
"""Where the page finds the terrain's glTF (`?v=` names the terrain, so a browser never shows a stale one)."""
ORBIT_FPS = 20
"""How often three.js draws the open 3D view while the pointer is on it (orbiting, zooming)."""
IDLE_FPS = 1
"""How often it draws it otherwise: a browser without a GPU draws each frame on the CPU the page's taps need (a
frame of a scan's 100,000 triangles held the next verdict up by about 0.3 s at twice a second), and a change (a
new verdict, a move) still shows within a second."""
SECTIONS = 24
"""Sides of a trooper's cylinder."""
PROPOSED_OPACITY = 0.35
"""How see-through a proposed trooper's cylinder is (a marker's is 0.55, anyone else's solid)."""
PROPOSED_LABEL = "font-weight: bold; font-size: 18px; color: #111; background: #fff8; padding: 0 4px; border-radius: 4px"


DISPLAY_TRIANGLES = 100_000
"""The most triangles the 3D view is sent for the whole table: more keep a browser without a GPU from taking taps
(a scan of a table holds half a million or more). Only the picture is decimated; every ruling uses the full meshes."""
SMALLEST_SHARE = 50
"""No piece is decimated below this many triangles."""


def display_copy(meshes: list[trimesh.Trimesh], budget: int = DISPLAY_TRIANGLES) -> list[trimesh.Trimesh]:
    """`meshes`, as they are when they hold at most `budget` triangles in all; else each decimated (quadric error,
    fast-simplification) to its share of the budget, in proportion to its own count (and no lower than
    `SMALLEST_SHARE`), so that they hold about `budget`. The copies have no colours.

    Examples
    --------
    >>> spheres = [trimesh.creation.icosphere(subdivisions=5) for _ in range(3)]  # 20,480 triangles each
    >>> [len(m.faces) <= 10_000 for m in display_copy(spheres, budget=30_000)]
    [True, True, True]
    >>> display_copy(spheres, budget=61_440)[0] is spheres[0]
    True
    """
    total = sum(len(mesh.faces) for mesh in meshes)
    if total <= budget:
        return list(meshes)
    shares = [max(SMALLEST_SHARE, len(mesh.faces) * budget // total) for mesh in meshes]
    return [mesh if len(mesh.faces) <= share else mesh.simplify_quadric_decimation(face_count=share)
            for mesh, share in zip(meshes, shares)]


def terrain_glb(world, budget: int = DISPLAY_TRIANGLES) -> bytes:
    """The table slab and every terrain piece, placed, in table mm with z up (the frame of the 3D view; a glTF
    viewer that assumes y up shows it on its side); the pieces a `display_copy` of about `budget` triangles."""
    table, *pieces = table_nodes(world, ("table", "terrain"))
    shown = display_copy([mesh for _, mesh, _ in pieces], budget - len(table[1].faces))
    scene = trimesh.Scene()
    for (name, full, _), mesh in zip([table, *pieces], [table[1], *shown]):
        colour = full.visual.face_colors[0]  # each node is one colour; matte, as paint on a table is
        mesh.visual = trimesh.visual.TextureVisuals(material=trimesh.visual.material.PBRMaterial(
            baseColorFactor=colour, metallicFactor=0.0, roughnessFactor=0.9, alphaMode="BLEND" if colour[3] < 255
            else "OPAQUE"))
        scene.add_geometry(mesh, node_name=name, geom_name=name)
    return scene.export(file_type="glb")


def camera_over(world) -> dict:
    """A camera looking at the table's centre from above its near edge (`ui.scene.move_camera`'s arguments)."""
    w, d = world.scene.table.width, world.scene.table.depth
    return {"x": w / 2, "y": -0.35 * d, "z": 0.9 * max(w, d), "look_at_x": w / 2, "look_at_y": d / 2, "look_at_z": 0,
            "duration": 0}


def draw_troopers(view, world, marks: Marks) -> None:
    """(Re)draw the troopers, the selection and a ruling's witness in `view` (a `ui.scene`)."""
    view.delete_objects(lambda thing: (thing.name or "").startswith("lofkit:"))
    v, sides = world.troopers, _sides(world)
    proposed = {trooper.id for trooper in world.scene.troopers if trooper.proposed}
    with view:
        for i, trooper_id in enumerate(v.ids):
            x, y, z = float(v.centre[i][0]), float(v.centre[i][1]), float(v.z[i])
            r, h = float(v.radius[i]), float(v.height[i])
            colour = NEUTRAL_COLOUR if v.sides[i] is None or v.neutral[i] else side_colour(sides.index(v.sides[i]))
            opacity = PROPOSED_OPACITY if trooper_id in proposed else 0.55 if v.marker[i] else 1.0
            view.cylinder(r, r, h, SECTIONS).move(x, y, z + h / 2).rotate(math.pi / 2, 0, 0).material(
                colour, opacity).with_name(f"lofkit:trooper:{trooper_id}")
            if trooper_id in proposed:
                view.text("?", PROPOSED_LABEL).move(x, y, z + h + 8).with_name(f"lofkit:proposed:{trooper_id}")
            turn = math.radians(float(v.facing[i]))
            view.line([x, y, z + h + 0.5], [x + 1.6 * r * math.cos(turn), y + 1.6 * r * math.sin(turn), z + h + 0.5]
                      ).material("#111111").with_name(f"lofkit:facing:{trooper_id}")
            if trooper_id in marks.selected:
                view.ring(r + 2, r + 5, SECTIONS).move(x, y, z + 0.5).material(MARK).with_name(
                    f"lofkit:selected:{trooper_id}")
        if marks.ruling and marks.ruling["witness"]:
            witness = marks.ruling["witness"]
            view.line(witness["eye"], witness["patch_centre"]).material("#15a34a").with_name("lofkit:witness")


class View3D:
    """The 3D view in a fold, closed at first: three.js draws its scene again and again, which keeps a core busy in a
    browser without a GPU, so the fold holds a scene only while it is open, drawn `ORBIT_FPS` times a second while
    the pointer is on it and `IDLE_FPS` otherwise."""

    def __init__(self, session: Session, marks: Marks):
        self.session, self.marks = session, marks
        self.scene: ui.scene | None = None
        self.terrain_shown = None
        with ui.expansion("3D view", on_value_change=lambda event: self.open(event.value)).classes(
                "w-full max-w-[1280px]").props("data-fold=3d"):
            self.holder = ui.column().classes("w-full")

    def open(self, shown: bool) -> None:
        """Make the scene and draw it (`shown`), or drop it."""
        if shown and self.scene is None:
            with self.holder:
                camera = ui.scene.perspective_camera(fov=45, near=5, far=20000)
                self.scene = ui.scene(width=800, height=420, grid=False, camera=camera, fps=IDLE_FPS,
                                      background_color="#f4f4f0").classes("w-full").style("height: 420px") \
                    .props("data-view=3d")
            self.scene.on("pointerenter", lambda: self.pace(ORBIT_FPS))
            self.scene.on("pointerleave", lambda: self.pace(IDLE_FPS))
            self.scene.move_camera(**camera_over(self.session.world))
            self.terrain_shown = None
            self.draw()
        elif not shown and self.scene is not None:
            self.scene.delete()
            self.scene = None

    def pace(self, fps: int) -> None:
        """Draw the open view `fps` times a second."""
        if self.scene is not None:
            self.scene.props["fps"] = fps

    def draw(self) -> None:
        """Draw the session's table with the page's marks, when open: the terrain when it changed, the troopers."""
        if self.scene is None:
            return
        world = self.session.world
        if self.terrain_shown is not world.pieces:
            self.terrain_shown = world.pieces
            self.scene.delete_objects(lambda thing: thing.name == "terrain")
            with self.scene:
                self.scene.gltf(f"{TERRAIN_URL}?v={self.session.version}").with_name("terrain")
        draw_troopers(self.scene, world, self.marks)
