"""The workbench's HTTP API: every endpoint answers as the CLI's `--json` does on the same scene, and every refusal
answers `{"error", "problems"}` with its status and leaves the scene and its version unchanged."""

import json

import pytest
from fastapi.testclient import TestClient

from lofkit import load_scene
from lofkit.workbench.api import app
from lofkit.workbench.session import Session
from tests.helpers import REPO

RULEBOOK = REPO / "examples" / "rulebook_lof.yaml"


@pytest.fixture
def client(tmp_path):
    return TestClient(app(Session(load_scene(RULEBOOK)), tmp_path), raise_server_exceptions=False)


def _cli(run_cli, *args):
    result = run_cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_questions_answer_as_the_cli(client, run_cli):
    assert client.get("/api/scene").json()["version"] == 0
    assert client.get("/api/check", params={"shooter": "fusilier", "target": "iguana"}).json() == \
        _cli(run_cli, "check", RULEBOOK, "fusilier", "iguana")
    assert client.get("/api/matrix").json() == _cli(run_cli, "matrix", RULEBOOK)
    assert client.get("/api/matrix", params={"recompute": "all"}).json() == _cli(run_cli, "matrix", RULEBOOK)
    assert client.get("/api/aro", params={"trooper": "iguana", "path": "600,650;600,500"}).json() == \
        _cli(run_cli, "aro", RULEBOOK, "iguana", "--path", "600,650;600,500")


def test_changes_undo_redo_and_save(client, tmp_path, run_cli):
    moved = client.put("/api/troopers/iguana", json={"position": [640, 700]}, headers={"If-Match": "0"})
    assert moved.status_code == 200 and moved.json()["position"] == [640.0, 700.0]
    added = client.post("/api/troopers", json={"id": "scout", "side": "nomads", "silhouette": 2,
                                               "position": [300, 900]})
    assert added.status_code == 201
    assert client.post("/api/terrain", json={"id": "crate", "box": {"size": [60, 60, 40]},
                                             "position": [900, 900]}).status_code == 201
    assert client.put("/api/terrain/crate", json={"position": [950, 900, 0]}).json()["position"] == [950, 900, 0]
    assert client.delete("/api/troopers/scout").json() == {"version": 5}
    saved = client.post("/api/save", json={"path": "now.yaml"}).json()["path"]
    assert client.get("/api/matrix").json() == _cli(run_cli, "matrix", saved)
    assert client.post("/api/undo").json() == {"version": 6}
    assert [t["id"] for t in client.get("/api/scene").json()["scene"]["troopers"]][-1] == "scout"
    assert client.post("/api/redo").json() == {"version": 7}
    assert client.delete("/api/terrain/crate").status_code == 200


@pytest.mark.parametrize(("method", "path", "body", "headers", "status"), [
    ("put", "/api/troopers/iguana", {"position": [5000, 10]}, {}, 422),
    ("put", "/api/troopers/iguana", {"position": [600, 600]}, {"If-Match": "3"}, 409),
    ("put", "/api/troopers/iguana", {"position": [600, 600]}, {"If-Match": "soon"}, 400),
    ("put", "/api/troopers/nobody", {"facing": 10}, {}, 404),
    ("put", "/api/troopers/iguana", [1, 2], {}, 400),
    ("post", "/api/troopers", {"id": "x"}, {}, 422),
    ("delete", "/api/terrain/nothing", None, {}, 404),
    ("post", "/api/undo", None, {}, 409),
    ("post", "/api/save", {"path": "../escape.yaml"}, {}, 400),
    ("post", "/api/save", {"path": 3}, {}, 400),
    ("get", "/api/check?shooter=fusilier&target=nobody", None, {}, 404),
    ("get", "/api/check?shooter=fusilier", None, {}, 400),
    ("get", "/api/matrix?recompute=some", None, {}, 400),
    ("get", "/api/aro?trooper=iguana&path=1,2;x", None, {}, 400),
    ("post", "/api/report?shooter=fusilier&target=nobody", None, {}, 404),
    ("get", "/api/picture.png?view=side", None, {}, 400),
])
def test_a_refused_request_answers_why_and_changes_nothing(client, method, path, body, headers, status):
    before = client.get("/api/scene").json()
    answer = client.request(method, path, json=body, headers=headers)
    assert answer.status_code == status, answer.text
    assert set(answer.json()) == {"error", "problems"} and "Traceback" not in answer.text
    assert client.get("/api/scene").json() == before


def test_a_position_off_the_table_names_the_field_as_validate_does(client):
    problems = client.put("/api/troopers/iguana", json={"position": [5000, 10]}).json()["problems"]
    assert [p["where"] for p in problems] == ["troopers[3].position"]


@pytest.mark.slow
def test_pictures_and_ruling_pages(client):
    from io import BytesIO

    from PIL import Image

    top = client.get("/api/picture.png", params={"view": "top"})
    assert top.status_code == 200 and top.headers["content-type"] == "image/png"
    assert Image.open(BytesIO(top.content)).size == (1200, 900)
    eye = client.get("/api/picture.png", params={"view": "eye", "shooter": "fusilier", "target": "iguana"})
    assert eye.status_code == 200 and eye.content != top.content
    for params, status in (({"view": "side"}, 400), ({"view": "eye", "shooter": "fusilier"}, 400),
                           ({"view": "eye", "shooter": "fusilier", "target": "nobody"}, 404)):
        assert client.get("/api/picture.png", params=params).status_code == status
    url = client.post("/api/report", params={"shooter": "fusilier", "target": "iguana"}).json()["url"]
    page = client.get(url)
    assert page.status_code == 200 and "fusilier has LoF to iguana" in page.text
    verdict = client.get(url.replace("index.html", "verdict.json")).json()
    assert verdict == client.get("/api/check", params={"shooter": "fusilier", "target": "iguana"}).json()
