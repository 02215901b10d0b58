"""A ruling page both players can open: verdict in words, the pictures, an interactive 3D view, the JSON.

`write_report` writes DIR/index.html, eye.png, top.png, iso.png, scene.html (vtk.js, works offline) and
verdict.json (exactly `lofkit check --json`). It refuses to write into a folder holding other files, or an
earlier report unless told to replace it.
"""

from __future__ import annotations

import html
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lofkit.exchange.output import check_output_folder, make_folder
from lofkit.units import to_inches
from lofkit.viz.render import Overlay, build_plotter, render

FILES = ("index.html", "verdict.json", "eye.png", "top.png", "iso.png", "scene.html")
PICTURES = (("eye", "From {shooter}'s eye"), ("top", "Top view, to scale (1-inch grid)"), ("iso", "Overview"))
_FAVICONS = re.compile(r"\[16,32,96,160,196\]\.forEach")
_WASM_MODULES = ("trame_vtklocal", "trame.widgets.vtklocal")
"""Modules that trame-pyvista sets up when it can import them, and whose setup starts downloading VTK.wasm from
the web; the vtk.js export does not use them."""


def _interactive(world, path: Path, overlay: Overlay, shooter: str, target: str) -> None:
    """The 3D scene as one offline HTML file (vtk.js), without the viewer's links to icons on the web."""
    plotter = build_plotter(world, view="iso", size=(1000, 700), layers={"arcs", "zones", "rays"}, shooter=shooter,
                            target=target, overlay=overlay)
    try:
        with _offline():
            plotter.trame.export_html(str(path)) if hasattr(plotter, "trame") else plotter.export_html(str(path))
    finally:
        plotter.close()
    text = path.read_text(encoding="utf-8")
    path.write_text(_FAVICONS.sub("[].forEach", text).replace("https://kitware.github.io", "data:,"), encoding="utf-8")


@contextmanager
def _offline() -> Iterator[None]:
    """Hide `_WASM_MODULES` while the export runs (an import of a module set to None in `sys.modules` fails, and
    trame-pyvista skips what it cannot import), so that nothing reaches for the network."""
    before = {name: sys.modules.get(name) for name in _WASM_MODULES}
    sys.modules.update(dict.fromkeys(_WASM_MODULES))
    try:
        yield
    finally:
        for name, module in before.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def _facts(verdict) -> list[tuple[str, str]]:
    rows = [
        ("in arc", "yes" if verdict.in_arc else "no"),
        ("sight (3 x 3 mm, mutual)", "yes" if verdict.sight else "no"),
        ("valid target", "yes" if verdict.can_target else "no"),
        ("distance", f"{verdict.distance_mm:.1f} mm ({to_inches(verdict.distance_mm):.2f} in), base to base"),
        ("range band", verdict.range_band),
        (f"{verdict.target} in {verdict.shooter}'s ZoC", "yes" if verdict.in_zoc else "no"),
        ("base contact", "yes" if verdict.base_contact else "no"),
    ]
    if verdict.witness is not None:
        w = verdict.witness
        point = ", ".join(f"{c:.1f}" for c in w.eye)
        centre = ", ".join(f"{c:.1f}" for c in w.centre)
        rows.append(("witness", f"eye ({point}) mm in {w.eye_of}'s volume sees the 3 x 3 mm square centred at "
                                f"({centre}) mm on {w.patch_of}'s silhouette template"))
    if verdict.blockers:
        rows.append(("blocked by", ", ".join(name for name, _ in verdict.blockers)))
    return rows


def _page(verdict) -> str:
    e = html.escape
    if verdict.can_target:
        headline, tone = f"{verdict.shooter} has LoF to {verdict.target}", "yes"
    elif verdict.lof:
        headline, tone = f"{verdict.shooter} has LoF to {verdict.target}, but it is not a valid target", "maybe"
    else:
        headline, tone = f"{verdict.shooter} has no LoF to {verdict.target}", "no"
    facts = "\n".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in _facts(verdict))
    pictures = "\n".join(
        f'<figure><img src="{name}.png" alt="{e(caption.format(shooter=verdict.shooter))}">'
        f"<figcaption>{e(caption.format(shooter=verdict.shooter))}</figcaption></figure>"
        for name, caption in PICTURES
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>LoF ruling: {e(verdict.shooter)} → {e(verdict.target)}</title>
<link rel="icon" href="data:,">
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }}
h1 {{ font-size: 1.6rem; }} .yes {{ color: #0a7d32; }} .no {{ color: #b3261e; }} .maybe {{ color: #1f5fd1; }}
table {{ border-collapse: collapse; margin: 1rem 0; }} th, td {{ text-align: left; padding: .3rem .8rem;
border-bottom: 1px solid #ddd; vertical-align: top; }} th {{ color: #555; font-weight: 500; }}
.pictures {{ display: grid; grid-template-columns: repeat(3, 1fr); gap: 1rem; }}
figure {{ margin: 0; }} img {{ width: 100%; border: 1px solid #ccc; }} figcaption {{ font-size: .9rem; color: #555; }}
iframe {{ width: 100%; height: 620px; border: 1px solid #ccc; }}
</style></head>
<body>
<h1 id="verdict" class="{tone}">{e(headline)}</h1>
<p id="reason">{e(verdict.reason)}</p>
<table>{facts}</table>
<div class="pictures">{pictures}</div>
<h2>Look around</h2>
<p>Drag to turn the table, scroll to zoom. Green: the witness segments and the seen square; red: sampled segments
that are blocked, ending where they hit; orange: what blocks.</p>
<iframe src="scene.html" title="3D view of the table"></iframe>
<p><a href="verdict.json">verdict.json</a> — the same ruling as <code>lofkit check --json</code>.</p>
</body></html>
"""


def write_report(world, verdict, segments, folder, size: tuple[int, int] = (1000, 750),
                 overwrite: bool = False) -> Path:
    """Write the ruling page for `verdict` (with sampled `segments`) into `folder`; returns index.html's path."""
    folder = Path(folder)
    check_output_folder(folder, FILES, overwrite)
    make_folder(folder)
    overlay = Overlay(verdict=verdict, segments=segments)
    for view, _ in PICTURES:
        layers = {"arcs", "zones"} | ({"rays"} if view != "eye" else set())
        render(world, folder / f"{view}.png", view=view, size=size, layers=layers, shooter=verdict.shooter,
               target=verdict.target, overlay=overlay)
    _interactive(world, folder / "scene.html", overlay, verdict.shooter, verdict.target)
    (folder / "verdict.json").write_text(json.dumps(verdict.to_dict(), indent=2) + "\n", encoding="utf-8")
    index = folder / "index.html"
    index.write_text(_page(verdict), encoding="utf-8")
    return index
