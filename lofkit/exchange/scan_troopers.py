"""Miniatures in a scan become proposed troopers, cut out of the terrain.

Each base found (`scan_bases`) is proposed as a trooper `scan-N` with `side: unknown` and `proposed: true`: its
base's centre, diameter and underside (`z`: 0 on the table, else `auto`), a silhouette guessed from its figure's height (among the silhouettes
with that base; a base no silhouette has keeps its own diameter and the figure's height), and a facing when the
figure is asymmetric enough to say so. The figure and its base are then cut out of the terrain mesh, so that the
model blocks only as the trooper's cylinder does, like every trooper.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import trimesh

from lofkit.exchange.scan_bases import FoundBase
from lofkit.scene.silhouettes import found_trooper_size
from lofkit.scene.table import written_on_table

CUT_MARGIN = 1.0
"""How far (mm) past the base's edge the cut reaches: a scan's noise, and the rim's bevel."""
CUT_FLOOR = 0.5
"""How far (mm) over the base's underside the cut starts: the surface it stands on stays."""


@dataclass(frozen=True)
class Proposal:
    """A trooper proposed for a base found in a scan: its scene entry and what was measured."""

    entry: dict
    base: FoundBase

    def to_dict(self) -> dict:
        """The JSON of `import-scan --json`: the entry's fields plus what the guess rests on."""
        base = self.base
        return {**self.entry, "found": {"diameter": base.diameter, "z": round(base.z, 1),
                                        "figure_height": round(base.figure_height, 1),
                                        "rim_seen": round(base.rim_share, 3), "roundness_mm": round(base.roundness, 3)}}


def propose(bases: list[FoundBase], width: float, depth: float, table: float) -> tuple[list[Proposal], list[str]]:
    """A proposed trooper for every base, numbered from the table's (0, 0) corner; and warnings. A base within
    `table` (mm, the table top's noise) of z = 0 stands on the table (`z: 0`); one higher rests on what is under it
    (`z: auto`: the scan's surface there is noisy, and resting on it keeps the volume out of it)."""
    proposals, symmetric = [], []
    ordered = sorted(bases, key=lambda b: (round(b.centre[1] / 50.0), b.centre[0]))
    for k, base in enumerate(ordered):
        entry: dict = {"id": f"scan-{k + 1}", "side": "unknown", "proposed": True}
        entry.update(found_trooper_size(base.diameter, base.figure_height))
        entry.update(position=written_on_table(base.centre, base.diameter / 2, width, depth), z=0.0 if base.z <= table else "auto")
        if base.facing is not None:
            entry["facing"] = round(base.facing)
        else:
            symmetric.append(entry["id"])
        proposals.append(Proposal(entry, base))
    warnings = []
    if symmetric:
        warnings.append(f"no facing proposed for {', '.join(symmetric)}: the figure looks alike from every side; "
                        "give each its facing")
    return proposals, warnings


def cut_out(terrain: trimesh.Trimesh, bases: list[FoundBase]) -> tuple[trimesh.Trimesh, int]:
    """`terrain` without the faces of each miniature (centroid within the base's radius + `CUT_MARGIN`, from
    `CUT_FLOOR` over its underside to 2 mm over its figure); and how many faces were cut."""
    if not bases or len(terrain.faces) == 0:
        return terrain, 0
    centroid = terrain.triangles_center
    cut = np.zeros(len(centroid), dtype=bool)
    for base in bases:
        near = np.hypot(centroid[:, 0] - base.centre[0], centroid[:, 1] - base.centre[1]) <= base.diameter / 2 \
            + CUT_MARGIN
        cut |= near & (centroid[:, 2] > base.z + CUT_FLOOR) & (centroid[:, 2] < base.z + base.figure_height + 2.0)
    kept = terrain.copy()
    kept.update_faces(~cut)
    kept.remove_unreferenced_vertices()
    return kept, int(cut.sum())
