"""The 3 x 3 mm sight test (docs/rules.md LoF 2 and 4), one job per module:

- `lattice`: where sight is sampled (eyes, the template lattice, its blocks): the sampling rule;
- `fine_pass`: the fine pass's scheduling (candidate blocks, the order they are checked in; `fine_pass_kernels`);
- `kernels`: the compiled inner loops (convex parts crossed, tiles and eyes proved hidden, segments written);
- `tolerances`: every tolerance of the search, in one place;
- `segments`: what obstructs a segment (terrain, Zero Visibility, other troopers' volumes);
- `corridor`: a pair's corridor, the troopers that may block its segments;
- `hidden`: proofs of "hidden" for whole pairs and for tiles of eyes, before any segment is cast;
- `eye_batch`: which eye looks at which template, for a pass of the search (`EyeBatch`);
- `screen`: what an eye provably cannot see, before any segment is cast;
- `learning`: the convex parts each pair remembers as candidates for its proofs;
- `casting`: casting the search's segments (terrain, smoke, troopers in the corridor);
- `search`: the search for a witness, coarse to fine (`sight`);
- `evidence`: what a verdict shows (`Witness`, `Sight`, the blockers of a NO);
- `glimpse`: yes-or-no sight for analyses (`seen_pairs`, and the quick `glimpse`).
"""
