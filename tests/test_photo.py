"""`lofkit photo`: a synthetic photo of a known table (markers, bases, terrain, perspective, noise, JPEG) is
rectified back with its corners within 2 mm and its bases within 3 mm; `table.image` textures the table top."""

import json

import cv2
import numpy as np
import pytest
from PIL import Image

from lofkit import SceneError, load_scene, scene_from_data
from lofkit.cli.common import parse_table_size
from lofkit.errors import LofkitError
from lofkit.exchange.photo_bases import HOLLOW_EDGE, MIN_GROUND, find_bases, judge, weaker_fits
from lofkit.exchange.photo_cues import RIM_RAYS, cues, into_neighbours, rim_support, touching_circles
from lofkit.exchange.photo_table import (
    fit_markers,
    map_points,
    marker_squares,
    parse_corners,
    rectify,
    table_corners,
    table_to_ortho,
)
from lofkit.testing.photo_synthetic import synthetic_photo
from lofkit.units import INCH
from tests.helpers import build_world, write_scene

TABLE = (48 * INCH, 48 * INCH)
# The photographer's view: the near edge wide, the far edge narrower and the table slightly turned.
PHOTO_CORNERS = np.array([[210.3, 1150.7], [1420.2, 1110.9], [1250.6, 120.1], [390.4, 90.8]])
BASES = (
    (300, 250, 25), (325, 250, 25),  # two 25 mm bases in base contact
    (600, 462.5, 25),  # touching the terrain box below it
    (600, 600, 40), (900, 300, 55), (1000, 1000, 70), (150, 1100, 25), (700, 1150, 40), (1150, 700, 25),
    (450, 850, 55),
)
BOXES = ((500, 300, 700, 450), (800, 800, 950, 900))
MARKERS = (50.0, 10.0)  # 50 mm markers on sheets with a 10 mm margin


@pytest.fixture(scope="module")
def marked(tmp_path_factory):
    """The table photographed with its four markers, each turned a different way, saved as a JPEG."""
    shot = synthetic_photo(TABLE, PHOTO_CORNERS, bases=BASES, boxes=BOXES, markers=MARKERS,
                           marker_turns=(0, 1, 2, 3), noise=5.0, seed=1)
    path = tmp_path_factory.mktemp("photo") / "table.jpg"
    cv2.imwrite(str(path), shot.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return shot, path


def corner_errors_mm(document: dict, shot) -> np.ndarray:
    """How far the true table corners land from (0, 0), (W, 0), (W, D), (0, D) through the found homography."""
    landed = map_points(np.array(document["homography"]), shot.corners_px)
    return np.linalg.norm(landed - table_corners(*TABLE), axis=1)


def assert_bases_found(bases: list[dict], tolerance_mm: float = 3.0) -> None:
    truth = np.array(BASES, dtype=float)
    found = np.array([b["position"] for b in bases])
    assert len(bases) == len(BASES), [b["position"] for b in bases]
    gaps = np.linalg.norm(found[:, None, :] - truth[None, :, :2], axis=2)
    match = gaps.argmin(axis=1)
    assert sorted(match) == list(range(len(BASES)))
    assert gaps.min(axis=1).max() < tolerance_mm
    assert [b["diameter_mm"] for b in bases] == list(truth[match, 2])


def test_markers_rectify_the_table_and_find_its_bases(marked, tmp_path, run_cli):
    shot, photo = marked
    out = tmp_path / "map"
    result = run_cli("photo", photo, "--markers", "--marker-size", "50mm", "--marker-inset", "10mm", "-o", out,
                     "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["method"] == "markers" and document["markers_found"] == [0, 1, 2, 3]
    assert (document["marker_size_mm"], document["marker_inset_mm"]) == (50.0, 10.0)
    assert corner_errors_mm(document, shot).max() < 2.0
    assert np.abs(np.array(document["corners_px"]) - shot.corners_px).max() < 2.0
    assert document["residual_mm"] < 1.0 and document["warnings"] == []
    assert_bases_found(document["bases"])
    for base in document["bases"]:
        assert base["radius_px_found"] == pytest.approx(base["found_diameter_mm"] / 2 / (1219.2 / 2438), abs=0.01)
    assert document["table_mm"] == [1219.2, 1219.2] and document["image_px"] == [2438, 2438]
    assert document["mm_per_pixel"] == pytest.approx([1219.2 / 2438] * 2)

    scene = load_scene(out / "scene.yaml")
    assert scene.table.image == "table.png" and scene.table.width == pytest.approx(TABLE[0])
    proposed = {t.id: t for t in scene.troopers}
    for k, base in enumerate(document["bases"]):
        trooper = proposed[f"base-{k + 1}"]
        assert trooper.side == "unknown" and trooper.size[0] == base["diameter_mm"]
        assert trooper.position == pytest.approx(base["position"], abs=0.06)
    assert "PROPOSALS" in (out / "scene.yaml").read_text()


def test_the_orthophoto_is_the_table_seen_from_above(marked, tmp_path, run_cli):
    """Row 0 is the far edge: each base's model (orange) and the mat (green) are where the table frame says."""
    shot, photo = marked
    out = tmp_path / "map"
    assert run_cli("photo", photo, "--markers", "--marker-inset", "10", "-o", out, "--mm-per-pixel", "2",
                   "--no-bases").exit_code == 0
    ortho = np.asarray(Image.open(out / "table.png").convert("RGB"), dtype=float)
    assert ortho.shape == (610, 610, 3)
    to_pixel = table_to_ortho(*TABLE, 610, 610)
    models = np.round(map_points(to_pixel, [[x + 0.06 * d, y] for x, y, d in BASES])).astype(int)
    red, green, blue = ortho[models[:, 1], models[:, 0]].T
    assert (red > green + 30).all() and (green > blue + 30).all()  # the orange model on top of each base
    (col, row), = np.round(map_points(to_pixel, [[100, 600]])).astype(int)
    r, g, b = ortho[row, col]
    assert g > r + 10 and g > b + 10  # the mat
    paper = map_points(to_pixel, marker_squares(*TABLE, *MARKERS)[2, :, :] + [[-5, 5], [5, 5], [5, -5], [-5, -5]])
    assert (ortho[tuple(np.round(paper[:, ::-1]).astype(int).T)] > 200).all()  # white margin of marker 2's sheet


def test_corners_clicked_in_pixels(marked, tmp_path, run_cli):
    shot, photo = marked
    clicked = ";".join(f"{x:.0f},{y:.0f}" for x, y in shot.corners_px)  # a user clicks whole pixels
    result = run_cli("photo", photo, "--corners", clicked, "-o", tmp_path / "map", "--mm-per-pixel", "1", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["method"] == "corners" and document["image_px"] == [1219, 1219]
    assert corner_errors_mm(document, shot).max() < 2.0
    assert_bases_found(document["bases"])


@pytest.mark.parametrize(("corners", "noise", "seed"), [
    ([[100, 1150], [1500, 1150], [1150, 250], [450, 250]], 5.0, 1),  # steep: the far edge half as wide
    ([[1250.6, 120.1], [390.4, 90.8], [210.3, 1150.7], [1420.2, 1110.9]], 15.0, 3),  # from the far side, noisy
])
def test_hard_photos_are_still_mapped_to_within_tolerance(corners, noise, seed):
    """A steeper view (far bases blurred to ~13 photo pixels) and a noisy photo taken from the far side (the table
    upside down in the photo), both through JPEG at quality 85: corners < 2 mm, every base < 3 mm, no extra base."""
    shot = synthetic_photo(TABLE, np.array(corners, dtype=float), bases=BASES, boxes=BOXES, markers=MARKERS,
                           marker_turns=(0, 1, 2, 3), noise=noise, seed=seed)
    _, encoded = cv2.imencode(".jpg", shot.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    photo = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    fit = fit_markers(photo, *TABLE, *MARKERS)
    landed = map_points(fit.homography, shot.corners_px)
    assert np.linalg.norm(landed - table_corners(*TABLE), axis=1).max() < 2.0
    found = find_bases(rectify(photo, fit, *TABLE, 0.5), *TABLE)
    assert_bases_found([{"position": b.position, "diameter_mm": b.diameter_mm} for b in found])


def test_human_output_lists_the_bases(marked, tmp_path, run_cli):
    _, photo = marked
    result = run_cli("photo", photo, "--markers", "--marker-inset", "10mm", "-o", tmp_path / "map",
                     "--mm-per-pixel", "1")
    assert result.exit_code == 0, result.output
    assert "found from markers 0-3 (50 mm, 10 mm from the edges;" in result.stdout
    assert "10 bases proposed" in result.stdout
    assert "base-10" in result.stdout


def test_an_unreadable_image_exits_2(tmp_path, run_cli):
    fake = tmp_path / "photo.jpg"
    fake.write_text("not a picture")
    result = run_cli("photo", fake, "--corners", "0,10;10,10;10,0;0,0", "-o", tmp_path / "map")
    assert result.exit_code == 2 and "photo.jpg: cannot read it as an image" in result.stderr
    assert "Traceback" not in result.output and not (tmp_path / "map").exists()
    missing = run_cli("photo", tmp_path / "nope.jpg", "--markers", "-o", tmp_path / "map")
    assert missing.exit_code == 2 and "nope.jpg: photo not found" in missing.stderr


def test_no_markers_in_the_photo(tmp_path, run_cli):
    shot = synthetic_photo((600, 400), [[40, 560], [760, 560], [700, 60], [100, 60]], photo_size=(800, 600))
    path = tmp_path / "bare.png"
    cv2.imwrite(str(path), shot.image)
    result = run_cli("photo", path, "--table", "600x400mm", "--markers", "-o", tmp_path / "map")
    assert result.exit_code == 2 and "no table found: found none of the four corner markers" in result.stderr
    assert "missing id 0 (bottom-left), id 1 (bottom-right), id 2 (top-right), id 3 (top-left)" in result.stderr
    assert "--corners" in result.stderr and not (tmp_path / "map").exists()


def test_a_covered_marker_is_named(marked, tmp_path, run_cli):
    shot, _ = marked
    image = shot.image.copy()
    sheet = marker_squares(*TABLE, *MARKERS)[1] + [[-12, 12], [12, 12], [12, -12], [-12, -12]]
    cv2.fillPoly(image, [np.round(map_points(shot.table_to_photo, sheet)).astype(np.int32)], (100, 120, 90))
    path = tmp_path / "covered.png"
    cv2.imwrite(str(path), image)
    result = run_cli("photo", path, "--markers", "--marker-inset", "10mm", "-o", tmp_path / "map")
    assert result.exit_code == 2
    assert "found ids 0, 2, 3 of the four corner markers" in result.stderr
    assert "missing id 1 (bottom-right)" in result.stderr


def test_markers_on_the_wrong_corners(tmp_path, run_cli):
    shot = synthetic_photo((600, 400), [[40, 560], [760, 560], [700, 60], [100, 60]], photo_size=(800, 600),
                           markers=(40.0, 8.0), marker_ids=(1, 0, 3, 2))  # 0 and 1, 2 and 3 swapped: a mirror
    path = tmp_path / "swapped.png"
    cv2.imwrite(str(path), shot.image)
    result = run_cli("photo", path, "--table", "600x400mm", "--markers", "--marker-size", "40", "--marker-inset", "8",
                     "-o", tmp_path / "map")
    assert result.exit_code == 2 and "swapped.png: the table comes out mirrored; markers 0, 1, 2, 3 go on the " \
        "bottom-left, bottom-right, top-right and top-left corners" in result.stderr


def test_a_corner_outside_the_photo_is_a_warning(marked, tmp_path, run_cli):
    shot, photo = marked
    corners = shot.corners_px.copy()
    corners[3] = [-30, 60]
    text = ";".join(f"{x:.1f},{y:.1f}" for x, y in corners)
    result = run_cli("photo", photo, "--corners", text, "-o", tmp_path / "map", "--no-bases", "--mm-per-pixel", "2",
                     "--json")
    assert result.exit_code == 0
    warning = "corner(s) top-left (0, D) lie outside the photo: that part of table.png is black"
    assert json.loads(result.stdout)["warnings"] == [warning] and warning in result.stderr


@pytest.mark.parametrize(("corners", "message"), [
    ("1,2;3,4;5,6", "3 points"),
    ("1,2;3,4;5,6;7", "point 4 '7' is not two finite numbers x,y"),
    ("1,2;3,4;5,nan;7,8", "point 3 '5,nan' is not two finite numbers x,y"),
    ("a,b;3,4;5,6;7,8", "point 1 'a,b' is not numbers"),
    ("210,1151;390,91;1251,120;1420,1111", "the table comes out mirrored"),
    ("210,1151;1420,1111;390,91;1251,120", "not a convex quadrilateral"),
])
def test_bad_corners_exit_2(marked, tmp_path, run_cli, corners, message):
    _, photo = marked
    result = run_cli("photo", photo, "--corners", corners, "-o", tmp_path / "map")
    assert result.exit_code == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("args", "message"), [
    ((), "give the table's corners in pixels with --corners, or use --markers"),
    (("--markers", "--corners", "0,10;10,10;10,0;0,0"), "one of the two"),
    (("--markers", "--table", "48in"), "give WIDTHxDEPTH with units"),
    (("--markers", "--table", "1200x1200"), "give units"),
    (("--markers", "--marker-size", "2ft"), "--marker-size '2ft'"),
    (("--markers", "--marker-size", "700mm"), "do not fit four to a"),
    (("--markers", "--mm-per-pixel", "0.01"), "give a larger value"),
])
def test_bad_options_exit_2(marked, tmp_path, run_cli, args, message):
    _, photo = marked
    result = run_cli("photo", photo, *args, "-o", tmp_path / "map")
    assert result.exit_code == 2 and message in result.stderr, result.stderr


def test_the_output_folder_is_never_overwritten_without_force(marked, tmp_path, run_cli):
    _, photo = marked
    args = ("photo", photo, "--markers", "--marker-inset", "10mm", "--mm-per-pixel", "2", "--no-bases")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    refused = run_cli(*args, "-o", busy)
    assert refused.exit_code == 2 and "already holds other files (notes.txt)" in refused.stderr
    assert sorted(p.name for p in busy.iterdir()) == ["notes.txt"]
    out = tmp_path / "map"
    assert run_cli(*args, "-o", out).exit_code == 0
    (out / "scene.yaml").write_text("# edited by hand\n" + (out / "scene.yaml").read_text())
    again = run_cli(*args, "-o", out)
    assert again.exit_code == 2 and "pass --force" in again.stderr
    assert (out / "scene.yaml").read_text().startswith("# edited by hand")
    assert run_cli(*args, "-o", out, "--force").exit_code == 0
    assert not (out / "scene.yaml").read_text().startswith("# edited by hand")


def test_table_size_and_corner_parsing():
    assert parse_table_size("48inx48in") == pytest.approx((1219.2, 1219.2))
    assert parse_table_size("120cm x 90cm") == pytest.approx((1200.0, 900.0))
    assert parse_table_size('1200X800mm') == (1200.0, 800.0)
    assert parse_table_size('48x36"') == pytest.approx((1219.2, 914.4))
    with pytest.raises(LofkitError, match="give units"):
        parse_table_size("48x48")
    assert parse_corners("1,2; 3.5,4;5,6;7,8;").tolist() == [[1, 2], [3.5, 4], [5, 6], [7, 8]]


def _drawn_table(width: int, depth: int, discs, figures: bool = True) -> np.ndarray:
    """A top view at 1 mm per pixel: a grey-green mat with dark discs (x, y, diameter) in table mm, each with a
    light figure seen from above in its middle (unless not `figures`: flat tokens)."""
    image = np.full((depth, width, 3), (92, 122, 104), np.uint8)
    for x, y, diameter in discs:
        centre = (round((x - 0.5) * 16), round((depth - y - 0.5) * 16))
        cv2.circle(image, centre, round((diameter / 2 - 0.5) * 16), (35, 35, 35), -1, cv2.LINE_AA, shift=4)
        if figures:
            cv2.circle(image, centre, round(diameter / 5 * 16), (70, 150, 205), -1, cv2.LINE_AA, shift=4)
    return image


def test_base_sizes_snap_and_bases_off_the_table_are_dropped():
    discs = [(100, 100, 25), (300, 200, 39), (500, 250, 56), (200, 300, 33),  # 33 mm is no standard size: kept
             (10, 200, 40),  # 10 mm past the left edge: dropped
             (588.5, 60, 25)]  # 1 mm past the right edge: moved onto the table
    found = find_bases(_drawn_table(600, 400, discs), 600, 400)
    assert [(round(b.position[0]), round(b.position[1]), b.diameter_mm) for b in found] == [
        (200, 300, 33), (500, 250, 55), (300, 200, 40), (100, 100, 25), (588, 60, 25)]
    assert all(b.status == "base" for b in found), [b.reason for b in found]
    assert found[4].position[0] == pytest.approx(587.5)
    assert found[2].found_diameter_mm == pytest.approx(39, abs=0.6)
    assert find_bases(_drawn_table(600, 400, []), 600, 400) == []


def test_a_base_of_any_size_has_a_silhouette_for_the_scene():
    from lofkit.scene.loading import scene_from_data
    from lofkit.scene.silhouettes import found_trooper_size

    assert found_trooper_size(40) == {"silhouette": 3}
    assert found_trooper_size(33) == {"silhouette": 3, "base": 33.0}
    assert found_trooper_size(120) == {"silhouette": 8, "base": 120.0}
    troopers = [{"id": f"base-{k}", "side": "unknown", "position": [100 + 130 * k, 200], **found_trooper_size(size)}
                for k, size in enumerate((20, 25, 47, 120))]
    scene = scene_from_data({"lofkit": 1, "table": {"width": 600, "depth": 400}, "troopers": troopers}, source="stub")
    assert [t.base for t in scene.troopers] == [20.0, None, 47.0, 120.0]


def test_a_disc_with_nothing_on_it_is_not_proposed():
    found = find_bases(_drawn_table(600, 400, [(200, 200, 40)], figures=False), 600, 400)
    assert [(b.diameter_mm, b.status) for b in found] == [(40, "possible")]
    assert "nothing stands on it" in found[0].reason


def test_an_open_barrel_is_hollow_and_a_base_is_not():
    """Seen from above, an open barrel is a round outline with a dark middle, like a black base; but its edge is its
    lit wall, lighter than the mouth inside, where a base's edge is its black rim, darker than what stands on it."""
    per_mm = 2  # 0.5 mm a pixel, the scale bases are looked for at
    image = np.full((200 * per_mm, 300 * per_mm, 3), (92, 122, 104), np.uint8)

    def disc(x, y, diameter, colour):
        centre = (round(x * per_mm * 16), round((200 - y) * per_mm * 16))
        cv2.circle(image, centre, round(diameter / 2 * per_mm * 16), colour, -1, cv2.LINE_AA, shift=4)

    disc(80, 100, 24, (40, 70, 110))  # a brown barrel's wall, 1.8 mm thick round its black mouth
    disc(80, 100, 0.85 * 24, (15, 15, 15))
    disc(220, 100, 25, (35, 35, 35))  # a black base with a figure on it
    disc(220, 100, 8, (70, 150, 205))
    found = {round(b.position[0]): b for b in find_bases(image, 300, 200)}
    assert found[220].status == "base" and found[220].hollow <= 0
    assert found[80].hollow > HOLLOW_EDGE
    # Seen from high above, the sliver of its side makes the wall look like a base's top round a dark figure, and
    # the band a rim is looked for in reaches the mouth (photo 11 of the contact sweep): only `hollow` tells.
    assert judge(0.83, 1.04, 0.31, 1.0, 57.5, 1.0, found[80].hollow) == (
        "possible", f"its edge is lighter than its inside ({found[80].hollow:.2f}): something hollow, not a black rim")
    assert judge(0.83, 1.04, 0.31, 1.0, 57.5, 1.0, found[220].hollow) == ("base", "")


def _rays_into(circles: np.ndarray, foot: np.ndarray | None) -> np.ndarray:
    """`into_neighbours` on 360 rays of circles drawn 1 mm to the pixel."""
    return into_neighbours(circles, touching_circles(circles, foot, 1.0), 1.0, 360)


def test_rays_into_a_base_in_contact_are_known():
    """Two bases in base contact (0.5 mm apart): the rays of each that run into the other, just past its rim, are
    those within asin(r_other / distance) of the line between them (the other's disc seen from the centre); a base
    3 mm away touches nothing; a circle in line with another towards the camera may be its own top (a head over
    its base): that one is not a neighbour for it, unless the circle is wider."""
    circles = np.array([[100.0, 100.0, 25.0], [150.5, 100.0, 25.0], [100.0, 153.0, 25.0]])  # pixels, 1 mm each
    into = _rays_into(circles, None)
    angles = np.degrees(np.linspace(0, 2 * np.pi, 360, endpoint=False))
    reach = 25.0 + 3.0  # the middle of the band where the table is looked for
    # the point at `reach` along a ray lies in the other disc where its distance to the other centre is <= 25
    expected = np.hypot(100 + reach * np.cos(np.radians(angles)) - 150.5, reach * np.sin(np.radians(angles))) <= 25
    assert into[0].tolist() == expected.tolist() and 20 < expected.sum() < 90
    assert into[1].sum() == expected.sum() and not into[2].any()
    camera_foot = np.array([100.0, 1000.0])  # circle 1 turned to lie towards the camera from circle 0
    in_line = _rays_into(np.array([[100.0, 100.0, 25.0], [100.0, 150.5, 25.0]]), camera_foot)
    assert not in_line[0].any()  # circle 0 may be circle 1's top, pushed away from the camera
    assert in_line[1].tolist() == np.roll(expected, 270).tolist()  # circle 0 lies away from circle 1: a neighbour
    assert _rays_into(circles[:2], camera_foot)[0].tolist() == expected.tolist()
    # a circle 3 mm wider than the one in line before it is not that one's top (a head is narrower than its base):
    # the narrower one is its neighbour; 1 mm wider (within two measurements) may still be a top
    for wider, neighbour in ((3.0, True), (1.0, False)):
        radius = 25.0 + wider / 2
        pair = np.array([[100.0, 100.0, radius], [100.0, 100.0 + radius + 25.5, 25.0]])
        assert _rays_into(pair, camera_foot)[0].any() == neighbour, wider


def test_of_two_fits_of_one_outline_the_one_following_more_rim_stays():
    """Circles (mm) whose rims lie within 2 mm of each other all round (centres 1 mm apart, radii 0.5 mm apart: 1.5
    mm) are two fits of one outline: the one following less of its rim gives way, if of the same status; a circle 3
    mm off is another outline, and equal support keeps both."""
    x, y = np.array([0.0, 1.0, 3.0]), np.zeros(3)
    radius = np.array([25.0, 25.5, 25.0])
    assert weaker_fits(x, y, radius, np.array([0.6, 0.8, 0.9]), np.zeros(3, int)).tolist() == [True, False, False]
    assert not weaker_fits(x, y, radius, np.array([0.6, 0.8, 0.9]), np.array([0, 1, 0])).any()
    assert not weaker_fits(x[:2], y[:2], radius[:2], np.array([0.7, 0.7]), np.zeros(2, int)).any()


def test_a_rim_running_into_a_base_in_contact_is_not_asked_to_show():
    follows = np.zeros((2, 100), dtype=bool)
    follows[:, :60] = True  # the fit follows 60 of 100 rays
    beside = np.zeros((2, 100), dtype=bool)
    beside[0, 60:90] = True  # 30 of the 40 it misses run into a base it touches: 60 of 70 left
    beside[1, :60] = True  # 60 rays into neighbours: too few left to judge, all count
    assert rim_support(follows, beside).tolist() == pytest.approx([60 / 70, 0.6])



def _ground_of(wall_from_x: float, around: tuple[int, int, int], shows: np.ndarray | None) -> float:
    """`cues`' ground for a 40 mm black base (0.5 mm a pixel) with a figure on it, the camera far off towards +y,
    on a green mat, with a grey wall covering x > wall_from_x, y > 100 (pixels) or, given `around`, that colour all
    round it (a roof)."""
    mat = (70, 140, 80)
    picture = np.zeros((200, 200, 3), np.uint8)
    picture[:] = around or mat
    if not around:
        picture[100:, int(wall_from_x):] = (150, 150, 150)
    cv2.circle(picture, (100, 90), 40, (25, 25, 25), -1)
    cv2.circle(picture, (100, 80), 12, (40, 40, 200), -1)
    lab = cv2.cvtColor(picture, cv2.COLOR_BGR2LAB)
    mat_lab = cv2.cvtColor(np.uint8([[mat]]), cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)
    _, ground, _, _ = cues(lab, mat_lab, np.array([[100.0, 90.0, 40.0]]), np.array([100.0, 5000.0]), np.zeros(1),
                           0.5, np.zeros((1, 1), bool), shows)
    return float(ground[0])


def test_the_table_beyond_a_base_counts_where_its_rim_shows():
    """A wall standing in front of a base hides its near rim and the table beyond alike: only where the rim shows
    does what lies beyond it say where the base stands. A token on a roof shows its rim all round, and the roof
    beyond it. (Rays from angle 0 = +x, every 5 degrees; the rim point of each is under the wall or not.)"""
    angles = np.radians(np.arange(RIM_RAYS) * 360 / RIM_RAYS)
    rim_x, rim_y = 100 + 40 * np.cos(angles), 90 + 40 * np.sin(angles)
    shows = ~((rim_x > 97) & (rim_y > 100))[None, :]
    assert _ground_of(97, None, None) < MIN_GROUND  # the wall's side taken for what the base stands on
    assert _ground_of(97, None, shows) >= 0.9
    assert _ground_of(97, None, np.zeros((1, RIM_RAYS), bool)) < MIN_GROUND  # no rim shown: every ray counts
    assert _ground_of(97, (150, 150, 150), np.ones((1, RIM_RAYS), bool)) == 0.0  # a token on a roof

def _textured_scene(tmp_path, image_name="top.png"):
    return {"lofkit": 1, "table": {"width": 400, "depth": 300, "image": image_name}, "troopers": []}


def test_a_missing_or_broken_table_image_is_an_error(tmp_path, run_cli):
    path = write_scene(tmp_path, _textured_scene(tmp_path))
    result = run_cli("validate", path)
    assert result.exit_code == 2
    assert f"table.image: image file '{tmp_path / 'top.png'}' not found" in result.stderr
    (tmp_path / "top.png").write_text("not a picture")
    with pytest.raises(SceneError, match=r"table.image: .*top.png' is not a PNG or JPEG image"):
        load_scene(path)
    with pytest.raises(SceneError, match="table.image"):
        scene_from_data({"lofkit": 1, "table": {"image": ""}})


@pytest.mark.slow
def test_top_view_shows_the_table_image_in_place(tmp_path):
    from lofkit.viz.render import render, top_view_pixel

    colours = np.array([[(200, 30, 30), (30, 200, 30), (30, 30, 200), (220, 220, 40)],
                        [(40, 220, 220), (220, 40, 220), (120, 60, 10), (250, 250, 250)],
                        [(10, 10, 10), (128, 128, 128), (255, 140, 0), (0, 90, 160)]], dtype=np.uint8)
    Image.fromarray(np.kron(colours, np.ones((20, 20, 1), np.uint8))).save(tmp_path / "top.png")
    world = build_world([], [], table={"width": 400, "depth": 300, "image": str(tmp_path / "top.png")})
    size = (800, 600)
    picture = np.asarray(Image.open(render(world, tmp_path / "view.png", view="top", size=size, layers=set()))
                         .convert("RGB"), dtype=int)
    for row in range(3):
        for col in range(4):
            # a spot half-way between inch grid lines, inside image cell (row, col): row 0 is the far edge
            x = (np.floor((col * 100 + 50) / INCH) + 0.5) * INCH
            y = (np.floor((300 - row * 100 - 50) / INCH) + 0.5) * INCH
            px, py = top_view_pixel(world, size, x, y)
            assert np.abs(picture[round(py), round(px)] - colours[row, col]).max() <= 6, (row, col)


@pytest.mark.slow
def test_the_walkthrough_example_runs(example_run):
    done, folder = example_run("examples/imports/photo_walkthrough.py")
    assert done.returncode == 0, done.stderr
    assert "out/imports/photo/scene.yaml: 8 bases" in done.stdout
    assert Image.open(folder / "out" / "imports" / "photo_top.png").size == (900, 900)


def test_the_stub_keeps_every_proposed_base_on_the_table():
    from lofkit.exchange.photo import scene_stub
    from lofkit.exchange.photo_bases import FoundBase

    bases = [FoundBase((987.56, 12.5), 25.0, 25.3), FoundBase((400.04, 299.97), 40.0, 39.1)]
    stub = scene_stub((1000.03, 320.0), bases)
    assert stub["table"] == {"width": 1000.03, "depth": 320.0, "image": "table.png"}
    assert [t["position"] for t in stub["troopers"]] == [[987.5, 12.5], [400.0, 300.0]]
    assert [t["silhouette"] for t in stub["troopers"]] == [2, 3]


def test_the_table_image_is_turned_as_its_exif_orientation_says(tmp_path):
    """A phone picture stored turned, with an EXIF orientation, textures the table as a viewer shows it."""
    from lofkit.viz.render import table_texture

    pixels = np.zeros((2, 3, 3), np.uint8)
    pixels[0, 0] = (255, 0, 0)  # red in the stored picture's first row and column
    picture = Image.fromarray(pixels)
    exif = picture.getexif()
    exif[0x0112] = 3  # orientation: turned 180 degrees
    picture.save(tmp_path / "top.png", exif=exif)
    scene = load_scene(write_scene(tmp_path, _textured_scene(tmp_path)))
    shown = table_texture(scene).to_array()[..., :3]
    assert shown.shape == (2, 3, 3) and shown[1, 2].tolist() == [255, 0, 0] and shown[0, 0].tolist() == [0, 0, 0]
