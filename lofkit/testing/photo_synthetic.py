"""Synthetic photos with a known answer, for tests and examples: a table drawn from above with bases, terrain
footprints and corner markers, then photographed in perspective with noise (`synthetic_photo`); or a table with
miniatures, terrain and props rendered in 3D as a phone would photograph it (`perspective_photo`)."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from lofkit.exchange.photo import bases_in
from lofkit.exchange.photo_bases import FoundBase
from lofkit.exchange.photo_table import (
    MARKER_DICTIONARY,
    MARKER_IDS,
    camera_centre,
    fit_markers,
    map_points,
    marker_squares,
    table_corners,
    table_to_ortho,
)


@dataclass(frozen=True)
class SyntheticPhoto:
    """A photo of a drawn table: `table_to_photo` maps table mm to photo pixels exactly."""

    image: np.ndarray
    table_mm: tuple[float, float]
    table_to_photo: np.ndarray

    @property
    def corners_px(self) -> np.ndarray:
        """Where the table's corners (0, 0), (W, 0), (W, D), (0, D) are in the photo, exactly."""
        return map_points(self.table_to_photo, table_corners(*self.table_mm))


def table_top(table_mm: tuple[float, float], density: float, bases=(), boxes=(), markers=None,
              marker_turns=(0, 0, 0, 0), marker_ids=MARKER_IDS, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """The table drawn from above at `density` pixels per mm (see `synthetic_photo` for what is drawn), and the map
    from table mm to its pixels."""
    width, depth = table_mm
    rng = rng if rng is not None else np.random.default_rng(0)
    columns, rows = round(width * density), round(depth * density)
    sx = width / columns
    to_top = table_to_ortho(width, depth, columns, rows)
    mottle = cv2.resize(rng.normal(0, 12, (12, 12)), (columns, rows), interpolation=cv2.INTER_CUBIC)
    top = np.clip(np.array([92.0, 122.0, 104.0]) + mottle[..., None], 0, 255).astype(np.uint8)
    for x0, y0, x1, y1 in boxes:
        outline = map_points(to_top, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        cv2.fillPoly(top, [np.round(outline * 16).astype(np.int32)], (150, 150, 150), cv2.LINE_AA, shift=4)
    for x, y, diameter in bases:
        (c, r), = map_points(to_top, [[x, y]])
        for radius, colour, dx in ((diameter / 2, (38, 36, 34), 0.0), (0.35 * diameter, (70, 150, 205), 0.06)):
            centre = (round((c + dx * diameter / sx) * 16), round(r * 16))
            cv2.circle(top, centre, round((radius / sx - 0.5) * 16), colour, -1, cv2.LINE_AA, shift=4)
    if markers is not None:
        size, inset = markers
        dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICTIONARY)
        cells = 32
        mm = size / (6 * cells)  # sheet pixels are this many mm
        margin = round(inset / mm)
        for k, square in enumerate(marker_squares(width, depth, size, inset)):
            bits = cv2.aruco.generateImageMarker(dictionary, marker_ids[k], 6 * cells, borderBits=1)
            sheet = cv2.copyMakeBorder(np.rot90(bits, marker_turns[k]).copy(), margin, margin, margin, margin,
                                       cv2.BORDER_CONSTANT, value=255)
            n = sheet.shape[0]
            lo = square[3] - margin * mm
            sheet_to_table = np.array([[mm, 0, lo[0] + mm / 2], [0, -mm, lo[1] + n * mm - mm / 2], [0, 0, 1]])
            cv2.warpAffine(cv2.cvtColor(sheet, cv2.COLOR_GRAY2BGR), (to_top @ sheet_to_table)[:2], (columns, rows),
                           dst=top, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    return top, to_top


def synthetic_photo(
    table_mm: tuple[float, float],
    corners_px: np.ndarray,
    photo_size: tuple[int, int] = (1600, 1200),
    bases: tuple[tuple[float, float, float], ...] = (),
    boxes: tuple[tuple[float, float, float, float], ...] = (),
    markers: tuple[float, float] | None = None,
    marker_turns: tuple[int, int, int, int] = (0, 0, 0, 0),
    marker_ids: tuple[int, int, int, int] = MARKER_IDS,
    noise: float = 4.0,
    seed: int = 0,
) -> SyntheticPhoto:
    """Draw a table seen from above and photograph it: the table's corners land on `corners_px`.

    `bases` are (x, y, diameter) mm: dark discs with a lighter model on top; `boxes` (x0, y0, x1, y1) mm are grey
    terrain footprints; `markers` = (size, inset) puts a marker on each corner k, id `marker_ids[k]`, on a white
    sheet with a margin of `inset`, turned `marker_turns[k]` quarter turns. The mat is mottled green-grey, the floor
    around the table dark; Gaussian noise of `noise` grey levels is added to the photo."""
    width, depth = table_mm
    rng = np.random.default_rng(seed)
    corners_px = np.asarray(corners_px, dtype=float)
    table_to_photo, _ = cv2.findHomography(table_corners(width, depth), corners_px, 0)
    sides = np.linalg.norm(np.roll(corners_px, -1, axis=0) - corners_px, axis=1) / np.array([width, depth] * 2)
    density = 2.0 * float(sides.max())  # top-view pixels per mm: twice the photo's finest
    top, to_top = table_top(table_mm, density, bases, boxes, markers, marker_turns, marker_ids, rng)
    top = cv2.GaussianBlur(top, (0, 0), 1.0)
    width_px, height_px = photo_size
    floor = np.clip(55 + rng.normal(0, 6, (height_px, width_px, 1)), 0, 255).repeat(3, axis=2).astype(np.uint8)
    photo = cv2.warpPerspective(top, table_to_photo @ np.linalg.inv(to_top), (width_px, height_px), dst=floor,
                                flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    photo = np.clip(photo + rng.normal(0, noise, photo.shape), 0, 255).astype(np.uint8)
    return SyntheticPhoto(photo, (width, depth), table_to_photo)


@dataclass(frozen=True)
class Miniature:
    """A painted miniature on a round base (mm): base centre (x, y) and diameter, its underside at height `z` (on
    terrain when above 0); a body (a cylinder of `body` height) and a head (a ball of radius `head`) on top;
    `painted_base`: the base's top painted sand inside its black rim."""

    x: float
    y: float
    diameter: float
    body: float = 30.0
    head: float = 5.0
    painted_base: bool = False
    z: float = 0.0
    body_radius: float | None = None
    """The body's radius (mm); None: 0.16 of the base's diameter."""
    body_colour: tuple[int, int, int] = (60, 90, 160)
    head_colour: tuple[int, int, int] = (210, 170, 140)


@dataclass(frozen=True)
class Prop:
    """Scenery that is not a trooper (mm): an upright cylinder (a barrel, a token, a tank: `size` its diameter) or a
    box (a crate: `size` its side), centred on (x, y), standing at height `z`, `height` tall, of `colour` (RGB)."""

    kind: str
    x: float
    y: float
    size: float
    height: float
    colour: tuple[int, int, int] = (120, 80, 50)
    z: float = 0.0


BASE_HEIGHT = 3.0
"""Height (mm) of a miniature's base."""


@dataclass(frozen=True)
class PerspectivePhoto:
    """A rendered photo of a table with miniatures, seen from where a player stands; `rim_seen[k]` is the share of
    miniature k's base rim that the camera sees (other models and terrain hide the rest)."""

    image: np.ndarray
    table_mm: tuple[float, float]
    camera: np.ndarray
    miniatures: tuple[Miniature, ...]
    rim_seen: tuple[float, ...]


def _scene_meshes(miniatures, boxes, props=()):
    """(mesh, colour) of every base, body, head, terrain block and prop."""
    import pyvista as pv

    parts = []
    for m in miniatures:
        parts.append((pv.Cylinder(center=(m.x, m.y, m.z + BASE_HEIGHT / 2), direction=(0, 0, 1), radius=m.diameter / 2,
                                  height=BASE_HEIGHT, resolution=96), (28, 28, 30)))
        if m.painted_base:  # the top painted, the rim left black
            parts.append((pv.Disc(center=(m.x, m.y, m.z + BASE_HEIGHT + 0.02), inner=0, outer=0.45 * m.diameter,
                                  normal=(0, 0, 1), c_res=96), (170, 150, 110)))
        body_r = 0.16 * m.diameter if m.body_radius is None else m.body_radius
        parts.append((pv.Cylinder(center=(m.x, m.y, m.z + BASE_HEIGHT + m.body / 2), direction=(0, 0, 1),
                                  radius=body_r, height=m.body, resolution=48), m.body_colour))
        parts.append((pv.Sphere(radius=m.head, center=(m.x, m.y, m.z + BASE_HEIGHT + m.body + 0.8 * m.head)),
                      m.head_colour))
    for x0, y0, x1, y1, height in boxes:
        parts.append((pv.Box((x0, x1, y0, y1, 0, height)), (140, 140, 135)))
    for p in props:
        if p.kind == "box":
            half = p.size / 2
            mesh = pv.Box((p.x - half, p.x + half, p.y - half, p.y + half, p.z, p.z + p.height))
        else:
            mesh = pv.Cylinder(center=(p.x, p.y, p.z + p.height / 2), direction=(0, 0, 1), radius=p.size / 2,
                               height=p.height, resolution=96)
        parts.append((mesh, p.colour))
    return [(mesh.triangulate(), colour) for mesh, colour in parts]


def _rim_seen(miniatures, meshes, camera: np.ndarray, samples: int = 72) -> tuple[float, ...]:
    """Share of each base's top rim (points 0.05 mm outside it, at the base's top) with a clear line to the camera
    (one occlusion query for every rim point, through the ray back-end the sight search uses)."""
    import trimesh

    from lofkit.ray import backend

    rays = backend()([trimesh.Trimesh(m.points, m.faces.reshape(-1, 4)[:, 1:], process=False) for m, _ in meshes])
    angles = np.linspace(0, 2 * np.pi, samples, endpoint=False)
    reach = np.array([m.diameter / 2 + 0.05 for m in miniatures])[:, None]
    points = np.stack([np.array([m.x for m in miniatures])[:, None] + reach * np.cos(angles),
                       np.array([m.y for m in miniatures])[:, None] + reach * np.sin(angles),
                       np.broadcast_to(np.array([m.z + BASE_HEIGHT - 0.05 for m in miniatures])[:, None],
                                       reach.shape[:1] + angles.shape)], axis=-1).reshape(-1, 3)
    towards = camera - points
    lengths = np.linalg.norm(towards, axis=1)
    blocked = rays.occluded(points, towards / lengths[:, None], lengths).reshape(len(miniatures), samples)
    return tuple(float(share) for share in 1 - blocked.mean(axis=1))


def perspective_photo(
    table_mm: tuple[float, float],
    miniatures: tuple[Miniature, ...],
    boxes: tuple[tuple[float, float, float, float, float], ...] = (),
    distance: float = 1200.0,
    elevation: float = 55.0,
    azimuth: float = -90.0,
    size: tuple[int, int] = (4000, 3000),
    view_angle: float = 62.0,
    markers: tuple[float, float] = (60.0, 5.0),
    jpeg_quality: int = 85,
    seed: int = 0,
    props: tuple[Prop, ...] = (),
) -> PerspectivePhoto:
    """Render a table with `miniatures` and terrain `boxes` (x0, y0, x1, y1, height; mm) as a phone would photograph
    it: the camera `distance` mm from the table's centre, `elevation` degrees above the table, from `azimuth`
    (degrees; -90 is the near edge's side), `view_angle` degrees high; the mat with a marker in each corner
    (`markers` = size, inset), scenery `props`, and the picture JPEG-compressed at `jpeg_quality`."""
    import pyvista as pv

    width, depth = table_mm
    rng = np.random.default_rng(seed)
    top, _ = table_top(table_mm, 2.0, markers=markers, rng=rng)
    centre = np.array([width / 2, depth / 2, 0.0])
    e, a = np.radians(elevation), np.radians(azimuth)
    camera = centre + distance * np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])
    plotter = pv.Plotter(off_screen=True, window_size=list(size))
    plotter.set_background((40, 40, 44))
    mat = pv.Plane(center=(width / 2, depth / 2, 0), direction=(0, 0, 1), i_size=width, j_size=depth)
    plotter.add_mesh(mat, texture=pv.Texture(cv2.cvtColor(top, cv2.COLOR_BGR2RGB)), ambient=0.6,
                     diffuse=0.5)
    meshes = _scene_meshes(miniatures, boxes, props)
    for mesh, colour in meshes:
        plotter.add_mesh(mesh, color=colour, smooth_shading=True, specular=0.2)
    plotter.camera.position, plotter.camera.focal_point, plotter.camera.up = camera, centre, (0, 0, 1)
    plotter.camera.view_angle = view_angle
    plotter.camera.clipping_range = (10, 5 * distance)
    image = cv2.cvtColor(plotter.screenshot(return_img=True), cv2.COLOR_RGB2BGR)
    plotter.close()
    noise = rng.normal(0, 3.0, image.shape)
    noise += image
    noisy = np.clip(noise, 0, 255, out=noise).astype(np.uint8)
    _, jpeg = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
    return PerspectivePhoto(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), table_mm, camera, tuple(miniatures),
                            _rim_seen(miniatures, meshes, camera))


def found_in(shot: PerspectivePhoto, markers: tuple[float, float]) -> tuple[np.ndarray, list[FoundBase]]:
    """What `lofkit photo --markers` finds in a rendered photo: where the camera stood (table mm, from the `markers`,
    size and inset) and every round base (`photo.bases_in`)."""
    fit = fit_markers(shot.image, *shot.table_mm, *markers)
    camera = camera_centre(fit.homography, (shot.image.shape[1], shot.image.shape[0]))
    return camera, bases_in(shot.image, fit, shot.table_mm, camera)
