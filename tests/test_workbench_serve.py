"""`lofkit serve` as a user starts it, in a process of its own: one READY line on stdout, Ctrl-C stops it with
status 0 and no traceback, `--share` asks every request for its token (403 without), a Tabletop Simulator save
opens as `lofkit import-tts` would import it and is saved beside the save; what it cannot open exits 2."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import nicegui
import pytest

from lofkit import World, load_scene
from lofkit.cli.serve import open_scene
from lofkit.errors import LofkitError
from tests.helpers import free_port, scene_data, trooper
from tests.serving import TABLE_B, serving
from tests.tts_files import tiny_tts_save

ASSET = f"/_nicegui/{nicegui.__version__}/static/nicegui.css"
SOCKET_IO = "/_nicegui_ws/socket.io/?EIO=4&transport=polling"
WEBSOCKET_HEADERS = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                     "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}


def test_ready_line_then_ctrl_c_stops_cleanly():
    """Exit status 0: Ctrl-C is how a user stops the workbench, and it stopped as asked (not an error, 1 or 2)."""
    with serving(TABLE_B) as server:
        assert server.line == f"lofkit workbench: http://127.0.0.1:{server.port}/"
        assert server.request("GET", "/").status == 200
        assert server.request("GET", "/api/scene").status == 200  # no token asked without --share
        status, rest, err = server.stop()
    assert status == 0, err
    assert rest == "" and "Traceback" not in err and "Aborted" not in err, err


def test_ctrl_c_does_not_wait_for_the_pictures_asked_for():
    """A page that asked for many pictures of a large table and was then stopped: the workbench stops at once (the
    pictures not drawn yet are answered 503, "stopping"), cleanly, not after drawing them all."""
    import threading
    import time

    with serving(TABLE_B) as server:
        ids = [t["id"] for t in json.loads(server.request("GET", "/api/scene").data)["scene"]["troopers"]]
        asked = [f"/api/picture.png?view=eye&shooter={a}&target={b}" for a in ids[:8] for b in ids[8:16]]
        statuses = []

        def ask(path: str) -> None:
            try:
                statuses.append(server.request("GET", path).status)
            except OSError:  # the server stopped before it answered
                statuses.append(None)

        askers = [threading.Thread(target=ask, args=(path,)) for path in asked]
        for asker in askers:
            asker.start()
        time.sleep(2.0)
        status, rest, err = server.stop()
        for asker in askers:
            asker.join(30)
    assert status == 0 and "Traceback" not in err and "internal error" not in err, err
    assert len(asked) == 64 and statuses.count(503) > len(asked) / 2, statuses


@pytest.fixture(scope="module")
def shared():
    """`lofkit serve --share` of table-b, and the token its READY line gives."""
    with serving(TABLE_B, "--share") as server:
        found = re.fullmatch(rf"lofkit workbench: http://([0-9.]+):{server.port}/\?token=([A-Za-z0-9_-]{{32}})",
                             server.line)
        assert found, server.line
        yield server, found.group(2)


@pytest.mark.parametrize("path", ["/", "/api/scene", ASSET, SOCKET_IO])
def test_share_refuses_every_request_without_the_token(shared, path):
    server, token = shared
    wrong = token[:-1] + ("y" if token.endswith("x") else "x")
    for headers in ({}, {"Cookie": f"lofkit_token={wrong}"}, {"Cookie": f"other={token}"}):
        refused = server.request("GET", path, headers=headers)
        assert refused.status == 403, (path, headers)
        document = json.loads(refused.data)
        assert set(document) == {"error", "problems"} and document["problems"] == [] and "token" in document["error"]
    assert server.request("GET", path + ("&" if "?" in path else "?") + f"token={wrong}").status == 403


@pytest.mark.parametrize("path", ["/", "/api/scene", ASSET])
def test_share_answers_the_token_and_then_its_cookie(shared, path):
    server, token = shared
    first = server.request("GET", f"{path}?token={token}")
    assert first.status == 200
    cookie = first.getheader("Set-Cookie")
    assert cookie.startswith(f"lofkit_token={token};") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    later = server.request("GET", path, headers={"Cookie": cookie.partition(";")[0]})
    assert later.status == 200 and later.getheader("Set-Cookie") is None


def test_share_asks_websockets_for_the_token(shared):
    server, token = shared
    path = "/_nicegui_ws/socket.io/?EIO=4&transport=websocket"
    assert server.request("GET", path, headers=WEBSOCKET_HEADERS).status == 403
    assert server.request("GET", path, headers={**WEBSOCKET_HEADERS, "Cookie": f"lofkit_token={token}"}).status == 101
    assert server.request("GET", SOCKET_IO, headers={"Cookie": f"lofkit_token={token}"}).status == 200


def test_a_tts_save_opens_and_is_saved_beside_it(tmp_path, run_cli):
    save, cache = tiny_tts_save(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with serving(save, "--mesh-cache", cache, cwd=elsewhere) as server:
        scene = json.loads(server.request("GET", "/api/scene").data)["scene"]
        assert {t["id"]: t["side"] for t in scene["troopers"]} == {"scout-s2": "blue", "heavy-s3": "red"}
        (piece,) = scene["terrain"]
        assert Path(piece["mesh"]).is_absolute() and Path(piece["mesh"]).is_file()
        saved = server.request("POST", "/api/save", {"path": "saved.yaml"})
        assert saved.status == 200 and json.loads(saved.data)["path"] == str((tmp_path / "saved.yaml").resolve())
        assert server.request("POST", "/api/save", {"path": "saved.yaml"}).status == 409
        assert server.request("POST", "/api/save", {"path": "../out.yaml"}).status == 400
        status, _, err = server.stop()
    assert status == 0 and "Traceback" not in err
    assert f"{save}: unresolved: Ruin" in err and f"{save}: skipped: Block" in err, err
    assert list(elsewhere.iterdir()) == [] and not (tmp_path.parent / "out.yaml").exists()
    validated = run_cli("validate", tmp_path / "saved.yaml")
    assert validated.exit_code == 0 and "valid (0 errors" in validated.stdout, validated.output
    world = World.from_scene(load_scene(tmp_path / "saved.yaml"))
    assert [p.id for p in world.pieces] == ["container"] and world.troopers.ids == ("scout-s2", "heavy-s3")


def _refused(run_cli, *args) -> str:
    """`lofkit serve ARGS` in this process, which must exit 2 with a message and no traceback: the message."""
    result = run_cli("serve", *args, "--no-browser", "--port", free_port())
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.stderr and result.stdout == "", result.output
    return result.stderr


@pytest.mark.parametrize(("name", "text", "words"), [
    ("broken.json", "{not json", "line 1, column 2: not valid JSON"),
    ("empty.json", "{}", "not a Tabletop Simulator save"),
    ("missing.json", None, "(file): file not found"),  # not known to be a save: the scene loader says it
])
def test_a_save_it_cannot_open_exits_2_naming_the_file(tmp_path, run_cli, name, text, words):
    save = tmp_path / name
    if text is not None:
        save.write_text(text, encoding="utf-8")
    message = _refused(run_cli, save)
    assert f"{save}: {words}" in message, message


def test_a_scene_written_in_json_opens_as_a_scene_not_a_save(tmp_path):
    """A `.json` file is told by what it holds (JSON is YAML, so a scene may be written in it); `--mesh-cache`
    stays for saves."""
    path = tmp_path / "table.json"
    path.write_text(json.dumps(scene_data([trooper("a", 100, 100)])), encoding="utf-8")
    scene, folder = open_scene(str(path), None)
    assert [t.id for t in scene.troopers] == ["a"] and folder == tmp_path.resolve()
    with pytest.raises(LofkitError, match="--mesh-cache is for a Tabletop Simulator save"):
        open_scene(str(path), str(tmp_path))


def test_a_json_scene_is_opened_with_a_byte_order_mark_and_a_broken_one_is_told_in_a_scenes_words(tmp_path):
    """Some Windows editors start UTF-8 files with a byte-order mark; a broken JSON scene gets the scene loader's
    message (its line), not a save's."""
    path = tmp_path / "table.json"
    path.write_text("\ufeff" + json.dumps(scene_data([trooper("a", 100, 100)])), encoding="utf-8")
    assert [t.id for t in open_scene(str(path), None)[0].troopers] == ["a"]
    with pytest.raises(LofkitError, match="is a scene, so leave --mesh-cache out"):
        open_scene(str(path), str(tmp_path))
    path.write_text('{"lofkit": 1, "troopers": [', encoding="utf-8")
    with pytest.raises(LofkitError) as caught:
        open_scene(str(path), None)
    assert "table.json" in str(caught.value) and "line 1" in str(caught.value)
    assert "Tabletop Simulator" not in str(caught.value)


def test_a_save_cut_short_is_told_in_a_saves_words(tmp_path):
    """A save whose download stopped part way is broken JSON that still names its objects: the save reader says
    where it breaks, not the scene loader."""
    save, _ = tiny_tts_save(tmp_path)
    save.write_text(save.read_text(encoding="utf-8")[:-20], encoding="utf-8")
    with pytest.raises(LofkitError) as caught:
        open_scene(str(save), None)
    assert f"{save}: line 1, column" in str(caught.value) and "Tabletop Simulator" in str(caught.value)


def test_a_json_file_that_is_neither_a_scene_nor_a_save_is_said_to_be_neither(tmp_path):
    path = tmp_path / "notes.json"
    path.write_text('{"notes": "mine"}', encoding="utf-8")
    with pytest.raises(LofkitError, match=r"notes.json: not a Tabletop Simulator save .* nor a scene"):
        open_scene(str(path), None)


def test_mesh_cache_is_a_folder_and_for_a_save_only(tmp_path, run_cli):
    save, _ = tiny_tts_save(tmp_path)
    assert f"--mesh-cache {tmp_path / 'nowhere'}: not a folder" in _refused(run_cli, save, "--mesh-cache",
                                                                             tmp_path / "nowhere")
    assert "--mesh-cache is for a Tabletop Simulator save" in _refused(run_cli, TABLE_B, "--mesh-cache", tmp_path)


def test_a_port_in_use_exits_2_before_anything_starts(run_cli):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("serve", "--no-browser", "--port", port)
    assert result.exit_code == 2 and f"cannot listen on 127.0.0.1:{port}" in result.stderr, result.output
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_a_photo_map_opens_with_its_picture_under_the_top_view(tmp_path):
    """The folder `lofkit photo` writes: its scene.yaml, whose `table.image` the page draws under everything."""
    from PIL import Image

    Image.new("RGB", (40, 30), "#7a8f5c").save(tmp_path / "table.png")
    (tmp_path / "scene.yaml").write_text("lofkit: 1\ntable: {width: 800, depth: 600, image: table.png}\n"
                                         "troopers:\n- {id: a, side: blue, silhouette: 2, position: [100, 100]}\n")
    with serving(tmp_path) as server:
        picture = server.request("GET", "/workbench/table-image")
        assert picture.status == 200 and picture.data == (tmp_path / "table.png").read_bytes()
        assert server.request("GET", "/api/scene").data and server.request("GET", "/").status == 200
    with serving(TABLE_B) as server:
        assert server.request("GET", "/workbench/table-image").status == 404  # a table without a picture
