"""Who may react to an active trooper standing still or moving along a declared path.

docs/rules.md (Zone of Control and ARO): "a reactive trooper may declare an ARO against the active trooper if it has LoF
to it, or the active trooper is inside its ZoC (then only Change Facing or Reset)". Against a marker (`marker: true`)
"only Discover and Change Facing ... anything else waits for a later order, after a successful Discover", and by ZoC
alone only Change Facing (`allowed_reactions`). While moving, the active trooper has a 360 degree arc and blocks
nothing; each enemy keeps its own facing.

Sampling: the path is cut into stations at most `SPACING` (2.5 mm) apart, its ends and corners included, with the
active trooper standing at each (at its own elevation), so any stretch of at least 2.5 mm of travel from which the
reactor has LoF holds a station: no window of sight of 3 mm of travel is missed. Stations are taken in path order in
runs of `RUN` mm: a run is skipped for a reactor when one convex blocker cuts every segment between the reactor and
the volume swept along that run (the same proof as for a single pair), else each half of it, and so on down to a
few stations; the stations left are checked, all reactors together, and the first one with LoF is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from lofkit.errors import LofkitError
from lofkit.geometry.world import World
from lofkit.rules.measure import in_zoc, may_trace
from lofkit.scene.table import base_on_table
from lofkit.sight.corridor import blocking_troopers
from lofkit.sight.evidence import Witness
from lofkit.sight.hidden import blocker_crossing_every_segment, prism_vertices
from lofkit.sight.search import sight

SPACING = 2.5
RUN = 40.0
SPLIT_DOWN_TO = 8
"""A stretch of a run this many stations long or shorter is not halved again: when no one blocker hides it whole,
its stations are searched."""
SAME_CORNER = 1e-9
"""mm: path corners closer than this are one corner (a zero-length leg has no direction to step along)."""
ANY_ARO = ("any ARO",)
"""With LoF to the active trooper: any skill usable in ARO."""
ZOC_ONLY = ("Change Facing", "Reset")
"""With the active trooper inside the reactor's ZoC and no LoF."""
AGAINST_MARKER = ("Discover", "Change Facing")
"""With LoF to an active marker: the rulebook's Camouflage example allows nothing else until a Discover succeeds."""
AGAINST_MARKER_BY_ZOC = ("Change Facing",)
"""With an active marker inside the reactor's ZoC and no LoF: of the ZoC reactions, the one usable against a marker."""


def allowed_reactions(by: str, active_is_marker: bool) -> tuple[str, ...]:
    """What a reactor eligible `by` "lof" or "zoc" may declare against the active trooper (or marker).

    >>> allowed_reactions("lof", False), allowed_reactions("zoc", True)
    (('any ARO',), ('Change Facing',))
    """
    if active_is_marker:
        return AGAINST_MARKER if by == "lof" else AGAINST_MARKER_BY_ZOC
    return ANY_ARO if by == "lof" else ZOC_ONLY


@dataclass(frozen=True)
class Reaction:
    """An enemy that may declare an ARO, why, where on the path, and what it may declare.

    Attributes
    ----------
    trooper : str
        The reacting enemy's id.
    by : str
        ``"lof"`` (it has LoF to the active trooper) or ``"zoc"`` (the active trooper is inside its ZoC, no LoF).
    allowed : tuple of str
        What it may declare: by LoF ``("any ARO",)``, by ZoC ``("Change Facing", "Reset")``; against a marker,
        by LoF ``("Discover", "Change Facing")``, by ZoC ``("Change Facing",)``.
    point : tuple of float
        Where the active trooper stands when it first may (x, y, z of its base centre, mm).
    path_fraction : float
        How much of the path's length is travelled by then (0 at the start, 1 at the end).
    witness : Witness or None
        The evidence of sight (``by == "lof"``), whoever's eye it is; None by ZoC.

    Examples
    --------
    >>> import lofkit
    >>> reaction = lofkit.aro(lofkit.load("examples/quickstart.yaml"), "hacker").reactions[0]
    >>> reaction.trooper, reaction.by, reaction.allowed, reaction.witness.eye_of
    ('sniper', 'lof', ('any ARO',), 'sniper')
    """

    trooper: str
    by: str
    allowed: tuple[str, ...]
    point: tuple[float, float, float]
    path_fraction: float
    witness: Witness | None

    def to_dict(self) -> dict:
        return {
            "trooper": self.trooper,
            "by": self.by,
            "allowed": list(self.allowed),
            "point": [round(c, 4) for c in self.point],
            "path_fraction": round(self.path_fraction, 6),
            "witness": self.witness.to_dict() if self.witness else None,
        }


@dataclass(frozen=True)
class AroResult:
    """Every enemy that may react to the active trooper (`aro`).

    Attributes
    ----------
    active : str
        The active trooper's id.
    path : tuple of (float, float)
        Its start and the corners of the declared move (x, y, mm); the start alone when standing still.
    stations : int
        How many points of the path were checked (at most 2.5 mm apart).
    reactions : tuple of Reaction
        One per enemy that may declare an ARO, in scene order.

    Examples
    --------
    >>> import lofkit
    >>> result = lofkit.aro(lofkit.load("examples/quickstart.yaml"), "hacker")
    >>> result.stations, [(r.trooper, r.by, r.allowed) for r in result.reactions]
    (1, [('sniper', 'lof', ('any ARO',)), ('tag', 'lof', ('any ARO',))])
    """

    active: str
    path: tuple[tuple[float, float], ...]
    stations: int
    reactions: tuple[Reaction, ...]

    def to_dict(self) -> dict:
        return {
            "active": self.active,
            "path": [list(p) for p in self.path],
            "stations": self.stations,
            "reactions": [r.to_dict() for r in self.reactions],
        }


def check_path(world, path) -> None:
    """A declared move stays on the table (`scene.table.base_on_table`, a point being a base of radius 0)."""
    table = world.scene.table
    for x, y in path or []:
        if not base_on_table((x, y), 0.0, table.width, table.depth)[0]:
            raise LofkitError(f"path point ({x:g}, {y:g}) is off the table (0..{table.width:g} x 0..{table.depth:g} mm)")


def parse_path(text: str) -> list[tuple[float, float]]:
    """'x,y;x,y;...' (mm) -> points."""
    try:
        points = [tuple(float(c) for c in part.split(",")) for part in text.split(";") if part.strip()]
    except ValueError:
        points = []
    if not points or any(len(p) != 2 or not all(np.isfinite(p)) for p in points):
        raise LofkitError(f"path '{text}' is not a list of points 'x,y;x,y;...' in mm")
    return points


def stations(start, path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points every <= SPACING mm along start -> path (n, 2), their fraction of the length, and the corner flags."""
    corners = np.array([start, *(path or [])], dtype=float)
    keep = np.concatenate([[True], np.linalg.norm(np.diff(corners, axis=0), axis=1) > SAME_CORNER])
    corners = corners[keep]
    if len(corners) == 1:
        return corners, np.zeros(1), np.ones(1, dtype=bool)
    legs = np.diff(corners, axis=0)
    lengths = np.linalg.norm(legs, axis=1)
    pieces, corner = [corners[:1]], [np.array([True])]
    for start_point, leg, length in zip(corners[:-1], legs, lengths):
        steps = max(1, int(np.ceil(length / SPACING)))
        t = np.arange(1, steps + 1) / steps
        pieces.append(start_point + t[:, None] * leg)
        corner.append(t == 1.0)
    points = np.vstack(pieces)
    travelled = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(points, axis=0), axis=1))])
    return points, travelled / travelled[-1], np.concatenate(corner)


def aro(world: World, active: str, path: list[tuple[float, float]] | None = None) -> AroResult:
    """Who may react: "a reactive trooper may declare an ARO against the active trooper if it has LoF to it, or the
    active trooper is inside its ZoC (then only Change Facing or Reset)".

    Only enemies react (neutral troopers never do). Along a path, the active trooper stands at stations at most
    2.5 mm apart (ends and corners included) at its own elevation, with a 360° arc, blocking nothing; the first
    station with LoF is reported. Against a marker, fewer reactions are allowed (see `Reaction.allowed`).

    Parameters
    ----------
    world : World
        The table.
    active : str
        The active trooper's id.
    path : list of (float, float), optional
        The declared move's points after its start (x, y, mm); None to check it standing still.

    Returns
    -------
    AroResult
        Every enemy that may react, why, from where on the path, and what it may declare.

    Raises
    ------
    UnknownTrooperError
        An id the scene does not have.
    LofkitError
        A path point off the table.

    Examples
    --------
    >>> import lofkit
    >>> world = lofkit.load("examples/quickstart.yaml")
    >>> result = lofkit.aro(world, "fusilier", [(400, 400), (600, 400)])  # out from behind the hab-block
    >>> result.stations, [(r.trooper, r.by, r.point, r.path_fraction) for r in result.reactions]
    (161, [('hacker', 'lof', (400.0, 315.0, 0.0), 0.2875)])
    """
    v = world.troopers
    a = v.index(active)
    check_path(world, path)
    points, fraction, corner = stations(v.centre[a], path)
    moved = world.with_troopers(v.with_copies(a, points, np.full(len(points), v.z[a])))
    mv = moved.troopers
    copies = np.arange(len(v), len(mv))
    reactors = np.flatnonzero(v.enemies(a, np.arange(len(v)))).tolist()
    found: dict[int, tuple[int, Witness]] = {}
    runs = _runs(fraction * (np.linalg.norm(np.diff(points, axis=0), axis=1).sum() if len(points) > 1 else 0))
    for run in runs:
        pairs = []
        for r in reactors:
            if r in found:
                continue
            traceable = may_trace(mv, r, copies[run], world.scene.base_contact_tolerance)
            if not traceable.any():
                continue
            looking = copies[run][traceable & ~_hidden_along(moved, r, copies[run], corner[run])]
            pairs += [(r, c) for c in looking]
        if pairs:
            seen = sight(moved, pairs, evidence=False)
            for r, c in pairs:  # in path order: the first station with sight is kept
                if r not in found and seen[min(r, c), max(r, c)].seen:
                    witness = seen[min(r, c), max(r, c)].witness
                    named = {mv.ids[c]: active}  # the copy at a station is the active trooper
                    witness = replace(witness, eye_of=named.get(witness.eye_of, witness.eye_of),
                                      patch_of=named.get(witness.patch_of, witness.patch_of))
                    found[r] = (int(c - len(v)), witness)
    reactions = []
    for r in reactors:
        if r in found:
            k, witness = found[r]
            by = "lof"
        else:
            inside = np.flatnonzero(in_zoc(mv, r, copies))
            if len(inside) == 0:
                continue
            k, witness, by = int(inside[0]), None, "zoc"
        point = (*map(float, points[k]), float(v.z[a]))
        declare = allowed_reactions(by, bool(v.marker[a]))
        reactions.append(Reaction(v.ids[r], by, declare, point, float(fraction[k]), witness))
    return AroResult(active, tuple(map(tuple, points[[0, *np.flatnonzero(corner)[1:]]].tolist())), len(points),
                     tuple(reactions))


def _runs(travelled: np.ndarray) -> list[np.ndarray]:
    """Consecutive station indices, about RUN mm of path each."""
    bucket = np.floor(travelled / RUN).astype(int)
    return [np.flatnonzero(bucket == b) for b in np.unique(bucket)]


def _hidden_along(world, reactor: int, run: np.ndarray, corner: np.ndarray) -> np.ndarray:
    """Which stations of this run are proved hidden from the reactor: all of them when one convex blocker hides the
    whole volume swept along the run, else those of its halves that are, halved down to `SPLIT_DOWN_TO` stations."""
    v = world.troopers
    ends = np.unique(np.concatenate([run[[0, -1]], run[corner]]))
    swept = np.vstack([prism_vertices(v, c) for c in ends])
    near = np.unique(np.concatenate([blocking_troopers(world, reactor, c) for c in ends]))
    if blocker_crossing_every_segment(world, prism_vertices(v, reactor), swept, near) is not None:
        return np.ones(len(run), dtype=bool)
    if len(run) <= SPLIT_DOWN_TO:
        return np.zeros(len(run), dtype=bool)
    half = len(run) // 2
    return np.concatenate([_hidden_along(world, reactor, run[:half], corner[:half]),
                           _hidden_along(world, reactor, run[half:], corner[half:])])
