"""What a pool worker says about itself (tests/test_analysis.py), in a module of its own: sending the function to a
worker imports only this module there."""

import os
import sys


def parent_and_modules(names: tuple[str, ...]) -> tuple[int, list[str]]:
    """This process's parent, and which of the modules `names` it has imported."""
    return os.getppid(), [name for name in names if name in sys.modules]
