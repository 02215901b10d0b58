"""The odds of a ruling: the face-to-face roll of an attack and its reply, with the MODs the geometry knows.

`check --odds "12x3 vs 11x1"` gives the shooter's and the target's BS (or any attribute) and bursts. MODs that
follow from the verdict are applied, each side's sum clamped to +-12 (docs/rules.md Rolls): the range-band MOD of each
side's weapon, given per 8" band (`+3,0,-3,-6` means +3 at 0-8", 0 at 8-16", ...; bands past the list count as
out of range), Partial Cover (-3 to the BS of whoever shoots at a trooper in cover) and the worst Low/Poor
Visibility zone on the witness segments (-3 / -6). A target without LoF back to the shooter cannot reply: the attack
is then a normal roll.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lofkit.dice.distribution import F2FDistribution, f2f_distribution
from lofkit.dice.parsing import RollSpec, parse_mods, parse_roll_spec
from lofkit.dice.rolls import RollError, success_value
from lofkit.rules.cover import PARTIAL_COVER_BS_MOD

_VS = re.compile(r"\s*(.+?)\s+vs\.?\s+(.+?)\s*", re.IGNORECASE)


def parse_duel(text: str) -> tuple[RollSpec, RollSpec]:
    """Parse "BSxB vs BSxB", e.g. "12x3 vs 11x1"."""
    match = _VS.fullmatch(text or "")
    if match is None:
        raise RollError(f"cannot read odds '{text}': write the shooter's and the target's rolls as '12x3 vs 11x1'")
    return parse_roll_spec(match[1]), parse_roll_spec(match[2])


def band_mod(mods_text: str | None, band: int) -> int | None:
    """The MOD for range band `band` (1 = 0-8") from a per-band list; None when the band is past the list."""
    if not mods_text:
        return 0
    mods = parse_mods(mods_text)
    return mods[band - 1] if band <= len(mods) else None


@dataclass(frozen=True)
class Odds:
    """The attack (side 1) against the reply (side 2) after MODs, and its exact outcome distribution."""

    attack: RollSpec
    reply: RollSpec
    mods1: tuple[tuple[str, int], ...]
    mods2: tuple[tuple[str, int], ...]
    sv1: int
    sv2: int
    burst2: int
    note: str
    distribution: F2FDistribution

    def to_dict(self) -> dict:
        return {
            "attack": str(self.attack),
            "reply": str(self.reply),
            "mods1": [{"why": why, "mod": mod} for why, mod in self.mods1],
            "mods2": [{"why": why, "mod": mod} for why, mod in self.mods2],
            "sv1": self.sv1,
            "sv2": self.sv2,
            "burst2": self.burst2,
            "note": self.note,
            "distribution": self.distribution.to_dict(),
        }


def _sv_after_mods(spec: RollSpec, range_mods: str | None, band: int, situational: list[tuple[str, int]], who: str):
    """One side's SV after its MODs: (sv, [(why, mod)], note or "")."""
    mod = band_mod(range_mods, band)
    if mod is None:
        return 0, [], f"the {who} is out of its weapon's range"
    mods = [(f"range band {8 * (band - 1)}-{8 * band}in", mod)] if range_mods else []
    mods += [(why, value) for why, value in situational if value]
    return success_value(spec.sv, [m for _, m in mods]), mods, ""


def situational_mods(verdict) -> list[tuple[str, int]]:
    """The MODs to the roll of a shooter that the verdict knows: the target's Partial Cover and the worst
    Low/Poor Visibility zone on the witness segments."""
    cover = f"{verdict.target} in Partial Cover ({verdict.cover_from})"
    mods = [(cover, PARTIAL_COVER_BS_MOD)] if verdict.cover else []
    if verdict.visibility_mod:
        mods.append((f"visibility zone {verdict.visibility_zone}", verdict.visibility_mod))
    return mods


def duel_odds(
    attack: RollSpec,
    reply: RollSpec,
    band: int,
    reply_has_lof: bool,
    attack_mods: list[tuple[str, int]] = (),
    reply_mods: list[tuple[str, int]] = (),
    range_mods: str | None = None,
    reply_range_mods: str | None = None,
) -> Odds:
    """Odds of an attack at range band `band` and the target's reply; `attack_mods`/`reply_mods` are the
    situational MODs of each roll (see `situational_mods`)."""
    sv1, mods1, note1 = _sv_after_mods(attack, range_mods, band, list(attack_mods), "attack")
    sv2, mods2, note2 = _sv_after_mods(reply, reply_range_mods, band, list(reply_mods), "reply")
    burst2 = reply.burst if reply_has_lof else 0
    note3 = "" if reply_has_lof else "the target has no LoF to the shooter, so it cannot reply: a normal roll"
    note = "; ".join(n for n in (note1, note2, note3) if n)
    return Odds(attack, reply, tuple(mods1), tuple(mods2), sv1, sv2, burst2, note,
                f2f_distribution(sv1, attack.burst, sv2, burst2))
