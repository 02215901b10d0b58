"""Line of Fire verdicts: arc, engagement, sight and target validity, each with its evidence (docs/rules.md LoF 1-5).

"LoF from shooter A to target B exists when" B is in A's arc (LoF 1), sight holds between them (LoF 2-4; computed
once per unordered pair), and, for an engaged shooter, B is in base contact with it. "LoF can exist to friendly or
neutral troopers, but they are never valid targets for an attack" (LoF 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lofkit.errors import LofkitError
from lofkit.geometry.world import World
from lofkit.rules.cover import partial_cover, scenery_in_contact, visibility_mod
from lofkit.rules.measure import base_contact, base_distance, in_arc, in_zoc, may_trace, range_band
from lofkit.rules.results import LofVerdict, MatrixResult
from lofkit.sight.casting import Progress
from lofkit.sight.evidence import Sight, evidence_segments
from lofkit.sight.search import sight
from lofkit.sight.segments import Segments, blocker_names, first_obstruction


def _target_problem(volumes, a: int, b: int) -> str | None:
    """Why B is not a valid target for A (None when it is)."""
    if volumes.neutral[b]:
        return f"{volumes.ids[b]} is neutral: never a valid target"
    if volumes.allied(a, b):
        return f"{volumes.ids[b]} is friendly: never a valid target"
    return None


def _verdict(world, a: int, b: int, seen: Sight, touching: dict[int, list[int]]) -> LofVerdict:
    v = world.troopers
    shooter, target = v.ids[a], v.ids[b]
    arc = bool(in_arc(v, a, b))
    contact = bool(base_contact(v, a, b, world.scene.base_contact_tolerance))
    engaged_elsewhere = arc and not bool(may_trace(v, a, b, world.scene.base_contact_tolerance))
    lof = arc and seen.seen and not engaged_elsewhere
    if not arc:
        reason = f"out of arc: {target} is wholly behind {shooter}'s front 180° arc"
    elif engaged_elsewhere:
        reason = f"{shooter} is engaged and may only trace LoF to troopers in base contact; {target} is not"
    elif not seen.seen and seen.proof:
        reason = f"no sight: {seen.proof} cuts every line between the two volumes"
    elif not seen.seen:
        most = ", ".join(name for name, _ in seen.blockers) or "nothing found"
        reason = f"no sight: no 3 x 3 mm patch of either trooper is seen by the other (blocked most by {most})"
    else:
        reason = f"LoF: {seen.witness.eye_of} sees a 3 x 3 mm patch of {seen.witness.patch_of}"
    problem = _target_problem(v, a, b)
    if lof and problem:
        reason = f"LoF, but {problem}"
    d = float(base_distance(v, a, b))
    cover = None
    if seen.seen:  # Partial Cover matters only where there is sight
        if b not in touching:
            touching[b] = scenery_in_contact(world, b)
        cover = partial_cover(world, a, b, touching[b])
    mod, zone = visibility_mod(world, seen.witness)
    return LofVerdict(
        shooter=shooter,
        target=target,
        lof=lof,
        in_arc=arc,
        sight=seen.seen,
        can_target=lof and problem is None,
        reason=reason,
        distance_mm=d,
        range_band=str(range_band(d)[1]),
        in_zoc=bool(in_zoc(v, a, b)),
        base_contact=contact,
        witness=seen.witness,
        blockers=seen.blockers if not seen.seen else (),
        sight_decided_by=seen.decided_by,
        cover=cover is not None,
        cover_from=cover,
        visibility_mod=mod,
        visibility_zone=zone,
    )


def verdicts(
    world: World, ordered_pairs: Sequence[tuple[int, int]], progress: Progress | None = None, evidence: bool = True
) -> list[LofVerdict]:
    """LoF for each ordered (shooter, target) pair of trooper indices, as `check` decides it for one pair.

    Sight is computed once per unordered pair ("mutual awareness", LoF 4), so asking both ways costs one search.

    Parameters
    ----------
    world : World
        The table.
    ordered_pairs : sequence of (int, int)
        (shooter, target) indices into ``world.troopers`` (``world.troopers.index(id)``).
    progress : callable, optional
        Called as ``progress(cast, tested=0)`` with the segments the search cast and settled, as it goes.
    evidence : bool
        False leaves out the `blockers` of pairs without sight (what a matrix's answer never shows).

    Returns
    -------
    list of LofVerdict
        One verdict per pair, in the order given.

    Raises
    ------
    LofkitError
        A pair of a trooper and itself.

    Examples
    --------
    >>> import lofkit
    >>> world = lofkit.load("examples/rulebook_lof.yaml")
    >>> fusilier, spektr = world.troopers.index("fusilier"), world.troopers.index("spektr")
    >>> [(v.shooter, v.target, v.lof) for v in lofkit.verdicts(world, [(fusilier, spektr), (spektr, fusilier)])]
    [('fusilier', 'spektr', False), ('spektr', 'fusilier', False)]
    """
    pairs = np.asarray(ordered_pairs, dtype=np.int64).reshape(-1, 2)
    if np.any(pairs[:, 0] == pairs[:, 1]):
        raise LofkitError("a trooper and itself: LoF needs two different troopers")
    return verdicts_given_sight(world, pairs, sight(world, pairs, progress, evidence))


def verdicts_given_sight(
    world, ordered_pairs: np.ndarray, sights: dict, touching: dict[int, list[int]] | None = None
) -> list[LofVerdict]:
    """LoF for each ordered pair (n, 2) of distinct troopers, given the sight of its unordered pair (`sights`:
    {(a, b) with a < b: Sight}). `touching` (scenery in base contact, per target) is filled as targets need it; a
    caller may keep it between calls for the targets that stay where they are, on the same terrain."""
    touching = {} if touching is None else touching
    return [_verdict(world, a, b, sights[min(a, b), max(a, b)], touching) for a, b in ordered_pairs.tolist()]


def check(world: World, shooter: str, target: str) -> LofVerdict:
    """LoF from `shooter` to `target`, with its evidence (docs/rules.md, Line of Fire 1-5).

    "LoF from shooter A to target B exists when" B is in A's arc (an engaged A traces it only to troopers in base
    contact) and sight holds: a point of one volume sees a whole 3 x 3 mm square of the other's silhouette template
    past terrain and other troopers (once for both ways). "LoF can exist to friendly or neutral troopers, but they
    are never valid targets" (`can_target`).

    Parameters
    ----------
    world : World
        The table.
    shooter, target : str
        Trooper ids.

    Returns
    -------
    LofVerdict
        The verdict, its reason, and its evidence (the witness of sight, or what blocked it), with distance, range
        band, ZoC, base contact, Partial Cover and visibility MODs.

    Raises
    ------
    UnknownTrooperError
        An id the scene does not have.
    LofkitError
        The shooter and the target are the same trooper.

    Examples
    --------
    >>> import lofkit
    >>> world = lofkit.load("examples/rulebook_lof.yaml")
    >>> verdict = lofkit.check(world, "fusilier", "iguana")  # over the alguacil's head
    >>> verdict.lof, verdict.reason, verdict.witness.eye_of
    (True, 'LoF: fusilier sees a 3 x 3 mm patch of iguana', 'fusilier')
    >>> lofkit.check(world, "fusilier", "spektr").reason
    'no sight: iguana cuts every line between the two volumes'
    >>> lofkit.check(world, "grenzer", "alguacil").can_target
    False
    """
    v = world.troopers
    return verdicts(world, [(v.index(shooter), v.index(target))])[0]


def every_ordered_pair(count: int) -> np.ndarray:
    """Every ordered pair of `count` distinct troopers (n(n-1), 2), shooter by shooter: the order of `matrix`."""
    a, b = np.nonzero(~np.eye(count, dtype=bool))
    return np.column_stack([a, b])


def matrix(world: World, progress: Progress | None = None, evidence: bool = True) -> MatrixResult:
    """LoF for every ordered pair of distinct troopers, each as `check` decides it.

    Parameters
    ----------
    world : World
        The table.
    progress : callable, optional
        Called as ``progress(cast, tested=0)`` with the segments the search cast and settled, as it goes.
    evidence : bool
        False leaves out the `blockers` of pairs without sight (which the matrix's `to_dict()` never shows).

    Returns
    -------
    MatrixResult
        n(n - 1) verdicts, shooter by shooter in scene order.

    Examples
    --------
    >>> import lofkit
    >>> result = lofkit.matrix(lofkit.load("examples/rulebook_lof.yaml"), evidence=False)
    >>> [v.target for v in result.verdicts if v.shooter == "fusilier" and not v.lof]
    ['spektr', 'reverend-healer']
    """
    return MatrixResult(tuple(verdicts(world, every_ordered_pair(len(world.troopers)), progress, evidence)))


@dataclass(frozen=True)
class SegmentSample:
    """Sampled sight segments from the shooter's key eyes to the target's coarse lattice, for pictures: each starts
    at an eye and ends where it is first blocked (or on the template); `blocker` names what stopped it."""

    starts: np.ndarray
    ends: np.ndarray
    blocked: np.ndarray
    blocker: tuple[str | None, ...]


def sample_segments(world, shooter: str, target: str, limit: int = 400, seed: int = 0) -> SegmentSample:
    """Up to `limit` segments of the shooter's sight of the target, blocked ones cut at their first obstruction."""
    v = world.troopers
    a, b = v.index(shooter), v.index(target)
    segments, cylinders = evidence_segments(world, a, b)
    pick = np.random.default_rng(seed).permutation(len(segments.lengths))[:limit]
    chosen = Segments(segments.origins[pick], segments.directions[pick], segments.lengths[pick])
    distance, codes = first_obstruction(world, chosen, cylinders[pick])
    blocked = codes >= 0
    reach = np.where(blocked, distance, chosen.lengths)
    names = np.where(blocked, blocker_names(world)[np.maximum(codes, 0)], None)
    return SegmentSample(chosen.origins, chosen.origins + chosen.directions * reach[:, None], blocked, tuple(names))
