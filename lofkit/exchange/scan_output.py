"""What `import-scan` writes into its folder: one mesh file per terrain piece (`piece-01.ply`, ...) and
`scene.yaml` naming them, with the proposed troopers.

The folder policy is `exchange.output`'s: new, empty, or holding only an earlier import's outputs (replaced with
`overwrite`, and then an earlier run's extra pieces are removed too, so the folder holds this run only).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from pathlib import Path

import trimesh

from lofkit.exchange.output import check_output_folder, make_folder, write_scene_file

SCENE_NAME = "scene.yaml"
PIECE_NAME = "piece-{:02d}.ply"
_OUTPUT = re.compile(r"(scene\.yaml|piece-\d{2,}\.ply)")


class ScanOutputs(Collection[str]):
    """The names an import writes into `folder` (for `check_output_folder`): the scene, and any `piece-NN.ply`."""

    def __init__(self, folder: Path, inputs: Collection[Path]):
        self.folder, self.inputs = folder, inputs

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and _OUTPUT.fullmatch(name) is not None

    def __iter__(self) -> Iterator[str]:
        present = [p.name for p in self.folder.iterdir()] if self.folder.is_dir() else []
        yield from sorted({SCENE_NAME, *(n for n in present if n in self), *(Path(i).name for i in self.inputs
                                                                             if Path(i).name in self)})

    def __len__(self) -> int:
        return sum(1 for _ in self)


def check_scan_folder(output: Path, overwrite: bool, scan: Path) -> None:
    """Refuse, before any work, a folder the import may not write into (`check_output_folder`)."""
    check_output_folder(output, ScanOutputs(output, [scan]), overwrite, inputs=[scan])


def write_scan_scene(output: Path, pieces: list[trimesh.Trimesh], troopers: list[dict], table: tuple[float, float],
                     comment: str, overwrite: bool) -> tuple[list[Path], Path]:
    """Each piece's mesh and a scene naming them, with `troopers`, written into `output` (checked before)."""
    make_folder(output)
    scene_path = output / SCENE_NAME
    mesh_paths = [output / PIECE_NAME.format(k + 1) for k in range(len(pieces))]
    scene = {
        "lofkit": 1,
        "units": "mm",
        "table": {"width": float(table[0]), "depth": float(table[1])},
        "terrain": [{"id": f"scan-piece-{k + 1}", "mesh": path.name, "mesh_units": "mm", "up_axis": "z"}
                    for k, path in enumerate(mesh_paths)],
        "troopers": troopers,
    }
    for piece, path in zip(pieces, mesh_paths):  # the meshes first: the scene never names a mesh that is not there
        piece.export(str(path))
    write_scene_file(scene, scene_path, comment=comment, overwrite=overwrite)
    for stale in output.iterdir():
        if stale.name in ScanOutputs(output, []) and stale.name != SCENE_NAME and stale not in mesh_paths:
            stale.unlink()
    return mesh_paths, scene_path
