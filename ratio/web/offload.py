"""CPU-heavy work off the event loop, with a deadline: one request must not stall the server.

Two tools, for two kinds of work:

* :func:`with_deadline` runs a blocking call in the thread pool and gives up waiting after ``timeout``
  seconds (:class:`DeadlineExceededError`, a 503 with ``Retry-After``). Enough for work that releases the
  GIL or runs in short steps: OpenSearch calls, the encoder (torch), the LLM (llama.cpp). A thread cannot be
  stopped, so the call runs under an OpenSearch deadline (:mod:`backends.opensearch.deadline`): past it the
  node cancels the call's searches and its next request fails at once, so abandoned work ends at the deadline
  instead of running on.
* :class:`CitationExtractor` runs citation extraction, pure-Python regular expressions over up to 1 MB of
  text, in a small pool of long-lived worker processes (:class:`ratio.web.pool.WorkerPool`) that the app starts
  with the server and stops with it. A regular expression holds the GIL for a whole match, so a thread would
  still stall every other request; a worker process does not, and one that passes its deadline is killed and
  replaced (a thread cannot be). Checks beyond the pool and its queue are refused at once
  (:class:`PoolBusyError`, a 503 ``busy`` with ``Retry-After``).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

from backends.opensearch.deadline import opensearch_deadline
from legal.citations import Citation, CitationRules, extract_citations
from ratio.web.pool import DeadlineExceededError, PoolBusyError, WorkerPool

__all__ = ["CitationExtractor", "DeadlineExceededError", "Gate", "PoolBusyError", "with_deadline"]

T = TypeVar("T")
CITATION_WORKERS = 2  # worker processes for citation checks (ratio serve --citation-workers)
QUEUE_PER_WORKER = 4  # checks that may wait for a busy worker, per worker; more are refused (503 busy)
DOCUMENT_SEARCHES = 2  # large document searches at once per server process (ratio.web.api_document)
DOCUMENT_QUEUE = 4  # and those that may wait for one to end; more are refused (503 busy)
_WARMUP = "Section 302 IPC and Art. 21; (2017) 10 SCC 1; AIR 1973 SC 1461; Kesavananda Bharati v. State of Kerala"


def _within(at: float, label: str, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    with opensearch_deadline(at - time.monotonic(), label):
        return func(*args, **kwargs)


async def with_deadline(timeout: float, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``func(*args, **kwargs)`` in the thread pool; :class:`DeadlineExceededError` after ``timeout`` s. Its
    OpenSearch requests carry the same deadline (searches cancelled by the node when it passes, later requests
    refused), and an ``X-Opaque-Id`` of ``ratio-…`` that the node's tasks API shows."""
    label = f"ratio-{uuid.uuid4().hex[:12]}"
    try:
        at = time.monotonic() + timeout  # the wait for a thread counts too
        return await asyncio.wait_for(run_in_threadpool(_within, at, label, func, *args, **kwargs), timeout)
    except TimeoutError:  # asyncio's, or the OpenSearch deadline's (a TimeoutError too) when it came first
        raise DeadlineExceededError(f"the request took longer than the server's {timeout:g} s limit: "
                                    "narrow it (a shorter text or query) or try again later") from None


class CitationExtractor:
    """``extract_citations`` in a pool of ``processes`` worker processes, each check bounded by ``timeout``
    seconds (the wait for a free worker included); ``QUEUE_PER_WORKER`` checks per worker may wait, more get
    :class:`PoolBusyError` at once.

    Callable like the function (``search.graph.citecheck.check_citations`` takes it as ``extract``). :meth:`lifespan`
    is the app's: it starts the workers (the citation rules compiled once in each) and stops them.
    """

    def __init__(self, timeout: float, processes: int = CITATION_WORKERS) -> None:
        self.timeout = timeout
        self.pool = WorkerPool(processes, QUEUE_PER_WORKER * processes, preload=["legal.citations"],
                               warmup=(extract_citations, (_WARMUP,)))

    @asynccontextmanager
    async def lifespan(self, app: Any) -> AsyncIterator[None]:
        await run_in_threadpool(self.pool.start)
        try:
            yield
        finally:
            await run_in_threadpool(self.pool.close)

    def __call__(self, text: str, rules: CitationRules | None = None,
                 kinds: Iterable[str] | None = None) -> list[Citation]:
        wanted = set(kinds) if kinds is not None else None
        try:
            found: list[Citation] = self.pool.run(self.timeout, extract_citations, text, rules, wanted)
        except DeadlineExceededError as exc:
            raise DeadlineExceededError(f"finding the citations went past the server's {self.timeout:g} s limit "
                                        f"({exc}): check a shorter text, or run 'ratio cite' locally") from None
        except RuntimeError as exc:
            if isinstance(exc, PoolBusyError):
                raise
            raise RuntimeError(f"the citation extractor failed: {exc}") from None
        return found


class Gate:
    """At most ``running`` pieces of heavy work at once (each in its thread), ``waiting`` more waiting for a
    place, the rest refused at once (:class:`PoolBusyError`): the bound on large document searches, whose
    pure-Python reading of a 1 MB brief would otherwise crowd every other request off the CPU."""

    def __init__(self, running: int = DOCUMENT_SEARCHES, waiting: int = DOCUMENT_QUEUE) -> None:
        self.running, self.waiting = running, waiting
        self._places: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the semaphore's (an app may be served by several)
        self._admitted = 0

    @asynccontextmanager
    async def admit(self, timeout: float) -> AsyncIterator[None]:
        """A place within ``timeout`` seconds (:class:`DeadlineExceededError` after), or PoolBusyError now."""
        if self._admitted >= self.running + self.waiting:
            raise PoolBusyError(f"the server is reading {self._admitted} large documents already, the most it takes "
                                "at once: try again in a few seconds")
        self._admitted += 1
        if self._loop is not asyncio.get_running_loop():
            self._loop, self._places = asyncio.get_running_loop(), asyncio.Semaphore(self.running)
        places = self._places
        assert places is not None
        try:
            try:
                await asyncio.wait_for(places.acquire(), timeout)
            except TimeoutError:
                raise DeadlineExceededError(f"no place to read the document came free within the server's "
                                            f"{timeout:g} s limit: try again in a few seconds") from None
            try:
                yield
            finally:
                places.release()
        finally:
            self._admitted -= 1
