"""Ray back-ends behind one interface: `occluded` and `first_hit` over batches of segments."""
