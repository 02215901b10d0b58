"""What the compiled loops of the sight search (`kernels`) take as one argument: templates and their lattice.
The other kernels are called with their arrays as named arguments, each array as `kernel_array` makes it."""

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


def kernel_array(array, dtype=None) -> np.ndarray:
    """`array` as the kernels take it: C-contiguous and writable, copied only when it is not. numba compiles a kernel
    once for each layout and read-only flag of its arrays (about a second each for the larger ones), so lofkit
    passes one kind.

    >>> view = np.broadcast_to(np.arange(3), (2, 3))
    >>> view.flags.writeable, kernel_array(view).flags.writeable, kernel_array(view).flags.c_contiguous
    (False, True, True)
    """
    return np.require(array, dtype, "CW")
