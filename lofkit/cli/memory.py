"""The `lofkit` process keeps the memory it frees, for the next large array.

glibc's malloc gives each large block (numpy's voxel grids, ray batches, pictures) its own mapping and returns it to
the kernel when freed, so the next array of that size is faulted in again one 4 KiB page at a time. Building a
table's inner parts allocates hundreds of such arrays, and the page faults cost as much as the work on a machine
without huge pages to spare. The command owns its process, so it asks malloc to reuse freed memory instead; a program
that imports lofkit as a library decides this for itself (`keep_freed_memory`).
"""

from __future__ import annotations

import ctypes
import os

M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4
"""mallopt's parameter numbers (glibc's malloc.h)."""

KEPT_BYTES = 1 << 30
"""Free memory above this much at the top of the heap is still returned to the kernel."""


def keep_freed_memory() -> bool:
    """Serve every allocation from malloc's heap and keep up to `KEPT_BYTES` of freed memory there.

    Sets the same for processes started from this one (the process pools of `generate` and `heatmap`), through the
    environment variables glibc reads at start. Returns whether the C library is glibc, which alone has these knobs;
    elsewhere nothing changes.

    Examples
    --------
    >>> keep_freed_memory() in (True, False)
    True
    """
    if not _glibc():
        return False
    libc = ctypes.CDLL(None)
    libc.mallopt(M_MMAP_MAX, 0)
    libc.mallopt(M_TRIM_THRESHOLD, KEPT_BYTES)
    os.environ.setdefault("MALLOC_MMAP_MAX_", "0")
    os.environ.setdefault("MALLOC_TRIM_THRESHOLD_", str(KEPT_BYTES))
    return True


def _glibc() -> bool:
    """Whether this process runs on glibc (asked of the C library, not read from a file)."""
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):  # no confstr (Windows), or a C library that does not know the name
        return False
