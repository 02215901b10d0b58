"""The sight oracle: the 3 x 3 mm test of docs/rules.md ("Line of Fire", conditions 2 to 4) by brute force, written
from the rule alone, for the sight search (`lofkit.sight`) to be tested against.

It shares no code with the search: the eyes, the templates, their lattices and blocks, and the test of other
troopers' volumes are all worked out here, in plain loops. Of lofkit it uses only the world's data (the troopers'
volumes, the terrain pieces) and its ray scene of blocking terrain (`world.blocking_rays`, the ray back-end);
`tests/test_structure.py` checks that it imports nothing of `lofkit.sight`. It is simple, not fast: each eye of the
looker, both ways, against every lattice point of the other's template (after a look at a sparse grid of them that
every block holds a point of, `first_seen_square`), until some block is clear.

The rule, as docs/rules.md words it ("Line of Fire" and "The 3 x 3 mm precision contract"), and how it is sampled:
- Sight: a point E in one trooper's volume and a 3 x 3 mm square Q on the other's silhouette template such that
  every segment from E to Q is unobstructed; the pair has sight when that holds either way (mutual awareness).
- The template: the flat rectangle as wide as the base and as tall as the silhouette, standing on the base, through
  the base centre, turned to face E horizontally (across the line from the base centre to E, seen from above).
- The lattice: points at most 0.35 mm apart fitted to the template's width and height (the fewest equal intervals
  of at most 0.35 mm across and up, both edges included). A square is seen when every segment to a block of lattice
  points at least 3 mm on a side (the fewest whole intervals that span 3 mm) is clear. A template less than 3 mm
  wide or tall holds no square.
- The eyes, in the looker's frame (forward: along the line from its base centre to the other's; left; up from the
  underside of its base): eight key points, the top of the front edge, the top centre, the left and right sides at
  the top and halfway up, the front halfway up and at the bottom; then points every 2.5 mm over the half of the
  volume that faces the other trooper: on the front half of the side, the fewest equal steps of at most 2.5 mm
  along the half rim (from straight left to straight right) and up (bottom and top included); on the top, the
  crossings of a 2.5 mm grid laid from the rim (lines 2.5 mm apart from the back and from the right edge of the
  top) that are not behind the centre and lie strictly inside the rim (the rim is the side's).
- The ends: every segment stops 0.01 mm short of its eye and of its lattice point, and the lowest eyes and lattice
  points stand 0.01 mm above the underside of the base.
- Obstruction: blocking terrain (the ray scene, which holds the Zero Visibility zones); an eye inside a Zero
  Visibility zone sees nothing ("blocks into, out of and through itself"); and the inside of the volume of every
  other trooper that blocks LoF (the volumes' `blocks_lof`: not markers, not `moving` troopers). Never the pair
  themselves; touching is not passing through.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["SeenSquare", "Verdict", "first_seen_square", "sight_brute_force"]

SQUARE = 3.0
"""Side of the square to be seen, mm."""
LATTICE_SPACING = 0.35
"""Largest distance between neighbouring lattice points of a template, mm."""
EYE_SPACING = 2.5
"""Distance between the dense eyes, mm."""
END_GAP = 0.01
"""mm: segments stop this short of both ends; the lowest eyes and lattice points stand this high above the base."""
ROUNDING = 1e-9
"""Slack for float rounding when intervals are counted (an exact fit is a fit)."""
SAME_SPOT = 1e-9
"""Horizontal distance (mm) under which two points stand on one vertical line."""
THROUGH = 1e-9
"""Length (mm) a segment must run inside a volume to pass through it (less is touching)."""
PARALLEL = 1e-12
"""Below this, a segment's direction counts as vertical (horizontal share squared) or as level (its rise)."""


@dataclass(frozen=True)
class SeenSquare:
    """The evidence of a yes: the eye (in `eye_of`'s volume) and the seen 3 x 3 mm square on `patch_of`'s template
    (its centre and corners), in table mm."""

    eye_of: str
    patch_of: str
    eye: tuple[float, float, float]
    centre: tuple[float, float, float]
    corners: tuple[tuple[float, float, float], ...]


@dataclass(frozen=True)
class Verdict:
    """Sight between troopers `a` < `b` (indices), the same both ways, with the first square found when seen."""

    a: int
    b: int
    seen: bool
    witness: SeenSquare | None = None


def sight_brute_force(world, pairs: Sequence[tuple[int, int]]) -> dict[tuple[int, int], Verdict]:
    """{(a, b) with a < b: Verdict} for every unordered pair among `pairs` (trooper indices): a looks at b, then b at
    a, from every eye against every block of the other's template, stopping at the first clear block."""
    results = {}
    for a, b in sorted({(min(int(a), int(b)), max(int(a), int(b))) for a, b in pairs}):
        witness = None
        for looker, target in ((a, b), (b, a)):
            witness = first_seen_square(world, looker, target)
            if witness is not None:
                break
        results[a, b] = Verdict(a, b, witness is not None, witness)
    return results


def first_seen_square(world, looker: int, target: int) -> SeenSquare | None:
    """The first eye of `looker` (key eyes, then dense ones) that sees a block of `target`'s template, and the first
    such block (by column, then line), as a seen square; None when no eye sees any.

    An eye is passed over when the segments to its sentinels, the lattice points whose column and line are multiples
    of the block's span plus one, are all obstructed: a block spans that many consecutive columns and lines, so one
    of each is a multiple of it, and every block holds a sentinel."""
    v = world.troopers
    width, height = 2 * float(v.radius[target]), float(v.height[target])
    lattice = template_lattice(width, height)
    if lattice is None:
        return None
    cells, spacing, block = lattice
    eyes = eye_points(world, looker, target)
    blind = in_zero_visibility(world, eyes)
    for eye, in_smoke in zip(eyes, blind):
        if in_smoke:
            continue
        axis = template_axis(world, looker, target, eye)
        points = lattice_points(world, target, axis, cells, spacing)  # (columns, lines, 3)
        sentinels = points[:: block[0] + 1, :: block[1] + 1]
        if obstructed(world, looker, target, eye, sentinels.reshape(-1, 3)).all():
            continue  # every block holds a sentinel: none is clear
        blocked = obstructed(world, looker, target, eye, points.reshape(-1, 3)).reshape(points.shape[:2])
        if blocked.all():
            continue
        # block (c, l): lattice points c..c + block[0] across and l..l + block[1] up, all clear
        clear = ~sliding_window_view(blocked, (block[0] + 1, block[1] + 1)).any(axis=(2, 3))
        if clear.any():
            column, line = (int(k) for k in np.argwhere(clear)[0])
            return seen_square(world, looker, target, eye, axis, width, spacing, block, column, line)
    return None


def template_lattice(width: float, height: float):
    """The lattice of a template of `width` x `height` mm: intervals (across, up), their lengths (mm), and the
    intervals a block spans (across, up); None when the template holds no 3 x 3 mm square.

    >>> cells, spacing, block = template_lattice(25.0, 40.0)  # S2: 0.347 mm apart, blocks of 3.12 x 3.13 mm
    >>> cells, block
    ((72, 115), (9, 9))
    >>> template_lattice(70.0, 70.0)[1:]  # S8: the full 0.35 mm, blocks of 3.15 mm
    ((0.35, 0.35), (9, 9))
    >>> template_lattice(25.0, 2.9) is None
    True
    """
    if width < SQUARE - ROUNDING or height < SQUARE - ROUNDING:
        return None
    cells = tuple(max(1, math.ceil(side / LATTICE_SPACING - ROUNDING)) for side in (width, height))
    spacing = (width / cells[0], height / cells[1])
    block = tuple(math.ceil(SQUARE / step - ROUNDING) for step in spacing)
    if block[0] > cells[0] or block[1] > cells[1]:
        return None
    return cells, spacing, block


def heading(world, looker: int, target: int) -> np.ndarray:
    """Unit vector, seen from above, from the looker's base centre to the target's (+x when one is above the other)."""
    v = world.troopers
    towards = np.asarray(v.centre[target], dtype=float) - np.asarray(v.centre[looker], dtype=float)
    length = math.hypot(towards[0], towards[1])
    return towards / length if length > SAME_SPOT else np.array([1.0, 0.0])


def local_eyes(radius: float, height: float) -> list[tuple[float, float, float]]:
    """The looker's eyes in its own frame (forward, left, up from the underside of its base): the eight key eyes,
    then the dense ones (see the module's docstring).

    >>> eyes = local_eyes(12.5, 40.0)  # S2: 8 key eyes, 17 x 17 on the side, 39 on the top
    >>> len(eyes), eyes[0], eyes[-1]
    (336, (12.5, 0.0, 40.0), (10.0, 5.0, 40.0))
    """
    r, h = radius, height
    eyes = [(r, 0.0, h), (0.0, 0.0, h), (0.0, r, h), (0.0, -r, h), (0.0, r, h / 2), (0.0, -r, h / 2), (r, 0.0, h / 2),
            (r, 0.0, 0.0)]
    arcs = math.ceil(math.pi * r / EYE_SPACING)  # steps along the half rim, pi r long
    levels = math.ceil(h / EYE_SPACING)
    for i in range(arcs + 1):
        angle = -math.pi / 2 + math.pi * i / arcs
        for j in range(levels + 1):
            eyes.append((r * math.cos(angle), r * math.sin(angle), h * j / levels))
    grid = [-r + k * EYE_SPACING for k in range(int(2 * r / EYE_SPACING) + 2)]
    for forward in grid:
        for left in grid:
            if forward >= 0 and math.hypot(forward, left) < r:
                eyes.append((forward, left, h))
    return eyes


def eye_points(world, looker: int, target: int) -> np.ndarray:
    """The looker's eyes in table mm, facing the target (`local_eyes`), the lowest lifted by `END_GAP`: (k, 3)."""
    v = world.troopers
    forward = heading(world, looker, target)
    left = np.array([-forward[1], forward[0]])
    centre, bottom = np.asarray(v.centre[looker], dtype=float), float(v.z[looker])
    points = []
    for along, aside, up in local_eyes(float(v.radius[looker]), float(v.height[looker])):
        x, y = centre + along * forward + aside * left
        points.append((x, y, bottom + max(up, END_GAP)))
    return np.array(points)


def in_zero_visibility(world, points: np.ndarray) -> np.ndarray:
    """Whether each point (k, 3) lies inside a Zero Visibility zone that blocks LoF (inside the piece's solid)."""
    inside = np.zeros(len(points), dtype=bool)
    for piece in world.pieces:
        if piece.kind == "zero_visibility" and piece.blocks_lof:
            inside |= piece.holds(points)
    return inside


def template_axis(world, looker: int, target: int, eye: np.ndarray) -> np.ndarray:
    """Horizontal unit vector along the width of the target's template as `eye` sees it: across the line from the
    target's base centre to the eye (across the line from the looker when the eye stands right above the centre).
    Which way it points does not matter: the lattice is the same either way."""
    towards_eye = eye[:2] - np.asarray(world.troopers.centre[target], dtype=float)
    length = math.hypot(towards_eye[0], towards_eye[1])
    facing = towards_eye / length if length > SAME_SPOT else heading(world, looker, target)
    return np.array([-facing[1], facing[0]])


def lattice_points(world, target: int, axis: np.ndarray, cells: tuple[int, int],
                   spacing: tuple[float, float]) -> np.ndarray:
    """Every lattice point of the target's template along `axis`, in table mm: (cells[0] + 1, cells[1] + 1, 3),
    indexed [column from one side edge, line from the bottom]; the bottom line lifted by `END_GAP`."""
    v = world.troopers
    centre, bottom = np.asarray(v.centre[target], dtype=float), float(v.z[target])
    half = float(v.radius[target])
    across = -half + np.arange(cells[0] + 1) * spacing[0]
    up = bottom + np.maximum(np.arange(cells[1] + 1) * spacing[1], END_GAP)
    points = np.empty((cells[0] + 1, cells[1] + 1, 3))
    points[:, :, 0] = (centre[0] + across * axis[0])[:, None]
    points[:, :, 1] = (centre[1] + across * axis[1])[:, None]
    points[:, :, 2] = up[None, :]
    return points


def obstructed(world, looker: int, target: int, eye: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Whether each segment from `eye` to `ends` (n, 3), shortened by `END_GAP` at both ends, is obstructed: by
    blocking terrain, or by passing through the volume of a trooper other than the two that blocks LoF."""
    span = ends - eye
    length = np.linalg.norm(span, axis=1)
    direction = span / np.maximum(length, 1e-12)[:, None]
    origins = eye + direction * END_GAP
    lengths = np.maximum(length - 2 * END_GAP, 0.0)
    blocked = np.asarray(world.blocking_rays.occluded(origins, direction, lengths), dtype=bool)
    v = world.troopers
    low = np.minimum(eye, ends.min(axis=0))  # the box around the eye and its ends holds every segment
    high = np.maximum(eye, ends.max(axis=0))
    for other in range(len(v)):
        if other in (looker, target) or not v.blocks_lof[other]:
            continue
        centre, radius = np.asarray(v.centre[other], dtype=float), float(v.radius[other])
        bottom, top = float(v.z[other]), float(v.z[other] + v.height[other])
        if (np.any(centre - radius > high[:2]) or np.any(centre + radius < low[:2]) or bottom > high[2]
                or top < low[2]):
            continue
        open_ = np.flatnonzero(~blocked)
        blocked[open_] = passes_through(origins[open_], direction[open_], lengths[open_], centre, radius, bottom, top)
    return blocked


def passes_through(origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray, centre: np.ndarray,
                   radius: float, bottom: float, top: float) -> np.ndarray:
    """Whether each segment (origin + t direction, 0 <= t <= length) runs more than `THROUGH` mm inside the vertical
    cylinder of `radius` about `centre` from `bottom` to `top`: the stretch of t where it is within the radius
    (seen from above), within the heights, and on the segment."""
    start, stop = np.zeros(len(lengths)), lengths.copy()
    # within the radius: a t^2 + b t + c < 0
    offset = origins[:, :2] - centre
    a = np.einsum("ij,ij->i", directions[:, :2], directions[:, :2])
    b = 2 * np.einsum("ij,ij->i", offset, directions[:, :2])
    c = np.einsum("ij,ij->i", offset, offset) - radius**2
    vertical = a <= PARALLEL
    root = np.sqrt(np.maximum(b * b - 4 * a * c, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        first, last = (-b - root) / (2 * a), (-b + root) / (2 * a)
    never = np.where(vertical, c >= 0, b * b - 4 * a * c <= 0)
    start = np.where(vertical, start, np.maximum(start, first))
    stop = np.where(vertical, stop, np.minimum(stop, last))
    # within the heights: bottom < z < top
    rise, z = directions[:, 2], origins[:, 2]
    level = np.abs(rise) < PARALLEL
    with np.errstate(divide="ignore", invalid="ignore"):
        at_bottom, at_top = (bottom - z) / rise, (top - z) / rise
    never |= level & ~((z > bottom) & (z < top))
    start = np.where(level, start, np.maximum(start, np.minimum(at_bottom, at_top)))
    stop = np.where(level, stop, np.minimum(stop, np.maximum(at_bottom, at_top)))
    return ~never & (stop - start > THROUGH)


def seen_square(world, looker: int, target: int, eye: np.ndarray, axis: np.ndarray, width: float,
                spacing: tuple[float, float], block: tuple[int, int], column: int, line: int) -> SeenSquare:
    """The 3 x 3 mm square centred in the block whose lower-left lattice point is (column, line)."""
    v = world.troopers
    across = -width / 2 + (column + block[0] / 2) * spacing[0]
    up = float(v.z[target]) + (line + block[1] / 2) * spacing[1]
    centre = np.array([*(np.asarray(v.centre[target], dtype=float) + across * axis), up])
    half = SQUARE / 2
    corners = [centre + np.array([*(du * axis), dz]) for du, dz in ((-half, -half), (half, -half), (half, half),
                                                                      (-half, half))]
    return SeenSquare(v.ids[looker], v.ids[target], _xyz(eye), _xyz(centre), tuple(_xyz(c) for c in corners))


def _xyz(point) -> tuple[float, float, float]:
    return tuple(float(c) for c in point)
