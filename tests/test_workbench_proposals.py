"""Troopers found in a scan or photo (`proposed: true`) in the workbench: the API carries the flag and the notices,
rules proposals as placed, confirms them with `PUT {"proposed": false}` and deletes them, each change versioned (two
players answering the same proposal: one wins, the other is told why); the top view and the 3D view mark them; `lofkit
serve` opens a photo map with its proposals and a 3D scan by importing it beside itself (or reopening that import),
and refuses what it cannot import with exit 2 and no traceback."""

import json
import os
import threading

import pytest
import trimesh
import yaml
from fastapi.testclient import TestClient

from lofkit import World, load_scene
from lofkit.cli.serve import open_scene
from lofkit.errors import LofkitError
from lofkit.exchange.opening import scan_folder
from lofkit.workbench.api import app
from lofkit.workbench.proposals import notice_text
from lofkit.workbench.session import Session
from lofkit.workbench.topview import Marks, top_view
from tests.browser import CHROMIUM_ARGS, tap
from tests.helpers import scene_data, trooper, write_scene
from tests.scan_files import write_game_scan
from tests.serving import serving

BASES = [trooper("base-1", 300, 300, side="unknown", proposed=True),
         trooper("base-2", 900, 300, side="unknown", proposed=True, facing=270),
         trooper("blue-1", 300, 900), trooper("red-1", 900, 900, side="red", facing=270)]
"""A photo map's scene: two bases proposed (side `unknown`, as `lofkit photo` writes them) and two troopers placed."""


def photo_map(folder):
    """A folder as `lofkit photo` leaves it: scene.yaml with proposed bases (the picture is not needed to open it)."""
    folder.mkdir(exist_ok=True)
    write_scene(folder, scene_data(BASES, [{"id": "wall", "box": {"size": [200, 20, 80]}, "position": [600, 600, 0]}]))
    return folder


@pytest.fixture
def client(tmp_path):
    scene = load_scene(photo_map(tmp_path / "map") / "scene.yaml")
    return TestClient(app(Session(scene), tmp_path), raise_server_exceptions=False)


def _proposed(document: dict) -> dict[str, bool]:
    return {t["id"]: t["proposed"] for t in document["scene"]["troopers"]}


def _notices(document: dict) -> list[str]:
    return [w["where"] for w in document["warnings"] if w["where"].endswith(".proposed")]


def test_the_scene_carries_proposals_and_their_notices_as_validate_words_them(client, tmp_path, run_cli):
    document = client.get("/api/scene").json()
    assert _proposed(document) == {"base-1": True, "base-2": True, "blue-1": False, "red-1": False}
    assert _notices(document) == ["troopers[0].proposed", "troopers[1].proposed"]
    validated = run_cli("validate", tmp_path / "map" / "scene.yaml", "--json")
    assert document["warnings"] == json.loads(validated.stdout)["warnings"]
    assert all(set(w) == {"where", "message"} for w in document["warnings"])


def test_proposals_rule_as_placed(client, tmp_path, run_cli):
    for shooter, target in (("blue-1", "base-1"), ("base-2", "red-1"), ("base-1", "base-2")):
        answer = client.get("/api/check", params={"shooter": shooter, "target": target})
        result = run_cli("check", tmp_path / "map" / "scene.yaml", shooter, target, "--json")
        assert answer.status_code == 200 and answer.json() == json.loads(result.stdout)
    pairs = {(p["shooter"], p["target"]) for p in client.get("/api/matrix").json()["pairs"]}
    assert ("base-1", "red-1") in pairs and ("red-1", "base-2") in pairs


def test_confirm_then_delete_then_undo(client):
    confirmed = client.put("/api/troopers/base-1", json={"proposed": False}, headers={"If-Match": "0"})
    assert confirmed.status_code == 200 and confirmed.json()["proposed"] is False
    document = client.get("/api/scene").json()
    assert document["version"] == 1 and _notices(document) == ["troopers[1].proposed"]
    edited = client.put("/api/troopers/base-2", json={"side": "red", "silhouette": 3, "facing": 180})
    assert edited.status_code == 200 and edited.json()["proposed"] is True  # an edit alone confirms nothing
    assert client.delete("/api/troopers/base-2", headers={"If-Match": "2"}).json() == {"version": 3}
    document = client.get("/api/scene").json()
    assert _notices(document) == [] and "base-2" not in _proposed(document)
    assert client.post("/api/undo").json() == {"version": 4}
    assert _notices(client.get("/api/scene").json()) == ["troopers[1].proposed"]
    refused = client.put("/api/troopers/base-1", json={"proposed": "maybe"})
    assert refused.status_code == 422 and refused.json()["problems"][0]["where"] == "troopers[0].proposed"


def test_two_players_answering_the_same_proposal_one_wins_the_other_is_told(tmp_path):
    """Both answer the version they saw: exactly one change is kept, the other answers 409 and changes nothing;
    without a version, a confirm after a delete answers 404 (the trooper is gone), never a crash."""
    session = Session(load_scene(photo_map(tmp_path / "map") / "scene.yaml"))
    players = [TestClient(app(session, tmp_path), raise_server_exceptions=False) for _ in range(2)]
    start, answers = threading.Barrier(2), [None, None]

    def answer(k: int) -> None:
        start.wait()
        if k == 0:
            answers[k] = players[k].put("/api/troopers/base-1", json={"proposed": False}, headers={"If-Match": "0"})
        else:
            answers[k] = players[k].delete("/api/troopers/base-1", headers={"If-Match": "0"})

    threads = [threading.Thread(target=answer, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(a.status_code for a in answers) == [200, 409]
    lost = next(a for a in answers if a.status_code == 409).json()
    assert set(lost) == {"error", "problems"} and "version 0" in lost["error"]
    document = players[0].get("/api/scene").json()
    assert document["version"] == 1
    kept = _proposed(document).get("base-1")
    assert kept is (False if answers[0].status_code == 200 else None)

    players[1].delete("/api/troopers/base-2")
    late = players[0].put("/api/troopers/base-2", json={"proposed": False})
    assert late.status_code == 404 and "base-2" in late.json()["error"]


def test_the_top_view_marks_proposals():
    world = World.from_scene(load_scene_data(BASES))
    svg = top_view(world, Marks(selected=["base-1"]))
    for trooper_id in ("base-1", "base-2"):
        assert f'data-trooper="{trooper_id}"' in svg and f'data-proposed-mark="{trooper_id}"' in svg
    proposed = [part for part in svg.split("<") if 'data-proposed="true"' in part]
    assert len(proposed) == 2 and all("stroke-dasharray" in part for part in proposed)
    assert 'id="trooper-blue-1"' in svg and svg.count('data-proposed="true"') == 2
    assert notice_text(2).startswith("2 troopers proposed") and "rule as placed" in notice_text(2)


def load_scene_data(troopers):
    from lofkit.scene.loading import scene_from_data

    return scene_from_data(scene_data(troopers))


# --- lofkit serve: a photo map, a scan ----------------------------------------------------------------------------


def test_a_photo_map_opens_with_its_proposals(tmp_path):
    scene, folder = open_scene(str(photo_map(tmp_path / "map")), None)
    assert [t.id for t in scene.troopers if t.proposed] == ["base-1", "base-2"]
    assert folder == (tmp_path / "map").resolve()


@pytest.fixture(scope="module")
def game_scan(tmp_path_factory):
    return write_game_scan(tmp_path_factory.mktemp("game") / "game.glb")


def test_a_scan_is_imported_beside_itself_then_reopened(tmp_path, run_cli, capsys):
    scan = write_game_scan(tmp_path / "game.glb")
    scene, folder = open_scene(str(scan), None)
    assert folder == (tmp_path / "game-lofkit").resolve() == scan_folder(scan).resolve()
    assert scene.source.resolve() == folder / "scene.yaml" and scene.table.width == pytest.approx(48 * 25.4)
    said = capsys.readouterr().err
    assert "took the standard 48x48in table" in said and "`lofkit import-scan --table`" in said
    assert "imported into" in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game-lofkit", "game.glb"]  # no scratch folder left
    data = yaml.safe_load((folder / "scene.yaml").read_text())
    data["troopers"] = [trooper("mine", 600, 600, side="unknown", proposed=True)]
    write_scene(folder, data)
    again, _ = open_scene(str(scan), None)  # the earlier import (edited since) is opened, not imported again
    assert [t.id for t in again.troopers] == ["mine"] and again.troopers[0].proposed
    assert "earlier import" in capsys.readouterr().err
    later = (folder / "scene.yaml").stat().st_mtime + 10
    os.utime(scan, (later, later))  # the scan made again since: said, and still not imported over the user's edits
    open_scene(str(scan), None)
    assert "the scan changed after" in capsys.readouterr().err
    assert [t.id for t in load_scene(folder / "scene.yaml").troopers] == ["mine"]


def test_serve_refuses_a_scan_it_cannot_import_and_touches_nothing(tmp_path, run_cli):
    broken = tmp_path / "broken.glb"
    broken.write_bytes(b"not a glb at all")
    flat = tmp_path / "flat.ply"
    trimesh.creation.box(extents=(1000, 800, 0.01)).export(str(flat))
    for scan in (broken, flat, tmp_path / "missing.obj"):
        result = run_cli("serve", scan, "--no-browser")
        assert result.exit_code == 2 and "Traceback" not in result.stderr and str(scan.name) in result.stderr, \
            result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.glb", "flat.ply"]  # no folder, no scratch

    taken = tmp_path / "taken-lofkit"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    (tmp_path / "taken.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    result = run_cli("serve", tmp_path / "taken.obj", "--no-browser")
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert "holds other files (notes.txt)" in result.stderr and "lofkit import-scan" in result.stderr
    assert [p.name for p in taken.iterdir()] == ["notes.txt"]


def test_mesh_cache_is_refused_for_a_scan(game_scan):
    with pytest.raises(LofkitError, match="is a scan"):
        open_scene(str(game_scan), "cache")


@pytest.mark.slow
def test_serve_a_scan_as_a_user_does(tmp_path):
    """`lofkit serve game.glb`: the import's notes on stderr, its folder made beside the scan, the scene served (with
    whatever troopers the importer proposed, each with its notice); a second start opens that import again."""
    scan = write_game_scan(tmp_path / "game.glb")
    with serving(scan, cwd=tmp_path) as server:
        document = json.loads(server.request("GET", "/api/scene").data)
        _, _, said = server.stop()
    assert "took the standard 48x48in table" in said and "Traceback" not in said
    assert (tmp_path / "game-lofkit" / "scene.yaml").is_file()
    assert document["scene"]["table"]["width"] == pytest.approx(48 * 25.4)
    proposed = [t["id"] for t in document["scene"]["troopers"] if t["proposed"]]
    assert len(_notices(document)) == len(proposed)
    with serving(scan, cwd=tmp_path) as server:
        assert server.request("GET", "/api/scene").status == 200
        _, _, said = server.stop()
    assert "earlier import" in said and "took the standard" not in said


@pytest.mark.slow
def test_serve_a_photo_map_says_its_proposals(tmp_path):
    with serving(photo_map(tmp_path / "map"), cwd=tmp_path) as server:
        document = json.loads(server.request("GET", "/api/scene").data)
        _, _, said = server.stop()
    assert _notices(document) == ["troopers[0].proposed", "troopers[1].proposed"]
    assert "troopers[0].proposed: 'base-1' was found in a scan or photo" in said


class _Recorder:
    """A stand-in for `ui.scene`: every object drawn, by the name it is given, with the calls that made it."""

    def __init__(self, drawn=None, calls=None):
        self.drawn = {} if drawn is None else drawn
        self.calls = [] if calls is None else calls

    def __enter__(self):
        return self

    def __exit__(self, *_):
        return False

    def delete_objects(self, _):
        pass

    def __getattr__(self, name):
        def call(*args):
            if name == "with_name":
                self.drawn[args[0]] = self.calls
                return self
            return _Recorder(self.drawn, [*self.calls, (name, args)])
        return call


def test_the_3d_view_shows_proposals_see_through_with_a_question_mark():
    from lofkit.workbench.view3d import PROPOSED_OPACITY, draw_troopers

    view = _Recorder()
    draw_troopers(view, World.from_scene(load_scene_data(BASES)), Marks())
    opacity = {name.rpartition(":")[2]: next(args[1] for call, args in calls if call == "material")
               for name, calls in view.drawn.items() if name.startswith("lofkit:trooper:")}
    assert opacity == {"base-1": PROPOSED_OPACITY, "base-2": PROPOSED_OPACITY, "blue-1": 1.0, "red-1": 1.0}
    assert {name for name in view.drawn if name.startswith("lofkit:proposed:")} == \
        {"lofkit:proposed:base-1", "lofkit:proposed:base-2"}


@pytest.mark.slow
def test_the_page_marks_proposals_and_answers_them_with_one_tap(tmp_path):
    """Chromium on a served photo map: the notice, the dashed bases with "?", a tap on one shows Confirm, Delete and
    the quick editors; an edit keeps it proposed, Confirm confirms, "Next proposal" then Delete removes the other,
    and Undo brings it back, each seen by the API."""
    from playwright.sync_api import sync_playwright

    with serving(photo_map(tmp_path / "map"), cwd=tmp_path) as server, sync_playwright() as p:
        base = f"http://127.0.0.1:{server.port}"

        def trooper_now(trooper_id):
            scene = json.loads(server.request("GET", "/api/scene").data)["scene"]
            return next((t for t in scene["troopers"] if t["id"] == trooper_id), None)

        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
        page.goto(base)
        page.wait_for_selector('[data-trooper="base-1"][data-proposed="true"]')
        assert page.query_selector('[data-proposed-mark="base-2"]') is not None
        assert page.query_selector('[data-trooper="blue-1"]').get_attribute("data-proposed") is None
        notice = page.locator('[data-notice="proposals"]')
        assert notice.is_visible() and notice.text_content().startswith("2 troopers proposed")

        tap(page, "base-1", touch=True)
        page.wait_for_selector('[data-proposal="base-1"] [data-action="confirm-proposal"]', state="visible")
        page.click('[data-field="proposal-facing"] button:has-text("↓")')
        page.wait_for_function("document.querySelector('[data-version]').textContent === 'version 1'")
        assert trooper_now("base-1")["facing"] == 270 and trooper_now("base-1")["proposed"] is True
        page.click('[data-field="proposal-side"] button:has-text("red")')
        page.wait_for_function("document.querySelector('[data-version]').textContent === 'version 2'")
        assert trooper_now("base-1")["side"] == "red"

        page.click('[data-action="confirm-proposal"]')
        page.wait_for_function("document.querySelector('[data-version]').textContent === 'version 3'")
        assert trooper_now("base-1")["proposed"] is False
        page.wait_for_function("!document.querySelector('[data-trooper=\"base-1\"]').hasAttribute('data-proposed')")
        page.wait_for_function("document.querySelector('[data-notice=\"proposals\"]').textContent.startsWith('1 ')")
        assert not page.locator('[data-action="confirm-proposal"]').is_visible()

        page.click('[data-action="next-proposal"]')
        page.wait_for_selector('[data-proposal="base-2"] [data-action="delete-proposal"]', state="visible")
        page.click('[data-action="delete-proposal"]')
        page.wait_for_function("document.querySelector('[data-version]').textContent === 'version 4'")
        assert trooper_now("base-2") is None
        page.wait_for_selector('[data-notice="proposals"]', state="hidden")

        page.click('[data-action="undo"]')
        page.wait_for_selector('[data-trooper="base-2"][data-proposed="true"]')
        assert trooper_now("base-2")["proposed"] is True
        page.wait_for_selector('[data-notice="proposals"]', state="visible")
        browser.close()
