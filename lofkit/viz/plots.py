"""Pictures of designer analyses: heatmaps and lanes drawn over the top view of the table (matplotlib over pyvista).

Presentation only: every picture draws a result of `analysis`.
"""

from __future__ import annotations

import functools
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402

from lofkit.design.layout import terrain_only  # noqa: E402
from lofkit.design.scorecard import Heatmap, Lanes  # noqa: E402
from lofkit.errors import LofkitError  # noqa: E402
from lofkit.viz.render import build_plotter, top_view_pixel  # noqa: E402

TOP_SIZE = (1000, 1000)
"""Pixels of the top view under a heatmap."""


@functools.lru_cache(maxsize=4)
def _top_image(world) -> np.ndarray:
    """The top view under the pictures, rendered once per World (every zone of a layout shares it)."""
    plotter = build_plotter(terrain_only(world), view="top", size=TOP_SIZE, layers={"zones"})
    try:
        return plotter.screenshot(None, return_img=True)
    finally:
        plotter.close()


def _pixels(world, xy) -> np.ndarray:
    """Table points (n, 2) to pixels of the top view (`top_view_pixel` is affine, so it takes arrays)."""
    xy = np.reshape(np.asarray(xy, dtype=float), (-1, 2))
    return np.column_stack(top_view_pixel(world, TOP_SIZE, xy[:, 0], xy[:, 1]))


def _table_extent(world) -> list[float]:
    (left, bottom), (right, top) = _pixels(world, [[0, 0], [world.scene.table.width, world.scene.table.depth]])
    return [left, right, bottom, top]


def draw_heatmap(ax, world, result: Heatmap, most: int | None = None) -> None:
    """Counts as translucent colour over the top view (the scale tops at `most`, by default this heatmap's number
    of viewers); safe cells green, cells with no room for a base grey; viewers are white dots."""
    ax.imshow(_top_image(world))
    counts = np.ma.masked_less(result.counts, 0)
    most = most or max(1, int(result.viewers.fits.sum()))
    shown = ax.imshow(counts, origin="lower", extent=_table_extent(world), cmap="inferno", alpha=0.62,
                      vmin=0, vmax=most, interpolation="nearest")
    for value, colour, alpha in ((0, "#2e8b57", 0.55), (-1, "#b8bcc2", 0.85)):  # safe cells; no room for a base
        ax.imshow(np.ma.masked_where(result.counts != value, np.ones_like(result.counts)), origin="lower",
                  extent=_table_extent(world), cmap=ListedColormap([colour]), alpha=alpha, interpolation="nearest")
    viewers = _pixels(world, result.viewers.centres[result.viewers.fits])
    ax.scatter(viewers[:, 0], viewers[:, 1], s=6, c="white", edgecolors="black", linewidths=0.3)
    ax.set_title(f"seen from {result.side}'s zone: {100 * result.exposed_share:.1f}% of {result.cells} cells "
                 f"exposed (green: safe; grey: no room for a base)", fontsize=9)
    ax.set_axis_off()
    plt.colorbar(shown, ax=ax, fraction=0.046, pad=0.02, label=f"viewers of {result.side} that see the cell")


def draw_lanes(ax, world, result: Lanes) -> None:
    """Every lane as a faint line, the longest ones bold, over the top view."""
    ax.imshow(_top_image(world))
    rows, cols = np.nonzero(result.seen)
    if len(rows):
        a, b = _pixels(world, result.first.centres[rows]), _pixels(world, result.second.centres[cols])
        ax.add_collection(LineCollection(np.stack([a, b], axis=1), colors="#d62728", alpha=0.06, linewidths=0.6))
    for i, j, _ in result.longest():
        a, b = _pixels(world, [result.first.centres[i], result.second.centres[j]])
        ax.plot([a[0], b[0]], [a[1], b[1]], color="#d62728", lw=1.8)
    first, second = result.sides
    ax.set_title(f"{result.count} lanes {first} ↔ {second}; longest {result.longest_mm / 25.4:.1f}\" (bold: "
                 f"the {min(len(rows), 10)} longest)", fontsize=9)
    ax.set_axis_off()


def _save(fig, path) -> str:
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=110, bbox_inches="tight")
    except OSError as exc:
        raise LofkitError(f"cannot write {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)
    return str(path)


def heatmap_picture(world, result: Heatmap, path) -> str:
    fig, ax = plt.subplots(figsize=(7.5, 7))
    draw_heatmap(ax, world, result)
    return _save(fig, path)


def lanes_picture(world, result: Lanes, path) -> str:
    fig, ax = plt.subplots(figsize=(7, 7))
    draw_lanes(ax, world, result)
    return _save(fig, path)


def comparison_picture(layouts: list[tuple[str, object, Heatmap | None]], path, columns: int) -> str:
    """Heatmaps of several layouts side by side on one colour scale: (name, world, heatmap or None) each, `columns`
    layouts per row, one row per zone; a layout without that zone leaves its place blank."""
    rows = -(-len(layouts) // columns)
    most = max((int(h.viewers.fits.sum()) for _, _, h in layouts if h is not None), default=1)
    fig, axes = plt.subplots(rows, columns, figsize=(6.5 * columns, 6.2 * rows), squeeze=False)
    for ax, (name, world, result) in zip(axes.ravel(), layouts):
        if result is None:
            ax.set_axis_off()
            continue
        draw_heatmap(ax, world, result, most)
        ax.set_title(f"{name}\n{ax.get_title()}", fontsize=9)
    for ax in axes.ravel()[len(layouts):]:
        ax.set_axis_off()
    return _save(fig, path)
