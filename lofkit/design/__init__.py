"""Layouts for terrain designers: viewer spots and cells, exposure, scorecards, executors."""
