"""The colours of a table's things, shared by pictures (`viz.render`) and exported models (`exchange.gltf`):
one per side, the neutral troopers', the table's and one per terrain kind. Plain hex strings: no drawing library."""

from __future__ import annotations

SIDE_COLOURS = ("#1f5fd1", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf")
"""One colour per side, in the order the sides first appear; a seventh side takes the first colour again."""
NEUTRAL_COLOUR = "#e6c300"
"""Neutral troopers, whatever their side."""
TABLE_COLOUR = "#d8d2bc"
KIND_COLOURS = {
    "solid": "#8a8f98",
    "zero_visibility": "#333333",
    "low_visibility": "#9fc5e8",
    "poor_visibility": "#b4a7d6",
}
"""Terrain colour by kind."""
KIND_OPACITY = {"solid": 1.0, "zero_visibility": 0.55, "low_visibility": 0.3, "poor_visibility": 0.35}
"""Terrain opacity by kind in pictures: visibility zones are see-through, so what stands in them shows."""
KIND_ALPHA = {"solid": 255, "zero_visibility": 140, "low_visibility": 90, "poor_visibility": 100}
"""Terrain alpha (0-255) by kind in exported glTF (Low and Poor Visibility a little more opaque than in pictures)."""


def side_colour(k: int) -> str:
    """The colour of the k-th side (0 first)."""
    return SIDE_COLOURS[k % len(SIDE_COLOURS)]


def rgb(colour: str) -> tuple[int, int, int]:
    """'#1f5fd1' -> (31, 95, 209)."""
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)
