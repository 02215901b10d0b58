"""`lofkit photo` on photos taken from where a player stands: rendered tables (12 MP, 38-60 degrees above the table,
1.3 m from its centre) with painted miniatures (bodies, heads, black and sand bases), terrain hiding some bases,
troopers on roofs and JPEG noise. The camera is recovered from the markers; bases are proposed only where a base
on the table would look as it does; heads and troopers on terrain are reported as raised."""

import json

import cv2
import numpy as np
import pytest

from lofkit.testing.photo_synthetic import Miniature, found_in, perspective_photo

TABLE = (1219.2, 1219.2)
MARKERS = (60.0, 5.0)
VIEWS = ((1300, 38, -90), (1300, 48, -86), (1300, 60, -94))  # distance (mm), elevation, azimuth (degrees)
SEEN = 0.6
"""A base counts when the camera sees at least this share of its rim."""


def layout(seed: int, count: int = 24) -> tuple[tuple[Miniature, ...], tuple[Miniature, ...], tuple]:
    """Miniatures on the table (one in seven with a big head: a TAG's cockpit, a helmet), a terrain block in front
    of three of them, and up to two troopers standing on the roofs of blocks of their own."""
    rng = np.random.default_rng(seed)
    width, depth = TABLE
    minis: list[Miniature] = []
    while len(minis) < count:
        diameter = float(rng.choice([25, 25, 25, 40, 40, 55]))
        x, y = rng.uniform(120, width - 120, 2)
        if all(np.hypot(x - m.x, y - m.y) > (diameter + m.diameter) / 2 + 10 for m in minis):
            head = rng.uniform(10, 14) if rng.random() < 0.15 else rng.uniform(4, 8)
            minis.append(Miniature(float(x), float(y), diameter, body=float(rng.uniform(25, 50)), head=float(head),
                                   painted_base=bool(rng.random() < 0.4)))
    boxes = [(m.x - 60, m.y - 140, m.x + 60, m.y - 25, float(rng.uniform(60, 150))) for m in minis[:3]]
    on_roofs = []
    for _ in range(2):
        x0, y0 = rng.uniform(200, width - 300, 2)
        height = float(rng.uniform(60, 120))
        if all(np.hypot(x0 + 50 - m.x, y0 + 50 - m.y) > 120 for m in minis):
            boxes.append((x0, y0, x0 + 100, y0 + 100, height))
            on_roofs.append(Miniature(x0 + 50, y0 + 50, 40.0, body=30, head=6, z=height))
    return tuple(minis), tuple(on_roofs), tuple(boxes)


@pytest.fixture(scope="module")
def shots():
    """The three views, each of its own table, with what was found on each."""
    found = []
    for k, (distance, elevation, azimuth) in enumerate(VIEWS):
        minis, on_roofs, boxes = layout(10 + k)
        shot = perspective_photo(TABLE, minis + on_roofs, boxes, distance=distance, elevation=elevation,
                                 azimuth=azimuth, markers=MARKERS, seed=10 + k)
        camera, bases = found_in(shot, MARKERS)
        found.append((shot, minis, camera, bases))
    return found


def _match(bases, minis):
    """For each proposed base, the miniature on the table within 3 mm with that base size (None: a false one)."""
    truth = np.array([[m.x, m.y, m.diameter] for m in minis])
    matches = []
    for base in bases:
        gaps = np.hypot(truth[:, 0] - base.position[0], truth[:, 1] - base.position[1])
        k = int(gaps.argmin())
        matches.append(k if gaps[k] <= 3.0 and truth[k, 2] == base.diameter_mm else None)
    return matches


@pytest.mark.slow
def test_the_camera_is_found_from_the_markers(shots):
    for shot, _, camera, _ in shots:
        assert camera is not None and np.linalg.norm(camera - shot.camera) < 5.0


@pytest.mark.slow
def test_bases_with_their_rim_in_sight_are_found_and_nothing_else_is_proposed(shots):
    seen = found = 0
    for shot, minis, _, bases in shots:
        proposed = [b for b in bases if b.status == "base"]
        matches = _match(proposed, minis)
        assert None not in matches, [b.position for b, m in zip(proposed, matches) if m is None]
        visible = {k for k in range(len(minis)) if shot.rim_seen[k] >= SEEN}
        seen += len(visible)
        found += len(visible & set(matches))
    assert seen >= 55 and found >= 0.95 * seen, (found, seen)


@pytest.mark.slow
def test_troopers_on_roofs_and_heads_are_listed_as_raised_not_proposed(shots):
    raised = [b for _, _, _, bases in shots for b in bases if b.status == "raised"]
    assert raised and all("above the table" in b.reason or "taller than a base" in b.reason for b in raised)
    for _, minis, _, bases in shots:
        assert None not in _match([b for b in bases if b.status == "base"], minis)


@pytest.mark.slow
def test_the_photo_command_proposes_only_confident_bases(shots, tmp_path, run_cli):
    shot = shots[0][0]
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), shot.image)
    result = run_cli("photo", photo, "--table", "48x48in", "--markers", "--marker-size", "60mm", "--marker-inset",
                     "5mm", "-o", tmp_path / "map", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert np.linalg.norm(np.array(report["camera_mm"]) - shot.camera) < 5.0
    assert all(0 < b["confidence"] <= 1 for b in report["bases"])
    assert all(b["reason"] for b in report["raised"] + report["possible"])
    scene = (tmp_path / "map" / "scene.yaml").read_text()
    assert scene.count("id: base-") == len(report["bases"])
