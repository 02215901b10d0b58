"""A synthetic 3D scan of a table, imported with `import-scan`, then exported back to one glTF with `export`.

The "scan" is a known table (48" x 36", three buildings) tilted by 7 degrees, turned, moved and shrunk to arbitrary
scan units, with stray triangles around it, as a photogrammetry app might deliver it (a glTF, y up). The import
levels it, finds the table top, scales it to the real table, crops the strays and the table top, and writes a
scene.

Run: python examples/imports/scan_walkthrough.py
(writes out/imports/scan.glb, out/imports/scan/piece-NN.ply + scene.yaml, out/imports/scan_table.glb)
Same from the shell: lofkit import-scan out/imports/scan.glb --table 48inx36in -o out/imports/scan
"""

import math
from pathlib import Path

import numpy as np
import trimesh

import lofkit
from lofkit.exchange.gltf import export_table
from lofkit.exchange.scan import import_scan

INCH = 25.4
WIDTH, DEPTH = 48 * INCH, 36 * INCH
BUILDINGS = [(12, 9, 6, 4, 3), (30, 24, 5, 5, 5), (38, 10, 3, 8, 4)]  # centre x, y, width, depth, height (inches)
OUT = Path("out/imports")
OUT.mkdir(parents=True, exist_ok=True)

# the known table: a top (a grid with 0.3 mm of scanner noise) and three box buildings
rng = np.random.default_rng(7)
xs, ys = np.meshgrid(np.linspace(0, WIDTH, 49), np.linspace(0, DEPTH, 37), indexing="ij")
grid = np.arange(xs.size).reshape(xs.shape)
quads = np.column_stack([grid[:-1, :-1].ravel(), grid[1:, :-1].ravel(), grid[1:, 1:].ravel(), grid[:-1, 1:].ravel()])
top = trimesh.Trimesh(np.column_stack([xs.ravel(), ys.ravel(), rng.normal(0, 0.3, xs.size)]),
                      np.vstack([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]]), process=False)
parts = [top]
for x, y, w, d, h in BUILDINGS:
    box = trimesh.creation.box(extents=(w * INCH, d * INCH, h * INCH))
    box.apply_translation((x * INCH, y * INCH, h * INCH / 2))
    parts.append(box)
strays = rng.uniform([-200, -200, -50], [WIDTH + 200, DEPTH + 200, 300], (200, 3))[:, None, :]
strays = strays + rng.normal(0, 4, (200, 3, 3))  # small triangles floating around the table
parts.append(trimesh.Trimesh(strays.reshape(-1, 3), np.arange(600).reshape(-1, 3), process=False))
scan = trimesh.util.concatenate(parts)

# what the scanner did: turn 25 degrees, tilt 7 degrees, scale to "scan units", move, and write glTF's y up
scanner = (trimesh.transformations.rotation_matrix(-math.pi / 2, [1, 0, 0])  # z up -> y up: (x, y, z) -> (x, z, -y)
           @ trimesh.transformations.translation_matrix([0.4, 1.3, -0.2])
           @ np.diag([0.0011, 0.0011, 0.0011, 1.0])
           @ trimesh.transformations.rotation_matrix(math.radians(7), [1, 1, 0])
           @ trimesh.transformations.rotation_matrix(math.radians(25), [0, 0, 1]))
scan.apply_transform(scanner)
scan.export(str(OUT / "scan.glb"))

result = import_scan(OUT / "scan.glb", (WIDTH, DEPTH), OUT / "scan", overwrite=True)
print(f"levelled by {result.tilt_deg:.2f} degrees (the scanner tilted it by 7), scale {result.scale:.2f} "
      f"(the scanner shrank it by 1/{1 / 0.0011:.2f})")
print(f"table found: {result.table_found_mm[0]:.1f} x {result.table_found_mm[1]:.1f} mm; kept {result.faces_kept} "
      f"faces in {len(result.meshes)} pieces, dropped {result.faces_dropped}")

world = lofkit.World.from_scene(lofkit.load_scene(result.scene))
vertices = np.vstack([piece.mesh.vertices for piece in world.pieces])
for x, y, w, d, h in BUILDINGS:  # each building's top corners, found again in the imported terrain
    corners = np.array([(x + sx * w / 2, y + sy * d / 2, h) for sx in (-1, 1) for sy in (-1, 1)]) * INCH
    miss = np.linalg.norm(vertices[:, None, :] - corners[None], axis=2).min(axis=0).max()
    print(f"building at ({x}, {y}) in, {h} in tall: its top corners are within {miss:.2f} mm of where they were built")

summary = export_table(world, OUT / "scan_table.glb", ("terrain", "table"), overwrite=True)
print(f"exported {summary.output} ({len(summary.nodes)} nodes): open it in any glTF viewer")
