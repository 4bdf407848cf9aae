"""Waiting in tests: on a condition the product exposes, never on a fixed sleep.

:func:`wait_for` polls a condition until it holds or a deadline passes, and then fails saying what it waited
for; :func:`serve` starts an ASGI app under uvicorn on a free loopback port and waits until the server says
it has started; :func:`stop_group` (from :mod:`backends.processes`, where ``ratio bench scale`` takes it too)
stops a server's process group. Every poll in the tests goes through :func:`wait_for`, so none can wait forever
or time out without saying on what.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from backends.processes import stop_group

__all__ = ["WaitTimeout", "serve", "stop_group", "wait_for"]

T = TypeVar("T")


class WaitTimeout(AssertionError):
    """A condition did not hold within its deadline (an assertion: the test fails, with what it waited for)."""


def wait_for(condition: Callable[[], T], timeout: float, what: str, interval: float = 0.05) -> T:
    """Call ``condition`` until it returns something truthy, and return that; fail after ``timeout`` seconds
    with ``what`` (what was awaited). ``interval`` is the pause between two checks, not a wait of its own: an
    exception raised by the condition (say, a server that has exited) ends the wait at once."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(min(interval, max(deadline - time.monotonic(), 0)))


@contextmanager
def serve(app: Any, timeout: float = 30.0) -> Iterator[str]:
    """``app`` served by uvicorn on a free loopback port, once it has started; yields its base URL."""
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    from ratio.web.factory import MAX_REQUEST_HEAD_BYTES

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           h11_max_incomplete_event_size=MAX_REQUEST_HEAD_BYTES))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()

    def started() -> bool:
        assert thread.is_alive() or server.started, f"uvicorn exited before serving on port {port}"
        return server.started

    try:
        wait_for(started, timeout, f"uvicorn to start serving on port {port}")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
