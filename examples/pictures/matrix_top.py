"""A top view of the densest example table with a green line between every pair of troopers with LoF.

Run: python examples/pictures/matrix_top.py   (writes out/matrix_top.png)
"""

from pathlib import Path

import lofkit
from lofkit.viz.render import Overlay, render

HERE = Path(__file__).resolve().parent
world = lofkit.World.from_scene(lofkit.load_scene(HERE.parent / "tables" / "table-b.yaml"))
Path("out").mkdir(exist_ok=True)
seen = lofkit.matrix(world, evidence=False)  # the lines need only who has LoF, not what blocks the others
print(render(world, "out/matrix_top.png", view="top", size=(1000, 1000), overlay=Overlay(matrix=seen)))
