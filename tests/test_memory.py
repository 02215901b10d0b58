"""The `lofkit` process keeps the memory it frees (lofkit.cli.memory): a large array freed stays in the process."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.helpers import REPO

FREE_ONE_ARRAY = """
import sys
import numpy as np
from lofkit.cli.memory import keep_freed_memory

def resident_mib():
    line = next(line for line in open("/proc/self/status") if line.startswith("VmRSS:"))
    return int(line.split()[1]) // 1024

if sys.argv[1] == "keep":
    assert keep_freed_memory()
before = resident_mib()
array = np.ones(256 * 2**20, dtype=np.uint8)
del array
print(resident_mib() - before)
"""


def _resident_after_freeing_256_mib(*arguments: str) -> int:
    env = {key: value for key, value in os.environ.items() if not key.startswith("MALLOC_")}
    done = subprocess.run([sys.executable, "-c", FREE_ONE_ARRAY, *arguments], capture_output=True, text=True,
                          cwd=REPO, env=env, check=True)
    return int(done.stdout)


def test_a_freed_array_stays_in_the_process_for_the_next_one():
    assert _resident_after_freeing_256_mib("keep") >= 250
    assert _resident_after_freeing_256_mib("return") < 10  # malloc's default, which the function changes


def test_processes_started_from_lofkit_keep_freed_memory_too():
    script = "import os; from lofkit.cli.memory import keep_freed_memory; keep_freed_memory(); " \
             "print(os.environ['MALLOC_MMAP_MAX_'], os.environ['MALLOC_TRIM_THRESHOLD_'])"
    env = {key: value for key, value in os.environ.items() if not key.startswith("MALLOC_")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, env=env, check=True)
    assert done.stdout.split() == ["0", str(2**30)]
