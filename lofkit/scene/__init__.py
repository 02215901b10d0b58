"""The scene file format only, no geometry: the validated model, reading and writing files, the schema."""
