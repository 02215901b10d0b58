"""The `lofkit` process keeps the memory it frees (lofkit.cli.memory): a large array freed stays in the process, and
processes started from it are told to do the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.helpers import REPO

FREE_ONE_ARRAY = """
import json, os, sys
import numpy as np
from lofkit.cli.memory import keep_freed_memory

def resident_mib():
    line = next(line for line in open("/proc/self/status") if line.startswith("VmRSS:"))
    return int(line.split()[1]) // 1024

if sys.argv[1] == "keep":
    assert keep_freed_memory()
before = resident_mib()
array = np.ones(64 * 2**20, dtype=np.uint8)
del array
print(json.dumps({"kept_mib": resident_mib() - before,
                  "environment": [os.environ.get("MALLOC_MMAP_MAX_"), os.environ.get("MALLOC_TRIM_THRESHOLD_")]}))
"""


def _after_freeing_64_mib(choice: str) -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith("MALLOC_")}
    done = subprocess.run([sys.executable, "-c", FREE_ONE_ARRAY, choice], capture_output=True, text=True, cwd=REPO,
                          env=env, check=True)
    return json.loads(done.stdout)


def test_a_freed_array_stays_in_the_process_and_its_children_are_told_to_keep_theirs():
    kept = _after_freeing_64_mib("keep")
    assert kept["kept_mib"] >= 60 and kept["environment"] == ["0", str(2**30)]
    returned = _after_freeing_64_mib("return")  # malloc's default, which the function changes
    assert returned["kept_mib"] < 10 and returned["environment"] == [None, None]
