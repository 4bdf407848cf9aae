"""The ask page: a legal question answered from the corpus, with its citations linked to their passages.

Without JavaScript the form POSTs to ``/ask`` and the page comes back with the answer once it is ready (or
the reason it was withheld). With JavaScript (``static/ask.js``; the CSP forbids inline scripts) the form
opens an ``EventSource`` on ``/ui/ask/stream``, shows each step as it happens, and puts in the answer when it
arrives: the same fragment (``_answer.html``) the form's page shows, rendered here, so there is one way an
answer looks. The stream is a GET (``EventSource`` cannot POST), which also lets a browser signed in with
the server's key use it: the key's cookie opens pages and GETs, never API writes.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from pydantic import ValidationError

from ratio.answer_results import AnswerOut, answer_out
from ratio.errors import RatioError
from ratio.web.answer_schemas import MAX_QUESTION, MAX_ROUNDS, AskBody, text_segments
from ratio.web.answers import NO_LLM
from ratio.web.api_ask import SSE_HEADERS, answer_timeout, error_body, event_stream, start
from ratio.web.offload import DeadlineExceededError
from ratio.web.pages import _render, templates

router = APIRouter(include_in_schema=False)
FORM_FIELDS = ("question", "mode", "court", "date_from", "date_to", "rounds")
MAX_FORM_BYTES = 20_000


def _body(values: dict[str, list[str]]) -> tuple[AskBody | None, dict[str, Any], str | None]:
    """The form's fields as an :class:`AskBody` (or None and the problem), and the fields to refill the form."""
    form = {key: [v for v in values.get(key, []) if v.strip()] for key in FORM_FIELDS}
    raw: dict[str, Any] = {"question": (form["question"] or [""])[0], "court": form["court"][:1]}
    for key in ("mode", "date_from", "date_to", "rounds"):
        if form[key]:
            raw[key] = form[key][0]
    shown = {"question": raw["question"], "mode": raw.get("mode", "auto"), "court": (raw["court"] or [""])[0],
             "date_from": raw.get("date_from", ""), "date_to": raw.get("date_to", ""), "rounds": raw.get("rounds", "3")}
    try:
        return AskBody(**raw), shown, None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'form'}: {e['msg']}" for e in exc.errors()[:3])
        return None, shown, problems


def fragment(answer: AnswerOut) -> str:
    """The answer as the page shows it (``_answer.html``)."""
    return templates.get_template("_answer.html").render(answer=answer, segments=text_segments(answer))


def _page(request: Request, shown: dict[str, Any], *, answer: AnswerOut | None = None, error: str | None = None,
          status: int = 200) -> HTMLResponse:
    return _render(request, "ask.html", {
        "form": shown, "answer": answer, "segments": text_segments(answer) if answer else [], "error": error,
        "max_question": MAX_QUESTION, "max_rounds": MAX_ROUNDS,
        "llm": request.app.state.service.client.has_llm, "no_llm": NO_LLM}, status)


@router.get("/ask", response_class=HTMLResponse)
def ask_page(request: Request) -> HTMLResponse:
    """The question form (prefilled from the query string; asking is a POST, or the stream with JS)."""
    _, shown, _ = _body({k: request.query_params.getlist(k) for k in FORM_FIELDS})
    return _page(request, shown)


@router.post("/ask", response_class=HTMLResponse)
async def ask_submit(request: Request) -> HTMLResponse:
    """The form without JavaScript: the page with the answer once it is ready, or what went wrong."""
    raw = (await request.body())[:MAX_FORM_BYTES].decode("utf-8", "replace")
    body, shown, problem = _body(parse_qs(raw, keep_blank_values=True))
    if body is None:
        return _page(request, shown, error=problem, status=422)
    try:
        run = await start(request, request.app.state.service.client, body)
        async with aclosing(run.events(answer_timeout(request), request.is_disconnected)) as items:
            async for kind, value in items:
                if kind == "answer":
                    return _page(request, shown, answer=answer_out(value))
                if kind == "error":
                    status, _, message = error_body(value)
                    if status == 500:
                        raise value
                    return _page(request, shown, error=message, status=status)
    except (RatioError, DeadlineExceededError) as exc:
        status, _, message = error_body(exc)
        return _page(request, shown, error=message, status=status)
    return _page(request, shown, error="the answer was abandoned", status=503)


@router.get("/ui/ask/stream", response_model=None)
async def ask_events(request: Request) -> Response:
    """The page's stream: the API's progress events, then ``answer`` with the rendered fragment and the
    status, then ``done``. A bad question or no LLM is a JSON error before any event."""
    body, _, problem = _body({k: request.query_params.getlist(k) for k in FORM_FIELDS})
    if body is None:
        return JSONResponse({"error": {"code": "invalid_request", "message": problem}}, status_code=422)
    try:
        run = await start(request, request.app.state.service.client, body)
    except (RatioError, DeadlineExceededError) as exc:
        status, code, message = error_body(exc)
        return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)

    def render(answer: Any) -> dict[str, Any]:
        out = answer_out(answer)
        return {"status": out.status, "html": fragment(out)}

    return StreamingResponse(event_stream(request, run, render), media_type="text/event-stream",
                             headers=SSE_HEADERS)
