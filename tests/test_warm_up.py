"""`python -m lofkit.cli.warm_up` (run by `make setup`) calls every compiled kernel that lofkit calls from Python,
so that numba compiles them all once, before any command; and lofkit passes each kernel one kind of array."""

import importlib
import inspect
import os
import re

import numpy as np
from numba.core.registry import CPUDispatcher

from lofkit.cli.warm_up import warm_up
from lofkit.geometry.terrain import convex_parts
from lofkit.sight.kernel_args import kernel_array
from tests.helpers import build_world

KERNEL_MODULES = ("lofkit.sight.kernels", "lofkit.sight.fine_pass_kernels", "lofkit.sight.learning",
                  "lofkit.sight.glimpse", "lofkit.geometry.voxels", "lofkit.geometry.inner")


def _kernels() -> list[CPUDispatcher]:
    found = []
    for name in KERNEL_MODULES:
        module = importlib.import_module(name)
        found += [k for k in vars(module).values() if isinstance(k, CPUDispatcher) and k.__module__ == name]
    return found


def test_the_warm_up_calls_every_kernel_that_python_calls():
    """A kernel that no other kernel calls is called from Python: after the warm-up it has a compiled version (one
    loaded from numba's cache counts). Kernels called only by other kernels are compiled into their callers."""
    kernels = _kernels()
    sources = {k: inspect.getsource(k.py_func) for k in kernels}
    roots = [k for k in kernels if not any(re.search(rf"\b{k.__name__}\(", sources[other])
                                           for other in kernels if other is not k)]
    assert len(roots) >= 20
    cache = os.environ.get("LOFKIT_CACHE")
    warm_up()
    assert os.environ.get("LOFKIT_CACHE") == cache
    assert [k.__name__ for k in roots if not k.signatures] == []


def test_kernel_arrays_are_contiguous_and_writable_copied_only_when_needed():
    plain = np.arange(6.0)
    assert kernel_array(plain) is plain
    for view in (np.broadcast_to(plain, (2, 6)), plain[::2], plain.reshape(2, 3).T):
        made = kernel_array(view)
        assert made.flags.c_contiguous and made.flags.writeable and np.array_equal(made, view)
    frozen = plain.copy()
    frozen.flags.writeable = False
    assert kernel_array(frozen).flags.writeable


def test_convex_parts_are_contiguous_whatever_their_count():
    """One part or many, the parts' planes reach the kernels as C-contiguous arrays (one compiled version)."""
    for boxes in (1, 3):
        world = build_world(terrain=[{"id": f"box-{k}", "box": {"size": [20, 20, 20]},
                                      "position": [100 + 50 * k, 100, 0]} for k in range(boxes)])
        parts = convex_parts(world.pieces, range(len(world.pieces)))
        assert len(parts.piece) == boxes
        assert parts.normals.flags.c_contiguous and parts.offsets.flags.c_contiguous, boxes
