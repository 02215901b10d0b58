"""Eye batches: which eye of which shooter looks at which template, one row per eye and pair, for a pass of the
search.

docs/rules.md (LoF 2): sight needs "a point E anywhere in A's volume"; the search tries the eyes of `lattice` in turn,
the best eye of every pair first. Dense eyes come in tiles (`lattice.dense_tiles`): a tile that its pair's candidate
convex parts, one or several together, hide from every template it may look at is never made a row (the convexity
lemma of `hidden.parts_crossing_every_segment`, so no eye that sees something is left out).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lofkit.sight.hidden import hidden_eye_tiles
from lofkit.sight.kernel_args import Templates
from lofkit.sight.lattice import Lattice, dense_eyes, dense_tiles, headings, to_world
from lofkit.sight.segments import inside_zero_visibility


@dataclass(frozen=True)
class EyeBatch:
    """A batch of eyes, one row per eye and pair: for row r, eye `eye[r]` in trooper `shooter[r]` looks at
    `target[r]`'s template."""

    pair: np.ndarray
    shooter: np.ndarray
    target: np.ndarray
    eye: np.ndarray
    in_zero_visibility: np.ndarray
    """Whether the eye is inside a Zero Visibility zone (then every segment from it is blocked)."""

    def take(self, keep: np.ndarray) -> EyeBatch:
        return EyeBatch(self.pair[keep], self.shooter[keep], self.target[keep], self.eye[keep],
                       self.in_zero_visibility[keep])


@dataclass(frozen=True)
class Views:
    """Rows looking at templates of one size: their `lattice`, and each template's axis (`lattice.template_axis`)."""

    lattice: Lattice
    rows: EyeBatch
    axis: np.ndarray

    def take(self, keep: np.ndarray) -> Views:
        return Views(self.lattice, self.rows.take(keep), self.axis[keep])


def placed_templates(world, lattice: Lattice, targets: np.ndarray, axis: np.ndarray) -> Templates:
    """The templates of `lattice`'s size that troopers `targets` show along `axis` (n, 2), as the compiled loops take
    them."""
    v = world.troopers
    return Templates(np.ascontiguousarray(v.centre[targets]), np.ascontiguousarray(v.z[targets]),
                     np.ascontiguousarray(axis), lattice.width / 2, np.array(lattice.pitch), np.array(lattice.cells))


def eye_batch(world, pairs: np.ndarray, pair_ids: np.ndarray, forward: bool | np.ndarray, pattern: Callable,
             candidates: np.ndarray | None = None) -> EyeBatch:
    """Eyes from `pattern(radius, height)` in the shooter of each pair (the first trooper where `forward`, for all
    or per pair id), ranked so that row order is eye order. With `candidates` (convex parts per pair, (n, k)), dense
    eyes come in tiles, and the tiles their pair's candidates hide from the target (`hidden.hidden_eye_tiles`) are
    left out."""
    v = world.troopers
    forward = np.broadcast_to(forward, np.shape(pair_ids))
    shooters = np.where(forward, pairs[pair_ids, 0], pairs[pair_ids, 1])
    targets = np.where(forward, pairs[pair_ids, 1], pairs[pair_ids, 0])
    towards = headings(v, shooters, targets)
    owners, ranks, eyes = [], [], []
    sizes = np.stack([v.radius[shooters], v.height[shooters]], axis=1)
    for radius, height in np.unique(sizes, axis=0).tolist():
        same = np.flatnonzero((sizes[:, 0] == radius) & (sizes[:, 1] == height))
        local = pattern(radius, height)
        keep = np.ones((len(same), len(local)), dtype=bool)
        if candidates is not None and pattern is dense_eyes and len(world.convex_parts.piece):
            tile, grouped, counts = dense_tiles(radius, height)
            keep = ~hidden_eye_tiles(world, grouped, counts, same, shooters, targets, towards, candidates)[:, tile]
        kept, rank = np.nonzero(keep)  # most dense eyes are in hidden tiles: only the others are placed
        shooter = shooters[same[kept]]
        eyes.append(to_world(local[rank][:, None], v.centre[shooter], v.z[shooter], towards[same[kept]])[:, 0])
        owners.append(same[kept])
        ranks.append(rank)
    order = np.argsort(np.concatenate(ranks), kind="stable")  # the best eye of every pair first
    owner = np.concatenate(owners)[order]
    eyes = np.concatenate(eyes)[order]
    return EyeBatch(pair_ids[owner], shooters[owner], targets[owner], eyes, inside_zero_visibility(world, eyes))
