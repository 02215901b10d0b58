"""A background worker for the workbench: one thread that runs the calls given to it in turn, at a lower priority
than verdicts, and that a clean exit does not wait for.

`concurrent.futures.ThreadPoolExecutor` joins its threads when the interpreter exits, so a workbench stopped with
Ctrl-C would first finish a matrix or a picture nobody is left to see (seconds, at a low priority on a busy
machine). This worker's thread is a daemon: stopping drops what is queued and lets the call it is in go.
"""

from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import Executor, Future

BACKGROUND_NICENESS = 10
"""How much lower than the rest of the server the matrix's and the pictures' threads run (Linux niceness): without a
GPU, a picture of a scanned table is a core-second of software rendering (its threads are the picture thread's
children), and its matrix 15 s of both cores, which slowed the next verdict the page asked for."""


class BackgroundWorker(Executor):
    """One daemon thread, at `BACKGROUND_NICENESS`, running the calls submitted in order."""

    def __init__(self, name: str):
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        self._stopped = False
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        if self._stopped:
            raise RuntimeError("the workbench is stopping: no new work")
        future: Future = Future()
        self._calls.put((future, fn, args, kwargs))
        return future

    def shutdown(self, wait: bool = False, *, cancel_futures: bool = True) -> None:
        """No new calls; those queued are cancelled; the one running is let go (`wait` is not supported)."""
        self._stopped = True
        while True:
            try:
                self._calls.get_nowait()[0].cancel()
            except queue.Empty:
                break
        self._calls.put(None)

    def _run(self) -> None:
        _yielding()
        while (call := self._calls.get()) is not None:
            future, fn, args, kwargs = call
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
                    future.set_exception(exc)


def _yielding() -> None:
    """Lower the calling thread's priority by `BACKGROUND_NICENESS` (on Linux a thread has a niceness of its own, and
    the threads it starts take it on); where that cannot be done, leave it."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICENESS)
    except (AttributeError, OSError):
        pass
