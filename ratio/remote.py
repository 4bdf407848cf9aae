"""``ratio.RemoteClient``: the Python client over Ratio's REST API instead of OpenSearch directly.

It has the read methods of :class:`ratio.Client` (search, judgment, facets, explore, explain, provisions,
health, ask) with the same arguments (a :class:`~search.query.options.SearchOptions` and keyword changes, checked here
before any request), and returns the same objects, rebuilt from the JSON by the API's own schemas, so code can
switch between talking to a cluster and talking to ``ratio serve`` by changing the constructor. Errors come back
as the same Ratio errors a local client raises (:mod:`ratio.errors`: a 400 is a ``QueryError``, a 404 a
``NotFoundError``, a 503 an ``UnavailableError``, a 401 an ``AuthError``; anything else a ``RemoteError``), each
with the API's ``code`` and ``status``. Connection failures and 503s (but a passed deadline) are retried with
backoff; a server that never answers is an ``UnavailableError``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json as jsonlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import requests
from tenacity import retry, retry_if_exception, stop_after_attempt, wait_exponential

from ratio.answer_results import AnswerOut
from ratio.errors import RatioError, RemoteError, UnavailableError, from_response
from ratio.results import BriefPage, ExplainResponse, Health, ProvisionsResponse, SearchPage
from search.explain.extractive import Explanation
from search.pages.browse import ExploreView, JudgmentView
from search.provisions.retrieve import ProvisionHit
from search.query.errors import BadValueError
from search.query.options import (
    DEFAULTS,
    MAX_PROVISIONS,
    PROVISIONS_SIZE,
    FilterOptions,
    SearchOptions,
    merge_options,
    texts,
)
from search.query.request import SearchRequest

__all__ = ["RemoteClient", "RemoteError", "search_params"]


def _transient(exc: BaseException) -> bool:
    """A refused connection or a 503 from OpenSearch: worth asking again. A request that outlasted the
    server's deadline (``deadline_exceeded``) would only do so again."""
    return isinstance(exc, requests.ConnectionError) or (
        isinstance(exc, RatioError) and exc.status == 503
        and exc.code not in ("deadline_exceeded", "llm_unavailable"))


# What the clients take beside the options and the API also has: ``statutes=[...]`` (``statute:`` in the syntax).
REMOTE_EXTRAS = ("statutes",)


def search_params(query: str, options: SearchOptions, cursor: str | None = None,
                  extras: dict[str, Any] | None = None) -> dict[str, Any]:
    """``options`` as the API's search parameters (:class:`ratio.web.schemas.SearchParams`; the page goes by
    cursor, not number), with ``extras`` (:data:`REMOTE_EXTRAS`, checked as the local client checks them).
    Defaults are left out, so a GET stays short."""
    default = DEFAULTS
    names = {"courts": "court", "judges": "judge", "roles": "role", "role_mode": "mode"}
    params: dict[str, Any] = {"q": query}
    for name in ("courts", "judges", "date_from", "date_to", "roles", "role_mode", "ranking", "fusion", "size",
                 "candidates", "rerank", "rerank_top", "explain", "explain_top", "llm_rerank",
                 "llm_rerank_deadline", "expand", "provisions", "facets",
                 "highlight", "plain", *(n for n in ("sort",) if hasattr(options, n))):
        value = getattr(options, name)
        if value == getattr(default, name):
            continue
        if isinstance(value, tuple):
            value = [str(v) for v in value]
        elif hasattr(value, "isoformat"):
            value = value.isoformat()
        elif hasattr(value, "value"):  # an enum
            value = value.value
        params[names.get(name, name)] = value
    statutes = texts((extras or {}).get("statutes"), "statutes")
    if statutes:
        params["statute"] = list(statutes)
    if cursor:
        params["cursor"] = cursor
    return params


class RemoteClient:
    """Search a Ratio server: ``RemoteClient("http://127.0.0.1:8000", api_key=...)``."""

    def __init__(self, base_url: str, *, api_key: str | None = None, timeout: float = 60.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()
        if api_key:
            self.session.headers["X-API-Key"] = api_key

    @retry(retry=retry_if_exception(_transient), stop=stop_after_attempt(3),
           wait=wait_exponential(multiplier=0.5, max=4), reraise=True)
    def _send(self, method: str, path: str, params: dict[str, Any] | None, json: dict[str, Any] | None,
              accept: tuple[int, ...] = (), data: dict[str, Any] | None = None,
              files: dict[str, tuple[str, bytes]] | None = None) -> requests.Response:
        response = self.session.request(method, f"{self.base_url}/api/v1{path}", params=params, json=json,
                                        data=data, files=files, timeout=self.timeout)
        if response.ok or response.status_code in accept:
            return response
        raise self._error(response)

    @staticmethod
    def _error(response: requests.Response) -> RatioError:
        """The Ratio error an API error answer stands for."""
        try:
            error = response.json()["error"]
            code, message = error["code"], error["message"]
        except (ValueError, KeyError, TypeError):
            code, message = "http_error", response.text[:500]
        return from_response(response.status_code, code, message)

    def _call(self, method: str, path: str, *, params: dict[str, Any] | None = None,
              json: dict[str, Any] | None = None, raw: bool = False, accept: tuple[int, ...] = (),
              data: dict[str, Any] | None = None, files: dict[str, tuple[str, bytes]] | None = None) -> Any:
        """The answer's JSON (or text), or the Ratio error it stands for; ``accept``: statuses whose body is an
        answer, not an error (the health check's 503)."""
        with self._unreachable(f"did not answer within {self.timeout:g} s"):
            response = self._send(method, path, params, json, accept, data, files)
        return response.text if raw else response.json()

    @contextlib.contextmanager
    def _unreachable(self, silence: str) -> Iterator[None]:
        """A server that does not answer (``silence``: what timed out) or is not there, as the Ratio error that
        says so (``timeout``, ``server_unavailable``), for plain calls and the answer stream alike."""
        try:
            yield
        except requests.Timeout as exc:
            raise UnavailableError(f"the Ratio server at {self.base_url} {silence}", code="timeout") from exc
        except requests.ConnectionError as exc:
            raise UnavailableError(f"no Ratio server answers at {self.base_url}: start one with 'ratio serve'",
                                   code="server_unavailable") from exc

    def search(self, query: str, options: SearchOptions | None = None, *, cursor: str | None = None,
               **overrides: Any) -> SearchPage:
        """One page of judgments; ``options`` and keyword changes as ``Client.search`` (``courts=[...]``,
        ``size=``, ``page=``, ``sort=``, ``statutes=[...]``), or ``cursor=`` (a page's ``next_cursor`` or
        ``prev_cursor``). A ``page`` past the first follows the cursors there, since the API pages by cursor."""
        options, extras = merge_options(options, overrides, REMOTE_EXTRAS)
        if options.page > 1 and not cursor:
            # the request says whether page numbers stop at the ranked window (a filter-only search is sorted)
            SearchRequest.from_options(query, options, **extras)
            first = dataclasses.replace(options, page=1)
            for page in self.search_pages(query, first, max_pages=options.page, **extras):
                if page.page == options.page:
                    return page
            # past the last page: what the local client answers there, an empty page of the same search
            return page.model_copy(update={"hits": [], "page": options.page, "next_cursor": None, "next": None,
                                            "notes": []})
        return SearchPage.model_validate(self._call("POST", "/search",
                                                    json=search_params(query, options, cursor, extras)))

    def search_pages(self, query: str, options: SearchOptions | None = None, *, max_pages: int = 10,
                     **overrides: Any) -> Iterator[SearchPage]:
        """Pages of one search, following the cursors, until the last page or ``max_pages``."""
        options, extras = merge_options(options, overrides, REMOTE_EXTRAS)
        cursor = None
        for _ in range(max_pages):
            page = self.search(query, options, cursor=cursor, **extras)
            yield page
            cursor = page.next_cursor
            if not cursor:
                return

    def search_by_document(self, document: str | Path, size: int = 10, *, exclude: str | None = None,
                           courts: Sequence[str] = (), date_from: str | None = None,
                           date_to: str | None = None) -> BriefPage:
        """Precedents for a brief (``POST /api/v1/search/document``): ``document`` is the brief's text (a
        ``str``) or a file to upload (a ``Path``: .txt or .pdf). The answer is the API's: judgments with their
        passages and the parts of the brief each matched. A brief the server cannot read is a
        Ratio error with its code and status (``empty_brief``, 400, is a ``QueryError``; ``unreadable_pdf`` 422)."""
        if isinstance(courts, str):
            raise BadValueError("courts must be a list of court names, not a string")
        options: dict[str, Any] = {"size": size, "court": list(courts), "date_from": date_from,
                                   "date_to": date_to, "exclude": exclude}
        options = {k: v for k, v in options.items() if v not in (None, [])}
        if isinstance(document, Path):
            files = {"file": (document.name, document.read_bytes())}
            data = self._call("POST", "/search/document", data=options, files=files)
        else:
            data = self._call("POST", "/search/document", json={"text": document, **options})
        return BriefPage.model_validate(data)

    def facets(self, query: str, options: SearchOptions | None = None,
               **overrides: Any) -> dict[str, list[dict[str, Any]]]:
        options, extras = merge_options(options, overrides, REMOTE_EXTRAS)
        return self._call("GET", "/facets", params=search_params(query, options, extras=extras))

    def explore(self, query: str = "", options: FilterOptions | None = None, **overrides: Any) -> ExploreView:
        from pydantic import TypeAdapter

        options, extras = merge_options(options, overrides, REMOTE_EXTRAS)
        return TypeAdapter(ExploreView).validate_python(
            self._call("GET", "/explore", params=search_params(query, options, extras=extras)))

    def judgment(self, judgment_id: str) -> JudgmentView:
        from urllib.parse import quote

        from pydantic import TypeAdapter

        data = self._call("GET", f"/judgments/{quote(judgment_id, safe='')}")
        return TypeAdapter(JudgmentView).validate_python(data)

    def explain(self, query: str, judgment_id: str, *, courts: Sequence[str] = (), judges: Sequence[str] = (),
                statutes: Sequence[str] = (), date_from: str | None = None,
                date_to: str | None = None) -> Explanation:
        """Why ``judgment_id`` is a hit of ``query`` with these filters (as ``Client.explain``): a search of filters
        alone (``query`` empty) is explained by them."""
        params: dict[str, Any] = {"q": query, "judgment_id": judgment_id, "court": list(texts(courts, "courts")),
                                  "judge": list(texts(judges, "judges")), "statute": list(texts(statutes, "statutes")),
                                  "date_from": date_from, "date_to": date_to}
        data = self._call("GET", "/explain", params={k: v for k, v in params.items() if v not in (None, [])})
        return ExplainResponse.model_validate(data).explanation

    def provisions(self, query: str, size: int = PROVISIONS_SIZE) -> list[ProvisionHit]:
        if not 1 <= size <= MAX_PROVISIONS:
            raise BadValueError(f"size must be between 1 and {MAX_PROVISIONS}, not {size}")
        return ProvisionsResponse.model_validate(self._call("GET", "/provisions",
                                                            params={"q": query, "size": size})).provisions

    def export_csv(self, query: str, limit: int = 200, options: SearchOptions | None = None,
                   **overrides: Any) -> str:
        options, extras = merge_options(options, overrides, REMOTE_EXTRAS)
        return self._call("GET", "/export.csv", params={**search_params(query, options, extras=extras),
                                                        "limit": limit}, raw=True)

    def ask(self, question: str, *, mode: str = "auto", parametric: bool = True, courts: tuple[str, ...] = (),
            date_from: str | None = None, date_to: str | None = None, rounds: int = 3, context_tokens: int = 1200,
            min_context: float = 0.25, min_grounded: float = 1.0, min_relevance: float = 0.5,
            allow_ungrounded: bool = False, on_event: Callable[[str, dict[str, Any]], None] | None = None,
            timeout: float = 600.0) -> AnswerOut:
        """A grounded answer, or the passages and the reason it was withheld (``POST /api/v1/ask/stream``;
        options as ``ratio ask``). ``on_event(kind, data)`` sees each step as the server reports it. The stream
        keeps the connection busy, so ``timeout`` (seconds of silence) can stay long for slow answers. A bad
        question raises ``QueryError``; a server without an LLM, ``UnavailableError`` (code ``llm_unavailable``);
        an answer past the server's deadline, ``UnavailableError`` (``deadline_exceeded``). Not retried: an
        answer is minutes of the server's LLM."""
        body = {"question": question, "mode": mode, "parametric": parametric, "court": list(courts),
                "date_from": date_from, "date_to": date_to, "rounds": rounds, "context_tokens": context_tokens,
                "min_context": min_context, "min_grounded": min_grounded, "min_relevance": min_relevance,
                "allow_ungrounded": allow_ungrounded}
        with (self._unreachable(f"sent nothing for {timeout:g} s"),
              self.session.post(f"{self.base_url}/api/v1/ask/stream", json=body, stream=True,
                                timeout=(min(self.timeout, 30.0), timeout)) as response):
            if not response.ok:
                raise self._error(response)
            event = None
            for line in response.iter_lines(decode_unicode=True):
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data = jsonlib.loads(line[6:])
                    if event == "progress" and on_event is not None:
                        on_event(data["kind"], data)
                    elif event == "answer":
                        return AnswerOut.model_validate(data)
                    elif event == "error":
                        status = 400 if data.get("code") == "bad_query" else (
                            500 if data.get("code") == "answer_failed" else 503)
                        raise from_response(status, data.get("code", ""), data.get("message", ""))
        raise RemoteError(502, "stream_ended", "the server closed the answer stream without an answer")

    def health(self) -> Health:
        """The server's report on OpenSearch (status ``unavailable``, not an error, when the cluster is down)."""
        return Health.model_validate(self._call("GET", "/health", accept=(503,)))
