"""The workbench's session: a table edited live. Its answers are the CLI's `--json` on the same scene; a refused
change leaves the scene and its version as they were; undo and redo step through changes; a saved scene finds its
meshes wherever it is saved."""

import functools
import json
import shutil
import threading
import time
from pathlib import Path

import pytest
import yaml

from lofkit import World, load_scene
from lofkit.rules.aro import aro
from lofkit.rules.lof import check
from lofkit.scene.loading import relocated
from lofkit.workbench.journal import Journal
from lofkit.workbench.session import Refused, Session
from tests.helpers import REPO, scene_data, trooper, write_scene

RULEBOOK = REPO / "examples" / "rulebook_lof.yaml"


@pytest.fixture
def session():
    return Session(load_scene(RULEBOOK))


def _saved(session, folder, run_cli, *args):
    """The CLI's `--json` answer on the session's scene, saved to a file."""
    path = session.save(folder, "now.yaml", force=True)
    result = run_cli(*args[:1], path, *args[1:], "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_move_answers_as_the_cli_does_on_the_moved_scene(session, tmp_path, run_cli):
    assert session.document()["version"] == 0
    trooper = session.change_trooper("iguana", {"position": [640.0, 700.0], "facing": 200.0})
    assert trooper["position"] == [640.0, 700.0] and trooper["facing"] == 200.0
    assert session.version == 1 and session.document()["scene"]["units"] == "mm"
    assert session.check("fusilier", "iguana") == _saved(session, tmp_path, run_cli, "check", "fusilier", "iguana")
    assert session.matrix() == _saved(session, tmp_path, run_cli, "matrix")
    assert session.aro("iguana") == _saved(session, tmp_path, run_cli, "aro", "iguana")


def test_the_live_matrix_follows_moves_undo_and_redo(session):
    before = session.matrix()
    session.change_trooper("grenzer", {"position": [420.0, 480.0]})
    session.change_trooper("fusilier", {"facing_towards": "grenzer"})
    assert session.matrix() == session.matrix(recompute_all=True) != before
    session.undo()
    session.undo()
    assert session.matrix() == before and session.version == 4
    session.redo()
    assert session.matrix() == session.matrix(recompute_all=True)
    with pytest.raises(Refused) as refused:
        session.redo(), session.redo()
    assert refused.value.status == 409


@pytest.mark.parametrize(("call", "status", "where"), [
    (lambda s: s.change_trooper("iguana", {"position": [5000.0, 10.0]}), 422, "troopers[3].position"),
    (lambda s: s.change_trooper("iguana", {"colour": "red"}), 422, None),
    (lambda s: s.change_trooper("nobody", {"facing": 10.0}), 404, None),
    (lambda s: s.change_trooper("iguana", {"facing_towards": "nobody"}), 422, "troopers[3].facing_towards"),
    (lambda s: s.change_trooper("iguana", {"silhouette": 12}), 422, "troopers[3].silhouette"),
    (lambda s: s.change_trooper("iguana", {"facing": 10.0}, if_match=7), 409, None),
    (lambda s: s.add_trooper({"id": "iguana", "side": "nomads", "silhouette": 2, "position": [100, 100]}), 422,
     "troopers[9].id"),
    (lambda s: s.add_terrain({"id": "crate", "box": {"size": [-1, 10, 10]}}), 422, "terrain[1].box.size[0]"),
    (lambda s: s.remove_terrain("nothing"), 404, None),
    (lambda s: s.undo(), 409, None),
    (lambda s: s.check("fusilier", "nobody"), 404, None),
])
def test_a_refused_request_changes_nothing(session, call, status, where):
    document = session.document()
    with pytest.raises(Refused) as refused:
        call(session)
    assert refused.value.status == status
    if where is not None:
        assert where in [p["where"] for p in refused.value.to_dict()["problems"]], refused.value.to_dict()
    assert session.document() == document


def test_terrain_added_and_removed_blocks_and_unblocks(session):
    first = session.check("fusilier", "iguana")
    assert first["lof"]
    session.add_terrain({"id": "wall", "wall": {"from": [500, 400], "to": [700, 400], "thickness": 20,
                                                  "height": 200}})
    assert not session.check("fusilier", "iguana")["sight"]
    assert session.matrix() == session.matrix(recompute_all=True)
    session.remove_terrain("wall")
    assert session.check("fusilier", "iguana") == first and session.version == 2


def test_saves_stay_in_their_folder_and_never_overwrite_unasked(session, tmp_path):
    path = session.save(tmp_path, "mine.yaml")
    assert load_scene(path).troopers == session.scene.troopers
    for name, status in (("mine.yaml", 409), ("../out.yaml", 400), ("sub/x.yaml", 400), ("", 400)):
        with pytest.raises(Refused) as refused:
            session.save(tmp_path, name)
        assert refused.value.status == status, name
        if status == 409:  # the API's own name for replacing a file
            assert "force" in str(refused.value) and "overwrite" not in str(refused.value)
    assert session.save(tmp_path, "mine.yaml", force=True) == path


def test_a_scene_saved_in_another_folder_still_finds_its_meshes(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(REPO / "terrain_models" / "crate_stack.stl", home / "crate.stl")
    scene = write_scene(home, scene_data([trooper("a", 100, 100)], [{"id": "crate", "mesh": "crate.stl",
                                                                     "position": [300, 300]}]))
    session = Session(load_scene(scene))
    beside = session.save(home, "beside.yaml")
    elsewhere = session.save(tmp_path, "elsewhere.yaml")
    assert yaml.safe_load(beside.read_text())["terrain"][0]["mesh"] == "crate.stl"  # as the opened scene wrote it
    assert yaml.safe_load(elsewhere.read_text())["terrain"][0]["mesh"] == str((home / "crate.stl").resolve())
    for path in (beside, elsewhere):
        assert [p.id for p in World.from_scene(load_scene(path)).pieces] == ["crate"]


def test_a_relocated_scene_is_read_as_if_from_its_new_source(tmp_path):
    scene = load_scene(REPO / "examples" / "tables" / "table-b.yaml")
    moved = relocated(scene, tmp_path / "map.json")
    assert moved.source == tmp_path / "map.json" and moved.troopers == scene.troopers
    meshes = [piece.mesh for piece in moved.terrain if piece.mesh is not None]
    assert meshes and all(Path(mesh).is_absolute() and Path(mesh).is_file() for mesh in meshes)


# --- several players at once: each engine that is not thread-safe has one owner ------------------------------------

class Overlap:
    """Wraps a function to note how many threads are inside it at once (each call lingers, so that calls that
    may overlap do) and on which threads it ran."""

    def __init__(self, function, linger: float = 0.05):
        self.function, self.linger = function, linger
        self.inside = self.most = 0
        self.threads: set[int] = set()
        self.lock = threading.Lock()

    def __get__(self, instance, owner):  # set on a class, it wraps a method
        return self if instance is None else functools.partial(self, instance)

    def __call__(self, *args, **kwargs):
        with self.lock:
            self.inside += 1
            self.most = max(self.most, self.inside)
            self.threads.add(threading.get_ident())
        try:
            time.sleep(self.linger)
            return self.function(*args, **kwargs)
        finally:
            with self.lock:
                self.inside -= 1


def at_once(*calls) -> list:
    """Run the calls on threads of their own, released together; their results in order."""
    start, results = threading.Barrier(len(calls)), [None] * len(calls)

    def run(k: int) -> None:
        start.wait()
        results[k] = calls[k]()

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def test_two_moves_at_once_are_ordered_and_neither_is_lost(session, monkeypatch):
    """Each change reads the scene, changes it and keeps it: two players moving two troopers at once must both see
    their move kept, and the version count both."""
    monkeypatch.setattr(World, "with_scene", Overlap(World.with_scene))
    at_once(lambda: session.change_trooper("iguana", {"facing": 10.0}),
            lambda: session.change_trooper("fusilier", {"facing": 20.0}))
    troopers = {t["id"]: t for t in session.document()["scene"]["troopers"]}
    assert (troopers["iguana"]["facing"], troopers["fusilier"]["facing"], session.version) == (10.0, 20.0, 2)


def test_pictures_are_drawn_one_at_a_time_on_one_thread(session, monkeypatch):
    """VTK and its OpenGL context are not thread-safe: every picture is drawn by the session's one render thread."""
    import lofkit.viz.render

    drawn = []
    drawing = Overlap(lambda world, **options: drawn.append(options["size"]) or b"png")
    monkeypatch.setattr(lofkit.viz.render, "render_png", drawing)
    assert at_once(*[functools.partial(session.picture, "top", size=(100 + k, 100)) for k in range(4)]) == [b"png"] * 4
    assert drawing.most == 1 and len(drawing.threads) == 1 and threading.get_ident() not in drawing.threads
    assert sorted(drawn) == [(100 + k, 100) for k in range(4)]
    assert session.picture("top", size=(102, 100)) == b"png" and len(drawn) == 4  # the same picture: kept


def test_a_picture_of_a_ruling_draws_the_verdict_the_session_keeps(session, monkeypatch):
    """The page asks for the verdict, then for the eye picture of it: the verdict is worked out once."""
    import lofkit.viz.render
    import lofkit.workbench.session as module

    asked, drawn = [], []
    monkeypatch.setattr(module, "check", lambda *args: asked.append(args[1:]) or check(*args))
    monkeypatch.setattr(lofkit.viz.render, "render_png", lambda world, **options: drawn.append(options) or b"png")
    answer = session.check("fusilier", "iguana")
    assert session.picture("eye", "fusilier", "iguana") == b"png" and asked == [("fusilier", "iguana")]
    assert drawn[0]["overlay"].verdict.to_dict() == answer


def test_the_live_matrix_is_brought_up_to_date_by_one_thread_at_a_time(session, monkeypatch):
    from lofkit.rules.live import LiveMatrix

    session.matrix()
    session.change_trooper("iguana", {"facing": 10.0})
    updating = Overlap(LiveMatrix.update)
    monkeypatch.setattr(LiveMatrix, "update", updating)
    answers = at_once(*[session.matrix] * 3)
    assert updating.most == 1 and answers[0] == answers[1] == answers[2] == session.matrix(recompute_all=True)


def test_waiting_for_the_matrix_holds_no_thread_and_verdicts_come_meanwhile(session, monkeypatch):
    """The page asks for the rings' matrix each time a trooper is tapped alone; while the matrix is worked out, those
    waits hold none of the threads that answer verdicts (a player tapping eight troopers waited for the matrix before
    seeing the eighth verdict), and every wait gets the same matrix once it is done."""
    from lofkit.rules.live import LiveMatrix

    started, gate = threading.Event(), threading.Event()
    first = LiveMatrix.__init__

    def held(self, world) -> None:
        started.set()
        gate.wait(60)
        first(self, world)

    monkeypatch.setattr(LiveMatrix, "__init__", held)
    waits = [session.live_matrix() for _ in range(12)]
    assert started.wait(60) and not any(wait.done() for wait in waits)
    assert session.check("fusilier", "iguana") == check(World.from_scene(load_scene(RULEBOOK)), "fusilier",
                                                        "iguana").to_dict()
    gate.set()
    assert all(wait.result(60) == session.matrix(recompute_all=True) for wait in waits)


def test_the_matrix_and_the_pictures_yield_the_cpu_to_verdicts(session):
    """Their threads run at a lower priority than the threads that answer verdicts (Linux niceness)."""
    import os

    from lofkit.workbench.background import BACKGROUND_NICENESS

    def niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    mine = niceness()
    assert session._ringer.submit(niceness).result() == session._renderer.submit(niceness).result()
    assert session._renderer.submit(niceness).result() == min(mine + BACKGROUND_NICENESS, 19)


def test_the_same_question_of_the_same_scene_is_answered_once(session, monkeypatch):
    """Several players (or the page, then the API) asking the same check or the same AROs of one scene are answered
    from the first answer, also after an undo back to it; a change to the scene, or another path, is asked anew."""
    import lofkit.workbench.session as module

    asked = []
    for name in ("aro", "check"):
        monkeypatch.setattr(module, name, functools.partial(lambda real, name, *args: asked.append(name) or
                                                            real(*args), getattr(module, name), name))
    first = session.aro("iguana")
    first["reactions"] = "changed by its reader"
    assert at_once(*[lambda: session.aro("iguana")] * 2) == [session.aro("iguana")] * 2 != [first] * 2
    assert session.aro("iguana", [(600.0, 600.0)]) == session.aro("iguana", [[600, 600]])
    assert session.check("fusilier", "iguana") == session.check("fusilier", "iguana")
    assert asked == ["aro", "aro", "check"]
    session.change_trooper("iguana", {"facing": 10.0})
    session.aro("iguana")
    assert asked == ["aro", "aro", "check", "aro"]
    session.undo()  # back to the table of the first answers
    assert session.aro("iguana") == session.aro("iguana", None) and session.check("fusilier", "iguana")
    assert asked == ["aro", "aro", "check", "aro"]


def test_the_same_question_asked_at_once_is_worked_out_once_and_a_failed_one_again(session, monkeypatch):
    """Two players (or the page and the API) asking the same AROs at the same moment: the second waits for the
    first's answer. A question that fails (an unknown trooper) is not kept: asked again, it is worked out again."""
    import lofkit.workbench.session as module

    asked = []
    working = Overlap(lambda *args: asked.append(args[1]) or aro(*args), linger=0.3)
    monkeypatch.setattr(module, "aro", working)
    first, second = at_once(lambda: session.aro("iguana"), lambda: session.aro("iguana"))
    assert first == second and asked == ["iguana"] and working.most == 1
    for _ in range(2):
        with pytest.raises(Refused):
            session.aro("nobody")
    assert asked == ["iguana", "nobody", "nobody"]


def test_every_accepted_change_is_journaled_and_a_save_removes_the_journal(tmp_path):
    scene = load_scene(write_scene(tmp_path, scene_data([trooper("a", 100, 100), trooper("b", 300, 300)])))
    journal = Journal(tmp_path / ".scene.yaml.lofkit-session")
    session = Session(scene, journal=journal)
    assert journal.read() is None  # opening changes nothing
    session.change_trooper("a", {"facing": 33.0})
    with pytest.raises(Refused):
        session.change_trooper("a", {"position": [-100.0, 0.0]})
    entry = journal.read()
    assert entry.version == 1 and entry.scene == session.document()["scene"]
    session.undo()
    assert journal.read().version == 2 and journal.read().scene["troopers"][0].get("facing") == 90
    session.save(tmp_path, "scene.yaml", force=True)
    assert journal.read() is None and not list(tmp_path.glob("*.tmp"))


def test_a_journal_that_cannot_be_written_is_said_once_and_changes_go_on(tmp_path, capsys):
    scene = load_scene(write_scene(tmp_path, scene_data([trooper("a", 100, 100)])))
    session = Session(scene, journal=Journal(tmp_path / "no-such-folder" / ".scene.yaml.lofkit-session"))
    session.change_trooper("a", {"facing": 10.0})
    session.change_trooper("a", {"facing": 20.0})
    assert session.version == 2 and session.journal is None
    assert capsys.readouterr().err.count("cannot write the journal") == 1


def test_a_stop_does_not_wait_for_the_call_the_background_is_in():
    """A workbench stopped while its matrix or a picture is being worked out exits at once: what is queued is
    dropped, the call running (here one that never ends) is let go with the process, and whoever waits for either
    is told `Stopping` at once."""
    import subprocess
    import sys

    program = """
import threading
from lofkit.workbench.background import BackgroundWorker, Stopping
worker = BackgroundWorker("test")
started = threading.Event()
running = worker.submit(lambda: (started.set(), threading.Event().wait()))
queued = worker.submit(print, "never")
started.wait(30)
worker.shutdown()
for future in (running, queued):
    assert isinstance(future.exception(timeout=0), Stopping)
"""
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "never" not in done.stdout, done.stderr
