"""The twenty landings of a dispersing trooper on table A, drawn on a top view.

A Circular Template centred on the intended point, number 1 toward the table centre, 16" to each of the 20 numbers:
green = the trooper stands there (its z is the surface it lands on), red = it cannot (the label gives the reason)
and the orange ring is where it goes instead, in its own deployment zone touching the table edge (owner's choice).

Run: python examples/rules/dispersion_landings.py   (writes out/dispersion.png)
"""

from pathlib import Path

import numpy as np
import pyvista as pv

import lofkit
from lofkit.rules.dispersion import disperse_all
from lofkit.viz.render import build_plotter

HERE = Path(__file__).resolve().parent
world = lofkit.World.from_scene(lofkit.load_scene(HERE.parent / "tables" / "table-a.yaml"))
at = (14 * 25.4, 22 * 25.4)  # the intended point, mm
outcomes = disperse_all(world, "blue-1", at)
r = world.troopers.radius[world.troopers.index("blue-1")]
lift = 200.0  # draw above every piece of scenery

plotter = build_plotter(world, view="top", layers={"zones"}, size=(1200, 1200))
plotter.add_mesh(pv.Circle(radius=16 * 25.4, resolution=120).translate((*at, lift)), style="wireframe", color="black")
plotter.add_mesh(pv.Sphere(radius=6, center=(*at, lift)), color="black")
for o in outcomes:
    colour = "#00a651" if o.placed else "#e31a1c"
    plotter.add_mesh(pv.Disc(center=(*o.landing[:2], lift), inner=r - 3, outer=r, c_res=48), color=colour)
    label = f"{o.roll}" + ("" if o.placed else f" {o.reason}")
    if o.placed and o.landing[2] > 0:
        label += f" z={o.landing[2]:.0f}"
    plotter.add_point_labels(np.array([[*o.landing[:2], lift + 1]]), [label], font_size=14, point_size=1,
                             text_color=colour, shape=None, always_visible=True)
    if not o.placed and o.fallback.position is not None:
        spot = (*o.fallback.position[:2], lift)
        plotter.add_mesh(pv.Disc(center=spot, inner=r - 3, outer=r, c_res=48), color="#ff7f00")
        plotter.add_mesh(pv.Line((*o.landing[:2], lift), spot), color="#ff7f00", line_width=1)
Path("out").mkdir(exist_ok=True)
plotter.screenshot("out/dispersion.png")
plotter.close()
summary = outcomes.to_dict()
print(f"out/dispersion.png: {summary['placed']} of 20 landings stand; fallbacks: {summary['fallback_reasons']}")
