"""Pictures: off-screen renders, ruling pages and plots. The only place pyvista and matplotlib are imported."""
