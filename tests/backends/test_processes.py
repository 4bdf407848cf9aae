"""A server's process group: its memory is every member's, and stopping it stops every member (the leader and
the workers it started), as ``ratio bench scale`` and the server tests rely on."""

from __future__ import annotations

import subprocess
import sys

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
