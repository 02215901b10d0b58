"""A bounded load on a real `lofkit serve`, as several players at one table make it: clients asking at once for
verdicts, moves, matrices, pictures and AROs, with stale and malformed requests among them. Only 127.0.0.1 is
addressed; every loop is bounded by its count and every request by `TIMEOUT`.

Each client moves its own troopers (so the last move it sent for one is the one the scene must end with), and
sometimes sends a move with an `If-Match` version it knows is stale (409 unless nothing changed since). Used by
tests/test_workbench_load.py and benchmarks/bench_workbench_load.py.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

TIMEOUT = 120.0
"""Seconds one request may take before it counts as unanswered."""
KINDS = ("check", "check", "check", "move", "move", "matrix", "picture", "aro", "stale", "malformed")
"""What a client asks, drawn uniformly from this list (checks most often, as at a table)."""
EXPECTED = {"check": {200}, "move": {200}, "matrix": {200}, "picture": {200}, "aro": {200},
            "stale": {200, 409}, "malformed": {400, 404, 422}}
"""The statuses a valid server gives each kind: a move (a new facing) is accepted, a stale one is 409
unless no change came between, a malformed request is refused."""


@dataclass
class Answer:
    kind: str
    status: int | str  # an HTTP status, or the error that stood for one ("ConnectionResetError", "timeout")
    seconds: float


@dataclass
class Load:
    """What a load run saw: every answer, and the moves each client had accepted, in its own order."""

    answers: list[Answer] = field(default_factory=list)
    accepted: dict[str, float] = field(default_factory=dict)
    """Trooper id -> the facing of the last move of it the server accepted (each trooper has one client)."""
    changes: int = 0
    """Accepted changes: moves, and stale moves that happened not to be stale."""

    def unexpected(self) -> Counter:
        """(kind, status) pairs a valid server never gives, counted."""
        return Counter((a.kind, a.status) for a in self.answers if a.status not in EXPECTED[a.kind])

    def percentile(self, kind: str, q: float) -> float:
        """Seconds of the answers of `kind` with a status a valid server gives (the q-th percentile)."""
        times = [a.seconds for a in self.answers if a.kind == kind and a.status in EXPECTED[kind]]
        return float(np.percentile(times, q)) if times else float("nan")


def request(port: int, method: str, path: str, body=None, headers: dict | None = None, raw: bytes | None = None
            ) -> tuple[int, bytes]:
    """One request to 127.0.0.1:`port`: (status, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    headers = dict(headers or {})
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    if data is not None:
        headers.setdefault("Content-Type", "application/json")
    try:
        connection.request(method, path, data, headers)
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


def scene(port: int) -> dict:
    """`GET /api/scene`: the scene and its version."""
    status, body = request(port, "GET", "/api/scene")
    assert status == 200, body
    return json.loads(body)


def run_load(port: int, clients: int = 8, requests: int = 30, seed: int = 0) -> Load:
    """`clients` threads, each sending `requests` requests of KINDS drawn with its own seed; returns what they saw."""
    document = scene(port)
    ids = [t["id"] for t in document["scene"]["troopers"]]
    owned = [ids[k::clients] for k in range(clients)]
    load, lock = Load(), threading.Lock()

    def client(k: int) -> None:
        rng = random.Random(seed * 1000 + k)
        for n in range(requests):
            kind = rng.choice(KINDS)
            if kind in ("move", "stale", "malformed") and not owned[k]:  # more clients than troopers: it only asks
                kind = "check"
            started = time.perf_counter()
            try:
                status, facing, mover = _ask(port, kind, rng, ids, owned[k], k, n)
            except (OSError, http.client.HTTPException) as exc:
                status, facing, mover = type(exc).__name__, None, None
            with lock:
                load.answers.append(Answer(kind, status, time.perf_counter() - started))
                if kind in ("move", "stale") and status == 200:
                    load.accepted[mover] = facing
                    load.changes += 1

    threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT * requests)
    return load


def _ask(port: int, kind: str, rng: random.Random, ids: list[str], mine: list[str], k: int, n: int):
    """Send one request of `kind`: (status, the facing a move sent, the trooper it moved)."""
    if kind == "check":
        a, b = rng.sample(ids, 2)
        return request(port, "GET", f"/api/check?shooter={a}&target={b}")[0], None, None
    if kind == "matrix":
        return request(port, "GET", "/api/matrix")[0], None, None
    if kind == "picture":
        a, b = rng.sample(ids, 2)
        view = rng.choice(["eye", "top"])
        return request(port, "GET", f"/api/picture.png?view={view}&shooter={a}&target={b}")[0], None, None
    if kind == "aro":
        return request(port, "GET", f"/api/aro?trooper={rng.choice(ids)}")[0], None, None
    mover, facing = rng.choice(mine), round(k * 40 + n + rng.random(), 6)  # every facing sent is a new one
    if kind == "move":
        return request(port, "PUT", f"/api/troopers/{mover}", {"facing": facing})[0], facing, mover
    if kind == "stale":
        version = max(0, scene(port)["version"] - 1)
        return (request(port, "PUT", f"/api/troopers/{mover}", {"facing": facing}, {"If-Match": str(version)})[0],
                facing, mover)
    return _malformed(port, rng, mover), None, None


def _malformed(port: int, rng: random.Random, mover: str) -> int:
    """A request no valid client sends: broken JSON, an unknown field, a position off the table, an unknown trooper."""
    choice = rng.randrange(4)
    if choice == 0:
        return request(port, "PUT", f"/api/troopers/{mover}", raw=b'{"facing": ')[0]
    if choice == 1:
        return request(port, "PUT", f"/api/troopers/{mover}", {"colour": "red"})[0]
    if choice == 2:
        return request(port, "PUT", f"/api/troopers/{mover}", {"position": [-500.0, 10.0]})[0]
    return request(port, "PUT", "/api/troopers/nobody-at-all", {"facing": 10.0})[0]
