"""Reading rolls as people write them: `SVxB` roll specs and comma-separated MOD lists."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lofkit.dice.rolls import RollError

MAX_SV = 30
"""Largest success value `parse_roll_spec` accepts."""
MAX_BURST = 6
"""Largest burst `parse_roll_spec` accepts."""


@dataclass(frozen=True)
class RollSpec:
    """A success value and a burst, written `SVxB` (e.g. `12x3`)."""

    sv: int
    burst: int

    def __str__(self) -> str:
        return f"{self.sv}x{self.burst}"


_SPEC = re.compile(r"\s*(\d+)\s*[xX]\s*(\d+)\s*")
_MOD = re.compile(r"\s*([+-]?\d+)\s*")


def parse_roll_spec(text: str) -> RollSpec:
    """Parse `SVxB`: a success value 0..30 (MODs already applied; 0 fails automatically) and a burst 0..6.

    >>> parse_roll_spec("12x3")
    RollSpec(sv=12, burst=3)
    """
    match = _SPEC.fullmatch(str(text))
    if match is None:
        raise RollError(
            f"cannot read roll '{text}': write SVxB, a success value and a burst, e.g. 12x3 (SV 12, burst 3)"
        )
    sv, burst = int(match[1]), int(match[2])
    if sv > MAX_SV:
        raise RollError(f"roll '{text}': success value {sv} is above {MAX_SV}; use an SV from 0 to {MAX_SV}")
    if burst > MAX_BURST:
        raise RollError(f"roll '{text}': burst {burst} is above {MAX_BURST}; use a burst from 0 to {MAX_BURST}")
    return RollSpec(sv, burst)


def parse_mods(text: str) -> tuple[int, ...]:
    """Parse a comma-separated MOD list such as `+3,-6` (empty text: no MODs).

    >>> parse_mods("+3,-6")
    (3, -6)
    """
    if not str(text).strip():
        return ()
    mods = []
    for part in str(text).split(","):
        match = _MOD.fullmatch(part)
        if match is None:
            raise RollError(f"cannot read MOD '{part.strip()}' in '{text}': write signed whole numbers, e.g. +3,-6")
        mods.append(int(match[1]))
    return tuple(mods)
