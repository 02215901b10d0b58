"""Targets for a generated layout: the scorecard's measures against limits, and the score the search lowers.

A target is `KEY<=VALUE` or `KEY>=VALUE` on a measure of `Scorecard.to_dict()` (`MEASURES`); targets are
separated by commas, and `--weights KEY=W,...` weighs them (1 unless given). A target on a per-zone measure
(`exposed_share`, `zone_visible_share`) holds for every zone, so it is judged on the worst zone.

The score (`score`): the weighted sum of each target's shortfall, each in its measure's `scale` (shares as they
are; millimetres and lane counts per 1000), 0 when every target is met, plus a tie-break below `TIE_BREAK`: how
little room the met targets leave (slack under `SLACK` counts), so that among layouts meeting the targets the
search prefers those that meet them by more, which the exact scorecard is then likelier to confirm.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from lofkit.errors import LofkitError
from lofkit.units import parse_length


@dataclass(frozen=True)
class Measure:
    """A scorecard measure a target may name: `kind` share, mm or count; `per_zone`: a value per zone."""

    kind: str
    per_zone: bool
    meaning: str

    @property
    def scale(self) -> float:
        return 1.0 if self.kind == "share" else 1000.0


MEASURES: dict[str, Measure] = {
    "zone_visible_share": Measure("share", True, "share of a zone's spots seen from the other zone"),
    "exposed_share": Measure("share", True, "share of the table's cells seen from a zone"),
    "safe_share": Measure("share", False, "share of the table's cells seen from no zone"),
    "longest_lane_mm": Measure("mm", False, "the longest firing lane between the zones, base to base"),
    "lanes": Measure("count", False, "firing lanes between the zones' spots"),
    "terrain_density": Measure("share", False, "share of the table under terrain, seen from above"),
    "symmetry": Measure("share", False, "overlap of the layout with itself turned half a turn"),
    "exposure_balance": Measure("share", False, "1 - the difference between the zones' exposed shares"),
}
HIDING = {"safe_share": ">=", "zone_visible_share": "<=", "exposed_share": "<="}
"""The targets that ask for spots hidden, and which way (`Target.wants_hidden`)."""
TIE_BREAK = 1e-3
SLACK = 0.05
"""Slack (in a measure's scale) beyond which a met target adds nothing to the tie-break."""
_TERM = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(<=|>=|=<|=>|<|>|==|=)\s*(.*?)\s*$")


@dataclass(frozen=True)
class Target:
    key: str
    op: str
    value: float
    weight: float = 1.0

    @property
    def measure(self) -> Measure:
        return MEASURES[self.key]

    @property
    def wants_hidden(self) -> bool:
        """Whether the target asks for spots hidden from the other zone (safe_share >=, zone_visible_share <=,
        exposed_share <=): what a shield between a spot and its watchers works for."""
        return HIDING.get(self.key) == self.op

    def text(self) -> str:
        value = f"{self.value:g}"
        return f"{self.key}{self.op}{value}" + (f" (weight {self.weight:g})" if self.weight != 1 else "")

    def worst(self, card: dict) -> float:
        """The card's value of this target's measure (the worst zone's for a per-zone measure)."""
        value = card[self.key]
        if isinstance(value, dict):
            if not value:
                return math.nan
            return max(value.values()) if self.op == "<=" else min(value.values())
        return float(value)

    def shortfall(self, card: dict, margin: float = 0.0) -> float:
        """How far the card falls short of the target, in the measure's scale (0: met); `margin` (same scale)
        tightens the target, as the search does."""
        value = self.worst(card) / self.measure.scale
        limit = self.value / self.measure.scale
        if math.isnan(value):
            return math.inf
        return max(0.0, value - (limit - margin)) if self.op == "<=" else max(0.0, (limit + margin) - value)

    def slack(self, card: dict, margin: float = 0.0) -> float:
        value, limit = self.worst(card) / self.measure.scale, self.value / self.measure.scale
        return (limit - margin - value) if self.op == "<=" else (value - limit - margin)


def known_keys() -> str:
    return ", ".join(MEASURES)


def parse_targets(text: str, weights: str | None = None, flag: str = "--target") -> tuple[Target, ...]:
    """`KEY<=VALUE,KEY>=VALUE` (and `--weights KEY=W,...`) as targets; anything else is an error naming `flag`, the
    term and the fix."""
    if not text or not text.strip():
        raise LofkitError(f"{flag}: give at least one target, e.g. \"zone_visible_share<=0.7,safe_share>=0.05\"")
    targets = []
    for term in (t for t in text.split(",")):
        match = _TERM.match(term)
        if not term.strip() or match is None:
            raise LofkitError(f"{flag} '{term.strip()}': write a target as KEY<=VALUE or KEY>=VALUE, targets "
                              f"separated by commas, e.g. \"safe_share>=0.05\"")
        key, op, value = match.groups()
        if key not in MEASURES:
            raise LofkitError(f"{flag} '{term.strip()}': unknown measure '{key}'; the known ones are {known_keys()}")
        if op not in ("<=", ">="):
            raise LofkitError(f"{flag} '{term.strip()}': use <= or >= (a target is a limit, met at the limit)")
        targets.append(Target(key, op, _number(value, MEASURES[key], flag, term.strip())))
    keys = [t.key + t.op for t in targets]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise LofkitError(f"{flag}: {', '.join(repeated)} given twice; give each limit once")
    return _weighted(tuple(targets), weights)


def _number(text: str, measure: Measure, flag: str, term: str) -> float:
    try:
        value = parse_length(text, "mm") if measure.kind == "mm" else float(text)
    except ValueError:
        unit = " (mm, or a length with its unit: 40in)" if measure.kind == "mm" else ""
        raise LofkitError(f"{flag} '{term}': '{text}' is not a number{unit}") from None
    if not math.isfinite(value):
        raise LofkitError(f"{flag} '{term}': give a finite number")
    return float(value)


def _weighted(targets: tuple[Target, ...], text: str | None) -> tuple[Target, ...]:
    if not text:
        return targets
    weights = {}
    for term in text.split(","):
        key, sep, value = term.partition("=")
        key = key.strip()
        try:
            weight = float(value)
        except ValueError:
            weight = math.nan
        if not sep or not math.isfinite(weight) or weight <= 0:
            raise LofkitError(f"--weights '{term.strip()}': write KEY=WEIGHT with a positive weight, e.g. "
                              f"safe_share=2")
        if key not in {t.key for t in targets}:
            raise LofkitError(f"--weights '{term.strip()}': no target on '{key}'; weigh one of "
                              f"{', '.join(dict.fromkeys(t.key for t in targets))}")
        weights[key] = weight
    return tuple(Target(t.key, t.op, t.value, weights.get(t.key, 1.0)) for t in targets)


def out_of_reach(targets: tuple[Target, ...]) -> list[str]:
    """Targets no layout can meet (a share above 1 or below 0, a negative length or count): said, not refused, as
    the search still writes the best layout it finds."""
    found = []
    for t in targets:
        low, high = (0.0, 1.0) if t.measure.kind == "share" else (0.0, math.inf)
        if (t.op == ">=" and t.value > high) or (t.op == "<=" and t.value < low):
            found.append(f"{t.text()} can never be met: {t.key} lies in {low:g}..{high:g}")
    return found


Margins = float | tuple[float, ...]
"""One margin for every target, or one per target (in the measure's scale)."""


def each(targets: tuple[Target, ...], margins: Margins) -> tuple[float, ...]:
    return tuple(margins) if isinstance(margins, (tuple, list)) else (float(margins),) * len(targets)


def score(targets: tuple[Target, ...], card: dict, margins: Margins = 0.0) -> float:
    """The weighted shortfall (0 when every target is met) plus the tie-break (module docstring); `margins`
    tighten the targets, as the search does."""
    pairs = list(zip(targets, each(targets, margins)))
    total = sum(t.weight * t.shortfall(card, m) for t, m in pairs)
    room = sum(t.weight * min(1.0, max(0.0, SLACK - t.slack(card, m)) / SLACK) for t, m in pairs)
    return total + TIE_BREAK * room / max(1e-12, sum(t.weight for t in targets))


SHAPING = 1.0
"""Weight of the watchers' deficit in the search's energy (`search_energy`)."""


def deficit(target: Target, watchers, margin: float) -> float:
    """How far a target on spots seen or hidden is from met, as the spots see it: the mean share of viewers
    watching the spots that would have to be hidden, those watched least (0 when they are all hidden)."""
    if isinstance(watchers, dict):
        return max((deficit(target, w, margin) for w in watchers.values()), default=0.0)
    if len(watchers) == 0:
        return 0.0
    limit = target.value / target.measure.scale
    hidden = (limit + margin) if target.op == ">=" else 1 - (limit - margin)
    needed = min(len(watchers), max(1, math.ceil(hidden * len(watchers))))
    return float(np.partition(watchers, needed - 1)[:needed].mean())


def search_energy(targets: tuple[Target, ...], card: dict, margins: Margins) -> float:
    """What the search lowers: the score with the margin, plus `SHAPING` times the `deficit` of each unmet target
    that wants spots hidden (safe_share >=, zone_visible_share <=, exposed_share <=). A count of hidden spots does
    not move until a spot's last watcher is gone; the deficit moves with every watcher, so it tells the search it
    is getting closer."""
    watchers = card.get("_watchers", {})
    extra = 0.0
    for t, margin in zip(targets, each(targets, margins)):
        if t.key in watchers and t.wants_hidden and t.shortfall(card, margin) > 0:
            extra += t.weight * deficit(t, watchers[t.key], margin)
    return score(targets, card, margins) + SHAPING * extra


def met(targets: tuple[Target, ...], card: dict, margins: Margins = 0.0) -> bool:
    return all(t.shortfall(card, m) == 0 for t, m in zip(targets, each(targets, margins)))


def report(targets: tuple[Target, ...], card: dict) -> list[dict]:
    """Each target with the card's value and its shortfall (in the measure's own unit), for the JSON output."""
    return [{"target": t.key + t.op + f"{t.value:g}", "weight": t.weight, "value": round(t.worst(card), 4),
             "met": t.shortfall(card) == 0, "shortfall": round(t.shortfall(card) * t.measure.scale, 4)}
            for t in targets]
