"""The `top` view of the rulebook's LoF illustration, with the Fusilier -> Iguana ruling drawn on it.

Run: python examples/pictures/view_top.py   (writes out/view_top.png)
"""

from pathlib import Path

import lofkit
from lofkit.rules.lof import sample_segments
from lofkit.viz.render import Overlay, render

HERE = Path(__file__).resolve().parent
world = lofkit.World.from_scene(lofkit.load_scene(HERE.parent / "rulebook_lof.yaml"))
ruling = Overlay(lofkit.check(world, "fusilier", "iguana"), sample_segments(world, "fusilier", "iguana"))
Path("out").mkdir(exist_ok=True)
print(render(world, "out/view_top.png", view="top", shooter="fusilier", target="iguana", overlay=ruling,
             layers={"arcs", "zones", "rays"}))
