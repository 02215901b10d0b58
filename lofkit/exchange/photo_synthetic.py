"""A synthetic photo with a known answer, for tests and examples: a table drawn from above with bases, terrain
footprints and corner markers, then photographed in perspective with noise."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from lofkit.exchange.photo_table import (
    MARKER_DICTIONARY,
    MARKER_IDS,
    map_points,
    marker_squares,
    table_corners,
    table_to_ortho,
)


@dataclass(frozen=True)
class SyntheticPhoto:
    """A photo of a drawn table: `table_to_photo` maps table mm to photo pixels exactly."""

    image: np.ndarray
    table_mm: tuple[float, float]
    table_to_photo: np.ndarray

    @property
    def corners_px(self) -> np.ndarray:
        """Where the table's corners (0, 0), (W, 0), (W, D), (0, D) are in the photo, exactly."""
        return map_points(self.table_to_photo, table_corners(*self.table_mm))


def synthetic_photo(
    table_mm: tuple[float, float],
    corners_px: np.ndarray,
    photo_size: tuple[int, int] = (1600, 1200),
    bases: tuple[tuple[float, float, float], ...] = (),
    boxes: tuple[tuple[float, float, float, float], ...] = (),
    markers: tuple[float, float] | None = None,
    marker_turns: tuple[int, int, int, int] = (0, 0, 0, 0),
    marker_ids: tuple[int, int, int, int] = MARKER_IDS,
    noise: float = 4.0,
    seed: int = 0,
) -> SyntheticPhoto:
    """Draw a table seen from above and photograph it: the table's corners land on `corners_px`.

    `bases` are (x, y, diameter) mm: dark discs with a lighter model on top; `boxes` (x0, y0, x1, y1) mm are grey
    terrain footprints; `markers` = (size, inset) puts a marker on each corner k, id `marker_ids[k]`, on a white
    sheet with a margin of `inset`, turned `marker_turns[k]` quarter turns. The mat is mottled green-grey, the floor
    around the table dark; Gaussian noise of `noise` grey levels is added to the photo."""
    width, depth = table_mm
    rng = np.random.default_rng(seed)
    corners_px = np.asarray(corners_px, dtype=float)
    table_to_photo, _ = cv2.findHomography(table_corners(width, depth), corners_px, 0)
    sides = np.linalg.norm(np.roll(corners_px, -1, axis=0) - corners_px, axis=1) / np.array([width, depth] * 2)
    density = 2.0 * float(sides.max())  # top-view pixels per mm: twice the photo's finest
    columns, rows = round(width * density), round(depth * density)
    sx = width / columns
    to_top = table_to_ortho(width, depth, columns, rows)
    mottle = cv2.resize(rng.normal(0, 12, (12, 12)), (columns, rows), interpolation=cv2.INTER_CUBIC)
    top = np.clip(np.array([92.0, 122.0, 104.0]) + mottle[..., None], 0, 255).astype(np.uint8)
    for x0, y0, x1, y1 in boxes:
        outline = map_points(to_top, [[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
        cv2.fillPoly(top, [np.round(outline * 16).astype(np.int32)], (150, 150, 150), cv2.LINE_AA, shift=4)
    for x, y, diameter in bases:
        (c, r), = map_points(to_top, [[x, y]])
        for radius, colour, dx in ((diameter / 2, (38, 36, 34), 0.0), (0.35 * diameter, (70, 150, 205), 0.06)):
            centre = (round((c + dx * diameter / sx) * 16), round(r * 16))
            cv2.circle(top, centre, round((radius / sx - 0.5) * 16), colour, -1, cv2.LINE_AA, shift=4)
    if markers is not None:
        size, inset = markers
        dictionary = cv2.aruco.getPredefinedDictionary(MARKER_DICTIONARY)
        cells = 32
        mm = size / (6 * cells)  # sheet pixels are this many mm
        margin = round(inset / mm)
        for k, square in enumerate(marker_squares(width, depth, size, inset)):
            bits = cv2.aruco.generateImageMarker(dictionary, marker_ids[k], 6 * cells, borderBits=1)
            sheet = cv2.copyMakeBorder(np.rot90(bits, marker_turns[k]).copy(), margin, margin, margin, margin,
                                       cv2.BORDER_CONSTANT, value=255)
            n = sheet.shape[0]
            lo = square[3] - margin * mm
            sheet_to_table = np.array([[mm, 0, lo[0] + mm / 2], [0, -mm, lo[1] + n * mm - mm / 2], [0, 0, 1]])
            cv2.warpAffine(cv2.cvtColor(sheet, cv2.COLOR_GRAY2BGR), (to_top @ sheet_to_table)[:2], (columns, rows),
                           dst=top, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    top = cv2.GaussianBlur(top, (0, 0), 1.0)
    width_px, height_px = photo_size
    floor = np.clip(55 + rng.normal(0, 6, (height_px, width_px, 1)), 0, 255).repeat(3, axis=2).astype(np.uint8)
    photo = cv2.warpPerspective(top, table_to_photo @ np.linalg.inv(to_top), (width_px, height_px), dst=floor,
                                flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    photo = np.clip(photo + rng.normal(0, noise, photo.shape), 0, 255).astype(np.uint8)
    return SyntheticPhoto(photo, (width, depth), table_to_photo)
