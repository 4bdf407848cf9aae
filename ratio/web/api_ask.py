"""API routes for answers: ``POST /api/v1/ask`` (the checked answer as JSON) and ``POST /api/v1/ask/stream``
(server-sent events: progress as it happens, then the answer, then ``done``).

Both run the answer loop of :mod:`search.answer` through :class:`ratio.web.answers.AnswerRun`, under the
app's ``answer_timeout`` (answers are slower than searches: minutes, not seconds, on a CPU), and stop it when
the client goes away. Without an LLM both answer 503 ``llm_unavailable`` at once, and search still works.

The stream's events, each ``event: NAME`` with a JSON ``data:`` line:

* ``progress``: ``{"kind", "stage", "message", ...}`` for each step (started, retrieved, drafted, checked,
  rewritten, done; ``stage`` names what comes next: retrieving, drafting, checking, refining, finishing);
* ``answer``: the :class:`~ratio.web.answers.AnswerOut`, once, after its checks (never token by token: an
  answer is shown only once it has passed them);
* ``done``: ``{"status", "took_ms"}``, last;
* ``error``: ``{"code", "message"}`` instead of ``answer`` when the run fails or outlasts its deadline.

Comment lines (``: keep-alive``) go out after ten seconds of silence, so proxies keep the connection.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse
from opensearchpy.exceptions import OpenSearchException
from starlette.concurrency import run_in_threadpool

from ratio.answer_results import AnswerOut, answer_out
from ratio.errors import RatioError, from_opensearch
from ratio.settings import DEFAULT_ANSWER_TIMEOUT
from ratio.web.answer_schemas import AskBody
from ratio.web.answers import NO_LLM, AnswerRun, NoLLMError
from ratio.web.api import ERRORS, ServiceDep
from ratio.web.offload import DeadlineExceededError, with_deadline
from ratio.web.schemas import ErrorResponse

log = logging.getLogger("ratio.web")
router = APIRouter(prefix="/api/v1", responses=ERRORS)
UNAVAILABLE: dict[int | str, dict[str, Any]] = {
    503: {"model": ErrorResponse, "description": "No LLM is configured (llm_unavailable), OpenSearch did not "
                                                 "answer, or the answer outlasted the server's deadline for "
                                                 "answers."}}
STREAM: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/event-stream": {"schema": {"type": "string"}}},
          "description": "Server-sent events: progress..., answer (or error), done."}}
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def answer_timeout(request: Request) -> float:
    return getattr(request.app.state, "answer_timeout", DEFAULT_ANSWER_TIMEOUT)


async def start(request: Request, client: Any, body: AskBody) -> AnswerRun:
    """A run for ``body`` once the question and filters are valid (QueryError) and an LLM is there
    (:class:`NoLLMError`; the LLM is loaded here on the first question, under the answers' deadline)."""
    question = await run_in_threadpool(body.check)
    if await with_deadline(answer_timeout(request), lambda: client.llm) is None:
        raise NoLLMError(NO_LLM)
    return AnswerRun(client, body, question)


def error_body(exc: BaseException) -> tuple[int, str, str]:
    """(status, code, message) for what went wrong inside a run, as the app's handlers would say it."""
    if isinstance(exc, OpenSearchException):
        exc = from_opensearch(exc) or exc
    if isinstance(exc, RatioError):  # QueryError (400), NoLLMError, UnavailableError (503), ...
        return exc.status, exc.code, exc.message or exc.code
    if isinstance(exc, ValueError):
        return 400, "bad_request", str(exc)
    if isinstance(exc, DeadlineExceededError):
        return 503, "deadline_exceeded", str(exc)
    return 500, "answer_failed", f"the answer failed ({type(exc).__name__}); the server's log has the details"


@router.post("/ask", response_model=AnswerOut, tags=["answers"], responses=UNAVAILABLE)
async def ask_json(body: AskBody, svc: ServiceDep, request: Request) -> AnswerOut | JSONResponse:
    """A grounded answer to a legal question from the indexed judgments (or statutes), each sentence citing
    the passages it rests on, each citation linked to its passage; or, when the answer fails its checks, the
    passages found and the reason it was withheld. Every outcome carries a notice that it is not legal
    advice. Slow (tens of seconds on a CPU): ``/ask/stream`` reports progress meanwhile."""
    run = await start(request, svc.client, body)
    async with aclosing(run.events(answer_timeout(request), request.is_disconnected)) as items:
        async for kind, value in items:
            if kind == "answer":
                return answer_out(value)
            if kind == "error":
                status, code, message = error_body(value)
                if status == 500:
                    raise value
                return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)
    return JSONResponse({"error": {"code": "client_closed", "message": "the client went away"}}, status_code=503)


def sse(event: str, data: Any) -> str:
    """One server-sent event: its name and one line of JSON."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'), default=str)}\n\n"


async def event_stream(request: Request, run: AnswerRun, render: Callable[[Any], Any]) -> AsyncIterator[str]:
    """The run as server-sent events; ``render`` turns the :class:`~search.answer.Answer` into the ``answer``
    event's data (the API's JSON, or the page's HTML fragment)."""
    try:
        async with aclosing(run.events(answer_timeout(request), request.is_disconnected)) as items:
            async for kind, value in items:
                if kind == "keepalive":
                    yield ": keep-alive\n\n"
                elif kind == "progress":
                    yield sse("progress", value)
                elif kind == "answer":
                    yield sse("answer", render(value))
                    yield sse("done", {"status": value.status, "took_ms": value.took_ms})
                elif kind == "error":
                    status, code, message = error_body(value)
                    if status == 500:
                        log.error("answer failed", exc_info=value)
                    yield sse("error", {"code": code, "message": message})
    except DeadlineExceededError as exc:
        yield sse("error", {"code": "deadline_exceeded", "message": str(exc)})


@router.post("/ask/stream", response_class=StreamingResponse, tags=["answers"], responses={**STREAM, **UNAVAILABLE})
async def ask_stream(body: AskBody, svc: ServiceDep, request: Request) -> StreamingResponse:
    """The same answer as ``POST /ask``, as server-sent events: ``progress`` for each step (searching,
    drafting, checking, refining), then ``answer`` (the same JSON as ``/ask``, sent once it has passed its
    checks), then ``done``; ``error`` instead of ``answer`` when the run fails. The run stops when the client
    disconnects. A bad request or a server without an LLM gets a JSON error before any event."""
    run = await start(request, svc.client, body)
    return StreamingResponse(event_stream(request, run, lambda answer: answer_out(answer).model_dump(mode="json")),
                             media_type="text/event-stream", headers=SSE_HEADERS)


def install(app: FastAPI, *, timeout: float | None) -> None:
    """Add the answer routes; ``timeout`` bounds each answer. (A server without an LLM raises
    :class:`NoLLMError`, which the app's handler for Ratio errors answers as 503 ``llm_unavailable``.)"""
    app.state.answer_timeout = timeout or DEFAULT_ANSWER_TIMEOUT
    app.include_router(router)
