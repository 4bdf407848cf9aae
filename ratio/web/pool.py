"""A small pool of long-lived worker processes for CPU-bound pure-Python work, with a deadline per task.

Citation extraction is regular expressions over up to 1 MB of text: a match holds the GIL, so in a thread it
would stall every other request, and a thread cannot be stopped at a deadline. A process can. The pool keeps
``processes`` workers from the server's start to its end (each has imported and warmed its work once, so a
small task costs what it reads, not a process start), lets ``queue`` more tasks wait for a free worker and
refuses the rest at once (:class:`PoolBusyError`: a 503 with ``Retry-After``), and kills a worker whose task
outlives its deadline, starting a fresh one in its place before the caller hears
:class:`DeadlineExceededError`.

Workers come from the ``forkserver`` start method: forked from a small clean process, not from the server's
threads. A child started that way would run the parent's main module again before its task (multiprocessing's
"main module preparation": for ``ratio serve`` the console script, for gunicorn or pytest theirs); the pool
starts its workers with the main module kept out (:func:`_main_module_kept_out`), so a worker imports only this
module, the modules named in ``preload`` and those its tasks need.

This module imports the standard library alone: it is what each worker imports first.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from queue import Empty, Queue
from typing import Any

__all__ = ["DeadlineExceededError", "PoolBusyError", "WorkerPool"]

Warmup = tuple[Callable[..., Any], tuple[Any, ...]]  # a function each worker calls once, and its arguments

START_TIMEOUT = 60.0  # seconds a new worker may take to import and warm up
RETRY_AFTER = 5  # seconds a refused caller is asked to wait (Retry-After)


class DeadlineExceededError(RuntimeError):
    """A request's work outlasted the server's deadline (the app answers 503 with Retry-After)."""


class PoolBusyError(RuntimeError):
    """Every worker is busy and the queue is full (the app answers 503 ``busy`` with Retry-After)."""

    retry_after = RETRY_AFTER


_STARTING = threading.Lock()  # one worker start at a time: the main module is swapped while it starts


@contextmanager
def _main_module_kept_out() -> Iterator[None]:
    """While a worker starts, ``__main__`` is an empty module: multiprocessing then has no main module to
    prepare in the child (no ``init_main_from_path``/``init_main_from_name``), so the child does not run the
    server's entry script again."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def _serve(conn: multiprocessing.connection.Connection, warmup: Warmup | None) -> None:
    """A worker's life: warm up, say ready, then answer one task at a time until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle: it closes the pool
    try:
        if warmup is not None:
            warmup[0](*warmup[1])
        conn.send(("ready", None))
        while True:
            try:
                func, args = conn.recv()
            except (EOFError, OSError):
                return
            try:
                conn.send(("ok", func(*args)))
            except Exception as exc:  # reported to the parent, which raises it there
                conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class _Worker:
    def __init__(self, context: Any, warmup: Warmup | None) -> None:
        self.conn, child = context.Pipe(duplex=True)
        self.process = context.Process(target=_serve, args=(child, warmup), daemon=True, name="ratio-pool-worker")
        with _STARTING, _main_module_kept_out():
            self.process.start()
        child.close()

    def wait_ready(self, timeout: float) -> None:
        if not self.conn.poll(timeout):
            self.stop()
            raise RuntimeError(f"a pool worker did not start within {timeout:g} s")
        try:
            status, _ = self.conn.recv()
        except (EOFError, OSError):
            status = "exited"
        if status != "ready":
            self.stop()
            raise RuntimeError(f"a pool worker failed to start (exit code {self.process.exitcode})")

    def stop(self) -> None:
        self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)


class WorkerPool:
    """``processes`` long-lived worker processes; at most ``queue`` more tasks wait for one.

    ``preload`` names modules the forkserver imports once, before it forks any worker; ``warmup`` is a
    ``(function, args)`` pair each worker calls once before it takes tasks (compiling what its tasks use). A
    task is a module-level function and its arguments (pickled to the worker: the function by name).

    :meth:`start` (the app's start-up) starts the workers and waits until each is warm; :meth:`close` (its
    shutdown) kills them. Starts and closes are counted, so an app served twice at once keeps its pool until
    both have ended; a task run on a pool never started starts it.
    """

    def __init__(self, processes: int = 2, queue: int = 8, *, preload: Sequence[str] = (),
                 warmup: Warmup | None = None) -> None:
        if processes < 1 or queue < 0:
            raise ValueError("a pool needs at least one process and a queue of zero or more")
        self.processes, self.queue = processes, queue
        self._preload, self._warmup = list(preload), warmup
        self._lock = threading.Lock()
        self._idle: Queue[_Worker | None] = Queue()
        self._workers: list[_Worker] = []
        self._admitted = 0
        self._starts = 0

    # ------------------------------------------------------------ life cycle

    def start(self) -> None:
        """Start the workers (unless running) and wait until each is warm."""
        with self._lock:
            self._starts += 1
            self._start_workers()

    def _start_workers(self) -> None:  # under self._lock
        if self._workers:
            return
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(self._preload)
        workers = [_Worker(context, self._warmup) for _ in range(self.processes)]
        try:
            for worker in workers:
                worker.wait_ready(START_TIMEOUT)
        except RuntimeError:
            for worker in workers:
                worker.stop()
            raise
        self._workers = workers
        self._idle = Queue()
        for worker in workers:
            self._idle.put(worker)

    def close(self) -> None:
        """End one start; the last kills the workers (a task running then fails)."""
        with self._lock:
            self._starts = max(self._starts - 1, 0)
            if self._starts:
                return
            workers, self._workers = self._workers, []
            idle, self._idle = self._idle, Queue()
            for _ in range(self._admitted):
                idle.put(None)  # wakes each task waiting for a worker: the pool is closed
        for worker in workers:
            worker.stop()

    @property
    def admitted(self) -> int:
        """Tasks running or waiting now."""
        with self._lock:
            return self._admitted

    def pids(self) -> list[int]:
        """The workers' process ids (for tests and measurements)."""
        with self._lock:
            return [w.process.pid for w in self._workers if w.process.pid is not None]

    # ------------------------------------------------------------ tasks

    def run(self, timeout: float, func: Callable[..., Any], *args: Any) -> Any:
        """``func(*args)`` in a worker, waiting for a free one if needed; the wait and the work together are
        bounded by ``timeout`` seconds (:class:`DeadlineExceededError`; a worker past it is replaced). More
        than ``processes + queue`` tasks at once: :class:`PoolBusyError` at once."""
        deadline = time.monotonic() + timeout
        with self._lock:
            if self._admitted >= self.processes + self.queue:
                raise PoolBusyError(f"the server is running {self._admitted} such tasks already, the most it "
                                    "takes at once: try again in a few seconds")
            self._admitted += 1
        try:
            with self._lock:
                self._start_workers()  # a pool never started (or whose workers all failed) starts here
                idle = self._idle
            return self._run(idle, deadline, timeout, func, args)
        finally:
            with self._lock:
                self._admitted -= 1

    def _run(self, idle: Queue[_Worker | None], deadline: float, timeout: float, func: Callable[..., Any],
             args: tuple[Any, ...]) -> Any:
        try:
            worker = idle.get(timeout=max(deadline - time.monotonic(), 0))
        except Empty:
            raise DeadlineExceededError(f"no worker was free within the server's {timeout:g} s limit: try again "
                                        "in a few seconds") from None
        if worker is None:
            raise RuntimeError("the pool was closed (the server is stopping)")
        outcome: tuple[str, Any] | None = None
        try:
            worker.conn.send((func, args))
            if worker.conn.poll(max(deadline - time.monotonic(), 0)):
                outcome = worker.conn.recv()
        except (EOFError, OSError):  # the worker died (killed from outside, out of memory)
            outcome = ("died", worker.process.exitcode)
        if outcome is None or outcome[0] == "died":
            self._give_back(idle, self._replace(worker))
            if outcome is None:
                raise DeadlineExceededError(f"the work took longer than the server's {timeout:g} s limit")
            raise RuntimeError(f"a pool worker ended without an answer (exit code {outcome[1]})")
        self._give_back(idle, worker)
        status, value = outcome
        if status != "ok":
            raise RuntimeError(value)
        return value

    def _give_back(self, idle: Queue[_Worker | None], worker: _Worker | None) -> None:
        if worker is None:
            return
        with self._lock:
            if idle is self._idle and worker in self._workers:
                idle.put(worker)
                return
        worker.stop()  # the pool was closed meanwhile

    def _replace(self, worker: _Worker) -> _Worker | None:
        """Kill ``worker`` and start a warm one in its place (None when the pool was closed meanwhile, or the new
        one failed to start: the pool then has one worker fewer until all are gone and it starts afresh)."""
        worker.stop()
        with self._lock:
            if worker not in self._workers:
                return None
            fresh = _Worker(multiprocessing.get_context("forkserver"), self._warmup)
            try:
                fresh.wait_ready(START_TIMEOUT)
            except RuntimeError:
                self._workers.remove(worker)
                return None
            self._workers[self._workers.index(worker)] = fresh
        return fresh
