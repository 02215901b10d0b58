"""docs/rules.md "Deployment": where a trooper may be deployed, as geometry, and a check of every deployment on a table.

The rules are predicates over arbitrary bases (arrays of centres, elevations, radii, heights), so dispersion's
fallback (docs/rules.md "Dispersion") applies the very same rules to the spots it tries. Choices where docs/rules.md is
silent:

- Who is checked: every trooper and marker of a side (a side's markers, e.g. camouflage, deploy like its troopers:
  inside its zone, not touching enemies). Neutral troopers and neutral markers (civilians, mission objectives) are
  placed by the scenario, not deployed by a player: they are exempt, but nobody may deploy in contact with them.
- A side with no polygon under `deployment_zones` cannot deploy legally: each of its troopers gets an `own_zone`
  problem saying so (the check cannot prove the deployment legal, so it does not pass it). Several polygons of the
  same side form one zone (their union).
- "How far outside": `outside_mm` = base radius minus the signed distance from the base centre to the zone's
  boundary (positive inside), i.e. how far the base crosses the zone's edge; exact for straight edges.
- Base contact: with the scene's `base_contact_tolerance` (measure.base_contact: exactly at the tolerance is
  contact), between bases as discs at their `z`. The rules list markers beside enemy and neutral models, so a
  marker may touch nobody, a friendly one included, and nobody may touch a marker (`contact_forbidden`). A pair
  that touches is reported once, under the trooper listed first in the scene among the checked ones, with the
  other as `other`.
- Support and scenery: "the whole base must fit" is geometry.support.base_fit, the one test dispersion and the
  analyses use too. Support: the base rests flat when, under every sample point of the base (a `SPACING` grid
  clipped to the disc and its rim, pulled in by `CLEARANCE` so a base exactly as large as its surface still fits),
  the highest solid surface at or below the base lies within `SUPPORT_TOLERANCE` of the base's underside (the table
  top, z = 0, supports everywhere). Gaps narrower than the grid (2 mm) are not seen.
- Scenery: clearance.volume_overlaps (the volume shrunk by 0.01 mm, so resting on or touching a surface is fine);
  the numbers say how far the base reaches into each piece's footprint (its outline seen from above).
- Prone troopers are checked with their S0 volume (3 mm tall): prone deployment is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely

from lofkit.geometry.support import BaseFit, base_fit
from lofkit.geometry.world import World
from lofkit.rules.measure import base_contact, base_distance
from lofkit.units import EPS, reported

RULES = ("own_zone", "base_contact", "supported", "scenery")
"""Problem codes, in docs/rules.md order; each problem names one."""


@dataclass(frozen=True)
class DeployProblem:
    """One broken deployment rule: which trooper, which rule, a sentence and the numbers.

    Attributes
    ----------
    trooper : str
        The trooper's (or marker's) id.
    rule : str
        One of `RULES`: ``"own_zone"``, ``"base_contact"``, ``"supported"``, ``"scenery"``.
    message : str
        What is wrong, with the numbers, as a sentence.
    numbers : tuple of (str, value)
        By rule: ``side``, ``outside_mm`` (how far the base crosses the zone's edge; None when the side has no
        zone); ``other``, ``distance_mm``, ``tolerance_mm``; ``z``, ``drop_mm``, ``unsupported_share`` (0-1);
        ``pieces`` (a list of ``{"id", "reach_mm"}``: how far the base reaches into each piece seen from above).

    Examples
    --------
    >>> import lofkit
    >>> lofkit.deploy_check(lofkit.load("examples/quickstart.yaml")).problems[0].to_dict()
    {'trooper': 'sniper', 'rule': 'own_zone', 'message': "the base reaches 267.70 mm outside blue's deployment zone;
    it must be totally inside", 'side': 'blue', 'outside_mm': 267.7}
    """

    trooper: str
    rule: str
    message: str
    numbers: tuple[tuple[str, str | float | list[dict] | None], ...] = ()

    def to_dict(self) -> dict:
        return {"trooper": self.trooper, "rule": self.rule, "message": self.message, **dict(self.numbers)}


@dataclass(frozen=True)
class DeployCheckResult:
    """Is every deployment legal (`deploy_check`).

    Attributes
    ----------
    problems : tuple of DeployProblem
        Every broken rule, trooper by trooper in scene order, rule by rule in `RULES` order.
    checked : tuple of str
        The troopers and markers of a side, all checked.
    exempt : tuple of str
        The neutral troopers and markers, placed by the scenario and not checked.
    ok : bool
        No problems (a property).

    Examples
    --------
    >>> import lofkit
    >>> result = lofkit.deploy_check(lofkit.load("examples/quickstart.yaml"))
    >>> result.ok, [(p.trooper, p.rule, dict(p.numbers)["outside_mm"]) for p in result.problems]
    (False, [('sniper', 'own_zone', 267.7), ('prone-sniper', 'own_zone', 86.9)])
    """

    problems: tuple[DeployProblem, ...]
    checked: tuple[str, ...]
    exempt: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """No problems."""
        return not self.problems

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "problems": [p.to_dict() for p in self.problems],
            "checked": list(self.checked),
            "exempt": list(self.exempt),
        }


# --- the rules, over arbitrary bases ------------------------------------------------------------------------------


def side_zone(world, side: str | None) -> shapely.Geometry | None:
    """The deployment zone of `side` (the union of its polygons), or None when the scene gives it none."""
    polygons = [shapely.Polygon(z.polygon) for z in world.scene.deployment_zones if z.side == side]
    return shapely.union_all(polygons) if polygons else None


def signed_clearance(zone: shapely.Geometry, centres: np.ndarray) -> np.ndarray:
    """Distance from each point to the zone's boundary, positive inside the zone (boundary included), negative out."""
    points = shapely.points(np.reshape(centres, (-1, 2)))
    depth = shapely.distance(zone.boundary, points)
    return np.where(shapely.intersects(zone, points), depth, -depth)


def zone_outside(zone: shapely.Geometry, centres: np.ndarray, radii) -> np.ndarray:
    """docs/rules.md (Deployment): "The base must be totally inside the owner's deployment zone (a base touching the
    zone's edge from inside is in)": how far each base crosses the zone's edge, in mm; inside when <= EPS."""
    return np.asarray(radii, dtype=float) - signed_clearance(zone, centres)


def reach_into(shape: shapely.Geometry, centre, radius: float) -> float:
    """How far (mm) a base reaches into `shape` past its edge: from the edge to the deepest point of the base."""
    return float(radius + signed_clearance(shape, np.asarray(centre))[0])


# --- the check of a whole table -----------------------------------------------------------------------------------


def deploy_check(world: World) -> DeployCheckResult:
    """Every rule of docs/rules.md "Deployment" for every trooper and marker of a side.

    Legal: the base "must be totally inside the owner's deployment zone"; "no base contact with enemy or neutral
    models, markers, tokens or mission objectives (no exceptions)" (every marker, a friendly one too); the base
    rests flat on a surface as large as itself; the volume is clear of scenery. Neutral pieces are exempt.

    Parameters
    ----------
    world : World
        The table.

    Returns
    -------
    DeployCheckResult
        Every broken rule, with its numbers; `ok` when there is none.

    Examples
    --------
    >>> import lofkit
    >>> result = lofkit.deploy_check(lofkit.load("examples/quickstart.yaml"))
    >>> result.ok, [p.message for p in result.problems][:1]
    (False, ["the base reaches 267.70 mm outside blue's deployment zone; it must be totally inside"])
    """
    v = world.troopers
    checked = np.flatnonzero(~v.neutral)
    found: dict[tuple[int, int], list[DeployProblem]] = {}

    def add(i: int, rule: str, message: str, **numbers) -> None:
        problem = DeployProblem(v.ids[i], rule, message, tuple(numbers.items()))
        found.setdefault((i, RULES.index(rule)), []).append(problem)

    _zone_problems(world, checked, add)
    _contact_problems(world, add)
    fit = base_fit(world, v.centre[checked], v.z[checked], v.radius[checked], v.height[checked])
    _support_problems(world, checked, fit, add)
    _scenery_problems(world, checked, fit, add)
    problems = tuple(p for key in sorted(found) for p in found[key])
    return DeployCheckResult(
        problems=problems,
        checked=tuple(v.ids[i] for i in checked),
        exempt=tuple(v.ids[i] for i in np.flatnonzero(v.neutral)),
    )


def _zone_problems(world, checked: np.ndarray, add) -> None:
    v = world.troopers
    for side in dict.fromkeys(v.sides[i] for i in checked):
        mine = checked[[v.sides[i] == side for i in checked]]
        zone = side_zone(world, side)
        if zone is None:
            for i in mine:
                add(i, "own_zone", f"side '{side}' has no deployment zone in the scene, so '{v.ids[i]}' cannot be "
                    f"deployed legally; add one under `deployment_zones`", side=side, outside_mm=None)
            continue
        outside = zone_outside(zone, v.centre[mine], v.radius[mine])
        for i, mm in zip(mine.tolist(), outside.tolist()):
            if mm > EPS:
                add(i, "own_zone", f"the base reaches {mm:.2f} mm outside {side}'s deployment zone; it must be "
                    "totally inside", side=side, outside_mm=reported(mm))


def contact_forbidden(volumes, a, b) -> np.ndarray:
    """docs/rules.md (Deployment): "No base contact with enemy or neutral models, markers, tokens or mission
    objectives (no exceptions)": whether a's base may not touch b's (indices, arrays broadcast). True when they are
    not on one side (enemies, or one of them neutral) or when either is a marker, whoever's; two friendly models may
    touch. Dispersion's landings obey the same rule.

    >>> from lofkit.geometry.volumes import base_volumes
    >>> v = base_volumes(np.zeros((2, 2)), 0, 12.5, 40)
    >>> bool(contact_forbidden(v, 0, 1))  # two spots with no side: both neutral, no marker
    False
    """
    a, b = np.asarray(a), np.asarray(b)
    return ~volumes.allied(a, b) | volumes.marker[a] | volumes.marker[b]


def _contact_problems(world, add) -> None:
    """`contact_forbidden` between every two troopers or markers, but two neutral ones (placed by the scenario)."""
    v = world.troopers
    a, b = np.triu_indices(len(v), k=1)
    tolerance = world.scene.base_contact_tolerance
    checked = ~(v.neutral[a] & v.neutral[b])
    touching = checked & contact_forbidden(v, a, b) & base_contact(v, a, b, tolerance)
    for i, j in zip(a[touching].tolist(), b[touching].tolist()):
        if v.neutral[i]:
            i, j = j, i  # report under the trooper that was deployed
        gap = float(base_distance(v, i, j))
        add(i, "base_contact", f"in base contact with {named_contact(v, i, j)} (bases {gap:.2f} mm apart, contact is <= "
            f"{tolerance:g} mm)", other=v.ids[j], distance_mm=reported(gap), tolerance_mm=reported(tolerance))


def named_contact(volumes, i: int, j: int) -> str:
    """Trooper j as trooper i's message names a contact with it: "enemy model 'red-1'", "friendly marker 'camo'"."""
    relation = "neutral" if volumes.neutral[j] else "friendly" if volumes.allied(i, j) else "enemy"
    return f"{relation} {'marker' if volumes.marker[j] else 'model'} '{volumes.ids[j]}'"


def _support_problems(world, checked: np.ndarray, fit: BaseFit, add) -> None:
    v = world.troopers
    for i, d, s, supported in zip(checked.tolist(), fit.drop.tolist(), fit.unsupported_share.tolist(), fit.supported):
        if not supported:
            add(i, "supported", f"the base does not rest flat on a surface as large as itself: {100 * s:.0f}% of it "
                f"is over a drop of up to {d:.2f} mm below its underside (z = {v.z[i]:.2f} mm)",
                z=reported(v.z[i]), drop_mm=reported(d), unsupported_share=round(s, 4))


def _scenery_problems(world, checked: np.ndarray, fit: BaseFit, add) -> None:
    v = world.troopers
    by_id = {p.id: p for p in world.pieces}
    for i, piece_ids in zip(checked.tolist(), fit.scenery):
        if not piece_ids:
            continue
        reach = [
            {"id": pid, "reach_mm": reported(reach_into(by_id[pid].outline, v.centre[i], v.radius[i]))}
            for pid in piece_ids
        ]
        said = ", ".join(f"'{r['id']}' (the base reaches {r['reach_mm']:.2f} mm into its footprint)" for r in reach)
        add(i, "scenery", f"the volume intersects scenery: {said}", pieces=reach)
