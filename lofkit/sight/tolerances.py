"""The sight search's tolerances, in one place: how far segments stop short of their ends (`END_TRIM`, passed to the
compiled loops as `trim`), and the slack each test allows for float rounding, always towards the safe side.

The compiled loops (`kernels`) read the rest as globals, which numba compiles in as constants; its on-disk cache
checks only the file a kernel is defined in for changes, so those are defined in `kernels` (change them there) and
imported here, where the numpy modules take them from: `PARALLEL` (a segment parallel to a plane), `INSIDE` (how
far a segment runs inside a part to cross it), `NONZERO` (the floor of a divisor), `ON_AXIS` (an eye on a
template's axis), `SHADOW_SLACK` and `BOX_PAD` (a part's shadow on a template).
"""

from __future__ import annotations

from lofkit.sight.kernels import BOX_PAD, INSIDE, NONZERO, ON_AXIS, PARALLEL, SHADOW_SLACK

END_TRIM = 0.01
"""Segments stop this far (mm) short of their eye and their template point, and the lowest eyes and lattice points
stand this far above the base's underside, so the surface a base rests on never counts as an obstruction while a
piece standing on that same surface does."""
ROUNDING = 1e-9
"""Slack for float rounding when counting cells and blocks, and fitting a square: an exact fit is a fit."""
SAME_SPOT = 1e-9
"""Horizontal distance (mm) below which two points stand on one vertical line (no direction from one to the other)."""
CORRIDOR_SLACK = 1e-6
"""mm by which `corridor.in_corridor` and `corridor.comes_near` err on the side of "may block"."""

__all__ = ["BOX_PAD", "CORRIDOR_SLACK", "END_TRIM", "INSIDE", "NONZERO", "ON_AXIS", "PARALLEL", "ROUNDING",
           "SAME_SPOT", "SHADOW_SLACK"]
