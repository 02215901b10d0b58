"""The tests' shared helpers, all in this one place: scenes from plain dicts (troopers, enemies, walls), scene files,
example scripts, and army lists for the game tests.

Two kinds of trooper: `trooper` (and `enemy`) is a trooper standing on a table, a scene's entry; `army_trooper` is a
trooper of an army list (its unit, option and combat group), which stands nowhere."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
from pathlib import Path

import yaml

from lofkit import World, scene_from_data
from lofkit.game.army import ArmyList, army_from_data

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_SCENES = sorted(p for p in (REPO / "examples").rglob("*.yaml") if p.parent.name != "armies")
"""Every example scene file (examples/armies holds army lists, not scenes)."""


def trooper(trooper_id: str, x: float, y: float, **fields) -> dict:
    """A blue S2 trooper facing +y unless told otherwise."""
    return {"id": trooper_id, "side": "blue", "silhouette": 2, "position": [x, y], "facing": 90, **fields}


def enemy(trooper_id: str, x: float, y: float, **fields) -> dict:
    """A red S2 trooper facing -y unless told otherwise."""
    return trooper(trooper_id, x, y, **{"side": "red", "facing": 270, **fields})


def wall(x0: float, y0: float, x1: float, y1: float, height: float, thickness: float = 10,
         wall_id: str = "wall") -> dict:
    """A wall piece from (x0, y0) to (x1, y1)."""
    return {"id": wall_id, "wall": {"from": [x0, y0], "to": [x1, y1], "thickness": thickness, "height": height}}


def scene_data(troopers=(), terrain=(), **fields) -> dict:
    return {"lofkit": 1, "terrain": list(terrain), "troopers": list(troopers), **fields}


def build_world(troopers=(), terrain=(), **fields) -> World:
    return World.from_scene(scene_from_data(scene_data(troopers, terrain, **fields)))


def write_scene(folder: Path, data: dict, name: str = "scene.yaml") -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def copy_of_scene(scene: Path, folder: Path) -> Path:
    """`scene` written into `folder` under its own name, its meshes named by absolute paths: a served copy saves and
    journals in `folder`, never beside the repository's example."""
    data = yaml.safe_load(scene.read_text(encoding="utf-8"))
    for piece in data.get("terrain", []):
        if "mesh" in piece:
            piece["mesh"] = str((scene.parent / piece["mesh"]).resolve())
    path = folder / scene.name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


SERVER_PORTS = range(20000, 32000)
"""Where `free_port` looks: below the ports Linux hands out for outgoing connections (32768-60999), one share of them
for each pytest-xdist worker."""


def free_port() -> int:
    """A port of 127.0.0.1 that nothing listens on now, for a `lofkit serve` to take: drawn at random from this
    worker's share of `SERVER_PORTS`, so that two pytest-xdist workers never pick the same port in the seconds before
    their servers take it (`lofkit serve` says "cannot listen on" when another process took it meanwhile: pick
    another)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    share = len(SERVER_PORTS) // workers
    mine = SERVER_PORTS[worker * share:(worker + 1) * share]
    draw = random.SystemRandom()  # not the `random` module's generator, which tests may seed
    for _ in range(1000):
        port = mine[draw.randrange(len(mine))]
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free port in {mine}")


EXAMPLE_IMPORTS = ["lofkit", "lofkit.viz.render"]
"""What the example scripts import (lofkit, pyvista and VTK: about 2 s), imported once per test process by the
server that forks their processes (`run_example`)."""
EXAMPLE_TIMEOUT = 300.0
"""Seconds an example script may run."""


def run_example(script: str, folder: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the repository's example `script` (a path relative to the repository) in `folder` as `python SCRIPT`
    runs it (as `__main__`, its folder first on `sys.path`, in a process of its own), capturing its text. The
    process is forked from a multiprocessing forkserver that has `EXAMPLE_IMPORTS` imported already."""
    import multiprocessing
    import tempfile

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(EXAMPLE_IMPORTS)
    path = REPO / script
    with tempfile.TemporaryDirectory() as scratch:
        out, err = Path(scratch) / "stdout", Path(scratch) / "stderr"
        process = context.Process(target=_run_script, args=(path, folder, {**os.environ, **(env or {})}, out, err))
        process.start()
        process.join(EXAMPLE_TIMEOUT)
        if process.is_alive():
            process.kill()
            process.join()
            raise subprocess.TimeoutExpired([sys.executable, str(path)], EXAMPLE_TIMEOUT)
        return subprocess.CompletedProcess([sys.executable, str(path)], process.exitcode, out.read_text(),
                                           err.read_text())


def _run_script(path: Path, folder: Path, env: dict, out: Path, err: Path) -> None:
    """In the forked process: what `python PATH` does, in `folder`, with stdout and stderr written to `out`, `err`."""
    import runpy
    import traceback

    os.chdir(folder)
    os.environ.clear()
    os.environ.update(env)
    for stream, target in ((sys.stdout, out), (sys.stderr, err)):
        stream.flush()
        with open(target, "wb") as file:
            os.dup2(file.fileno(), stream.fileno())
    sys.argv, sys.path[0:0] = [str(path)], [str(path.parent)]
    try:
        runpy.run_path(str(path), run_name="__main__")
        status = 0
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


# Army lists for the game tests, from plain dicts: a generic unit and a list builder.

def unit(isc: str = "Line Trooper", **fields) -> dict:
    """A Regular LI unit, S2, WIP 13, with a 10-point rifle, a 10-point Lieutenant option and a 1-SWC heavy gun."""
    return {"isc": isc, "type": "LI", "classification": "line", "training": "regular", "ava": "total",
            "mov": [4, 4], "cc": 13, "bs": 12, "ph": 10, "wip": 13, "arm": 1, "bts": 0, "w": 1, "s": 2,
            "options": [{"name": "Rifle", "cost": 10, "swc": 0}, {"name": "Lieutenant", "cost": 10, "swc": 0,
                                                                  "lieutenant": True},
                        {"name": "Heavy Gun", "cost": 20, "swc": 1}], **fields}


def army_trooper(trooper_id: str, group: int = 1, option: str = "Rifle", unit_name: str = "line", **fields) -> dict:
    """A trooper of an army list (not one on a table: see `trooper`): its unit, option and combat group."""
    return {"id": trooper_id, "unit": unit_name, "option": option, "group": group, **fields}


def army_data(troopers, units=None, points: int = 300, **fields) -> dict:
    """A list of `troopers` (dicts, see `army_trooper`) of `units` (default: {"line": unit()})."""
    return {"lofkit_army": 1, "name": "test list", "faction": {"name": "testers"}, "points": points,
            "units": units if units is not None else {"line": unit()}, "troopers": list(troopers), **fields}


def build_army(troopers, units=None, points: int = 300, **fields) -> ArmyList:
    return army_from_data(army_data(troopers, units, points, **fields))


def regulars(count: int, group: int = 1, first: int = 1, lieutenant: int | None = None) -> list[dict]:
    """`count` Regular troopers t<first>.. in `group`; the one numbered `lieutenant` takes the Lieutenant option."""
    return [army_trooper(f"t{k}", group, "Lieutenant" if k == lieutenant else "Rifle") for k in range(first, first + count)]
