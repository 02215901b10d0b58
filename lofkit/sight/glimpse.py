"""Yes-or-no sight for many pairs at once, as analyses (heatmaps, exposure) ask it: exact but without evidence
(`seen_pairs`), or a quick estimate from a few segments (`glimpse`).

docs/rules.md (LoF 4): "sight(A, B) holds when the 3 x 3 mm test succeeds in either direction"; `seen_pairs` runs that
test (`search`), `glimpse` only samples it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numba
import numpy as np

from lofkit.sight.casting import Progress
from lofkit.sight.kernel_args import kernel_array
from lofkit.sight.lattice import headings, key_eyes, template_axis, to_world
from lofkit.sight.search import run_search
from lofkit.sight.segments import Segments, blocked, inside_zero_visibility
from lofkit.sight.tolerances import END_TRIM, NONZERO

GLIMPSE_EYES = (0, 1, 6, 2, 3)
"""Key eyes a glimpse looks from: the top's front, centre, left and right, and the front at half height."""
GLIMPSE_POINTS = np.array([[0.0, 0.5], [0.0, 0.85], [0.0, 0.15], [-0.3, 0.5], [0.3, 0.5], [0.0, 0.97],
                           [-0.35, 0.9], [0.35, 0.9]])
"""Points a glimpse looks at, on the other's silhouette template: (across, up) as shares of its width and
height from the middle of its bottom edge."""


def seen_pairs(world, pairs: Sequence[tuple[int, int]], progress: Progress | None = None) -> np.ndarray:
    """Whether the troopers of each pair (n, 2) see each other, in pair order, without evidence: `search.sight`
    for analyses over many pairs."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    unique, back = np.unique(np.sort(pairs, axis=1), axis=0, return_inverse=True)
    search, _ = run_search(world, unique, progress, witnesses=False)
    return search.findings.has_witness[back.reshape(-1)]


def glimpse(world, pairs: Sequence[tuple[int, int]], progress: Progress | None = None) -> np.ndarray:
    """A quick estimate of sight for many pairs (the designer's `--quick`): segments from 5 key eyes of each
    volume to 8 points of the other's template, both ways; seen when one segment is clear. It takes one clear
    segment for a 3 x 3 mm patch and looks at 8 points instead of every patch, so it can differ from
    `seen_pairs` where a view is partly blocked; `benchmarks/bench_heatmap.py` measures how often. Only terrain
    blocks a glimpse (the analyses that use it have no troopers in the way)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    seen = np.zeros(len(pairs), dtype=bool)
    for forward in (True, False):
        for eye in GLIMPSE_EYES:
            rows = np.flatnonzero(~seen)
            if len(rows) == 0:
                return seen
            seen[rows] |= views_clear(world, pairs[rows], lambda r, h, e=eye: key_eyes(r, h)[e : e + 1],
                                      GLIMPSE_POINTS, forward)
            if progress:
                progress(len(rows) * len(GLIMPSE_POINTS))
    return seen


def views_clear(world, pairs: np.ndarray, eye_of, points: np.ndarray, forward: bool = True) -> np.ndarray:
    """Whether one of the segments from an eye of each pair's first volume (`forward`; else its second) to `points`
    of the other's template ((across, up) as shares of its width and height from the middle of its bottom edge) is
    clear; `eye_of(radius, height)` is the eye in the shooter's frame, (1, 3). Only terrain blocks."""
    v = world.troopers
    shooter, target = (pairs[:, 0], pairs[:, 1]) if forward else (pairs[:, 1], pairs[:, 0])
    # volume sizes as radius + i height: unique complex numbers, 10x faster than unique rows of a 2-column array
    sizes, size_of = np.unique(v.radius[shooter] + 1j * v.height[shooter], return_inverse=True)
    towards = headings(v, shooter, target)
    eyes = np.empty((len(pairs), 3))
    for size in range(len(sizes)):  # one eye per volume size of the shooters
        same = np.flatnonzero(size_of == size)
        local = eye_of(sizes[size].real, sizes[size].imag)
        eyes[same] = to_world(local, v.centre[shooter[same]], v.z[shooter[same]], towards[same])[:, 0]
    segments = _segments_to_templates(v, eyes, target, towards, points)
    in_zero_visibility = np.repeat(inside_zero_visibility(world, eyes), len(points))
    hit = blocked(world, segments, np.zeros((len(segments.lengths), 0), int), in_zero_visibility)
    return ~hit.reshape(len(pairs), -1).all(axis=1)


def _segments_to_templates(v, eyes: np.ndarray, target: np.ndarray, towards: np.ndarray,
                           points: np.ndarray) -> Segments:
    """The segments (`Segments.between`, trimmed by `END_TRIM`) from each eye (n, 3) to `points` of its target's
    template, turned to face the eye: n x points, eye by eye."""
    count, centres = len(eyes) * len(points), kernel_array(v.centre[target], float)
    origins, directions, lengths = np.empty((count, 3)), np.empty((count, 3)), np.empty(count)
    template_segments(eyes=kernel_array(eyes, float), centres=centres,
                      z=kernel_array(v.z[target], float), radius=kernel_array(v.radius[target], float),
                      height=kernel_array(v.height[target], float),
                      axis=kernel_array(template_axis(eyes, centres, towards), float),
                      points=kernel_array(points, float), trim=END_TRIM, floor=END_TRIM, nonzero=NONZERO,
                      origins=origins, directions=directions, lengths=lengths)
    return Segments(origins, directions, lengths)


@numba.njit(cache=True, nogil=True)
def template_segments(eyes, centres, z, radius, height, axis, points, trim, floor, nonzero, origins, directions,
                      lengths):
    """Into `origins`, `directions` and `lengths`: the segment from eye i to point j of its template ((across, up)
    as shares of its width and height from the middle of its bottom edge, up at least `floor`), at row
    i * len(points) + j, trimmed by `trim` at both ends; every number as numpy's `Segments.between` computes it."""
    for i in range(eyes.shape[0]):
        for j in range(points.shape[0]):
            row = i * points.shape[0] + j
            across = points[j, 0] * 2 * radius[i]
            end = (centres[i, 0] + across * axis[i, 0], centres[i, 1] + across * axis[i, 1],
                   z[i] + max(points[j, 1] * height[i], floor))
            span = (end[0] - eyes[i, 0], end[1] - eyes[i, 1], end[2] - eyes[i, 2])
            length = math.sqrt(span[0] * span[0] + span[1] * span[1] + span[2] * span[2])
            for k in range(3):
                directions[row, k] = span[k] / max(length, nonzero)
                origins[row, k] = eyes[i, k] + directions[row, k] * trim
            lengths[row] = max(length - 2 * trim, 0.0)
