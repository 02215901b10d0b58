"""What the compiled loops of the sight search (`kernels`) take, named: parts, eyes, templates and what a screen
fills in, tiles of eyes and the shooters and targets they belong to."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Planes(NamedTuple):
    """Convex parts as half-spaces {x: normals @ x <= offsets}: `normals` (p, f, 3), `offsets` (p, f), `faces` (p,)
    planes in use (`terrain.ConvexParts` holds them)."""

    normals: np.ndarray
    offsets: np.ndarray
    faces: np.ndarray


class Eyes(NamedTuple):
    """n eyes, `points` (n, 1, 3), each with the convex parts that may hide things from it, `candidates` (n, k)
    (part indices, -1 for none)."""

    points: np.ndarray
    candidates: np.ndarray


class Templates(NamedTuple):
    """The templates n eyes look at, placed by `centres` (n, 2), `z` (n,) and `axis` (n, 2), and their lattice:
    `half_width`, `pitch` (2,) and `cells` (2,) (`lattice.Lattice`)."""

    centres: np.ndarray
    z: np.ndarray
    axis: np.ndarray
    half_width: float
    pitch: np.ndarray
    cells: np.ndarray


class Sample(NamedTuple):
    """Where on a template a screen looks (lattice indices): patches between the edges `across` and `up`, and the
    lattice points `cols` x `lines`."""

    across: np.ndarray
    up: np.ndarray
    cols: np.ndarray
    lines: np.ndarray


class Screened(NamedTuple):
    """What `screen_eyes` fills in for n eyes: `hidden` (n,), `proved` (n, patches) and `blocked` (n, c, r), and
    the segments left to cast, `origins` (m, 3), `directions` (m, 3), `lengths` (m,), m >= n * c * r."""

    hidden: np.ndarray
    proved: np.ndarray
    blocked: np.ndarray
    origins: np.ndarray
    directions: np.ndarray
    lengths: np.ndarray


class Tiles(NamedTuple):
    """Tiles of an eye pattern in a shooter's frame (`lattice.dense_tiles`): eyes `local` (t, e, 3), `counts` (t,)."""

    local: np.ndarray
    counts: np.ndarray


class Shooters(NamedTuple):
    """n shooters standing at `centres` (n, 2), `z` (n,), facing `towards` (n, 2), with the convex parts that may
    hide their targets, `candidates` (n, k) (-1 for none)."""

    centres: np.ndarray
    z: np.ndarray
    towards: np.ndarray
    candidates: np.ndarray


class Spans(NamedTuple):
    """Where n targets' templates may stand: about the vertical axes through `centres` (n, 2), from `lows` (n,) to
    `highs` (n,), `half_widths` (n,) either side."""

    centres: np.ndarray
    lows: np.ndarray
    highs: np.ndarray
    half_widths: np.ndarray
