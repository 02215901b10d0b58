"""A synthetic top-down photo of a table, turned into a table map with `lofkit photo`, then rendered from above with the
photo as the table's texture.

The "photo" is a known 48" x 48" table (a mottled mat, two terrain footprints, eight bases of 25 to 70 mm, and the
ArUco markers 0-3 on white sheets in its corners, turned different ways) seen in perspective by a camera held above
the near edge, with noise, saved as a JPEG. The import finds the markers, rectifies the table to 0.5 mm per pixel,
finds the bases and writes a scene stub; the script then compares what was found with the truth.

Run: python examples/imports/photo_walkthrough.py
(writes out/imports/photo.jpg, out/imports/photo/table.png + scene.yaml, out/imports/photo_top.png)
Same from the shell: lofkit photo out/imports/photo.jpg --markers --marker-inset 10mm -o out/imports/photo
"""

from pathlib import Path

import cv2
import numpy as np

import lofkit
from lofkit.exchange.photo import import_photo
from lofkit.exchange.photo_table import map_points, table_corners
from lofkit.testing.photo_synthetic import synthetic_photo
from lofkit.viz.render import render

INCH = 25.4
TABLE = (48 * INCH, 48 * INCH)
BASES = [(300, 250, 25), (325, 250, 25), (600, 600, 40), (900, 300, 55), (1000, 1000, 70), (150, 1100, 25),
         (700, 1150, 40), (450, 850, 55)]  # x, y, base diameter (mm)
BOXES = [(500, 300, 700, 450), (800, 800, 950, 900)]  # terrain footprints x0, y0, x1, y1 (mm)
OUT = Path("out/imports")
OUT.mkdir(parents=True, exist_ok=True)

# where the camera puts the table's corners: bottom-left, bottom-right, top-right, top-left (photo pixels)
corners = np.array([[210.3, 1150.7], [1420.2, 1110.9], [1250.6, 120.1], [390.4, 90.8]])
shot = synthetic_photo(TABLE, corners, photo_size=(1600, 1200), bases=BASES, boxes=BOXES, markers=(50.0, 10.0),
                       marker_turns=(0, 1, 2, 3), noise=5.0)
cv2.imwrite(str(OUT / "photo.jpg"), shot.image, [cv2.IMWRITE_JPEG_QUALITY, 92])

result = import_photo(OUT / "photo.jpg", OUT / "photo", TABLE, marker_size=50.0, marker_inset=10.0, overwrite=True)
corner_error = np.linalg.norm(map_points(result.fit.homography, shot.corners_px) - table_corners(*TABLE), axis=1)
print(f"table found from markers {result.fit.markers_found}: marker corners fit within {result.fit.residual_mm:.2f} "
      f"mm RMS; the true corners land within {corner_error.max():.2f} mm of the table's")
print(f"{result.image}: {result.image_px[0]} x {result.image_px[1]} px; {result.scene}: {len(result.bases)} bases")
for k, base in enumerate(result.bases):
    x, y, diameter = min(BASES, key=lambda b: np.hypot(b[0] - base.position[0], b[1] - base.position[1]))
    print(f"  base-{k + 1}: ({base.position[0]:7.1f}, {base.position[1]:7.1f}) {base.diameter_mm:g} mm"
          f"   truth ({x}, {y}) {diameter} mm, off by {np.hypot(x - base.position[0], y - base.position[1]):.2f} mm")

world = lofkit.World.from_scene(lofkit.load_scene(result.scene))
print(render(world, OUT / "photo_top.png", view="top", size=(900, 900), layers=set()))
