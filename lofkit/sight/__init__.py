"""The 3 x 3 mm sight test: the lattice of eyes and patches, compiled kernels, proofs of "hidden", the search."""
