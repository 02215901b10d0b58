"""Pictures of a table and of LoF rulings, with pyvista (presentation only: it draws query results).

Headless by default: VTK's EGL back-end renders with no X display (Debian: libegl1 libegl-mesa0 libgl1-mesa-dri).
Colours: each side gets one colour (`side_colours`), terrain is coloured by kind (zones translucent), markers
are translucent with an opaque token, the front arc is a pale band on top of each volume. Camera presets: `top`
(orthographic, to scale, inch grid), `iso`, `eye` (from the witness eye, or the shooter's top centre, towards the
target) and `target` (the reverse).
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass, field

os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")

import numpy as np  # noqa: E402
import pyvista as pv  # noqa: E402
from PIL import Image  # noqa: E402

from lofkit.errors import LofkitError  # noqa: E402
from lofkit.exchange.output import write_bytes  # noqa: E402
from lofkit.rules.measure import ZOC_RADIUS  # noqa: E402
from lofkit.scene.palette import KIND_COLOURS, KIND_OPACITY, NEUTRAL_COLOUR, TABLE_COLOUR, side_colour  # noqa: E402
from lofkit.units import EPS, INCH  # noqa: E402

VIEWS = ("top", "iso", "eye", "target")
LAYERS = ("arcs", "zoc", "zones", "rays")
GRID_COLOUR = "#aaa48f"
HIGHLIGHT_COLOUR = "#ff9f1c"
SEEN_COLOUR = "#00c853"
BLOCKED_COLOUR = "#ff1744"
PNG_COMPRESSION = 1
"""zlib level of the pictures: a third of the default's time to write (about 0.15 s less for 1600 x 1200) for
files about 30% larger."""


def side_colours(world) -> dict[str, str]:
    """One colour per side, in order of first appearance in the scene."""
    sides = list(dict.fromkeys([z.side for z in world.scene.deployment_zones] + [s for s in world.troopers.sides if s]))
    return {side: side_colour(i) for i, side in enumerate(sides)}


def trooper_colour(world, i: int) -> str:
    v = world.troopers
    return NEUTRAL_COLOUR if v.neutral[i] else side_colours(world)[v.sides[i]]


def parse_size(text: str) -> tuple[int, int]:
    """'1200x900' -> (1200, 900)."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise LofkitError(f"size '{text}' is not WIDTHxHEIGHT in pixels, e.g. 1200x900") from None
    if not (16 <= width <= 8192 and 16 <= height <= 8192):
        raise LofkitError(f"size '{text}': give 16 to 8192 pixels each way")
    return width, height


@dataclass(frozen=True)
class Overlay:
    """What a ruling adds to a picture: the verdict (witness, blockers) and sampled segments, or a whole matrix."""

    verdict: object | None = None
    segments: object | None = None
    matrix: object | None = None
    highlight: tuple[str, ...] = field(default_factory=tuple)


def top_view_pixel(world, size: tuple[int, int], x: float, y: float) -> tuple[float, float]:
    """Where table point (x, y) lands in a `top` picture of `size` (column, row from the top-left corner)."""
    width, height = size
    scale = _top_scale(world, size)
    cx, cy = world.scene.table.width / 2, world.scene.table.depth / 2
    pixels_per_mm = height / (2 * scale)
    return width / 2 + (x - cx) * pixels_per_mm, height / 2 - (y - cy) * pixels_per_mm


def _top_scale(world, size: tuple[int, int]) -> float:
    """Half the visible height (mm) of the orthographic top view: the whole table fits with a 2% margin."""
    width, height = size
    table = world.scene.table
    return 1.02 * max(table.depth / 2, table.width / 2 * height / width)


def _cylinder(centre, z: float, radius: float, height: float) -> pv.PolyData:
    return pv.Cylinder(center=(centre[0], centre[1], z + height / 2), direction=(0, 0, 1), radius=radius,
                       height=height, resolution=48).triangulate()


def zoc_cylinder(volumes, i: int) -> pv.PolyData:
    """Trooper i's Zone of Control as `measure.in_zoc` reads it: radius base radius + 8", from 8" below the
    underside of its base to 8" above it."""
    return _cylinder(volumes.centre[i], volumes.z[i] - ZOC_RADIUS, volumes.radius[i] + ZOC_RADIUS, 2 * ZOC_RADIUS)


def _arc_band(centre, top: float, radius: float, facing_deg: float) -> pv.PolyData:
    """A pale band along the front half of the rim of a volume's top: its 180 degree front arc."""
    angles = np.radians(facing_deg) + np.linspace(-np.pi / 2, np.pi / 2, 25)
    outer = np.column_stack([radius * np.cos(angles), radius * np.sin(angles)])
    inner = outer[::-1] * 0.62
    ring = np.vstack([outer, inner]) + centre
    points = np.column_stack([ring, np.full(len(ring), top + 0.3)])
    n = len(outer)
    faces = np.hstack([[4, k, k + 1, 2 * n - k - 2, 2 * n - k - 1] for k in range(n - 1)])
    return pv.PolyData(points, faces)


def _mesh(piece) -> pv.PolyData:
    mesh = piece.mesh
    return pv.PolyData(np.asarray(mesh.vertices), np.hstack([np.full((len(mesh.faces), 1), 3), mesh.faces]))


def _lines(starts: np.ndarray, ends: np.ndarray) -> pv.PolyData:
    points = np.vstack([starts, ends])
    n = len(starts)
    return pv.PolyData(points, lines=np.column_stack([np.full(n, 2), np.arange(n), np.arange(n) + n]).ravel())


def table_texture(scene) -> pv.Texture:
    """The scene's `table.image` as a texture: row 0 of the picture as a viewer shows it (EXIF orientation applied)
    lies along the far edge (y = depth)."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    path = scene.resolve(scene.table.image)
    try:
        with Image.open(path) as image:
            pixels = np.asarray(ImageOps.exif_transpose(image).convert("RGB"))
    except (OSError, UnidentifiedImageError) as exc:
        raise LofkitError(f"table.image: cannot read '{path}' as a picture: {exc}") from None
    texture = pv.Texture(pixels)
    texture.interpolate = True
    return texture


def _table(plotter: pv.Plotter, world, grid: bool) -> None:
    """The table as a slab; with `table.image`, that picture covers the top exactly, unlit (a photo has its light)."""
    w, d = world.scene.table.width, world.scene.table.depth
    if world.scene.table.image is None:
        plotter.add_mesh(pv.Box((0, w, 0, d, -12, 0)), color=TABLE_COLOUR, ambient=0.35)
    else:
        plotter.add_mesh(pv.Box((0, w, 0, d, -12, -0.3)), color=TABLE_COLOUR, ambient=0.35)
        top = pv.Plane(center=(w / 2, d / 2, 0.0), direction=(0, 0, 1), i_size=w, j_size=d, i_resolution=1,
                       j_resolution=1)  # texture coordinates (0, 0) at (0, 0) and (1, 1) at (w, d)
        plotter.add_mesh(top, texture=table_texture(world.scene), lighting=False)
    if not grid:
        return
    xs, ys = np.arange(0, w + EPS, INCH), np.arange(0, d + EPS, INCH)
    starts = np.vstack([np.column_stack([xs, np.zeros_like(xs)]), np.column_stack([np.zeros_like(ys), ys])])
    ends = np.vstack([np.column_stack([xs, np.full_like(xs, d)]), np.column_stack([np.full_like(ys, w), ys])])
    lift = np.full((len(starts), 1), 0.05)
    plotter.add_mesh(_lines(np.hstack([starts, lift]), np.hstack([ends, lift])), color=GRID_COLOUR, line_width=1)


def _zones(plotter: pv.Plotter, world) -> None:
    colours = side_colours(world)
    for zone in world.scene.deployment_zones:
        outline = np.column_stack([np.array(zone.polygon), np.full(len(zone.polygon), 0.1)])
        face = pv.PolyData(outline, faces=np.hstack([[len(outline)], np.arange(len(outline))])).triangulate()
        plotter.add_mesh(face, color=colours[zone.side], opacity=0.22, lighting=False)


def _troopers(plotter: pv.Plotter, world, layers: set[str], hide: set[int], highlight: set[str],
              see_through: set[int]) -> None:
    """Volumes in their side's colour; `see_through` ones translucent (a witness square lies inside a volume)."""
    v = world.troopers
    for i in range(len(v)):
        if i in hide:
            continue
        colour = trooper_colour(world, i)
        body = _cylinder(v.centre[i], v.z[i], v.radius[i], v.height[i])
        if v.marker[i]:
            plotter.add_mesh(body, color=colour, opacity=0.35, ambient=0.4)
            plotter.add_mesh(_cylinder(v.centre[i], v.z[i], v.radius[i], 1.5), color=colour, ambient=0.4)
        else:
            plotter.add_mesh(body, color=colour, ambient=0.4, diffuse=0.6, opacity=0.55 if i in see_through else 1.0)
        if v.ids[i] in highlight:  # a blocker: wrapped in a translucent shell of the highlight colour
            shell = _cylinder(v.centre[i], v.z[i] - 0.5, v.radius[i] + 1.0, v.height[i] + 1.5)
            plotter.add_mesh(shell, color=HIGHLIGHT_COLOUR, opacity=0.5, ambient=0.5)
        if "arcs" in layers and not v.marker[i]:
            plotter.add_mesh(_arc_band(v.centre[i], v.top[i], v.radius[i], v.facing[i]), color="white",
                             ambient=1.0, diffuse=0.0)
        if "zoc" in layers:
            plotter.add_mesh(zoc_cylinder(v, i), color=colour, style="wireframe", opacity=0.25)


def _terrain(plotter: pv.Plotter, world, highlight: set[str]) -> None:
    for piece in world.pieces:
        colour, opacity = KIND_COLOURS[piece.kind], KIND_OPACITY[piece.kind]
        if piece.id in highlight:
            colour = HIGHLIGHT_COLOUR
        plotter.add_mesh(_mesh(piece), color=colour, opacity=opacity, ambient=0.3, smooth_shading=False)


def _ruling(plotter: pv.Plotter, world, overlay: Overlay, layers: set[str], from_eye: bool) -> None:
    """Witness bundle and seen square (green), the template's outline (white), blocked samples (red, ending where
    they hit) and, for a matrix, a line between every pair with LoF. Sampled segments are left out of views from a
    trooper's eye, where they would all radiate from the camera."""
    verdict = overlay.verdict
    if verdict is not None and verdict.witness is not None:
        w = verdict.witness
        corners = np.array(w.corners)
        eye = np.array(w.eye)
        bundle = np.vstack([corners, w.centre])
        plotter.add_mesh(_lines(np.tile(eye, (len(bundle), 1)), bundle), color=SEEN_COLOUR, line_width=3)
        patch = pv.PolyData(corners, faces=[4, 0, 1, 2, 3])
        plotter.add_mesh(patch, color=SEEN_COLOUR, ambient=1.0, diffuse=0.0)
        plotter.add_mesh(_lines(corners, np.roll(corners, -1, axis=0)), color=SEEN_COLOUR, line_width=5)
        across, up = (corners[1] - corners[0]) / 3.0, (corners[3] - corners[0]) / 3.0  # unit vectors on the template
        ring = np.array(w.centre) + 6.0 * (np.cos(np.linspace(0, 2 * np.pi, 33))[:, None] * across
                                           + np.sin(np.linspace(0, 2 * np.pi, 33))[:, None] * up)
        plotter.add_mesh(_lines(ring[:-1], ring[1:]), color=SEEN_COLOUR, line_width=3)  # a ring to find the square
        v = world.troopers
        target = v.index(w.patch_of)
        axis = (corners[1] - corners[0])[:2] / np.linalg.norm((corners[1] - corners[0])[:2])
        r, z0, z1 = v.radius[target], v.z[target], v.top[target]
        c = v.centre[target]
        frame = np.array([[*(c - r * axis), z0], [*(c + r * axis), z0], [*(c + r * axis), z1], [*(c - r * axis), z1]])
        plotter.add_mesh(_lines(frame, np.roll(frame, -1, axis=0)), color="white", line_width=2)
    if overlay.segments is not None and "rays" in layers and not from_eye:
        s = overlay.segments
        if s.blocked.any():
            plotter.add_mesh(_lines(s.starts[s.blocked], s.ends[s.blocked]), color=BLOCKED_COLOUR, line_width=1,
                             opacity=0.6)
        if (~s.blocked).any():
            plotter.add_mesh(_lines(s.starts[~s.blocked], s.ends[~s.blocked]), color=SEEN_COLOUR, line_width=1,
                             opacity=0.35)
    if overlay.matrix is not None:
        v = world.troopers
        lift = max([p.bounds[1, 2] for p in world.pieces] + [float(v.top.max(initial=0))]) + 2
        pairs = {tuple(sorted((v.index(x.shooter), v.index(x.target)))) for x in overlay.matrix.verdicts if x.lof}
        if pairs:
            a, b = np.array(sorted(pairs)).T
            z = np.full((len(a), 1), lift)
            plotter.add_mesh(_lines(np.hstack([v.centre[a], z]), np.hstack([v.centre[b], z])), color=SEEN_COLOUR,
                             line_width=2)


def _camera(plotter: pv.Plotter, world, view: str, size, shooter: int | None, target: int | None, overlay) -> None:
    v = world.troopers
    table = world.scene.table
    centre = np.array([table.width / 2, table.depth / 2, 0.0])
    if view == "top":
        plotter.enable_parallel_projection()
        plotter.camera.position = (*centre[:2], 3000.0)
        plotter.camera.focal_point = tuple(centre)
        plotter.camera.up = (0.0, 1.0, 0.0)
        plotter.camera.parallel_scale = _top_scale(world, size)
        plotter.camera.clipping_range = (1.0, 5000.0)
        return
    if view == "iso":
        focus = centre if shooter is None else np.append((v.centre[shooter] + v.centre[target]) / 2, 0.0)
        reach = max(table.width, table.depth) if shooter is None else max(
            400.0, 1.6 * float(np.linalg.norm(v.centre[shooter] - v.centre[target])))
        plotter.camera.position = tuple(focus + reach * np.array([-0.55, -0.85, 0.75]))
        plotter.camera.focal_point = tuple(focus)
        plotter.camera.up = (0.0, 0.0, 1.0)
        plotter.camera.view_angle = 35.0
        plotter.reset_camera_clipping_range()
        return
    looker, looked = (shooter, target) if view == "eye" else (target, shooter)
    witness = getattr(overlay.verdict, "witness", None)
    eye = np.array([*v.centre[looker], v.top[looker]])
    focus = np.array([*v.centre[looked], v.z[looked] + v.height[looked] / 2])
    if witness is not None and witness.eye_of == v.ids[looker]:
        eye, focus = np.array(witness.eye), np.array(witness.centre)
    elif witness is not None and witness.patch_of == v.ids[looker]:
        focus = np.array(witness.eye)
    plotter.camera.position = tuple(eye)
    plotter.camera.focal_point = tuple(focus)
    plotter.camera.up = (0.0, 0.0, 1.0)
    plotter.camera.view_angle = 30.0
    plotter.camera.clipping_range = (0.5, 4000.0)


def build_plotter(
    world,
    view: str = "iso",
    size: tuple[int, int] = (1200, 900),
    layers: set[str] | frozenset[str] = frozenset({"arcs", "zones"}),
    shooter: str | None = None,
    target: str | None = None,
    overlay: Overlay = Overlay(),
    off_screen: bool = True,
) -> pv.Plotter:
    """A plotter holding the table, ready to screenshot or show."""
    if view not in VIEWS:
        raise LofkitError(f"unknown view '{view}'; use one of {', '.join(VIEWS)}")
    unknown = set(layers) - set(LAYERS)
    if unknown:
        raise LofkitError(f"unknown layer(s) {', '.join(sorted(unknown))}; use any of {', '.join(LAYERS)}")
    if view in ("eye", "target") and (shooter is None or target is None):
        raise LofkitError(f"the {view} view needs --shooter and --target")
    v = world.troopers
    a = v.index(shooter) if shooter else None
    b = v.index(target) if target else None
    hide = {a} if view == "eye" else {b} if view == "target" else set()
    highlight = set(overlay.highlight)
    if overlay.verdict is not None:
        highlight |= {name for name, _ in overlay.verdict.blockers}
    plotter = pv.Plotter(off_screen=off_screen, window_size=list(size))
    plotter.set_background("#f4f6f8", top="#c9d6e3") if view != "top" else plotter.set_background("white")
    _table(plotter, world, grid=view == "top")
    if "zones" in layers:
        _zones(plotter, world)
    _terrain(plotter, world, highlight)
    witness = getattr(overlay.verdict, "witness", None)
    see_through = {v.index(witness.patch_of)} if witness is not None else set()
    _troopers(plotter, world, set(layers), hide, highlight, see_through)
    _ruling(plotter, world, overlay, set(layers), from_eye=view in ("eye", "target"))
    _camera(plotter, world, view, size, a, b, overlay)
    return plotter


def render_png(world, **options) -> bytes:
    """The PNG picture of `world` (options as `build_plotter`)."""
    plotter = build_plotter(world, **options)
    try:
        image = plotter.screenshot(None, return_img=True)
    finally:
        plotter.close()
    png = io.BytesIO()
    Image.fromarray(image).save(png, format="PNG", compress_level=PNG_COMPRESSION)
    return png.getvalue()


def render(world, path, **options) -> str:
    """Render a PNG picture to `path` (whatever the case of its extension; its folder is made if missing; a failure
    to write names it, exit 2); options as `build_plotter`."""
    write_bytes(path, render_png(world, **options))
    return str(path)
