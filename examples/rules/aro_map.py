"""The ARO map of a move: who may react to the Fusilier as it runs across the rulebook scene, and from where.

Green: the enemy has LoF to the moving Fusilier; the line goes from it to the first point of the path where it
does (the label gives the fraction of the move). Orange: no LoF, but the move enters its Zone of Control (it may
only Change Facing or Reset).

Run: python examples/rules/aro_map.py   (writes out/aro_map.png)
"""

from pathlib import Path

import numpy as np
import pyvista as pv

import lofkit
from lofkit.rules.aro import aro
from lofkit.viz.render import build_plotter

HERE = Path(__file__).resolve().parent
world = lofkit.World.from_scene(lofkit.load_scene(HERE.parent / "rulebook_lof.yaml"))
path = [(800.0, 250.0), (1150.0, 250.0)]
result = aro(world, "fusilier", path)
lift = 200.0  # draw above the scenery

plotter = build_plotter(world, view="top", size=(1000, 1000))
route = np.array([[*p, lift] for p in result.path])
plotter.add_mesh(pv.lines_from_points(route), color="black", line_width=4)
for reaction in result.reactions:
    colour = "#00a651" if reaction.by == "lof" else "#ff7f00"
    me = world.troopers.centre[world.troopers.index(reaction.trooper)]
    plotter.add_mesh(pv.Line((*me, lift), (*reaction.point[:2], lift)), color=colour, line_width=3)
    plotter.add_point_labels(np.array([[*reaction.point[:2], lift + 1]]),
                             [f"{reaction.trooper} ({reaction.by}, {reaction.path_fraction:.0%})"], font_size=14,
                             point_size=8, text_color=colour, shape=None, always_visible=True)
Path("out").mkdir(exist_ok=True)
plotter.screenshot("out/aro_map.png")
plotter.close()
print("out/aro_map.png:", ", ".join(f"{r.trooper} by {r.by} at {r.path_fraction:.0%}" for r in result.reactions))
