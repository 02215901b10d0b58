"""Trooper volumes from silhouettes.

Rule (docs/rules.md, Volumes and silhouettes): "A trooper's volume is a closed vertical cylinder: diameter = base size,
height = silhouette height, bottom face at the trooper's elevation z."
"""

from __future__ import annotations

SILHOUETTES: dict[int, tuple[float, float]] = {
    1: (25.0, 25.0),
    2: (25.0, 40.0),
    3: (40.0, 32.0),
    4: (55.0, 32.0),
    5: (40.0, 45.0),
    6: (40.0, 55.0),
    7: (55.0, 67.0),
    8: (70.0, 70.0),
}
"""Silhouette -> (base diameter, height) in mm."""

PRONE_HEIGHT = 3.0
"""S0: "Prone: the silhouette becomes S0: same base, height 3 mm (the base's own thickness)."""

MARKER_SILHOUETTE = 2
""""Markers ... have a volume (default 25 mm base, S2 height unless given)."""

BASE_SILHOUETTES: dict[float, int] = {25.0: 2, 40.0: 3, 55.0: 4, 70.0: 8}
"""Base diameter (mm) -> the silhouette assumed for a trooper known only by its base: the lowest silhouette with
that base, except S2 for 25 mm (S1 is rarely a trooper)."""


def silhouette_for_base(diameter: float) -> int | None:
    """The silhouette assumed for a base of `diameter` mm (to the nearest mm); None for a size no silhouette has.

    >>> silhouette_for_base(40), silhouette_for_base(25.2), silhouette_for_base(32)
    (3, 2, None)
    """
    return BASE_SILHOUETTES.get(round(diameter))


def silhouette_for_figure(diameter: float, height: float) -> int | None:
    """The silhouette of a model seen whole (a scan): among those with a base of `diameter` mm, the one whose height
    is nearest the figure's `height` (mm over the base's underside); None for a base no silhouette has.

    >>> silhouette_for_figure(25, 41.0), silhouette_for_figure(40, 50.1), silhouette_for_figure(32, 40)
    (2, 6, None)
    """
    same_base = [s for s, (base, _) in SILHOUETTES.items() if base == diameter]
    if not same_base:
        return None
    return min(same_base, key=lambda s: (abs(SILHOUETTES[s][1] - height), s))


def found_trooper_size(diameter: float, figure_height: float | None = None) -> dict:
    """What a scene says of a trooper found by its base (in a photo or a scan), `diameter` mm across, with its
    figure's height (mm over the base's underside) when it was measured: a base some silhouette has gets that
    silhouette (`silhouette_for_figure` given the height, else `silhouette_for_base`); any other base keeps its own
    size, with the figure's height when known, else the height of the nearest standard base's silhouette.

    >>> found_trooper_size(40), found_trooper_size(40, 54.0), found_trooper_size(33), found_trooper_size(32, 41.04)
    ({'silhouette': 3}, {'silhouette': 6}, {'silhouette': 3, 'base': 33.0}, {'base': 32.0, 'height': 41.0})
    """
    silhouette = (silhouette_for_base(diameter) if figure_height is None
                  else silhouette_for_figure(diameter, figure_height))
    if silhouette is not None:
        return {"silhouette": silhouette}
    if figure_height is not None:
        return {"base": float(diameter), "height": round(float(figure_height), 1)}
    nearest = min(BASE_SILHOUETTES, key=lambda size: abs(size - diameter))
    return {"silhouette": BASE_SILHOUETTES[nearest], "base": float(diameter)}


def volume_size(
    silhouette: int | None,
    base: float | None,
    height: float | None,
    *,
    prone: bool = False,
    marker: bool = False,
) -> tuple[float, float]:
    """Return (base diameter, height) in mm of a trooper's volume cylinder.

    Overrides of `base`/`height` win over the silhouette table; a prone trooper is S0 (3 mm tall).

    >>> volume_size(2, None, None), volume_size(2, None, None, prone=True), volume_size(None, None, None, marker=True)
    ((25.0, 40.0), (25.0, 3.0), (25.0, 40.0))
    """
    if silhouette is None and marker:
        silhouette = MARKER_SILHOUETTE
    table_base, table_height = SILHOUETTES.get(silhouette, (None, None)) if silhouette is not None else (None, None)
    diameter = base if base is not None else table_base
    tall = height if height is not None else table_height
    if diameter is None or tall is None:
        raise ValueError("give a silhouette (1..8) or both base and height")
    return float(diameter), PRONE_HEIGHT if prone else float(tall)
