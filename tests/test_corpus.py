"""The benchmark corpus (benchmarks/corpus/): tables of third-party kits that lofkit reads as they are, every mesh
with its source and licence named, and the sight search equal to the brute-force reference there too."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

from lofkit import validate_file
from lofkit.sight.search import sight
from lofkit.testing import sight_brute_force
from tests.helpers import REPO

CORPUS = REPO / "benchmarks" / "corpus"
TABLES = sorted(CORPUS.glob("*.yaml"))
CATALOG = yaml.safe_load((CORPUS / "meshes" / "catalog.yaml").read_text())


def test_the_corpus_holds_five_tables_of_three_sources_each_credited():
    assert len(TABLES) >= 5
    sources = {entry["file"].split("/")[0] for entry in CATALOG}
    assert len(sources) >= 3
    credits = (CORPUS / "SOURCES.md").read_text()
    for source in sources:
        assert f"meshes/{source}/" in credits
    for entry in CATALOG:
        assert (CORPUS / "meshes" / entry["file"]).is_file()


@pytest.mark.parametrize("table", TABLES, ids=lambda path: path.stem)
def test_every_corpus_table_is_valid_with_no_warnings(table):
    report, world = validate_file(table)
    assert report.ok and not report.warnings, [p.to_dict() for p in (*report.errors, *report.warnings)]
    assert len(world.troopers) >= 25


@pytest.mark.slow
@pytest.mark.parametrize("name", ["kenney-town", "macross-diorama", "pagoda-rocks"])
def test_sight_equals_the_brute_force_on_corpus_pairs(name):
    """Eight seeded pairs of a kit's table: the search (with the inner parts of open, many-bodied meshes, the holes
    they close themselves, rocks' kernels, tiles of eyes hidden by parts together) answers as the brute force does."""
    _, world = validate_file(CORPUS / f"{name}.yaml")
    rng = np.random.default_rng(12)
    pairs = [(a, b) for a, b in rng.choice(len(world.troopers), size=(8, 2)).tolist() if a != b]
    fast, brute = sight(world, pairs), sight_brute_force(world, pairs)
    assert {k: s.seen for k, s in fast.items()} == {k: s.seen for k, s in brute.items()}
