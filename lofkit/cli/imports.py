"""Importers and exporters: `import-scan`, `import-tts`, `export`."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape

from lofkit.cli.common import (
    check_outputs,
    emit_json,
    err,
    force_option,
    json_option,
    load_world,
    naming,
    out,
    parse_table_size,
    report_import,
    scene_argument,
    scene_inputs,
    stages,
    table_option,
)
from lofkit.exchange.messages import render
from lofkit.exchange.output import OutputFolderError
from lofkit.exchange.scan import DEFAULT_PLANE_TOLERANCE, import_scan

SCAN_FLAGS = {"scale": "--scale", "turn": "--turn", "plane_tolerance": "--plane-tolerance", "table": "--table",
              "scan_units": "--scan-units", "overwrite": "--force", "holes": "--holes"}
TTS_FLAGS = {"mesh_cache": "--mesh-cache", "table_top": "--table-top", "overwrite": "--force"}
EXPORT_FLAGS = {"parts": "--include", "overwrite": "--force"}
"""The flag of each importer's or exporter's setting that its messages name."""


def _scan_folder_message(exc: OutputFolderError) -> str:
    """A refused output folder, worded as `lofkit import-scan` has always worded it."""
    if exc.is_file:
        return f"{exc.folder}: exists and is not a folder; give a new or empty folder with -o"
    listed = sorted(exc.others + ([] if exc.overwrite else exc.earlier))
    return (f"{exc.folder}: the folder already holds files ({', '.join(listed[:5])}); give a new or empty folder"
            + ("" if exc.overwrite else " (or --force to replace an earlier import)"))


@click.command("import-scan")
@click.argument("scan", type=click.Path(dir_okay=False))
@click.option("--table", "table_text", help="The real table's size, WIDTHxDEPTH with units: 48inx48in, 48x36in, "
                                           "1200mmx900mm [default: the standard size the scan fits, said].")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="A new or empty folder for the terrain pieces (piece-01.ply, ...) and scene.yaml.")
@click.option("--scale", type=click.Choice(["auto", "true"]), default="auto", show_default=True,
              help="auto: fit the table found to --table; true: keep the scan's own units (--scan-units).")
@click.option("--scan-units", type=click.Choice(["mm", "cm", "in", "m"]),
              help="Units of the scan with --scale true (default: m for glTF, mm otherwise).")
@click.option("--turn", type=click.Choice(["0", "90", "180", "270"]), default="0", show_default=True,
              help="Quarter turns about the table's centre (a scan does not say which edge is the first player's).")
@click.option("--plane-tolerance", type=float, default=DEFAULT_PLANE_TOLERANCE, show_default=True,
              help="How far from the table plane still counts as on it, as a share of the scan's size.")
@click.option("--holes", "holes", type=click.Choice(["sound", "all"]), default="sound", show_default=True,
              help="sound: close the scan's holes on the table, under miniatures and small ones, and name the large "
                   "ones left open; all: close every hole (blocks wherever the scan is unsure, windows too).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random sampling (RANSAC).")
@force_option
@json_option
def import_scan_command(scan, table_text, output, scale, scan_units, turn, plane_tolerance, holes, seed, force,
                        as_json):
    """Level a 3D scan of a table, find and scale the table, crop it, and write a terrain mesh and a scene."""
    with naming(SCAN_FLAGS, _scan_folder_message):
        table = parse_table_size(table_text) if table_text is not None else None
        with stages(f"importing {Path(scan).name}") as say:
            result = import_scan(scan, table, output, scale=scale, scan_units=scan_units, turn=int(turn),
                                 plane_tolerance=plane_tolerance, seed=seed, overwrite=force,
                                 holes_closed=holes, progress=say)
    if report_import(scan, result, SCAN_FLAGS, as_json):
        return
    w, d = result.table_found_mm
    out.print(f"levelled by {result.tilt_deg:.2f}°, scaled by {result.scale:.6g}; table found {w:.1f} x {d:.1f} mm "
              f"({result.inlier_share:.0%} of the surface, shape off by {result.fit['shape_error']:.1%})",
              highlight=False)
    dropped = result.faces_dropped
    out.print(f"kept {result.faces_kept:,} faces in {len(result.meshes)} pieces (dropped {dropped['table_top']:,} of the "
              f"table top, {dropped['outside']:,} outside the table, {dropped['below']:,} below it, "
              f"{dropped['miniatures']:,} of the miniatures)", highlight=False)
    holes = result.holes
    out.print(f"closed {holes.on_table} openings on the table, {holes.under_miniatures} under miniatures, "
              f"{holes.small} small holes and {sum(holes.large.values())} large ones; "
              f"{sum(holes.open.values())} large ones left open", highlight=False)
    if result.troopers:
        out.print(f"proposed {len(result.troopers)} troopers (side `unknown`, `proposed: true`): confirm them",
                  highlight=False)
        for proposal in result.troopers:
            entry, base = proposal.entry, proposal.base
            x, y = entry["position"]
            guess = f"S{entry['silhouette']}" if "silhouette" in entry else f"{entry['base']:g} mm x {entry['height']:g}"
            facing = f"facing {entry['facing']}°" if "facing" in entry else "no facing"
            out.print(f"  {entry['id']}: ({x:.1f}, {y:.1f}) z {base.z:.1f}, {base.diameter:g} mm base, figure "
                      f"{base.figure_height:.0f} mm: {guess} (a guess), {facing}", highlight=False)
    else:
        out.print("no miniatures found on the table", highlight=False)
    out.print(f"wrote {len(result.meshes)} piece files and {result.scene}", highlight=False)


@click.command("import-tts")
@click.argument("save", type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="The scene file to write (.yaml).")
@click.option("--mesh-cache", type=click.Path(file_okay=False),
              help="TTS's local model cache: the Mods folder or Mods/Models.")
@table_option
@click.option("--table-top", type=float, help="Height of the table top in TTS units (default: the lowest object).")
@force_option
@json_option
def import_tts_command(save, output, mesh_cache, table_text, table_top, force, as_json):
    """Turn a Tabletop Simulator save into a scene: troopers, mesh terrain, and what could not be resolved."""
    from lofkit.exchange.tts import import_tts

    with naming(TTS_FLAGS):
        result = import_tts(save, output, mesh_cache=mesh_cache, table=parse_table_size(table_text),
                            table_top=table_top, overwrite=force)
    document = result.to_dict()
    document["unresolved"] = [{**item, "reason": render(item["reason"], TTS_FLAGS)} for item in document["unresolved"]]
    document["assumptions"] = [render(assumption, TTS_FLAGS) for assumption in document["assumptions"]]
    if as_json:
        emit_json(document)
        return
    out.print(f"wrote {result.scene}: {len(result.troopers)} troopers, {len(result.terrain)} terrain pieces",
              highlight=False)
    for item in document["unresolved"]:
        where = f"{item['name'] or '?'} ({item['guid']}): {item['url']}"
        err.print(f"[yellow]unresolved:[/] {escape(where)} — {escape(item['reason'])}", highlight=False)
    for item in document["skipped"]:
        err.print(escape(f"skipped: {item['name'] or '?'} ({item['guid']}): {item['reason']}"), highlight=False)
    for assumption in document["assumptions"]:
        err.print(escape(f"assumed: {assumption}"), highlight=False)


@click.command("export")
@scene_argument
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False), help="The .glb or .gltf to write.")
@click.option("--include", "include", default="terrain,troopers,table", show_default=True,
              help="Parts to write: terrain, troopers, table, zones.")
@force_option
@json_option
def export_command(scene, output, include, force, as_json):
    """Write the placed scene as one glTF (metres, y up) with per-node extras: id, kind, silhouette, side."""
    from lofkit.exchange.gltf import export_table, parse_parts

    with naming(EXPORT_FLAGS):
        parts = parse_parts(include)
        check_outputs([output], force, scene_inputs(scene))  # before the meshes are read
        result = export_table(load_world(scene, quiet=as_json), output, parts, overwrite=force)
    if as_json:
        emit_json(result.to_dict())
        return
    out.print(f"wrote {result.output}: {len(result.nodes)} nodes ({include})", highlight=False)


COMMANDS: list[click.Command] = [import_scan_command, import_tts_command, export_command]
