"""Reference implementations and test data to test lofkit against (as `shapely.testing` is for shapely).

Each reference answers a question a fast path answers, by the most direct method, so that tests and benchmarks can
compare the two. They are slow on purpose. `import lofkit` does not import this package, and no module of lofkit
imports it.

- `sight`: `sight_brute_force`, the 3 x 3 mm sight test by exhaustive sampling, written from docs/rules.md alone
  (nothing of `lofkit.sight`): every eye, both ways, every lattice block, no proofs. `lofkit.sight.search.sight`
  must give the same yes/no for every pair.
- `dice`: `f2f_distribution_enumerated`, a face-to-face distribution by resolving all 20^(B1+B2) combinations
  (numpy), and `f2f_counts_by_resolving`, the same counts through `resolve_f2f`, one combination at a time.
- `photo_synthetic`: photos with a known answer for the photo importer (a drawn table whose corners, markers and
  bases are known exactly, or a table of miniatures rendered in 3D); it needs OpenCV, and the photo walkthrough
  uses it too. `photo_sweep`: random tables of miniatures photographed from many sides, and a score of what
  `lofkit photo` proposed against where the bases really are. Neither is imported here: import them by name.
"""

from __future__ import annotations

from lofkit.testing.dice import f2f_counts_by_resolving, f2f_distribution_enumerated
from lofkit.testing.sight import sight_brute_force

__all__ = ["f2f_counts_by_resolving", "f2f_distribution_enumerated", "sight_brute_force"]
