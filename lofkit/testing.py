"""Reference implementations to test lofkit against (as `shapely.testing` is for shapely).

Each answers a question a fast path answers, by the most direct method, so that tests and benchmarks can compare
the two. They are slow on purpose. `import lofkit` does not import this module.

- `sight_brute_force`: the 3 x 3 mm sight test by exhaustive sampling: every eye, both ways, every lattice block,
  no proofs. `lofkit.sight.search.sight` must give the same yes/no for every pair.
- `f2f_distribution_enumerated`: a face-to-face distribution by resolving all 20^(B1+B2) combinations (numpy).
- `f2f_counts_by_resolving`: the same counts through `resolve_f2f`, one combination at a time (plain Python).
- `synthetic_photo`, `SyntheticPhoto`: a photo of a drawn table whose corners, markers and bases are known
  exactly (needs OpenCV, the `photo` extra; imported on first use).
"""

from __future__ import annotations

import itertools
from collections import Counter

from lofkit.dice.rolls import f2f_distribution_enumerated, resolve_f2f
from lofkit.sight.search import sight_brute_force

__all__ = [
    "SyntheticPhoto",
    "f2f_counts_by_resolving",
    "f2f_distribution_enumerated",
    "sight_brute_force",
    "synthetic_photo",
]

_NEEDS_OPENCV = {"SyntheticPhoto", "synthetic_photo"}


def __getattr__(name: str):
    """The photo generators, imported when first asked for, so the rest needs no OpenCV."""
    if name in _NEEDS_OPENCV:
        from lofkit.exchange import photo

        return getattr(photo, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def f2f_counts_by_resolving(sv1: int, burst1: int, sv2: int, burst2: int) -> dict[tuple, int]:
    """Count the outcomes of a face-to-face roll by resolving every combination of dice with `resolve_f2f`.

    Keys: `("p1", hits, crits)` when side 1 keeps successes, `("p2", hits, crits)` when side 2 does, `("none",)`
    when nobody does (present only when some combination gives it). 20^(burst1 + burst2) combinations: keep the
    bursts small.

    >>> f2f_counts_by_resolving(12, 1, 12, 1)[("none",)]
    76
    """
    tally = Counter()
    for dice1 in itertools.product(range(1, 21), repeat=burst1):
        for dice2 in itertools.product(range(1, 21), repeat=burst2):
            r = resolve_f2f(sv1, dice1, sv2, dice2)
            if any(r.survived1):
                tally["p1", r.hits1, r.crits1] += 1
            elif any(r.survived2):
                tally["p2", r.hits2, r.crits2] += 1
            else:
                tally["none",] += 1
    return dict(tally)
