"""The 3 x 3 mm sight test (docs/rules.md LoF 2 and 4), one job per module:

- `lattice`: where sight is sampled (eyes, the template lattice, its blocks);
- `kernels`: the compiled inner loops (convex parts crossed, clear blocks, the screen);
- `obstruction`: what obstructs a segment, and proofs of "hidden" for whole pairs;
- `rows`: which eye looks at which template, for a pass of the search;
- `screen`: what an eye provably cannot see, before any segment is cast;
- `learning`: the convex parts each pair remembers as candidates for its proofs;
- `casting`: casting the search's segments (terrain, smoke, troopers in the corridor);
- `search`: the search for a witness, coarse to fine (`sight`);
- `evidence`: what a verdict shows (`Witness`, `Sight`, the blockers of a NO);
- `glimpse`: yes-or-no sight for analyses (`seen_pairs`, and the quick `glimpse`).
"""
