"""Shared pieces of the answer tests (API and browser): the web app over the sample corpus with the small LLM,
and a real uvicorn server for it.

The LLM is the packaged 0.5B model behind the answer cache (a file in the session's temporary folder), so a
question asked by one test and again by the next (the JSON route, then the stream, then the page) is generated
once per session: generations are the slowest part of the suite.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

GROUNDED_QUESTION = "What must be shown for possession of a fire-arm under the Arms Act?"
UNANSWERABLE = "What is the goods and services tax rate on cryptocurrency mining rigs?"
QUICK = {"rounds": 1}  # one round: the fewest generations (and what the page's tests ask, so they hit the cache)


def answering_app(url: str, aliases: dict[str, str], encoder, llm, cache: Path, **options):
    """The app on the session's sample indices with ``llm`` (answers cached in ``cache``)."""
    from backends.llm import CachedLLM
    from ratio.client import Client
    from ratio.web import create_app

    prefix = aliases["judgments"].removesuffix("-judgments")
    client = Client(url, prefix=prefix, encoder=encoder, llm=CachedLLM(llm, cache))
    return create_app(client, **options)


@contextmanager
def serve(app) -> Iterator[str]:
    """``app`` served by uvicorn on a free loopback port; yields its base URL."""
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start the answer test server within 30 s")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
