"""`lofkit serve` as a user starts it, in a process of its own, for the tests that talk to a real server (its API,
its page in Chromium, a load of players): `serving` starts it on a free port and waits for its READY line, and
stops it with Ctrl-C at the end; `Running` asks it requests and stops it."""

from __future__ import annotations

import http.client
import json
import os
import select
import signal
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers import REPO, free_port

TABLE_B = REPO / "examples" / "tables" / "table-b.yaml"
READY_TIMEOUT = 120.0
"""Seconds a server may take to print its READY line (an import and new meshes' proof parts included)."""
STOP_TIMEOUT = 10.0
"""Seconds a server may take to stop after Ctrl-C."""
PORT_TRIES = 3
"""Ports a server is started on before giving up, when another process takes each before it (`free_port`)."""


@dataclass
class Running:
    """A `lofkit serve` process, its port and the one line it printed when ready."""

    process: subprocess.Popen
    port: int
    line: str

    def request(self, method: str, path: str, body: dict | None = None, headers: dict | None = None
                ) -> http.client.HTTPResponse:
        """The answer to a request on 127.0.0.1 (read: its body is in `.data`)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = dict(headers or {})
        if body is not None:
            headers["Content-Type"] = "application/json"
        connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        answer = connection.getresponse()
        answer.data = answer.read() if answer.status != 101 else b""
        connection.close()
        return answer

    def stop(self) -> tuple[int, str, str]:
        """Ctrl-C: (exit status, the rest of stdout, stderr)."""
        self.process.send_signal(signal.SIGINT)
        try:
            out, err = self.process.communicate(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, err = self.process.communicate()
            pytest.fail(f"lofkit serve did not stop within {STOP_TIMEOUT} s of Ctrl-C: {err}")
        return self.process.returncode, out, err


def ready_line(process: subprocess.Popen, port: int) -> str | None:
    """The first line on the server's stdout, failing with its stderr if it ends or stays silent first; None when
    it found `port` taken by another process (then start it on another)."""
    ready, _, _ = select.select([process.stdout], [], [], READY_TIMEOUT)
    line = process.stdout.readline() if ready else ""
    if not line:
        process.kill()
        err = process.communicate()[1]
        if f"cannot listen on 127.0.0.1:{port}" in err:
            return None
        pytest.fail(f"lofkit serve printed no READY line: {err}")
    return line.rstrip("\n")


@contextmanager
def serving(*args, cwd: Path = REPO):
    """`lofkit serve ARGS --port <free> --no-browser`, until its READY line; stopped by Ctrl-C at the end."""
    env = {key: value for key, value in os.environ.items() if key != "PYTEST_CURRENT_TEST"}  # NiceGUI's test mode
    env["VTK_DEFAULT_OPENGL_WINDOW"] = "vtkEGLRenderWindow"
    running = None
    try:
        for _ in range(PORT_TRIES):
            port = free_port()
            process = subprocess.Popen([sys.executable, "-m", "lofkit", "serve", *map(str, args), "--port",
                                        str(port), "--no-browser"], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)
            running = Running(process, port, "")
            line = ready_line(process, port)
            if line is not None:
                break
        else:
            pytest.fail(f"lofkit serve found each of {PORT_TRIES} free ports taken before it could listen")
        running.line = line
        yield running
    finally:
        if running is not None and running.process.poll() is None:
            running.stop()
