"""What an eye provably cannot see, before any segment is cast: the compiled screen of the sight search.

docs/rules.md (LoF 2): sight needs a square Q "such that every segment from E to Q is unobstructed". A convex part
crossed by every segment from an eye to a region of its template hides that region (the convexity lemma of
`hidden.parts_crossing_every_segment`), so no segment to it needs casting. `prove_hidden_before_casting` tries each
eye's candidate parts against its whole template, against each of its `PATCHES`, and against each sampled segment
(`kernels.screen_eyes`).
"""

from __future__ import annotations

import numpy as np

from lofkit.sight.eye_batch import EyeBatch, placed_templates
from lofkit.sight.kernel_args import kernel_array
from lofkit.sight.kernels import screen_eyes
from lofkit.sight.lattice import Lattice
from lofkit.sight.segments import Segments
from lofkit.sight.tolerances import END_TRIM

PATCHES = (2, 2)
"""Patches of a template (across, up) that an eye tries to prove it cannot see before it casts segments there. Each
patch costs about what a stride-10 segment's own tests cost, so more patches only pay where they spare more
segments."""


def _patches(lattice: Lattice) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """The template's `PATCHES`: lattice indices of their edges across and up, and their (across, up) numbers."""
    cw, ch = lattice.cells
    across = np.linspace(0, cw, PATCHES[0] + 1).round().astype(int)
    up = np.linspace(0, ch, PATCHES[1] + 1).round().astype(int)
    return across, up, [(i, j) for i in range(PATCHES[0]) for j in range(PATCHES[1])]


def in_patches(lattice: Lattice, proved: np.ndarray, cols: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """Whether each lattice point cols x lines (ascending) lies in a patch its row proved it cannot see: (n, c, r)."""
    across, up, patches = _patches(lattice)
    inside = np.zeros((len(proved), len(cols), len(lines)), dtype=bool)
    for k, (i, j) in enumerate(patches):
        rows = np.flatnonzero(proved[:, k])
        if len(rows):  # a patch's points are a run of cols by a run of lines
            c0, c1 = np.searchsorted(cols, across[i]), np.searchsorted(cols, across[i + 1], side="right")
            l0, l1 = np.searchsorted(lines, up[j]), np.searchsorted(lines, up[j + 1], side="right")
            inside[rows, c0:c1, l0:l1] = True
    return inside


def prove_hidden_before_casting(world, lattice: Lattice, rows: EyeBatch, axis: np.ndarray, cols: np.ndarray,
                                lines: np.ndarray, candidates: np.ndarray
                                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, Segments]:
    """What each row's eye provably cannot see, without a segment cast (`kernels.screen_eyes`), using its
    `candidates` (n, k) (convex parts, -1 for none): its whole template (n,), each of the template's patches
    (n, patches; see `_patches`), and which of its segments to lattice points cols x lines are blocked (n, c, r);
    and the other segments of eyes not hidden, in row-major order, to cast."""
    across, up, patches = _patches(lattice)
    n, points = len(rows.pair), len(cols) * len(lines)
    hidden, proved = np.zeros(n, dtype=bool), np.zeros((n, len(patches)), dtype=bool)
    blocked_points = np.zeros((n, len(cols), len(lines)), dtype=bool)
    origins, directions, lengths = np.empty((n * points, 3)), np.empty((n * points, 3)), np.empty(n * points)
    parts = world.convex_parts
    templates = placed_templates(world, lattice, rows.target, axis)
    cast = screen_eyes(eyes=np.ascontiguousarray(rows.eye[:, None, :]), centres=templates.centres, z=templates.z,
                       axis=templates.axis, half_width=templates.half_width, pitch=templates.pitch,
                       cells=templates.cells, across=across, up=up, cols=cols, lines=lines,
                       candidates=kernel_array(candidates), normals=parts.normals, offsets=parts.offsets,
                       faces=parts.faces, bounds=parts.bounds, trim=END_TRIM, hidden=hidden, proved=proved,
                       blocked=blocked_points, origins=origins, directions=directions, lengths=lengths)
    return hidden, proved, blocked_points, Segments(origins[:cast], directions[:cast], lengths[:cast])
