"""Generate the corpus's tables (`*.yaml` beside this script) from the third-party meshes in `meshes/` (see
SOURCES.md): 48" x 48", troopers spread over the whole table, seeded so the output is the same every time.

- kenney-town: Kenney's low-poly game kits (houses, trees, fences, a cliff, a bridge; loose triangles in a corner
  fence, open shells everywhere);
- quaternius-keep: Quaternius's modular medieval walls with gateways, towers, a watchtower, rocks and trees;
- pagoda-rocks: two detailed pagodas (thin railings and roofs, 30k triangles each) among low-poly rocks and trees;
- macross-diorama: one mesh of a whole diorama (103k triangles, 2,842 bodies: a plinth, buildings and robots), the
  troopers standing on it;
- bridge-garden: one mesh of a whole garden (a plinth, a bridge, rocks, trees), the troopers standing on it.

Pieces are laid out as `examples/tables/make_tables.py` lays them (point-symmetric, an inch apart). On a table that
is one mesh, each trooper stands where lofkit's `z: auto` puts it; a place where its volume would meet the scenery
is given up for another. Every table is then confirmed valid, with no warnings.

Run: `python benchmarks/corpus/make_corpus.py`.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import shapely
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "examples" / "tables"))

from make_tables import INCH, SIZE, Piece, Table, base_radius  # noqa: E402

from lofkit import validate_file  # noqa: E402

CATALOG = {entry["name"]: entry for entry in yaml.safe_load((HERE / "meshes" / "catalog.yaml").read_text())}
GROUND = [1, 2, 2, 3, 3, 4, 5, 6, 2, 1, 3, 8, 7, 2]
"""Silhouettes of each side's troopers (table-b fields 15 a side)."""


def corpus_table(seed: int) -> Table:
    return Table("mm", seed=seed, catalog=CATALOG, meshes="meshes", script="make_corpus.py")


def mesh(name: str, band=(1.0, 21.0), **kw) -> Piece:
    return Piece({"mesh": name}, band, **kw)


def spread(t: Table) -> None:
    """Each side's troopers over its half of the table, clear of the pieces; facing the enemy."""
    for side in ("blue", "red"):
        t.deploy(side, GROUND, [], markers=1, states={}, depth=SIZE / 2)
    t.face()


def kenney_town() -> None:
    t = corpus_table(seed=21)
    t.lay_out([mesh(f"kenney_building_{k}", (6, 22), square=True) for k in "abcd"]
              + [mesh(name) for name in ("kenney_cliff", "kenney_tree", "kenney_trees", "kenney_garage",
                                         "kenney_fountain", "kenney_bridge", "kenney_fence_corner", "kenney_crate",
                                         "kenney_fence", "kenney_fence_broken", "kenney_hedge", "kenney_rocks")],
              centre=[])
    spread(t)
    t.write(HERE / "kenney-town.yaml")


def quaternius_keep() -> None:
    t = corpus_table(seed=22)
    t.lay_out([mesh(name, (4, 22)) for name in ("quaternius_wall", "quaternius_wall_bricks",
                                                 "quaternius_wall_entrance", "quaternius_tall_wall_entrance",
                                                 "quaternius_wall_entrance", "quaternius_tower",
                                                 "quaternius_small_tower", "quaternius_watchtower")]
              + [mesh(name) for name in ("quaternius_well", "quaternius_bridge", "quaternius_tunnel",
                                         "quaternius_rock_1", "quaternius_rock_2", "quaternius_rock_3",
                                         "quaternius_tree", "quaternius_tree", "quaternius_boulder_1",
                                         "quaternius_boulder_4")], centre=[])
    spread(t)
    t.write(HERE / "quaternius-keep.yaml")


def pagoda_rocks() -> None:
    t = corpus_table(seed=23)
    t.lay_out([mesh("sketchfab_pagoda", (10, 20), square=True)]
              + [mesh(name) for name in ("quaternius_rock_1", "quaternius_rock_2", "quaternius_rock_3",
                                         "quaternius_rock_3", "quaternius_boulder_1", "quaternius_boulder_4",
                                         "kenney_rocks", "kenney_tree", "kenney_trees", "kenney_hedge",
                                         "kenney_cliff", "quaternius_tree")], centre=[])
    spread(t)
    t.write(HERE / "pagoda-rocks.yaml")


def on_one_mesh(name: str, seed: int, path: Path) -> None:
    """A table that is one mesh (a diorama on its plinth) at the table's centre; the troopers stand on it."""
    t = corpus_table(seed)
    t.lay_out([], centre=[(mesh(name), SIZE / 2, SIZE / 2)])
    footprint, t.footprints = t.footprints[0], []  # troopers stand on the piece, not clear of it
    rng = random.Random(seed)
    for side in ("blue", "red"):
        for number, silhouette in enumerate(GROUND, start=1):
            radius = base_radius(silhouette)
            while True:
                x, y = t.snap(rng.uniform(radius, SIZE - radius)), t.snap(rng.uniform(radius, SIZE / 2 - radius))
                y = y if side == "blue" else SIZE - y
                disc = shapely.Point(x, y).buffer(radius, 32)
                if footprint.buffer(-INCH).contains(disc) and t.free(disc):
                    break
            t.trooper(side, number, silhouette, x, y, z="auto")
    keep_clear_of_scenery(t, path)


def keep_clear_of_scenery(t: Table, path: Path) -> None:
    """Write the table; drop every trooper lofkit warns about (its volume meets the scenery), face the rest again and
    write it again, until no trooper is warned about."""
    while True:
        t.face()
        try:
            t.write(path)
            return
        except RuntimeError:
            result, _ = validate_file(path)
            bad = {int(w.where[len("troopers["):].split("]")[0]) for w in result.warnings
                   if w.where.startswith("troopers[")}
            if not bad:
                raise
            t.troopers = [{key: value for key, value in entry.items() if key not in ("facing", "facing_towards")}
                          for k, entry in enumerate(t.troopers) if k not in bad]


def macross_diorama() -> None:
    on_one_mesh("sketchfab_macross_diorama", 24, HERE / "macross-diorama.yaml")


def bridge_garden() -> None:
    on_one_mesh("sketchfab_bridge_garden", 25, HERE / "bridge-garden.yaml")


if __name__ == "__main__":
    kenney_town()
    quaternius_keep()
    pagoda_rocks()
    macross_diorama()
    bridge_garden()
