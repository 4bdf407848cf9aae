"""Processes Ratio starts as a group of its own (a server and its workers): stopping the group, reading its memory.

A ``ratio serve`` started with ``start_new_session=True`` leads a process group that holds its uvicorn workers
and its citation-check workers; stopping only the leader would leave those behind, and its leader's memory alone
would leave theirs out. One home for both, so the tests that start servers and ``ratio bench scale`` stop and
measure them alike.

Pool workers (the ranker's cross-validation fits) watch their parent instead: a worker blocked on its pool's
queue never sees the queue close when the parent is killed (the workers hold its pipe's ends too), so
:func:`exit_with_parent`, the pools' initializer, ends each worker once its parent has gone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GroupMemory", "exit_with_parent", "group_memory", "stop_group"]

_PROC = Path("/proc")


def exit_with_parent(parent: int, every: float = 1.0) -> None:
    """End this process (at once, exit status 1) when ``parent`` is no longer its parent: a pool's initializer
    (``initializer=exit_with_parent, initargs=(os.getpid(),)``), so a killed ``ratio train ranker --cv`` leaves no
    worker behind holding a gigabyte and a core. A daemon thread polls the parent id every ``every`` seconds."""
    def watch() -> None:
        while os.getppid() == parent:
            threading.Event().wait(every)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def stop_group(process: subprocess.Popen, timeout: float = 60.0) -> None:
    """Stop a server started with ``start_new_session=True`` and all its workers: SIGINT to the whole group (a
    graceful shutdown, so its log ends cleanly), SIGKILL if it has not exited within ``timeout`` seconds. A member
    still there once the leader has gone (one that ignores SIGINT, or one the leader never waited for) is killed
    too, so no worker outlives its server."""
    with contextlib.suppress(ProcessLookupError):  # the group may have gone already (a server that failed)
        os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)
    # the group id stays the leader's while any member lives, so this reaches only members left behind
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


@dataclass(frozen=True)
class GroupMemory:
    """Resident memory of a process group, in kB (``/proc/PID/status``): the leader's current (VmRSS) and peak
    (VmHWM) and the sum of every member's current, with how many members there were."""

    leader_rss_kb: int
    leader_hwm_kb: int
    group_rss_kb: int
    processes: int


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of ``pid`` in kB (empty when it has gone or is a zombie, which has no memory)."""
    try:
        lines = (_PROC / str(pid) / "status").read_text().splitlines()
    except (FileNotFoundError, ProcessLookupError):
        return {}
    found = {}
    for line in lines:
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            found[key] = int(value.split()[0])
    return found


def _group_of(pid: int) -> int | None:
    """The process group of ``pid`` (``/proc/PID/stat``'s fifth field; the name in parentheses may hold spaces)."""
    try:
        stat = (_PROC / str(pid) / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return int(stat.rsplit(")", 1)[1].split()[2])


def group_memory(leader: int) -> GroupMemory:
    """The memory of the process group ``leader`` leads (Linux: read from ``/proc``)."""
    members = [int(p.name) for p in _PROC.iterdir() if p.name.isdigit() and _group_of(int(p.name)) == leader]
    statuses = {pid: _status(pid) for pid in members}
    own = statuses.get(leader, {})
    return GroupMemory(own.get("VmRSS", 0), own.get("VmHWM", 0),
                       sum(s.get("VmRSS", 0) for s in statuses.values()), sum(1 for s in statuses.values() if s))
