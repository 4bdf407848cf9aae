"""Workers opening one fresh session file at the same moment (``ratio serve --workers 2`` starts both together).

Switching a SQLite file to WAL needs it alone, and SQLite answers "database is locked" at once, without its busy
timeout, to a second process switching it in the same instant: one CI run lost a worker that way. Every worker
must come up, and the file must end in WAL mode.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

from ratio.web.sessions import SessionStore

WORKERS = 8


def _open(path: str, start: multiprocessing.synchronize.Barrier, results: multiprocessing.Queue) -> None:
    start.wait()
    try:
        store = SessionStore(path)
        results.put(("ok", store.valid(store.open())))
    except Exception as error:  # reported to the test, which names it
        results.put(("error", repr(error)))


def test_workers_opening_a_fresh_session_file_together_all_start(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    outcomes = []
    for attempt in range(5):  # a fresh file each time: only a fresh file's first openers race
        path = str(tmp_path / f"sessions-{attempt}.sqlite")
        start, results = context.Barrier(WORKERS), context.Queue()
        workers = [context.Process(target=_open, args=(path, start, results)) for _ in range(WORKERS)]
        for worker in workers:
            worker.start()
        outcomes += [results.get(timeout=60) for _ in workers]
        for worker in workers:
            worker.join(timeout=60)
        assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert outcomes == [("ok", True)] * (5 * WORKERS), [o for o in outcomes if o[0] != "ok"]
