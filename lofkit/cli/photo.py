"""`lofkit photo`: a top-down photo of a table becomes a rectified orthophoto and a scene stub."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.table import Table

from lofkit.cli.common import (
    folder_message,
    json_option,
    length_option,
    naming,
    out,
    parse_table_size,
    report_import,
    table_option,
)
from lofkit.errors import LofkitError

FLAGS = {"corners_px": "--corners", "marker_size": "--marker-size", "marker_inset": "--marker-inset",
         "table_mm": "--table", "mm_per_pixel": "--mm-per-pixel", "overwrite": "--force"}
"""The flag of each setting that `import_photo`'s messages name."""


@click.command()
@click.argument("photo", type=click.Path(dir_okay=False))
@table_option
@click.option("--corners", "corners_text", metavar="x,y;x,y;x,y;x,y",
              help="The table's corners in photo pixels: bottom-left, bottom-right, top-right, top-left.")
@click.option("--markers", is_flag=True,
              help="Find the table from ArUco DICT_4X4_50 markers 0-3 in its corners (bottom-left, bottom-right, "
                   "top-right, top-left).")
@click.option("--marker-size", default="50mm", show_default=True, help="Side of a marker's black square.")
@click.option("--marker-inset", default="0mm", show_default=True,
              help="Distance from each table edge to the marker's black square.")
@click.option("--mm-per-pixel", default=0.5, show_default=True, type=float, help="Scale of table.png.")
@click.option("--no-bases", is_flag=True, help="Do not look for round bases.")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="The folder to write table.png and scene.yaml into (new or empty).")
@click.option("--force", is_flag=True, help="Replace table.png and scene.yaml from an earlier run in the folder.")
@json_option
def photo(photo: str, table_text: str, corners_text: str | None, markers: bool, marker_size: str,
          marker_inset: str, mm_per_pixel: float, no_bases: bool, output: str, force: bool, as_json: bool) -> None:
    """Turn a top-down PHOTO of a table into a table map: table.png (the table from straight above, to scale) and
    scene.yaml (the table with that picture as its texture, and every round base found proposed as a trooper)."""
    try:
        from lofkit.exchange.photo import import_photo
        from lofkit.exchange.photo_table import parse_corners
    except ImportError as exc:
        raise LofkitError(f"`lofkit photo` needs OpenCV ({exc}); install it with pip install 'lofkit[photo]'") from None
    if markers == (corners_text is not None):
        raise LofkitError("give the table's corners in pixels with --corners, or use --markers; one of the two")
    with naming(FLAGS, folder_message("the table map", "import")):
        result = import_photo(
            photo, output, parse_table_size(table_text),
            corners_px=parse_corners(corners_text) if corners_text is not None else None,
            marker_size=length_option(marker_size, "--marker-size") if markers else None,
            marker_inset=length_option(marker_inset, "--marker-inset"),
            mm_per_pixel=mm_per_pixel, bases=not no_bases, overwrite=force,
        )
    if report_import(photo, result, FLAGS, as_json):
        return
    width, depth = result.table_mm
    sx, sy = result.mm_per_pixel
    fit = result.fit
    how = "its corners" if fit.method == "corners" else \
        f"markers 0-3 ({fit.marker_size_mm:g} mm, {fit.marker_inset_mm:g} mm from the edges; corners fit within " \
        f"{fit.residual_mm:.2f} mm RMS)"
    out.print(escape(f"{photo}: table {width:g} x {depth:g} mm found from {how}"), highlight=False)
    out.print(f"  {result.image}: {result.image_px[0]} x {result.image_px[1]} px, {sx:.4g} x {sy:.4g} mm per pixel",
              highlight=False)
    proposed = result.proposed
    found = "bases not looked for (--no-bases)" if no_bases else \
        f"{len(proposed)} bases proposed as troopers (side `unknown`): complete them"
    out.print(f"  {result.scene}: {found}", highlight=False)
    if result.camera is not None:
        out.print("  taken from ({:.0f}, {:.0f}, {:.0f}) mm: bases judged at table height".format(*result.camera),
                  highlight=False)
    if result.bases:
        table = Table(show_edge=False, box=None, padding=(0, 2))
        for column in ("id", "x mm", "y mm", "base", "found", "fit", "why not proposed"):
            table.add_column(column, justify="left" if column in ("id", "why not proposed") else "right")
        rows = [(f"base-{k + 1}", base) for k, base in enumerate(proposed)]
        rows += [(base.status, base) for base in result.bases if base.status != "base"]
        for name, base in rows:
            table.add_row(name, f"{base.position[0]:.1f}", f"{base.position[1]:.1f}", f"{base.diameter_mm:g} mm",
                          f"{base.found_diameter_mm:.1f} mm", f"{base.confidence:.0%}", escape(base.reason))
        out.print(table)


COMMANDS: list[click.Command] = [photo]
