"""What a sight verdict shows: the witness of "seen", the proof or the main blockers of "hidden".

docs/rules.md (LoF 2): sight from A to B exists when "there is a point E anywhere in A's volume and a 3 mm x 3 mm square
Q on B's silhouette template such that every segment from E to Q is unobstructed": a `Witness` is that E and Q. A
NO is shown by one convex blocker every segment crosses (a proof), or by the blockers that stop the most segments
of a fixed sample (`evidence_segments`), which pictures and Partial Cover draw on too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lofkit.sight.corridor import blocking_troopers
from lofkit.sight.eye_batch import Views
from lofkit.sight.lattice import Lattice, headings, key_eyes, square_corners, template_axis, template_points, to_world
from lofkit.sight.segments import Segments, blocker_counts

EVIDENCE_BLOCKERS = 3
"""Blockers a NO names at most."""
EVIDENCE_STRIDE = 3
"""Every how many lattice points, across and up, the evidence and partial cover sample a template (docs/rules.md,
Cover: "every third lattice point"); the search's own strides are `lattice.COARSE_STRIDES`."""


def _xyz(point) -> list[float]:
    return [round(float(c), 4) for c in point]


@dataclass(frozen=True)
class Witness:
    """Evidence of sight: the eye E (in `eye_of`'s volume) and the seen 3 x 3 mm square on `patch_of`'s template."""

    eye_of: str
    patch_of: str
    eye: tuple[float, float, float]
    centre: tuple[float, float, float]
    corners: tuple[tuple[float, float, float], ...]

    def to_dict(self) -> dict:
        return {
            "eye_of": self.eye_of,
            "eye": _xyz(self.eye),
            "patch_of": self.patch_of,
            "patch_centre": _xyz(self.centre),
            "patch": [_xyz(c) for c in self.corners],
        }


@dataclass(frozen=True)
class Sight:
    """Sight between troopers `a` and `b` (indices), the same both ways."""

    a: int
    b: int
    seen: bool
    witness: Witness | None = None
    proof: str | None = None
    """Id of one convex blocker that every segment between the two volumes crosses (a proof of "hidden")."""
    blockers: tuple[tuple[str, int], ...] = ()
    """For a NO: the blockers that stopped the most sampled segments, with their counts."""
    decided_by: str = "search"
    """What settled it: "witness", "one_blocker" (`proof`), "blocker_per_half" (`hidden.hidden_half_by_half`) or
    "search" (no eye of either sees a square; `rules.results.LofVerdict.sight_decided_by` says it for users)."""


def witness_at(world, views: Views, row: int, col: int, line: int) -> Witness:
    """The witness of row `row`: its eye, and the square centred in the block whose lower-left lattice point is
    (col, line) on its target's template."""
    v, rows = world.troopers, views.rows
    target = int(rows.target[row])
    centre, corners = square_corners(views.lattice, views.axis[row], v.centre[target], float(v.z[target]), col, line)
    return Witness(
        eye_of=v.ids[int(rows.shooter[row])],
        patch_of=v.ids[target],
        eye=tuple(rows.eye[row]),
        centre=tuple(centre),
        corners=tuple(map(tuple, corners)),
    )


def sight_results(world, found: dict[int, Witness], pairs: np.ndarray, proofs: dict[int, str],
                  evidence: bool = True, decided: dict[int, str] | None = None) -> dict:
    """{(a, b): Sight} for unordered `pairs` (n, 2): seen with pair k's witness `found[k]`, else hidden with its
    proof `proofs[k]`, else hidden with its main blockers (unless not `evidence`), settled as `decided[k]` says
    ("search" where it says nothing)."""
    results, decided = {}, decided or {}
    for k, (a, b) in enumerate(pairs.tolist()):
        if k in found:
            results[a, b] = Sight(a, b, True, witness=found[k], decided_by="witness")
        elif proofs.get(k):
            results[a, b] = Sight(a, b, False, proof=proofs[k], blockers=((proofs[k], 0),), decided_by="one_blocker")
        else:
            results[a, b] = Sight(a, b, False, blockers=main_blockers(world, a, b) if evidence else (),
                                  decided_by=decided.get(k, "search"))
    return results


def evidence_segments(world, shooter: int, target: int) -> tuple[Segments, np.ndarray]:
    """Segments from the shooter's key eyes to the target's coarse lattice (stride 3), with the troopers that may
    block each (n, k): the sample that evidence and pictures are drawn from."""
    v = world.troopers
    towards = headings(v, shooter, target)
    eyes = to_world(key_eyes(float(v.radius[shooter]), float(v.height[shooter])), v.centre[shooter],
                    v.z[shooter], towards)
    lattice = Lattice(2 * float(v.radius[target]), float(v.height[target]))
    centres = np.broadcast_to(v.centre[target], (len(eyes), 2))
    axis = template_axis(eyes, centres, towards[None])
    cw, ch = lattice.cells
    stride = EVIDENCE_STRIDE
    points = template_points(lattice, axis, centres, np.full(len(eyes), v.z[target]), np.arange(0, cw + 1, stride),
                             np.arange(0, ch + 1, stride))
    starts = np.repeat(eyes, points.shape[1] * points.shape[2], axis=0)
    segments = Segments.between(starts, points.reshape(-1, 3))
    near = blocking_troopers(world, shooter, target)
    return segments, np.broadcast_to(near, (len(segments.lengths), len(near)))


def main_blockers(world, a: int, b: int) -> tuple[tuple[str, int], ...]:
    """The blockers that stop the most segments from the key eyes to the coarse lattice, both ways."""
    counts: dict[str, int] = {}
    for shooter, target in ((a, b), (b, a)):
        segments, cylinders = evidence_segments(world, shooter, target)
        for name, count in blocker_counts(world, segments, cylinders):
            counts[name] = counts.get(name, 0) + count
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:EVIDENCE_BLOCKERS])
