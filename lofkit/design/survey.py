"""The search's sight: the designer's glimpse (`sight.glimpse`) widened to the views a layout search learns to
exploit.

A search does not only meet a coarse measure: it hunts for whatever that measure gets wrong. The glimpse looks from
5 eyes at the top and half height of each volume to 8 points of the other's template; on generated layouts the
exact rule (the 3 x 3 mm search) finds most of the views the glimpse misses low down, from the front of the base at
ground level to low patches, under a walkway's deck or a platform on legs, and from the sides at half height
(measured on generated tables: `benchmarks/bench_generate.py`). The survey adds those eyes and points: 10 eyes
(`SURVEY_EYES`, key eyes of `sight.lattice` and two more) to 16 points (`SURVEY_POINTS`) each way, one clear segment counting as
sight, as in the glimpse. Pairs are independent of each other, so any subset gives the same answers as the whole
(the incremental evaluation relies on it).
"""

from __future__ import annotations

import numpy as np

from lofkit.sight.glimpse import views_clear
from lofkit.sight.hidden import parts_hiding_pairs

SURVEY_EYES = np.array([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.5], [0.0, 1.0, 1.0],
                        [0.0, -1.0, 1.0], [0.0, 1.0, 0.5], [0.0, -1.0, 0.5], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0]])
"""Eyes in the shooter's frame (along the line to the target, to its left, up) as shares of the base's radius and
the volume's height: the key eyes of `sight.lattice` (the top's front, the base's front at ground level, the top's
centre, the front at half height, the sides at the top and at half height) and the sides at ground level."""
SURVEY_POINTS = np.array([[0.0, 0.5], [0.0, 0.15], [0.0, 0.85], [-0.3, 0.5], [0.3, 0.5], [0.0, 0.97],
                          [-0.35, 0.9], [0.35, 0.9], [0.0, 0.03], [-0.35, 0.1], [0.35, 0.1], [0.0, 0.3],
                          [-0.42, 0.25], [0.42, 0.25], [-0.42, 0.55], [0.42, 0.55]])
"""Points on the other's silhouette template: (across, up) as shares of its width and height from the middle of its
bottom edge; the glimpse's 8, then low ones and ones near the template's sides."""


def survey(world, pairs, cast_first: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Whether each pair (n, 2) of volumes sees the other: segments from `SURVEY_EYES` of each to `SURVEY_POINTS`
    of the other's template, both ways; seen when one is clear. Only terrain blocks (as in the glimpse). Also, for
    each pair, the index (into `world.pieces`) of a piece that alone proves it hidden, or -1.

    Pairs go through the exact search's proof of "hidden" (`hidden.parts_hiding_pairs`: one convex part of the
    terrain that every segment between prisms around the two volumes crosses); a pair so proven is hidden for
    every segment the survey would cast, so it is settled without casting any. On generated tables that is most
    hidden pairs, the ones that cost the most (every segment cast both ways): about 3 times faster in all. The
    proof comes first, unless `cast_first` (pairs that likely see each other: the first eye settles most of them,
    and proofs are spent on the rest only)."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    seen = np.zeros(len(pairs), dtype=bool)
    proof = np.full(len(pairs), -1, dtype=np.int64)
    rows = np.arange(len(pairs))
    for eye in range(len(SURVEY_EYES)):
        if eye == (1 if cast_first else 0) and len(world.blocking_pieces):
            rows = rows[~seen[rows]]
            parts = parts_hiding_pairs(world, pairs[rows]) if len(rows) else np.zeros(0, dtype=np.int64)
            proof[rows[parts >= 0]] = world.convex_parts.piece[parts[parts >= 0]]
            rows = rows[parts < 0]
        for forward in (True, False):
            rows = rows[~seen[rows]]
            if len(rows) == 0:
                return seen, proof
            seen[rows] = _cast(world, pairs[rows], eye, forward)
    return seen, proof


def _cast(world, pairs: np.ndarray, eye: int, forward: bool) -> np.ndarray:
    """Whether one of the segments from eye `eye` of each pair's first (`forward`) or second volume to the
    `SURVEY_POINTS` of the other's template is clear."""
    return views_clear(world, pairs, lambda radius, height: SURVEY_EYES[eye : eye + 1] * [radius, radius, height],
                       SURVEY_POINTS, forward)
