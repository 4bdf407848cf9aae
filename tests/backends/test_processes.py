"""A server's process group: its memory is every member's, and stopping it stops every member (the leader and
the workers it started), as ``ratio bench scale`` and the server tests rely on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from backends.processes import group_memory, stop_group
from tests.waiting import wait_for

# Each member restores Python's SIGINT handler: a runner started in the background without job control passes
# SIGINT down ignored, and then only stop_group's SIGKILL after its timeout stopped them (30 s of a CI run),
# while what is tested here is that the SIGINT reaches every member of the group.
_ON_SIGINT = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
# a leader that starts one worker and waits, as ``ratio serve`` starts its citation workers
LEADER = (_ON_SIGINT + "import subprocess, sys, time\n"
          f"subprocess.Popen([sys.executable, '-c', {_ON_SIGINT + 'import time; time.sleep(120)'!r}])\n"
          "time.sleep(120)\n")


def test_a_group_is_measured_whole_and_stopped_whole() -> None:
    leader = subprocess.Popen([sys.executable, "-c", LEADER], start_new_session=True)
    try:
        memory = wait_for(lambda: (m := group_memory(leader.pid)).processes == 2 and m, 30,
                          "the leader and its worker in the group")
        assert memory.leader_rss_kb > 1_000 and memory.leader_hwm_kb >= memory.leader_rss_kb
        assert memory.group_rss_kb > memory.leader_rss_kb  # the worker's memory counts too
    finally:
        stop_group(leader, timeout=30)
    assert leader.returncode is not None
    wait_for(lambda: group_memory(leader.pid).processes == 0, 30, "the worker to have stopped with its leader")


# a leader that starts a worker deaf to SIGINT and returns at once on SIGINT, leaving it behind
ORPHANING = (_ON_SIGINT + "import subprocess, sys, time\n"
             "subprocess.Popen([sys.executable, '-c', 'import signal, time; "
             "signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(120)'])\n"
             "time.sleep(120)\n")


def test_a_worker_deaf_to_sigint_does_not_outlive_its_leader() -> None:
    leader = subprocess.Popen([sys.executable, "-c", ORPHANING], start_new_session=True)
    try:
        wait_for(lambda: group_memory(leader.pid).processes == 2, 30, "the leader and its worker in the group")
    finally:
        stop_group(leader, timeout=30)
    assert leader.returncode is not None  # the leader went on SIGINT, well before the timeout's SIGKILL
    wait_for(lambda: group_memory(leader.pid).processes == 0, 30, "the deaf worker to have been killed")


def test_a_group_of_nobody_has_no_memory() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    gone.wait(30)
    assert group_memory(gone.pid).processes == 0
    stop_group(gone)  # a group that has gone already: nothing to stop, no error


# a parent that starts a pool of two workers, waits until each is blocked in a task, prints their ids and waits
# to be killed
POOL_PARENT = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from backends.processes import exit_with_parent

def task(folder):
    open(os.path.join(folder, str(os.getpid())), "w").close()  # started: the initializer ran before
    time.sleep(120)

if __name__ == "__main__":
    pool = ProcessPoolExecutor(2, mp_context=get_context("spawn"), initializer=exit_with_parent,
                               initargs=(os.getpid(),))
    futures = [pool.submit(task, sys.argv[1]) for n in range(3)]
    while len(os.listdir(sys.argv[1])) < 2:  # both workers inside a task, blocked there
        time.sleep(0.05)
    print(" ".join(sorted(os.listdir(sys.argv[1]))), flush=True)
    time.sleep(120)
"""


def test_pool_workers_end_when_their_parent_is_killed(tmp_path) -> None:
    """A SIGKILLed parent (a scheduler's kill, an OOM) runs no cleanup: its workers must end on their own."""
    script = tmp_path / "pool_parent.py"
    script.write_text(POOL_PARENT)
    root = str(Path(__file__).resolve().parents[2])
    started = tmp_path / "started"
    started.mkdir()
    parent = subprocess.Popen([sys.executable, str(script), str(started)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": root}, start_new_session=True)
    try:
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(workers) == 2 and all("sleeping" in _state(pid) or "running" in _state(pid) for pid in workers)
        parent.kill()
        parent.wait(30)
        wait_for(lambda: not any(Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid) for pid in workers),
                 30, "the orphaned workers to have ended")
    finally:
        stop_group(parent, timeout=5)


def _state(pid: int) -> str:
    try:
        return next((line for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                     if line.startswith("State:")), "").lower()
    except OSError:
        return "gone zombie"
