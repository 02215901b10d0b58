"""A background worker for the workbench: one thread that runs the calls given to it in turn, at a lower priority
than verdicts, and that a clean exit does not wait for.

`concurrent.futures.ThreadPoolExecutor` joins its threads when the interpreter exits, so a workbench stopped with
Ctrl-C would first finish a matrix or a picture nobody is left to see (seconds, at a low priority on a busy
machine). This worker's thread is a daemon: stopping drops what is queued and lets the call it is in go, and
whoever waits for their answers (a request for a picture) is told at once that the workbench is stopping.
"""

from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import Executor, Future, InvalidStateError

BACKGROUND_NICENESS = 10
"""How much lower than the rest of the server the matrix's and the pictures' threads run (Linux niceness): without a
GPU, a picture of a scanned table is a core-second of software rendering (its threads are the picture thread's
children), and its matrix 15 s of both cores, which slowed the next verdict the page asked for."""


class BackgroundWorker(Executor):
    """One daemon thread, at `BACKGROUND_NICENESS`, running the calls submitted in order."""

    def __init__(self, name: str):
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        self._stopped = False
        self._running: Future | None = None
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        if self._stopped:
            raise Stopping("the workbench is stopping: no new work")
        future: Future = Future()
        self._calls.put((future, fn, args, kwargs))
        return future

    def shutdown(self, wait: bool = False, *, cancel_futures: bool = True) -> None:
        """No new calls; those queued are dropped and the one running is let go, the answer of each a `Stopping`
        error now (`wait` is not supported). Stopping again does nothing."""
        if self._stopped:
            return
        self._stopped = True
        dropped = [self._running]
        while True:
            try:
                dropped.append(self._calls.get_nowait()[0])
            except queue.Empty:
                break
        self._calls.put(None)
        for future in filter(None, dropped):
            _settle(future, Stopping("the workbench is stopping"))

    def _run(self) -> None:
        _yielding()
        while (call := self._calls.get()) is not None:
            future, fn, args, kwargs = call
            if not future.set_running_or_notify_cancel():
                continue
            self._running = future
            if self._stopped:  # taken as a stop began (`shutdown` reads `_running` after setting `_stopped`)
                _settle(future, Stopping("the workbench is stopping"))
                continue
            try:
                answer = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
                _settle(future, exc)
            else:
                _settle(future, answer=answer)


class Stopping(RuntimeError):
    """The answer of a call the worker was in when it was stopped."""


def _settle(future: Future, error: BaseException | None = None, answer=None) -> None:
    """Give `future` its answer (or `error`), unless a stop gave it one first."""
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(answer)
    except InvalidStateError:
        pass


def _yielding() -> None:
    """Lower the calling thread's priority by `BACKGROUND_NICENESS` (on Linux a thread has a niceness of its own, and
    the threads it starts take it on); where that cannot be done, leave it."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICENESS)
    except (AttributeError, OSError):
        pass
