"""Answers on the web: one answer run per request, off the event loop, reporting its progress.

An answer takes tens of seconds on a CPU (a search, then three or more LLM calls a round, up to three
rounds), far past the deadline of a search. So an answer runs in a thread of its own (:class:`AnswerRun`),
under its own deadline (``answer_timeout``), and reports each step as it happens (searched, drafted,
checked, refining) on an asyncio queue that the routes turn into server-sent events or simply wait on.
A thread cannot be killed, but the answer loop reports after every step, so the run stops at the next
step when its deadline passes or its client goes away: the report raises :class:`AnswerCancelledError`
inside the loop, and the LLM is free for the next question instead of finishing one nobody will read.

The answer text is never streamed token by token: it reaches the client only after it has passed its checks
(:mod:`search.answer.loop`), which is the point of the check-and-refine loop.

The request and response shapes are in :mod:`ratio.web.answer_schemas`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from backends.llm import LLM
from ratio.client import Client
from ratio.errors import LLMUnavailableError
from ratio.web.answer_schemas import AskBody
from ratio.web.offload import DeadlineExceededError
from search.answer import Answerer, ask
from search.query.intent import classify_intent

log = logging.getLogger("ratio.web")

KEEPALIVE = 10.0  # seconds of silence before the stream sends a comment, so proxies keep the connection
NO_LLM = ("answers need an LLM and this server has none: start it with --llm local (or --llm http with "
          "--llm-url, or RATIO_LLM=local). Search works without one.")


NoLLMError = LLMUnavailableError  # the server has no LLM: 503 llm_unavailable, raised again by RemoteClient


class AnswerCancelledError(Exception):
    """Raised inside the answer loop at its next step once the run is cancelled (deadline, client gone)."""


# ---------------------------------------------------------------- progress in words


def progress(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """A progress event for the client: the loop's own data, the ``stage`` that follows and a ``message``."""
    number = data.get("round")
    if kind == "started":
        stage, message = "retrieving", ("Finding the statute provisions the question is about" if
                                        data.get("mode") == "provisions" else "Searching the judgments")
    elif kind == "retrieved":
        found = data.get("passages", 0)
        stage = "drafting" if found else "finishing"
        message = (f"Round {number}: {found} passage{'s' if found != 1 else ''} found; drafting an answer"
                   if found else f"Round {number}: no passage found")
    elif kind == "drafted":
        stage, message = "checking", f"Round {number}: checking the draft against the passages"
    elif kind == "checked":
        failures = list(data.get("failures") or [])
        stage = "refining" if failures else "finishing"
        message = (f"Round {number}: the draft failed {', '.join(f.replace('_', ' ') for f in failures)}"
                   if failures else f"Round {number}: the draft passed its checks")
    elif kind == "rewritten":
        stage, message = "retrieving", f"Searching again with: {data.get('query', '')}"
    elif kind == "done":
        stage, message = "done", f"Finished: {data.get('status')}"
    else:
        stage, message = kind, kind
    return {"kind": kind, "stage": stage, "message": message, **data}


# ---------------------------------------------------------------- one answer, in a thread, cancellable


@dataclass
class AnswerRun:
    """One question answered in a thread of its own; :meth:`events` yields its progress and outcome.

    Items: ``("progress", dict)``, ``("answer", Answer)``, ``("error", exception)`` and, after
    ``KEEPALIVE`` seconds of silence, ``("keepalive", None)``."""

    client: Client
    body: AskBody
    question: str
    cancelled: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def _put(self, kind: str, value: Any) -> None:
        if self.cancelled.is_set():
            raise AnswerCancelledError
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, (kind, value))
        except RuntimeError:  # the event loop is gone: nobody is listening
            raise AnswerCancelledError from None

    def _work(self) -> None:
        try:
            llm: LLM | None = self.client.llm
            if llm is None:
                raise NoLLMError(NO_LLM)
            mode = self.body.mode
            if mode == "auto":
                mode = "provisions" if classify_intent(self.question).name == "statute" else "judgments"
            self._put("progress", progress("started", {"mode": mode}))
            answerer = Answerer(self.client.searcher, llm, self.body.options())
            answer = ask(answerer, self.question, mode=mode, parametric=self.body.parametric,
                         on_event=lambda kind, data: self._put("progress", progress(kind, data)))
            self._put("answer", answer)
        except AnswerCancelledError:
            log.info("answer cancelled: %s", self.question[:80])
        except Exception as exc:  # handed to the route, which maps it to an error the client can read
            with contextlib.suppress(AnswerCancelledError):
                self._put("error", exc)

    def cancel(self) -> None:
        """Stop at the answer loop's next step (the LLM call under way finishes first)."""
        self.cancelled.set()

    async def events(self, timeout: float, disconnected: Any = None) -> AsyncIterator[tuple[str, Any]]:
        """Start the run and yield its items until the outcome (an answer or an error). Past ``timeout``
        seconds it raises :class:`DeadlineExceededError`; when ``disconnected()`` (awaited at each silence)
        says the client left, it stops. Either way, and when the consumer stops early, the run is cancelled."""
        threading.Thread(target=self._work, name="ratio-answer", daemon=True).start()
        deadline = self._loop.time() + timeout
        try:
            while True:
                left = deadline - self._loop.time()
                if left <= 0:
                    raise DeadlineExceededError(
                        f"the answer took longer than the server's {timeout:g} s limit for answers: ask a "
                        "narrower question, lower rounds, or try again later")
                try:
                    kind, value = await asyncio.wait_for(self._queue.get(), min(KEEPALIVE, left))
                except TimeoutError:
                    if disconnected is not None and await disconnected():
                        log.info("answer abandoned by its client: %s", self.question[:80])
                        return
                    yield "keepalive", None
                    continue
                yield kind, value
                if kind in ("answer", "error"):
                    return
        finally:
            self.cancel()
