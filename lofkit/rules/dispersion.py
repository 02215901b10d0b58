"""docs/rules.md "Dispersion": where a dispersing trooper lands, for one d20 roll or for all twenty. Its base, volume
and side count, not where it stands now; a legal landing rests flat at `z: auto`'s height; `reason` is `reasons[0]`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import shapely

from lofkit.errors import LofkitError
from lofkit.geometry.support import base_fit, surface_under
from lofkit.geometry.volumes import base_volumes
from lofkit.rules.deployment import World, contact_forbidden, named_contact, side_zone, signed_clearance, zone_outside
from lofkit.rules.measure import base_contact
from lofkit.scene.table import base_on_table
from lofkit.units import EPS, INCH, reported

DISPERSION_DISTANCE = 16 * INCH
"""docs/rules.md: "The element moves 16" from the template centre in that direction" (see `disperse`'s `distance`)."""

TEMPLATE_STEP = 18.0
"""Degrees between two numbers of the Circular Template."""

REASONS = ("off_table", "inside_scenery", "unsupported", "enemy_zone", "contact")
"""Why a landing cannot stand, in docs/rules.md order."""

REASON_TEXT = {
    "off_table": "the base would be partly off the table",
    "inside_scenery": "the volume would be inside scenery",
    "unsupported": "the base would be on a surface too small for it",
    "enemy_zone": "the base would be inside the enemy deployment zone",
    "contact": "the base would be in base contact with",
}

EDGE_STEP = 1.0
"""mm between the spots tried along each table edge for the fallback."""
REFINE, LEVELS = 16, 4
"""Each end of a legal stretch of an edge is refined LEVELS times, REFINE-fold each time (to about 1.5e-5 mm)."""


class DispersionError(LofkitError):
    """A dispersion that cannot be asked: a roll that is not a d20 result, an intended point off the table."""


@dataclass(frozen=True)
class Fallback:
    """Where the trooper goes instead: in its own zone touching a table edge (`position` None when nowhere fits)."""

    position: tuple[float, float, float] | None
    reason: str
    edge: str | None
    message: str

    def to_dict(self) -> dict:
        return {
            "position": None if self.position is None else [reported(c) for c in self.position],
            "reason": self.reason,
            "edge": self.edge,
            "owner_chooses": True,
            "message": self.message,
        }


@dataclass(frozen=True)
class DispersionResult:
    """One d20 outcome: the direction, the attempted landing, whether it stands and, if not, the fallback."""

    element: str
    at: tuple[float, float]
    roll: int
    direction_deg: float
    distance_mm: float
    landing: tuple[float, float, float]
    reasons: tuple[str, ...]
    scenery: tuple[str, ...]
    fallback: Fallback | None
    in_contact_with: tuple[str, ...] = ()
    forbidden_contact: tuple[str, ...] = ()  # of in_contact_with, those it may not touch; to_dict() leaves them out

    @property
    def placed(self) -> bool:
        """True when the trooper stands at `landing`."""
        return not self.reasons

    @property
    def reason(self) -> str | None:
        return self.reasons[0] if self.reasons else None

    @property
    def position(self) -> tuple[float, float, float] | None:
        """Where the trooper ends: the landing, or the fallback spot (None when no legal spot exists)."""
        return self.landing if self.placed else self.fallback.position

    def to_dict(self) -> dict:
        return {
            "element": self.element,
            "at": [reported(c) for c in self.at],
            "roll": self.roll,
            "direction_deg": reported(self.direction_deg),
            "distance_mm": reported(self.distance_mm),
            "landing": [reported(c) for c in self.landing],
            "placed": self.placed,
            "reason": self.reason,
            "reasons": list(self.reasons),
            "scenery": list(self.scenery),
            "in_contact_with": list(self.in_contact_with),
            "fallback": None if self.fallback is None else self.fallback.to_dict(),
        }


class DispersionOutcomes(tuple):
    """All twenty outcomes (a tuple of `DispersionResult`, roll 1 first) with a summary for the CLI."""

    def to_dict(self) -> dict:
        first = self[0]
        reasons = {code: sum(r.reason == code for r in self) for code in REASONS}
        return {
            "element": first.element,
            "at": [reported(c) for c in first.at],
            "distance_mm": reported(first.distance_mm),
            "placed": sum(r.placed for r in self),
            "p_placed": sum(r.placed for r in self) / len(self),
            "fallback_reasons": {code: n for code, n in reasons.items() if n},
            "outcomes": [r.to_dict() for r in self],
        }


# --- the template --------------------------------------------------------------------------------------------------


def template_directions(world, at, rolls) -> np.ndarray:
    """docs/rules.md: "the d20 result picks one of 20 directions printed clockwise on the template at 18° steps
    (1 = toward the table centre)": degrees counter-clockwise from +x, in [0, 360)."""
    rolls = np.asarray(rolls)
    for roll in np.ravel(rolls).tolist():
        if isinstance(roll, bool) or not isinstance(roll, (int, float)) or roll not in range(1, 21):
            raise DispersionError(f"roll {roll!r} is not a d20 result; give a whole number from 1 to 20")
    table = world.scene.table
    dx, dy = table.width / 2 - at[0], table.depth / 2 - at[1]
    one = 90.0 if math.hypot(dx, dy) <= EPS else math.degrees(math.atan2(dy, dx))
    return np.mod(one - TEMPLATE_STEP * (rolls - 1), 360.0)


def _check_point(world, at) -> tuple[float, float]:
    try:
        x, y = (float(c) for c in at)
    except (TypeError, ValueError):
        raise DispersionError(f"the intended point {at!r} is not two numbers X,Y (mm)") from None
    table = world.scene.table
    if not (math.isfinite(x) and math.isfinite(y)):
        raise DispersionError(f"the intended point ({x}, {y}) is not finite")
    if not base_on_table((x, y), 0.0, table.width, table.depth)[0]:
        raise DispersionError(
            f"the intended point ({x:g}, {y:g}) is off the table (0..{table.width:g} x 0..{table.depth:g} mm)"
        )
    return x, y


# --- landing ------------------------------------------------------------------------------------------------------


def _enemy_zones(world, side: str) -> shapely.Geometry | None:
    others = sorted({z.side for z in world.scene.deployment_zones if z.side != side})
    zones = [side_zone(world, s) for s in others]
    return shapely.union_all(zones) if zones else None


def _landing_reasons(world, element: int, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple]:
    """For bases of `element` at `centres`: their level, a (n, 4) mask of failing REASONS and the scenery hit."""
    v = world.troopers
    r, h, side = v.radius[element], v.height[element], v.sides[element]
    z = surface_under(world, centres)
    fit = base_fit(world, centres, z, r, h)
    enemy = _enemy_zones(world, side)
    in_enemy = np.zeros(len(centres), dtype=bool) if enemy is None else signed_clearance(enemy, centres) > -r + EPS
    return z, np.column_stack([~fit.on_table, ~fit.clear, ~fit.supported, in_enemy]), fit.scenery


def _contacts(world, element: int, centres: np.ndarray, z: np.ndarray, forbidden_only: bool = False):
    """Base contact (measure.base_contact) of `element`'s base at each (centre, z) with the other troopers (only
    those deployment.contact_forbidden forbids when `forbidden_only`): a (bases, others) mask and their indices."""
    v = world.troopers
    others = np.flatnonzero(np.arange(len(v)) != element)
    if forbidden_only:
        others = others[contact_forbidden(v, element, others)]
    n = len(centres)
    if len(others) == 0 or n == 0:
        return np.zeros((n, len(others)), dtype=bool), others
    bases = base_volumes(
        np.vstack([centres, v.centre[others]]),
        np.concatenate([z, v.z[others]]),
        np.concatenate([np.full(n, v.radius[element]), v.radius[others]]),
        np.concatenate([np.full(n, v.height[element]), v.height[others]]),
    )
    a, b = np.meshgrid(np.arange(n), n + np.arange(len(others)), indexing="ij")
    return base_contact(bases, a, b, world.scene.base_contact_tolerance), others


def _element(world, element_id: str) -> int:
    v = world.troopers
    i = v.index(element_id)
    if v.neutral[i]:
        raise DispersionError(
            f"'{element_id}' is neutral: a dispersing element needs a side (its own deployment zone is the fallback)"
        )
    return i


def _outcomes(world, element_id: str, at, rolls, distance: float) -> list[DispersionResult]:
    i = _element(world, element_id)
    at = _check_point(world, at)
    if not (math.isfinite(distance) and distance >= 0):
        raise DispersionError(f"dispersion distance {distance!r} must be a finite length >= 0 mm")
    rolls = np.atleast_1d(np.asarray(rolls))
    angles = template_directions(world, at, rolls)
    radians = np.radians(angles)
    centres = np.asarray(at) + distance * np.column_stack([np.cos(radians), np.sin(radians)])
    z, failing, scenery = _landing_reasons(world, i, centres)
    touching, others = _contacts(world, i, centres, z)
    forbidden = touching & contact_forbidden(world.troopers, i, others)[None]
    failing = np.column_stack([failing, forbidden.any(axis=1)])
    failed = np.flatnonzero(failing.any(axis=1))
    reasons = [REASONS[int(np.argmax(failing[k]))] for k in failed]
    whys = [_why(world, i, reason, others[forbidden[k]]) for reason, k in zip(reasons, failed)]
    fallbacks = _fallbacks(world, i, centres[failed], reasons, whys)
    by_outcome = dict(zip(failed.tolist(), fallbacks))
    return [
        DispersionResult(
            element=element_id,
            at=at,
            roll=int(rolls[k]),
            direction_deg=float(angles[k]),
            distance_mm=float(distance),
            landing=(float(centres[k, 0]), float(centres[k, 1]), float(z[k])),
            reasons=tuple(code for code, bad in zip(REASONS, failing[k]) if bad),
            scenery=tuple(scenery[k]),
            fallback=by_outcome.get(k),
            in_contact_with=tuple(world.troopers.ids[j] for j in others[touching[k]]),
            forbidden_contact=tuple(world.troopers.ids[j] for j in others[forbidden[k]]),
        )
        for k in range(len(rolls))
    ]


def _why(world, element: int, reason: str, touching: np.ndarray) -> str:
    """REASON_TEXT's sentence for `reason`, naming whom a `contact` landing touches ("enemy model 'red-2'")."""
    if reason != "contact":
        return REASON_TEXT[reason]
    return f"{REASON_TEXT[reason]} {', '.join(named_contact(world.troopers, element, j) for j in touching)}"


def disperse(world: World, element_id: str, at, roll: int, distance: float = DISPERSION_DISTANCE) -> DispersionResult:
    """Dispersion: move 16" from the intended point the way the d20 picks, template number 1 to the table centre.

    Parameters
    ----------
    world : World
        The table.
    element_id : str
        The dispersing trooper or marker (of a side).
    at : (float, float)
        The intended point x, y (mm), on the table.
    roll : int
        The d20 result, 1 to 20.
    distance : float
        mm; 16" unless a skill or scenario says otherwise.

    Returns
    -------
    DispersionResult
        `landing` (x, y, z mm), `placed`, and if not, `reasons` (``"off_table"``, ``"inside_scenery"``,
        ``"unsupported"``, ``"enemy_zone"``, ``"contact"``) and the `fallback` (its `position` None if none fits).

    Raises
    ------
    DispersionError
        A roll outside 1-20, a point off the table, a neutral element, or a distance below 0.

    Examples
    --------
    >>> import lofkit
    >>> result = lofkit.disperse(lofkit.load("examples/quickstart.yaml"), "fusilier", (600, 600), 17)
    >>> result.reasons, result.fallback.edge, result.fallback.to_dict()["position"]
    (('enemy_zone',), 'x=0', [12.5, 292.299987, 0.0])
    """
    return _outcomes(world, element_id, at, [roll], distance)[0]


def disperse_all(world: World, element_id: str, at, distance: float = DISPERSION_DISTANCE) -> DispersionOutcomes:
    """All twenty outcomes of `disperse` (same parameters and errors) at once, roll 1 first: to draw or count them.

    Parameters
    ----------
    world : World
    element_id : str
    at : (float, float)
    distance : float
        mm; 16" unless a skill or scenario says otherwise.

    Returns
    -------
    DispersionOutcomes
        A tuple of the twenty `DispersionResult`; its `to_dict()` adds a summary.

    Examples
    --------
    >>> import lofkit
    >>> sum(r.placed for r in lofkit.disperse_all(lofkit.load("examples/quickstart.yaml"), "fusilier", (600, 600)))
    16
    """
    return DispersionOutcomes(_outcomes(world, element_id, at, np.arange(1, 21), distance))


# --- fallback -----------------------------------------------------------------------------------------------------


class EdgeSpan(NamedTuple):
    """Base centres in contact with one table edge: `origin + t * direction` for `start <= t <= end` (mm)."""

    edge: str  # which edge, e.g. "y=0"
    origin: np.ndarray
    direction: np.ndarray
    start: float
    end: float


class _Bracket(NamedTuple):
    """An end of a run of legal edge samples, refined towards its illegal neighbour."""

    legal: int  # index of the run's last (or first) legal sample
    illegal: int  # index of its illegal neighbour on the same edge
    ends: np.ndarray  # the run ends (`t`) this end belongs to, refined in place
    run: int  # which run


def _edges(world, r: float) -> list[EdgeSpan]:
    """Each table edge as the line of the centres of bases of radius `r` touching it."""
    w, d = world.scene.table.width, world.scene.table.depth
    along_x, along_y = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    return [
        EdgeSpan("y=0", np.array([0.0, r]), along_x, r, w - r),
        EdgeSpan(f"y={d:g}", np.array([0.0, d - r]), along_x, r, w - r),
        EdgeSpan("x=0", np.array([r, 0.0]), along_y, r, d - r),
        EdgeSpan(f"x={w:g}", np.array([w - r, 0.0]), along_y, r, d - r),
    ]


def _legal_spots(world, element: int, zone, enemy, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """docs/rules.md "Deployment" for the element's base at `centres` on the table edge: (legal mask, level z)."""
    v = world.troopers
    r, h = v.radius[element], v.height[element]
    legal = zone_outside(zone, centres, r) <= EPS
    if enemy is not None:
        legal &= signed_clearance(enemy, centres) <= -r + EPS
    z = np.zeros(len(centres))
    k = np.flatnonzero(legal)
    if len(k) == 0:
        return legal, z
    z[k] = surface_under(world, centres[k])
    at_table_level = z[k] <= world.scene.base_contact_tolerance + EPS  # on the table top, not on scenery at its edge
    legal[k[~at_table_level]] = False
    k = k[at_table_level]
    touching = _contacts(world, element, centres[k], z[k], forbidden_only=True)[0].any(axis=1)
    legal[k[touching]] = False
    k = k[~touching]
    if len(k):
        legal[k] = base_fit(world, centres[k], z[k], r, h).fits
    return legal, z


def _stretches(world, element: int, zone, enemy) -> list[EdgeSpan]:
    """The legal stretches of every table edge."""
    r = float(world.troopers.radius[element])
    edges = [e for e in _edges(world, r) if e.end >= e.start - EPS]
    samples = [np.linspace(e.start, e.end, max(2, int(np.ceil((e.end - e.start) / EDGE_STEP)) + 1)) for e in edges]
    owner = np.repeat(np.arange(len(edges)), [len(t) for t in samples])
    t = np.concatenate(samples)
    edge_origin, edge_direction = np.array([e.origin for e in edges]), np.array([e.direction for e in edges])
    legal, _ = _legal_spots(world, element, zone, enemy, edge_origin[owner] + t[:, None] * edge_direction[owner])
    # runs of legal samples on one edge; an end with an illegal neighbour is refined towards it
    same_edge_next = np.append(owner[1:] == owner[:-1], False)
    starts = np.flatnonzero(legal & ~np.insert(legal[:-1] & same_edge_next[:-1], 0, False))
    ends = np.flatnonzero(legal & ~(np.append(legal[1:], False) & same_edge_next))
    ends_t, starts_t = t[ends].copy(), t[starts].copy()
    grow = [_Bracket(k, k + 1, ends_t, i) for i, k in enumerate(ends) if same_edge_next[k]]
    grow += [_Bracket(k, k - 1, starts_t, i) for i, k in enumerate(starts) if k > 0 and owner[k - 1] == owner[k]]
    if grow:
        good = np.array([t[b.legal] for b in grow])
        bad = np.array([t[b.illegal] for b in grow])
        edge_of = np.array([owner[b.legal] for b in grow])
        fraction = np.arange(1, REFINE) / REFINE
        for _ in range(LEVELS):  # each level narrows every bracket REFINE-fold, all brackets in one batch
            fine_t = good[:, None] + (bad - good)[:, None] * fraction[None]
            fine_xy = edge_origin[edge_of][:, None, :] + fine_t[..., None] * edge_direction[edge_of][:, None, :]
            fine_legal, _ = _legal_spots(world, element, zone, enemy, fine_xy.reshape(-1, 2))
            fine_legal = np.hstack([fine_legal.reshape(len(grow), REFINE - 1), np.zeros((len(grow), 1), bool)])
            first_bad = np.argmin(fine_legal, axis=1)
            padded = np.hstack([good[:, None], fine_t, bad[:, None]])
            good, bad = padded[np.arange(len(grow)), first_bad], padded[np.arange(len(grow)), first_bad + 1]
        for b, refined in zip(grow, good):  # one entry per stretch end (a handful per table)
            b.ends[b.run] = refined
    return [edges[owner[s]]._replace(start=float(a), end=float(b)) for s, a, b in zip(starts, starts_t, ends_t)]


def _fallbacks(world, element: int, targets: np.ndarray, reasons: list[str], whys: list[str]) -> list[Fallback]:
    """docs/rules.md: "the trooper is instead placed inside its own deployment zone in base contact with the table edge
    (report the nearest such position and say that the owner chooses)"; `whys`: each reason as a sentence."""
    if len(targets) == 0:
        return []
    v = world.troopers
    side = v.sides[element]
    zone = side_zone(world, side)
    if zone is None:
        message = f"side '{side}' has no deployment zone in the scene, so there is nowhere to place it"
        return [Fallback(None, reason, None, f"{why}; {message}") for reason, why in zip(reasons, whys)]
    enemy = _enemy_zones(world, side)
    stretches = _stretches(world, element, zone, enemy)
    if not stretches:
        message = f"no spot of {side}'s deployment zone touching a table edge fits the base; the owner chooses"
        return [Fallback(None, reason, None, f"{why}; {message}") for reason, why in zip(reasons, whys)]
    origin = np.array([s.origin for s in stretches])
    direction = np.array([s.direction for s in stretches])
    lo, hi = np.array([s.start for s in stretches]), np.array([s.end for s in stretches])
    t = np.clip(np.einsum("tsk,sk->ts", targets[:, None, :] - origin[None], direction), lo, hi)  # (targets, stretches)
    spots = origin[None] + t[..., None] * direction[None]
    nearest = np.argmin(np.linalg.norm(spots - targets[:, None, :], axis=-1), axis=1)
    chosen = spots[np.arange(len(targets)), nearest]
    legal, z = _legal_spots(world, element, zone, enemy, chosen)
    if not legal.all():  # a gap narrower than EDGE_STEP inside a stretch: take the nearest end of a stretch instead
        ends = np.vstack([origin + lo[:, None] * direction, origin + hi[:, None] * direction])
        for k in np.flatnonzero(~legal):
            pick = int(np.argmin(np.linalg.norm(ends - targets[k], axis=1)))
            chosen[k], nearest[k] = ends[pick], pick % len(stretches)
        legal, z = _legal_spots(world, element, zone, enemy, chosen)
    return [
        Fallback(
            position=(float(chosen[k, 0]), float(chosen[k, 1]), float(z[k])),
            reason=reason,
            edge=stretches[nearest[k]].edge,
            message=(
                f"{why}: the trooper is placed instead in {side}'s deployment zone in base contact "
                f"with the table edge {stretches[nearest[k]].edge}; the owner chooses the spot, the nearest legal one "
                f"is ({chosen[k, 0]:.1f}, {chosen[k, 1]:.1f})"
            ),
        )
        for k, (reason, why) in enumerate(zip(reasons, whys))
    ]
