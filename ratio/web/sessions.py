"""Browser sessions and the failed-key backoff, held server-side in one SQLite file that every worker shares.

* **Sessions.** Signing in at ``/login`` makes a random token (``secrets.token_urlsafe(32)``, 256 bits); the
  browser keeps the token in its cookie and the store keeps only its SHA-256 with an expiry (``lifetime``
  seconds from sign-in, 12 hours by default; not extended by use). ``/logout`` deletes the row, so the old
  cookie opens nothing any more. Nothing in the cookie is derived from the key.
* **Backoff.** Each wrong key (the sign-in form, or an ``X-API-Key`` / bearer header) counts against the
  client's address. The first ``free`` failures cost nothing; from then on the f-th failure locks the
  address for ``2 ** (f - free + 1)`` seconds, at most ``max_wait`` (2, 4, 8, ... 900 s with the defaults).
  While locked, every attempt with a key is refused with 429 and ``Retry-After`` without comparing the key,
  and it does not count (so a client that waits gets in). A right key clears the count; failures are
  forgotten ``forget`` seconds after the last one.

**Why a file, and why SQLite.** ``ratio serve --workers N`` runs N processes, and the kernel hands each
connection to any of them: a session made by one worker must open pages on the others, a logout seen by one
must end the session on all, and a client must not get N times the attempts by landing on N workers. A table
in each process's memory gets all three wrong; a signed token needs a shared revocation list anyway. SQLite
(the standard library) gives one table that all workers on the machine read and write, with its own locking
(WAL journal, a 5 s busy timeout); the reads are a primary-key lookup per request with a cookie. ``ratio
serve`` makes the file in a fresh private folder (mode 0700) for each start and removes it at exit, so a
restart signs everyone out, and a key changed with the restart leaves no old session valid. With ``path``
None (an app built by hand without a file, the tests' ``TestClient``) the table lives in this process's
memory: right for one process; under several workers without a file, a session would open only the worker
that made it. Servers on several machines behind one balancer would need a shared store; Ratio has none.
"""

from __future__ import annotations

import hashlib
import math
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_LIFETIME = 12 * 3600.0
FREE_FAILURES = 3
MAX_WAIT = 900.0
FORGET = 3600.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (digest TEXT PRIMARY KEY, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS failures (client TEXT PRIMARY KEY, count INTEGER NOT NULL, last REAL NOT NULL,
                                     locked_until REAL NOT NULL);
"""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@dataclass(frozen=True)
class Locked:
    """A client refused for now: ``retry_after`` whole seconds to wait, after ``failures`` wrong keys."""

    retry_after: int
    failures: int


WAL_WAIT = 10.0  # seconds a worker waits for another to finish switching the shared file to WAL


def _write_ahead(db: sqlite3.Connection, wait: float = WAL_WAIT) -> None:
    """Put the shared file in WAL mode (the workers read and write it at once). Switching needs the file to
    itself, and SQLite answers "database is locked" at once, without its busy timeout, when another worker is
    switching it at the same moment (two workers of ``ratio serve --workers 2`` start together): then the mode is
    read back, and the switch tried again until it holds or ``wait`` seconds pass. The mode is kept in the file,
    so only a fresh file's first workers ever meet."""
    deadline = time.monotonic() + wait
    delay = 0.01
    while True:
        try:
            if str(db.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower() == "wal":
                return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) and "busy" not in str(error):
                raise
        if time.monotonic() >= deadline:
            raise sqlite3.OperationalError(f"the session file stayed locked for {wait:.0f} s: another process "
                                           "holds it")
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


class SessionStore:
    """Sessions and failed-key counts (see the module docstring). ``path``: the SQLite file the workers share
    (None: this process's memory); ``lifetime``: seconds a session lasts; ``free``, ``max_wait``, ``forget``:
    the backoff's free failures, longest wait and memory, in seconds."""

    def __init__(self, path: str | Path | None = None, *, lifetime: float = DEFAULT_LIFETIME,
                 free: int = FREE_FAILURES, max_wait: float = MAX_WAIT, forget: float = FORGET) -> None:
        self.path = str(path) if path else None
        self.lifetime, self.free, self.max_wait, self.forget = lifetime, free, max_wait, forget
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path or ":memory:", timeout=5.0, isolation_level=None,
                                   check_same_thread=False)
        with self._lock:
            if self.path:
                _write_ahead(self._db)
            self._db.executescript(_SCHEMA)

    def _run(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # ------------------------------------------------------------------ sessions

    def open(self) -> str:
        """A new session: its token (for the cookie; only its digest is kept)."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        self._run("DELETE FROM sessions WHERE expires <= ?", (now,))
        self._run("INSERT INTO sessions (digest, expires) VALUES (?, ?)", (_digest(token), now + self.lifetime))
        return token

    def valid(self, token: str) -> bool:
        """Whether ``token`` is a session that has not expired or been closed."""
        if not token:
            return False
        rows = self._run("SELECT expires FROM sessions WHERE digest = ?", (_digest(token),))
        return bool(rows) and rows[0][0] > time.time()

    def close(self, token: str) -> None:
        """End the session ``token`` (``/logout``): its cookie opens nothing from now on, in every worker."""
        if token:
            self._run("DELETE FROM sessions WHERE digest = ?", (_digest(token),))

    # ------------------------------------------------------------------ backoff

    def locked(self, client: str) -> Locked | None:
        """Whether ``client`` must wait before its next key is looked at, and how long."""
        rows = self._run("SELECT count, locked_until FROM failures WHERE client = ?", (client,))
        if not rows:
            return None
        count, until = rows[0]
        wait = until - time.time()
        return Locked(max(1, math.ceil(wait)), count) if wait > 0 else None

    def failed(self, client: str) -> Locked | None:
        """Count a wrong key from ``client``; the lock it now earns, if any."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")  # read and write the count as one step across workers
            try:
                self._db.execute("DELETE FROM failures WHERE last <= ?", (now - self.forget,))
                row = self._db.execute("SELECT count FROM failures WHERE client = ?", (client,)).fetchone()
                count = (row[0] if row else 0) + 1
                wait = min(2.0 ** (count - self.free + 1), self.max_wait) if count >= self.free else 0.0
                self._db.execute("INSERT OR REPLACE INTO failures (client, count, last, locked_until) "
                                 "VALUES (?, ?, ?, ?)", (client, count, now, now + wait))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return Locked(max(1, math.ceil(wait)), count) if wait else None

    def succeeded(self, client: str) -> None:
        """A right key from ``client``: its count starts again."""
        if self._run("SELECT 1 FROM failures WHERE client = ?", (client,)):  # no write on every request
            self._run("DELETE FROM failures WHERE client = ?", (client,))
