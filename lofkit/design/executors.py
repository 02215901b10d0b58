"""Where batches of work run: `concurrent.futures` executors named by a short spec.

- `processes` (the default): a process pool with one worker per core; `processes:N` for N workers; the workers are
  forked from a server process that imported the jobs' modules once (`worker_context`), not each started afresh;
- `serial`: in this process, one batch after another (debugging, tiny tables);
- `dask://HOST:PORT`: a Dask distributed cluster (`pip install 'lofkit[cluster]'`); its workers must reach the scene's
  mesh files at the same paths (a shared folder), since they receive the scene and build its World themselves.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager

from threadpoolctl import threadpool_limits

from lofkit.errors import LofkitError
from lofkit.ray import set_threads

EXECUTOR_HELP = "Where batches run: processes[:N] (default), serial, or dask://HOST:PORT"
WORKER_MODULES = ("lofkit.design.exposure", "lofkit.design.tempering")
"""What the pool's jobs run (heatmaps' batches, the layout search's chains): imported once, by the server its workers
are forked from."""
DASK_WAIT = 10
"""Seconds to wait for a Dask scheduler to answer, and for it to have a worker."""


@contextmanager
def _dask(spec: str) -> Iterator[Executor]:
    """The executor of the Dask cluster at dask://HOST:PORT (the scheduler's own tcp:// form is accepted too)."""
    address = spec.removeprefix("dask://").removeprefix("tcp://")
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise LofkitError(f"--executor {spec}: give the scheduler's address as dask://HOST:PORT, e.g. "
                          f"dask://10.0.0.5:8786")
    try:
        from distributed import Client
    except ImportError:
        raise LofkitError("--executor dask://... needs Dask: pip install 'lofkit[cluster]'") from None
    try:
        client = Client(f"tcp://{address}", timeout=f"{DASK_WAIT}s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise LofkitError(f"--executor {spec}: cannot reach the Dask scheduler at {address} ({exc})") from None
    try:
        try:
            client.wait_for_workers(1, timeout=DASK_WAIT)
        except TimeoutError:
            raise LofkitError(f"--executor {spec}: the Dask scheduler at {address} has no worker after "
                              f"{DASK_WAIT} s; start one with `dask worker tcp://{address}`") from None
        yield client.get_executor()
    finally:
        client.close()


def _one_thread_each() -> None:
    """Start of a worker process: it has a core of its own, so it casts rays and multiplies matrices (numpy's BLAS)
    in its own thread only, as threads of one worker would fight the other workers for the cores; and it leaves
    Ctrl-C to the parent (which stops asking for work and keeps what it has: a worker interrupted between tasks
    would break the pool and leave the parent waiting)."""
    set_threads(1)
    threadpool_limits(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class SerialExecutor(Executor):
    """Runs each task when it is submitted, in this process; `map` runs one task per result asked for, so progress
    shows and Ctrl-C stops at once."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # handed to the caller through the future, as any executor does
            future.set_exception(exc)
        return future

    def map(self, fn, *iterables, timeout=None, chunksize=1):
        return map(fn, *iterables)


def worker_context() -> multiprocessing.context.BaseContext:
    """How pool workers start: forked from a server process that imports `WORKER_MODULES` once and is kept for this
    process's later pools ("forkserver"), where the platform has it, else each started afresh ("spawn", an import of
    about 1.5 s each). Never forked from this process: a worker must not inherit Embree's threads."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(WORKER_MODULES))
    return context


@contextmanager
def open_executor(spec: str | None = None) -> Iterator[Executor]:
    """The executor a spec names, shut down on exit."""
    spec = (spec or "processes").strip()
    if spec == "serial":
        yield SerialExecutor()
    elif spec == "processes" or spec.startswith("processes:"):
        count = spec.partition(":")[2]
        if count and not (count.isdigit() and int(count) > 0):
            raise LofkitError(f"--executor {spec}: give a number of worker processes, e.g. processes:2")
        workers = int(count) if count else os.cpu_count() or 1
        pool = ProcessPoolExecutor(workers, mp_context=worker_context(), initializer=_one_thread_each)
        try:
            yield pool
        finally:  # after Ctrl-C, work not yet started is dropped rather than waited for
            pool.shutdown(wait=True, cancel_futures=True)
    elif spec.startswith("dask://"):
        with _dask(spec) as executor:
            yield executor
    else:
        raise LofkitError(f"--executor {spec}: unknown executor; use processes[:N], serial or dask://HOST:PORT")
