"""What the compiled loops of the sight search (`kernels`) take as one argument: templates and their lattice.
The other kernels are called with their arrays as named arguments."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Templates(NamedTuple):
    """The templates n eyes look at, placed by `centres` (n, 2), `z` (n,) and `axis` (n, 2), and their lattice:
    `half_width`, `pitch` (2,) and `cells` (2,) (`lattice.Lattice`)."""

    centres: np.ndarray
    z: np.ndarray
    axis: np.ndarray
    half_width: float
    pitch: np.ndarray
    cells: np.ndarray
