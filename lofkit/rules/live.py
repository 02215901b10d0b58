"""The LoF matrix of a table that changes one trooper at a time (the workbench keeps one): only what can change is
recomputed.

A verdict between A and B depends on A, B, the terrain and the troopers in their corridor
(`obstruction.in_corridor`: sight is the only part of a verdict that other troopers touch). So when troopers
change (the one moved, and any whose `facing_towards` follows it), the pairs that include one of them are
recomputed, and so are the pairs whose corridor a changed trooper is in, except where sight cannot change: a
trooper that only leaves a corridor cannot hide a pair that saw, and one that only enters it cannot reveal a pair
that did not ("every segment ... unobstructed": an obstruction more or less only ever takes sight away or gives it
back). Every other verdict stands as it was. `LiveMatrix.result.to_dict()` is then exactly `lof.matrix`'s on the
changed table (a test checks it after random moves). A matrix's answer shows no evidence, so none is gathered for
it (no blocker counts; a kept verdict keeps its earlier witness): ask `check` for the evidence of a pair.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from lofkit.rules.lof import every_ordered_pair, matrix, verdicts
from lofkit.rules.results import LofVerdict, MatrixResult
from lofkit.sight.obstruction import in_corridor


def changed_troopers(before, after) -> np.ndarray:
    """Troopers whose volumes differ in any field between `before` and `after` (two `Volumes` of the same troopers,
    in the same order)."""
    differ = np.zeros(len(after), dtype=bool)
    for field in dataclasses.fields(after):
        if field.compare:
            old, new = (np.asarray(getattr(v, field.name), dtype=object) for v in (before, after))
            differ |= (old != new).reshape(len(after), -1).any(axis=1)
    return np.flatnonzero(differ)


def affected_pairs(before, after, seen: np.ndarray | None = None) -> np.ndarray:
    """Unordered pairs (k, 2) of troopers, in `np.triu_indices` order, whose verdicts may differ from `before` to
    `after` (two `Volumes` of the same troopers): those that include a changed trooper, and those whose corridor
    holds one in either, except (given `seen`, each such pair's sight before) where it only left the corridor of a
    pair that saw, or only entered that of one that did not."""
    a, b = np.triu_indices(len(after), k=1)
    touched, left, entered = (np.zeros(len(a), dtype=bool) for _ in range(3))
    for changed in changed_troopers(before, after).tolist():
        them = np.full(len(a), changed)
        was, is_in = in_corridor(before, a, b, them), in_corridor(after, a, b, them)
        touched |= (a == changed) | (b == changed) | (was & is_in)
        left |= was & ~is_in
        entered |= is_in & ~was
    if seen is None:
        touched |= left | entered
    else:
        touched |= (left & ~seen) | (entered & seen)
    return np.column_stack([a[touched], b[touched]])


class LiveMatrix:
    """The LoF matrix of `world`, kept up to date as its troopers change (`update`)."""

    def __init__(self, world):
        self.world = world
        pairs = map(tuple, every_ordered_pair(len(world.troopers)).tolist())
        self._verdicts: dict[tuple[int, int], LofVerdict] = dict(zip(pairs, matrix(world, evidence=False).verdicts))

    def update(self, world) -> int:
        """`world` is this one with troopers moved, turned or otherwise changed (the same troopers, in the same
        order, on the same terrain): recompute the verdicts that may differ; returns how many unordered pairs were."""
        if world.troopers.ids != self.world.troopers.ids:
            raise ValueError("a live matrix follows changes to its troopers, not new or removed ones")
        a, b = np.triu_indices(len(world.troopers), k=1)
        seen = np.array([self._verdicts[pair].sight for pair in zip(a.tolist(), b.tolist())], dtype=bool)
        pairs = affected_pairs(self.world.troopers, world.troopers, seen)
        both_ways = np.concatenate([pairs, pairs[:, ::-1]])
        self._verdicts.update(zip(map(tuple, both_ways.tolist()), verdicts(world, both_ways, evidence=False)))
        self.world = world
        return len(pairs)

    @property
    def result(self) -> MatrixResult:
        """The matrix, as `lof.matrix` answers it (see the module docstring for the evidence of kept verdicts)."""
        pairs = every_ordered_pair(len(self.world.troopers)).tolist()
        return MatrixResult(tuple(self._verdicts[pair] for pair in map(tuple, pairs)))
