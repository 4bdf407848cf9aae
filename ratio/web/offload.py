"""CPU-heavy work off the event loop, with a deadline: one request must not stall the server.

Two tools, for two kinds of work:

* :func:`with_deadline` runs a blocking call in the thread pool and gives up waiting after ``timeout``
  seconds (:class:`DeadlineExceededError`, a 503 with ``Retry-After``). Enough for work that releases the
  GIL or runs in short steps: OpenSearch calls, the encoder (torch), the LLM (llama.cpp).
* :class:`CitationExtractor` runs citation extraction, pure-Python regular expressions over up to 1 MB of
  text, in a child process. A regular expression holds the GIL for a whole match, so a thread would still
  stall every other request; a child process does not, and one that passes its deadline is killed (a thread
  cannot be). The forkserver start method forks children from a small clean process, not from the server's
  threads, with the citation rules preloaded.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.connection
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

from legal.citations import Citation, CitationRules, extract_citations

T = TypeVar("T")


class DeadlineExceededError(RuntimeError):
    """A request's work outlasted the server's deadline (the app answers 503 with Retry-After)."""


async def with_deadline(timeout: float, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``func(*args, **kwargs)`` in the thread pool; :class:`DeadlineExceededError` after ``timeout`` s."""
    try:
        return await asyncio.wait_for(run_in_threadpool(func, *args, **kwargs), timeout)
    except TimeoutError:
        raise DeadlineExceededError(f"the request took longer than the server's {timeout:g} s limit: "
                                    "narrow it (a shorter text or query) or try again later") from None


def _extract_into(conn: multiprocessing.connection.Connection, text: str, rules: CitationRules | None,
                  kinds: set[str]) -> None:
    try:
        conn.send(("ok", extract_citations(text, rules, kinds)))
    except Exception as exc:  # reported to the parent, which raises it there
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class CitationExtractor:
    """``extract_citations`` in a child process killed after ``timeout`` seconds.

    Callable like the function (``search.citecheck.check_citations`` takes it as ``extract``).
    """

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(["legal.citations"])

    def __call__(self, text: str, rules: CitationRules | None = None,
                 kinds: Iterable[str] | None = None) -> list[Citation]:
        wanted = set(kinds) if kinds is not None else None
        receive, send = self._context.Pipe(duplex=False)
        child = self._context.Process(target=_extract_into, args=(send, text, rules, wanted), daemon=True)
        child.start()
        send.close()
        try:
            if not receive.poll(self.timeout):
                raise DeadlineExceededError(
                    f"finding the citations took longer than the server's {self.timeout:g} s limit: check a "
                    "shorter text, or run 'ratio cite' locally")
            status, value = receive.recv()
        except EOFError:
            raise RuntimeError(f"the citation extractor ended without an answer (exit code "
                               f"{child.exitcode})") from None
        finally:
            receive.close()
            if child.is_alive():
                child.kill()
            child.join(5)
        if status != "ok":
            raise RuntimeError(f"the citation extractor failed: {value}")
        return value
