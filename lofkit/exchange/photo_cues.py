"""What tells a base on the table from other round outlines on an orthophoto: three measurements of each circle
found, taken on the picture's colours (CIE Lab, OpenCV's 8-bit scale) around it.

- `rim`: how dark its rim is. Bases have a black rim (the side, and the top's edge); a head, a barrel, a coloured
  token has not. The darkest point of a thin band just inside the outline, on each of RIM_RAYS rays, median over
  the rays, as a share of the table's lightness.
- `ground`: how much of what lies just outside its near side (towards the point under the camera) is the mat. A
  base stands on the table, so the table shows there; a token on a roof shows the roof, a barrel's top or a body's
  top shows its own side going down towards the camera, a head its body. The share of rays on the near side whose
  band outside the outline has the table's colour (`mat_colour`) or lies on a base it touches (`touching_circles`),
  or on the part facing the camera, if less; counted where the rim shows (RIM_SHOWN: what stands in front of a base
  hides the table beyond it).
- `figure`: how different the middle is from the base's own top. A base has a figure standing in its middle, which
  the orthophoto stretches away from the camera from the base's centre; a flat token, a barrel's lid or mouth, a
  ball are one colour across. The colour distance between the middle (the centre and on from it, away from the
  camera) and the top seen just inside the near rim.
- `hollow`: how much lighter its edge is than its inside. A base's edge is its darkest part (the black rim) and
  something stands in its middle; the edge of something hollow (an open barrel, a pipe, a crater) is a lit wall
  round an inside dark throughout. The lightest point of the outer band on each ray (the wall, whether at the
  outline or behind the shaded sliver of its side), median over the rays, less the lightness that all but a few
  points of the inner disc stay under, as a share of the table's lightness.

Each is a number per circle; `photo_bases.judge` decides. The mat is told by its hue (light and shade change its
lightness much more); a figure by its colour and lightness alike (a grey figure in shade on a black base differs
from it in lightness only).
"""

from __future__ import annotations

import cv2
import numpy as np

RIM_RAYS = 72
"""Rays around a circle for each measurement (every 5 degrees)."""
RIM_PERCENTILE = 50
RIM_BAND_MM = (0.4, 2.0)
"""The rim band: this far inside the outline (mm). A base's black edge and its near side are 1-3 mm wide."""
OUTSIDE_BAND_MM = (1.5, 4.5)
"""The band outside the outline looked at for the table (mm): clear of the outline's blur, within a base's gap."""
TOUCH_MM = 1.0
"""Two circles at most this far apart or into each other (mm, rim to rim) touch: bases in base contact, each
measured to about half a millimetre..."""
IN_LINE_DEGREES = 10.0
"""...unless one lies within this angle of the line from the other towards the camera: the other may then be its
own top, which the orthophoto pushes away from the camera (a head over its base, a barrel's top over its foot)..."""
WIDER_MM = 2.0
"""...and is no wider than it by more than this (mm, twice a base's measurement): a head is narrower than the base
it stands over, and a barrel's top as wide as its foot, so a wider circle is not the top of the one before it..."""
TALLEST_MM = 120.0
"""...and the top would stand no higher than this (mm) to be pushed that far: the tallest figure on a base (a TAG)."""
MIN_FREE_RIM = 0.5
"""A circle's rim that runs into a base it touches is left out of the share its fit follows (`rim_support`) when at
least this share of its rim is left."""
RIM_SHOWN = 0.3
"""The table is looked for beyond the near side, and beyond the part facing the camera, only on the rays where the rim
shows (the circle's fit follows it) or runs into a base it touches, when they are at least this share of that side:
a wall or a model standing in front of a base hides its rim and the table beyond it alike, and says nothing of where
the base stands. A roof round a token, a body under a head, a barrel's side under its top lie beyond a rim in sight.
With fewer, every ray counts: a head or a token judged on its few rays in sight, or none, is often let through."""
NEAR_SIDE_DEGREES = 80.0
"""The near side: rays within this angle of the direction towards the point under the camera..."""
FACING_DEGREES = 20.0
"""...and, looked at on its own, the part facing the camera: a head's body joins it there, however thin."""
TOP_BAND = (0.15, 0.3)
"""The base's top is sampled this share of the radius in from its near edge (the near rim less the side seen inside
it, `wall`), on the near side (within NEAR_TOP_DEGREES): inside the rim, clear of the figure's foot."""
NEAR_TOP_DEGREES = 50.0
"""(The figure leans away from the camera on the orthophoto, so the top is looked for on the camera's side.)"""
EDGE_FROM_MM = 0.6
EDGE_TO = 0.3
"""The outer band for `hollow`: from this far inside the outline (mm, clear of its blur with what lies beyond) to
this share of the radius in (a barrel's wall is 0.15 of it, behind a sliver of its side up to as wide)..."""
INSIDE_DISC = 0.6
INSIDE_PERCENTILE = 95
"""...and the inner disc, to this share of the radius (a barrel's mouth is 0.85 of it), and the percentile of its
lightness taken (a figure or a painted top shows in more than 5% of it)."""
MIDDLE_REACH = 0.45
"""The middle is sampled from the centre to this share of the radius away from the camera (a figure's foot and what
the orthophoto stretches of it), and 0.1 of the radius to either side."""
MAT_SHRINK = 16
"""The mat's colour is the median of every this-many-th pixel along each axis (plenty for a median)."""
MATCHES_MAT = 8.0
"""A colour within this distance (`colour_distance`, lightness weighed MAT_LIGHTNESS) of the mat's is the mat:
above the spread of a mat's hue, below the step to a grey roof or a painted side (15 and more)."""
MAT_LIGHTNESS = 0.2
"""The mat is told by its hue: its lightness varies with the light, the mottle and the halo a phone's sharpening
draws around a black base; it counts a fifth."""
FIGURE_PERCENTILE = 75
"""The middle's difference is the one this share (%) of its samples reach: a figure may fill only part of it (a
thin body, a helmet as dark as the base over the rest), a flat top reaches little anywhere."""
SAMPLE_ROW = 4096
"""Samples are taken this many to a row of the map `cv2.remap` reads."""
NEAR_CAMERA_PX = 1.0
"""A circle whose centre is closer than this (pixels) to the point under the camera has no near side: all rays are."""


def colour_distance(lab: np.ndarray, reference: np.ndarray, lightness: float = 1.0) -> np.ndarray:
    """Distance between Lab colours (last axis), lightness weighed by `lightness`."""
    delta = lab.astype(np.float32) - reference.astype(np.float32)
    return np.sqrt((lightness * delta[..., 0]) ** 2 + delta[..., 1] ** 2 + delta[..., 2] ** 2)


def mat_colour(lab: np.ndarray) -> np.ndarray:
    """The table's own colour: the median over the whole orthophoto (MAT_SHRINK times shrunk), black outside the
    photo left out. A table is mostly bare mat; a roof, even one filling the space around a trooper on it, is not."""
    small = lab[::MAT_SHRINK, ::MAT_SHRINK].reshape(-1, 3)
    inside = small[small[:, 0] > 0]
    return np.median(inside if len(inside) else small, axis=0).astype(np.float32)


def _sample(image: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """`image` (float32) at sub-pixel points of any shape (laid out SAMPLE_ROW to a row: `cv2.remap`'s maps are
    under 32768 on a side)."""
    shape, count = xs.shape, xs.size
    rows = -(-count // SAMPLE_ROW)
    maps = [np.resize(np.asarray(v, np.float32).reshape(-1), rows * SAMPLE_ROW).reshape(rows, SAMPLE_ROW)
            for v in (xs, ys)]
    values = cv2.remap(image, *maps, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return values.reshape(rows * SAMPLE_ROW, *image.shape[2:])[:count].reshape(*shape, *image.shape[2:])


def touching_circles(circles: np.ndarray, foot: np.ndarray | None, scale: float,
                     camera_height: float | None = None) -> np.ndarray:
    """(N, N) bool: which circles (N, 3: x, y, radius in pixels, `scale` mm per pixel) each touches (TOUCH_MM), not
    counting one in line towards the camera, `foot` (IN_LINE_DEGREES), unless it is wider than that one (WIDER_MM)
    or, the camera `camera_height` mm above the table, its top would stand higher than TALLEST_MM: a top at height h
    over a foot d from `foot` is pushed h d / (H - h) away from it."""
    x, y, r = circles[:, 0], circles[:, 1], circles[:, 2]
    apart = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :])
    touching = np.abs(apart - r[:, None] - r[None, :]) <= TOUCH_MM / scale
    np.fill_diagonal(touching, False)
    if foot is not None:
        camera = np.arctan2(foot[1] - y, foot[0] - x)[:, None]
        towards = np.arctan2(y[None, :] - y[:, None], x[None, :] - x[:, None]) - camera
        in_line = np.abs((towards + np.pi) % (2 * np.pi) - np.pi) <= np.radians(IN_LINE_DEGREES)
        not_its_top = 2 * (r[:, None] - r[None, :]) * scale > WIDER_MM
        if camera_height is not None:
            height = camera_height * apart / (np.hypot(x - foot[0], y - foot[1])[None, :] + apart)
            not_its_top |= height > TALLEST_MM
        touching &= ~in_line | not_its_top
    return touching


def into_neighbours(circles: np.ndarray, touching: np.ndarray, scale: float, rays: int) -> np.ndarray:
    """(N, rays) bool: which of `rays` rays from each circle's centre (from angle 0; circles (N, 3): x, y, radius in
    pixels, `scale` mm per pixel) run, in the band outside its rim where the table is looked for, into a circle it
    touches (`touching_circles`)."""
    x, y, r = circles[:, 0], circles[:, 1], circles[:, 2]
    angles = np.linspace(0, 2 * np.pi, rays, endpoint=False)
    reach = r[:, None] + np.mean(OUTSIDE_BAND_MM) / scale
    bx, by = x[:, None] + np.cos(angles) * reach, y[:, None] + np.sin(angles) * reach  # (N, rays)
    into = np.zeros((len(circles), rays), dtype=bool)
    for i in np.flatnonzero(touching.any(axis=1)):
        j = np.flatnonzero(touching[i])
        into[i] = (np.hypot(bx[i][:, None] - x[j], by[i][:, None] - y[j]) <= r[j]).any(axis=1)
    return into


def rim_support(follows: np.ndarray, beside: np.ndarray) -> np.ndarray:
    """The share of each circle's rim its fit follows (`follows`, (N, rays)), leaving out the rays that run into a
    base it touches (`beside`, (N, rays), `into_neighbours`) when at least MIN_FREE_RIM of them are left."""
    free = ~beside
    enough = free.sum(axis=1) >= MIN_FREE_RIM * follows.shape[1]
    free[~enough] = True
    return (follows & free).sum(axis=1) / free.sum(axis=1)


def cues(lab: np.ndarray, mat: np.ndarray, circles: np.ndarray, foot: np.ndarray | None, wall: np.ndarray,
         scale: float, touching: np.ndarray, shows: np.ndarray | None = None
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(rim, ground, figure, hollow) for each circle (N, 3: x, y, radius in pixels of the Lab picture `lab`, `scale`
    mm per pixel; `mat`: the table's colour, `mat_colour`); `foot` is the point under the camera in pixels (None:
    the photo was taken from straight above, and every side is near); `wall` is how far (pixels) a base's side shows
    inside its near rim there, its top's near edge pushed away from the camera; `touching`: the circles each
    touches (`touching_circles`); `shows` (N, RIM_RAYS) bool: on which rays each circle's rim shows (None: all).
    """
    if len(circles) == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0)
    lab = lab.astype(np.float32)
    x, y, r = (circles[:, k, None] for k in range(3))
    angles = np.linspace(0, 2 * np.pi, RIM_RAYS, endpoint=False)[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    if foot is None:
        towards, sided = np.zeros((len(circles), 1)), np.zeros((len(circles), 1), dtype=bool)
    else:
        towards, sided = np.arctan2(foot[1] - y, foot[0] - x), np.hypot(foot[0] - x, foot[1] - y) > NEAR_CAMERA_PX
    off = np.abs((angles - towards + np.pi) % (2 * np.pi) - np.pi)  # each ray's angle from the camera's side

    def on_rays(reach):
        """Lab samples (N, rays, depths) on every ray at radii `reach` (N, 1, depths; pixels)."""
        return _sample(lab, x[:, :, None] + cos[:, :, None] * reach, y[:, :, None] + sin[:, :, None] * reach)

    def ring(reach_mm):
        """Lab samples (N, rays, depths) at radii r + reach (mm)."""
        return on_rays(r[:, :, None] + np.asarray(reach_mm)[None, None, :] / scale)

    near = np.where(sided, off <= np.radians(NEAR_SIDE_DEGREES), True)
    darkest = np.where(near, ring(-np.linspace(*RIM_BAND_MM, 5))[..., 0].min(axis=2), np.nan)
    rim = np.nanpercentile(darkest, RIM_PERCENTILE, axis=1) / max(float(mat[0]), 1.0)

    outside = np.median(ring(np.linspace(*OUTSIDE_BAND_MM, 5)), axis=2)  # (N, rays, 3)
    is_mat = colour_distance(outside, mat, lightness=MAT_LIGHTNESS) < MATCHES_MAT
    beside = into_neighbours(circles, touching, scale, RIM_RAYS)
    is_mat |= beside
    in_sight = True if shows is None else shows | beside
    ground = np.ones(len(circles))
    for degrees in (NEAR_SIDE_DEGREES, FACING_DEGREES):
        near = np.where(sided, off <= np.radians(degrees), True)
        looked = near & in_sight
        near = np.where((looked.sum(axis=1) >= RIM_SHOWN * near.sum(axis=1))[:, None], looked, near)
        ground = np.minimum(ground, (is_mat & near).sum(axis=1) / near.sum(axis=1))

    inner = np.maximum(r - np.asarray(wall, dtype=float).reshape(-1, 1), MIDDLE_REACH * r)  # the top's near edge
    top_reach = inner[:, :, None] - np.linspace(*TOP_BAND, 4)[None, None, :] * r[:, :, None]
    top = on_rays(top_reach)
    top_side = np.where(sided, off <= np.radians(NEAR_TOP_DEGREES), True)
    top_colour = np.nanmedian(np.where(top_side[:, :, None, None], top, np.nan), axis=(1, 2))  # (N, 3)
    away = towards[:, 0] + np.pi
    along = np.linspace(0, MIDDLE_REACH, 6)[None, :, None] * r[:, :, None]
    across = np.array([-0.1, 0.0, 0.1])[None, None, :] * r[:, :, None]
    ux, uy = np.cos(away)[:, None, None], np.sin(away)[:, None, None]
    middle = _sample(lab, x[:, :, None] + ux * along - uy * across, y[:, :, None] + uy * along + ux * across)
    distance = colour_distance(middle, top_colour[:, None, None, :])
    figure = np.percentile(distance.reshape(len(circles), -1), FIGURE_PERCENTILE, axis=1)

    band = np.linspace(0, 1, 8)[None, None, :]
    outer = on_rays(r[:, :, None] - EDGE_FROM_MM / scale - (EDGE_TO * r[:, :, None] - EDGE_FROM_MM / scale) * band)
    inside = on_rays(INSIDE_DISC * r[:, :, None] * band)[..., 0].reshape(len(circles), -1)
    hollow = (np.median(outer[..., 0].max(axis=2), axis=1) - np.percentile(inside, INSIDE_PERCENTILE, axis=1)) / max(
        float(mat[0]), 1.0)
    return rim, ground, figure, hollow
