"""Whether things lie on the table top: plain arithmetic on the table's rectangle, vectorised over arrays.

docs/rules.md (Units and frames): "The table top is the plane z = 0 and spans `0 <= x <= width`, `0 <= y <= depth`";
"distances compare with a tolerance of 1e-6 mm". A base exactly touching an edge lies on the table.
"""

from __future__ import annotations

import math

import numpy as np

from lofkit.units import EPS

ON_TABLE_TOLERANCE = EPS
"""A base (or a piece) reaching at most this far (mm) past a table edge still lies on the table."""


def written_on_table(position, radius: float, width: float, depth: float) -> list[float]:
    """A base centre (x, y) as a scene file writes it, to 0.1 mm, moved just enough to keep the base wholly on the
    table (an importer's found base may reach a hair past an edge).

    >>> written_on_table((12.44, 600.06), 12.5, 1219.2, 1219.2)
    [12.5, 600.1]
    """
    def along(value: float, length: float) -> float:
        return min(max(round(value, 1), math.ceil(radius * 10) / 10), math.floor((length - radius) * 10) / 10)

    return [along(float(position[0]), width), along(float(position[1]), depth)]


def table_overhang(lows, highs, width: float, depth: float) -> np.ndarray:
    """How far (mm) each axis-aligned rectangle from `lows` (n, 2) to `highs` (n, 2) reaches past the table's edges:
    the largest of its four overhangs, <= 0 when it lies wholly on the table."""
    lows = np.reshape(np.asarray(lows, dtype=float), (-1, 2))
    highs = np.reshape(np.asarray(highs, dtype=float), (-1, 2))
    return np.max([-lows[:, 0], highs[:, 0] - width, -lows[:, 1], highs[:, 1] - depth], axis=0)


def base_overhang(centres, radii, width: float, depth: float) -> np.ndarray:
    """How far (mm) each base (centre (n, 2), radius scalar or (n,)) reaches past the table's edges (<= 0: on it).

    >>> base_overhang([[20.0, 100.0], [12.499, 100.0]], 12.5, 1219.2, 1219.2).round(6).tolist()
    [-7.5, 0.001]
    """
    centres = np.reshape(np.asarray(centres, dtype=float), (-1, 2))
    radii = np.broadcast_to(np.asarray(radii, dtype=float), (len(centres),))[:, None]
    return table_overhang(centres - radii, centres + radii, width, depth)


def base_on_table(centres, radii, width: float, depth: float) -> np.ndarray:
    """Whether each base lies wholly on the table, within `ON_TABLE_TOLERANCE` (a bool mask, shape (n,)); a point is
    a base of radius 0.

    >>> base_on_table([[12.5, 100.0], [12.499, 100.0], [1206.7, 50.0]], 12.5, 1219.2, 1219.2)
    array([ True, False,  True])
    """
    return base_overhang(centres, radii, width, depth) <= ON_TABLE_TOLERANCE
