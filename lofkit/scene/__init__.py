"""The scene file format and the plain facts every layer shares about a table: the validated model, reading files,
the schema, silhouette sizes, whether a base lies on the table, the colours of sides and terrain. No meshes."""
