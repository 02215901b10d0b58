"""The workbench's HTTP API: every endpoint answers as the CLI's `--json` does on the same scene, and every refusal
answers `{"error", "problems"}` with its status and leaves the scene and its version unchanged: bodies too large
(413) or not JSON (415) are refused before they are read, and an unexpected error answers 500 without a
traceback."""

import asyncio
import json

import pytest
from fastapi.testclient import TestClient

from lofkit import load_scene
from lofkit.workbench.api import app
from lofkit.workbench.guard import MAX_BODY, RequestLimits
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
    ("post", "/api/terrain", {"catalog": "castle", "position": [600, 600]}, {}, 422),
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


def test_a_catalogue_piece_is_placed_by_name(tmp_path):
    from lofkit.scene.catalog import bundled_catalogs, load_catalogs

    catalog = load_catalogs(bundled_catalogs())
    client = TestClient(app(Session(load_scene(RULEBOOK), catalog), tmp_path), raise_server_exceptions=False)
    added = client.post("/api/terrain", json={"catalog": "container", "position": [300, 300], "rotation": 90})
    assert added.status_code == 201, added.text
    assert added.json()["id"] == "container-1" and added.json()["mesh"] == str(catalog["container"].mesh)
    assert client.post("/api/terrain", json={"catalog": "container", "position": [900, 300]}).json()["id"] == \
        "container-2"
    refused = client.post("/api/terrain", json={"catalog": "castle", "position": [600, 300]}).json()
    assert refused["problems"][0]["where"] == "terrain.catalog" and "container" in refused["problems"][0]["message"]


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


def _unchanged(client, answer, status: int, before: dict) -> None:
    assert answer.status_code == status, answer.text
    assert set(answer.json()) == {"error", "problems"} and "Traceback" not in answer.text
    assert client.get("/api/scene").json() == before


def test_a_body_over_the_limit_answers_413_before_it_is_read(client):
    before = client.get("/api/scene").json()
    move = json.dumps({"position": [640, 700], "marker": "x" * MAX_BODY}).encode()
    headers = {"Content-Type": "application/json"}
    _unchanged(client, client.put("/api/troopers/iguana", content=move, headers=headers), 413, before)

    def streamed():  # no Content-Length: counted while it is read
        for start in range(0, len(move), 64 * 1024):
            yield move[start:start + 64 * 1024]

    _unchanged(client, client.put("/api/troopers/iguana", content=streamed(), headers=headers), 413, before)


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_change_that_is_not_json_answers_415(client, content_type):
    before = client.get("/api/scene").json()
    headers = {"Content-Type": content_type} if content_type else {}
    answer = client.put("/api/troopers/iguana", content=b'{"position": [640, 700]}', headers=headers)
    _unchanged(client, answer, 415, before)
    assert "application/json" in answer.json()["error"]


def test_limits_are_counted_over_every_chunk_and_the_application_never_sees_a_refused_body():
    seen = []

    async def application(scope, receive, send):
        seen.append(await receive())
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def run(chunks: list[bytes]) -> int:
        messages = [{"type": "http.request", "body": chunk, "more_body": k < len(chunks) - 1}
                    for k, chunk in enumerate(chunks)]
        sent = []

        async def receive():
            return messages.pop(0)

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": "PUT", "path": "/api/troopers/a", "query_string": b"",
                 "headers": [(b"content-type", b"application/json")]}
        await RequestLimits(application, max_body=10)(scope, receive, send)
        return sent[0]["status"]

    assert asyncio.run(run([b"1234", b"5678", b"9"])) == 204 and seen[-1]["body"] == b"1234"
    assert asyncio.run(run([b"1234", b"5678", b"9ab"])) == 413 and len(seen) == 1


def test_an_unexpected_error_answers_500_without_a_traceback(tmp_path, monkeypatch, capsys):
    session = Session(load_scene(RULEBOOK))
    monkeypatch.setattr(session, "matrix", lambda **_: 1 / 0)
    answer = TestClient(app(session, tmp_path)).get("/api/matrix")  # would raise, had it reached the server
    assert answer.status_code == 500
    assert answer.json() == {"error": "the workbench could not answer: ZeroDivisionError", "problems": []}
    printed = capsys.readouterr().err
    assert "internal error in lofkit answering GET /api/matrix: ZeroDivisionError" in printed
    assert "Traceback" not in printed
