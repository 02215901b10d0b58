"""Casting the sight search's segments, from eye rows to lattice points of their templates.

docs/rules.md (LoF 3): "Segments are obstructed by: every terrain piece that blocks ... and the volume of every other
trooper, friendly, enemy or neutral. Never by: A and B themselves, markers, troopers that declared a movement".
Terrain goes to the world's ray back-end in large batches (`segments.blocked`); each pair is tested against the
troopers standing in its corridor only. Every segment cast is reported to `progress`, and the convex parts that
stop the stride-10 segments are remembered (`learning.LearnedParts`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from lofkit.sight.corridor import corridor_troopers
from lofkit.sight.eye_batch import EyeBatch, Views, placed_templates
from lofkit.sight.fine_pass_kernels import lattice_segments
from lofkit.sight.kernel_args import kernel_array
from lofkit.sight.lattice import template_points
from lofkit.sight.learning import LearnedParts
from lofkit.sight.segments import Segments, blocked, blocked_first_parts
from lofkit.sight.tolerances import END_TRIM

LEARN_EVERY = 8
"""One stride-10 segment in LEARN_EVERY is cast with a first-hit query, whose face says what blocked it; the others
with the cheaper occlusion query. An eighth of the segments ranks a pair's parts about as well as all of them."""

Progress = Callable[..., None]
"""`progress(cast, tested=0)`: segments a search cast (ray back-end), and segments it settled by compiled tests."""


def parts_within_reach(world, pairs: np.ndarray) -> np.ndarray:
    """For each pair (n, 2), whether a piece with convex parts overlaps the box around both volumes (which holds
    every segment between them): elsewhere a first-hit query has nothing to learn."""
    parts = world.convex_parts
    if len(parts.piece) == 0 or len(pairs) == 0:
        return np.zeros(len(pairs), dtype=bool)
    boxes = world.troopers.boxes
    low = np.minimum(boxes[pairs[:, 0], :3], boxes[pairs[:, 1], :3])
    high = np.maximum(boxes[pairs[:, 0], 3:], boxes[pairs[:, 1], 3:])
    pieces = np.array([np.ravel(world.pieces[i].bounds) for i in np.unique(parts.piece)])
    return np.all((pieces[None, :, :3] <= high[:, None]) & (pieces[None, :, 3:] >= low[:, None]), axis=2).any(axis=1)


class Caster:
    """Casts the segments of eye rows for pairs `pairs`: reports them to `progress`, learns into `learned`."""

    def __init__(self, world, pairs: np.ndarray, learned: LearnedParts, progress: Progress | None = None):
        self.world = world
        self.learned = learned
        self.progress = progress or (lambda cast, tested=0: None)
        self.cylinders = corridor_troopers(world, pairs)
        self.can_learn = parts_within_reach(world, pairs)

    def blocked(self, rows: EyeBatch, owner: np.ndarray, segments: Segments, learn: bool = False) -> np.ndarray:
        """Whether each segment, from the eye of row `owner[s]`, is obstructed (terrain, smoke, other troopers).
        With `learn`, the convex parts that block them are remembered as candidates for the pair's next eyes."""
        in_zero_visibility = (rows.in_zero_visibility[owner] if rows.in_zero_visibility.any()
                              else np.zeros(len(owner), dtype=bool))
        cylinders = self.cylinders[rows.pair[owner]]
        learning = np.zeros(len(owner), dtype=bool)
        if learn:
            learning[::LEARN_EVERY] = self.can_learn[rows.pair[owner[::LEARN_EVERY]]]
        if not learning.any():  # the segments go as they are, not copied
            hit = blocked(self.world, segments, cylinders, in_zero_visibility)
        else:
            hit = np.empty(len(owner), dtype=bool)
            hit[learning], part = blocked_first_parts(self.world, segments.take(learning), cylinders[learning],
                                                      in_zero_visibility[learning])
            self.learned.learn(rows, owner[learning], part)
            rest = ~learning
            hit[rest] = blocked(self.world, segments.take(rest), cylinders[rest], in_zero_visibility[rest])
        self.progress(len(hit))
        return hit

    def segments_blocked(self, views: Views, which: np.ndarray, cols: np.ndarray, lines: np.ndarray,
                         todo: np.ndarray | None = None) -> np.ndarray:
        """Whether the segments from the eyes of rows `which` to their lattice points cols x lines are blocked
        (only where `todo`; elsewhere False). `cols`/`lines`: shared (c,)/(r,) or per row (n, c)/(n, r)."""
        v, rows = self.world.troopers, views.rows
        points = template_points(views.lattice, views.axis[which], v.centre[rows.target[which]],
                                 v.z[rows.target[which]], cols, lines)
        todo = np.ones(points.shape[:3], dtype=bool) if todo is None else todo
        owner = np.broadcast_to(np.arange(len(which))[:, None, None], todo.shape)[todo]
        eyes = rows.eye[which]
        result = np.zeros(todo.shape, dtype=bool)
        result[todo] = self.blocked(rows.take(which), owner, Segments.between(eyes[owner], points[todo]))
        return result

    def cast(self, views: Views, known_blocked: np.ndarray, settled: np.ndarray, which: np.ndarray, cols: np.ndarray,
             lines: np.ndarray, wanted: np.ndarray | None = None) -> None:
        """Cast the segments of rows `which` to lattice points cols x lines not yet `settled` (and `wanted`, (n, c, r),
        when given); mark the blocked ones in `known_blocked`, and those cast in `settled` (both (n, c, r) over every
        lattice point, C-contiguous). `cols`/`lines`: shared (c,)/(r,) or per row (n, c)/(n, r)."""
        n, rows = len(which), views.rows
        cols = kernel_array(np.broadcast_to(cols, (n, np.shape(cols)[-1])))
        lines = kernel_array(np.broadcast_to(lines, (n, np.shape(lines)[-1])))
        wanted = np.ones((n, cols.shape[1], lines.shape[1]), dtype=bool) if wanted is None else kernel_array(wanted)
        size = int(np.count_nonzero(wanted))
        out = np.empty((size, 3)), np.empty((size, 3)), np.empty(size)
        templates = placed_templates(self.world, views.lattice, rows.target[which], views.axis[which])
        count, flat = lattice_segments(rows.eye[which], templates, which, cols, lines, wanted, settled, END_TRIM, out)
        if count:
            owner = flat // (known_blocked.shape[1] * known_blocked.shape[2])
            hit = self.blocked(rows, owner, Segments(*(a[:count] for a in out)))
            known_blocked.reshape(-1)[flat[hit]] = True
