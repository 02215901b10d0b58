"""`lofkit photo`: a top-down photo of a table becomes a table map: `table.png`, the table seen from straight above
and to scale (see `photo_table`), and `scene.yaml`, the table with that picture as its texture and every round base
found on it (see `photo_bases`) proposed as a trooper.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from lofkit.errors import LofkitError
from lofkit.exchange.messages import Message, SettingError
from lofkit.exchange.output import check_output_folder, make_folder, write_scene_file
from lofkit.exchange.photo_bases import BASE_SEARCH_MM_PER_PIXEL, FoundBase, find_bases
from lofkit.exchange.photo_table import (
    CORNER_NAMES,
    TableFit,
    camera_centre,
    fit_corners,
    fit_markers,
    ortho_size,
    rectify,
)
from lofkit.scene.silhouettes import BASE_SILHOUETTES, found_trooper_size
from lofkit.scene.table import written_on_table

FILES = ("table.png", "scene.yaml")
LOOSE_FIT_MM = 2.0
"""Marker corners that fit the table worse than this (RMS, mm) are worth a warning: a wrong size, inset or table."""
SAME_SCALE = 1e-9
"""Two scales (mm per pixel) closer than this are the same: table.png is then also the picture bases are found on."""


def read_photo(path: Path | str) -> np.ndarray:
    """The photo as a BGR array (EXIF orientation applied, as image viewers show it)."""
    path = Path(path)
    if not path.is_file():
        raise LofkitError(f"{path}: photo not found")
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise LofkitError(f"{path}: cannot read it as an image; give a JPEG, PNG or TIFF photo")
    return image


@dataclass(frozen=True)
class PhotoImport:
    """What `lofkit photo` did: the table's fit in the photo, the orthophoto, the proposed bases, the files."""

    photo: str
    table_mm: tuple[float, float]
    fit: TableFit
    image_px: tuple[int, int]
    bases: tuple[FoundBase, ...]
    """Every round base found: those with status "base" are proposed as troopers, the others only listed."""
    image: str
    scene: str
    warnings: tuple[str, ...] = ()
    camera: tuple[float, float, float] | None = None
    """Where the camera stood (table mm), when the photo was taken from aside (`photo_table.camera_centre`)."""

    @property
    def mm_per_pixel(self) -> tuple[float, float]:
        return self.table_mm[0] / self.image_px[0], self.table_mm[1] / self.image_px[1]

    @property
    def proposed(self) -> list[FoundBase]:
        """The bases proposed as troopers (`base-1`, ... in the scene)."""
        return [base for base in self.bases if base.status == "base"]

    def _base(self, base: FoundBase) -> dict:
        entry = {"position": [round(c, 2) for c in base.position], "diameter_mm": base.diameter_mm,
                 "found_diameter_mm": round(base.found_diameter_mm, 2),
                 "radius_px_found": round(base.found_diameter_mm / 2 / np.mean(self.mm_per_pixel), 2),
                 "confidence": base.confidence}
        return {**entry, "reason": base.reason} if base.reason else entry

    def to_dict(self) -> dict:
        return {
            "photo": self.photo,
            "method": self.fit.method,
            "table_mm": [round(length, 3) for length in self.table_mm],
            "mm_per_pixel": [round(s, 6) for s in self.mm_per_pixel],
            "image_px": list(self.image_px),
            "corners_px": np.round(self.fit.corners_px, 2).tolist(),
            "residual_mm": round(self.fit.residual_mm, 3),
            "markers_found": list(self.fit.markers_found),
            "marker_size_mm": self.fit.marker_size_mm,
            "marker_inset_mm": self.fit.marker_inset_mm,
            "homography": self.fit.homography.tolist(),
            "camera_mm": None if self.camera is None else [round(c, 1) for c in self.camera],
            "bases": [{"id": f"base-{k + 1}", **self._base(base)} for k, base in enumerate(self.proposed)],
            "possible": [self._base(base) for base in self.bases if base.status == "possible"],
            "raised": [self._base(base) for base in self.bases if base.status == "raised"],
            "image": self.image,
            "scene": self.scene,
            "warnings": list(self.warnings),
        }


def _warnings(fit: TableFit, photo: np.ndarray) -> list[str]:
    """What may be wrong with a fit: corners outside the photo, markers that fit loosely."""
    height, width = photo.shape[:2]
    notes = []
    outside = [CORNER_NAMES[k] for k, (x, y) in enumerate(fit.corners_px)
               if not (-0.5 <= x <= width - 0.5 and -0.5 <= y <= height - 0.5)]
    if outside:
        notes.append(f"corner(s) {', '.join(outside)} lie outside the photo: that part of table.png is black")
    if fit.residual_mm > LOOSE_FIT_MM:
        notes.append(Message("the marker corners fit the table only within {residual:.1f} mm (RMS); check "
                             "{marker_size}, {marker_inset} and {table_mm}, and that the markers lie flat in the "
                             "corners", residual=fit.residual_mm))
    return notes


def scene_stub(table_mm: tuple[float, float], bases: list[FoundBase], image: str = "table.png") -> dict:
    """Scene data (mm) with the table, its photo as texture, and every base proposed as a trooper `base-N`.

    Lengths are written to 0.001 mm (the table) and 0.1 mm (positions), each base still wholly on the table."""
    width, depth = round(table_mm[0], 3), round(table_mm[1], 3)

    troopers = [{"id": f"base-{k + 1}", "side": "unknown", "proposed": True,
                 **found_trooper_size(base.diameter_mm),
                 "position": written_on_table(base.position, base.diameter_mm / 2, width, depth)}
                for k, base in enumerate(bases)]
    return {"lofkit": 1, "units": "mm", "table": {"width": width, "depth": depth, "image": image}, "troopers": troopers}


STUB_COMMENT = """Made by `lofkit photo {photo}`: the table, with the rectified photo as its texture.
The troopers base-1 ... are PROPOSALS, one per round base found in the photo (silhouette guessed from the base:
{guesses}): give each its real id, side, silhouette and facing, remove `proposed`, and
delete the ones that are not troopers. Add the terrain."""


def stub_comment(photo_name: str) -> str:
    """The comment on top of the scene stub: where it came from and what to complete."""
    guesses = ", ".join(f"{base:g} mm S{silhouette}" for base, silhouette in BASE_SILHOUETTES.items())
    return STUB_COMMENT.format(photo=photo_name, guesses=guesses)


def fit_table(photo: np.ndarray, table_mm: tuple[float, float], corners_px: np.ndarray | None,
              marker_size: float | None, marker_inset: float, source: str) -> TableFit:
    """Where the table is in the photo: from its corners in pixels, or else from its markers."""
    if corners_px is not None:
        return fit_corners(corners_px, *table_mm)
    return fit_markers(photo, *table_mm, marker_size, marker_inset, source=source)


def bases_in(photo: np.ndarray, fit: TableFit, table_mm: tuple[float, float], camera: np.ndarray | None,
             ortho: np.ndarray | None = None, mm_per_pixel: float | None = None) -> list[FoundBase]:
    """The bases on the table, looked for at BASE_SEARCH_MM_PER_PIXEL (on `ortho`, at `mm_per_pixel`, when that is
    it), judged from where the `camera` stood (`photo_bases.judge`)."""
    if ortho is None or abs(mm_per_pixel - BASE_SEARCH_MM_PER_PIXEL) >= SAME_SCALE:
        ortho = rectify(photo, fit, *table_mm, BASE_SEARCH_MM_PER_PIXEL)
    return find_bases(ortho, *table_mm, camera)


def write_table_map(folder: Path, ortho: np.ndarray, stub: dict, comment: str, overwrite: bool) -> tuple[Path, Path]:
    """Write the orthophoto and the scene stub into `folder` (checked before); returns their paths."""
    make_folder(folder)
    image_path, scene_path = folder / FILES[0], folder / FILES[1]
    if not cv2.imwrite(str(image_path), ortho):
        raise LofkitError(f"cannot write {image_path}")
    write_scene_file(stub, scene_path, comment, overwrite=overwrite)
    return image_path, scene_path


def import_photo(photo_path: Path | str, folder: Path | str, table_mm: tuple[float, float],
                 corners_px: np.ndarray | None = None, marker_size: float | None = None, marker_inset: float = 0.0,
                 mm_per_pixel: float = 0.5, bases: bool = True, overwrite: bool = False) -> PhotoImport:
    """Rectify a top-down photo into `folder`/table.png and write `folder`/scene.yaml (a stub with the bases).

    The table is found from `corners_px` (photo pixels, bottom-left, bottom-right, top-right, top-left) or, when
    `marker_size` is given instead, from the four ArUco markers. Nothing is written until everything is known."""
    folder = Path(folder)
    width, depth = table_mm
    if (corners_px is None) == (marker_size is None):
        raise SettingError("give the table's corners ({corners_px}) or the size of its markers ({marker_size}), one of "
                           "the two")
    check_output_folder(folder, FILES, overwrite, inputs=[photo_path])
    columns, rows = ortho_size(width, depth, mm_per_pixel)
    photo = read_photo(photo_path)
    fit = fit_table(photo, (width, depth), corners_px, marker_size, marker_inset, source=str(photo_path))
    ortho = rectify(photo, fit, width, depth, mm_per_pixel)
    camera = camera_centre(fit.homography, (photo.shape[1], photo.shape[0]))
    found = bases_in(photo, fit, (width, depth), camera, ortho, mm_per_pixel) if bases else []
    proposed = [base for base in found if base.status == "base"]
    image_path, scene_path = write_table_map(folder, ortho, scene_stub(table_mm, proposed),
                                             stub_comment(Path(photo_path).name), overwrite)
    return PhotoImport(str(photo_path), (width, depth), fit, (columns, rows), tuple(found), str(image_path),
                       str(scene_path), tuple(_warnings(fit, photo)),
                       None if camera is None else tuple(float(c) for c in camera))
