"""The web application: the REST API, the pages, and the policies around them (auth, CORS, errors).

``create_app`` takes an explicit :class:`ratio.Client` and options; ``ratio serve`` reads the settings and
calls it. Policies:

* **API key** (optional), **rate limit** (optional) and **security headers**: :mod:`ratio.web.security`.
  With a key, the pages and ``/ui/`` need it too (a browser signs in once at ``/login``); ``/api/v1/health``
  stays open.
* **Deadlines**: CPU-heavy routes run off the event loop and answer 503 ``deadline_exceeded`` past
  ``heavy_timeout`` seconds (:mod:`ratio.web.offload`); answers, past ``answer_timeout`` (:mod:`ratio.web.api_ask`).
  Citation checks run in ``citation_workers`` worker processes that start and stop with the app (its lifespan);
  checks beyond them and their queue get 503 ``busy`` with ``Retry-After``.
* **CORS** is off unless origins are named: a search API over a private corpus should not be readable from
  any web page a user happens to open.
* **Errors** are always ``{"error": {"code", "message"}}``: a query the engine cannot run is a 400 whose
  message says what to change (one the node itself refuses: ``query_rejected``, :mod:`search.query.rejection`), a
  schema violation a 422 that names each bad field, an unknown id a 404, and an unreachable cluster a 503, never a
  stack trace. A sorted search's cursor whose point in time has expired is a 410 ``cursor_expired`` asking to
  search again from the first page.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import ConnectionTimeout
from opensearchpy.exceptions import NotFoundError as OSNotFoundError
from opensearchpy.exceptions import TransportError as OSTransportError
from starlette.exceptions import HTTPException

import ratio
from backends.webhooks import WebhookPolicy
from ratio.briefs import BriefError
from ratio.client import Client
from ratio.errors import NotFoundError, RatioError, from_opensearch
from ratio.web import api, api_ask, security
from ratio.web.docs import install_docs
from ratio.web.offload import CITATION_WORKERS, CitationExtractor, DeadlineExceededError, Gate, PoolBusyError
from ratio.web.service import Service
from search.graph.citecheck_lookup import CitationLookupError
from search.query.errors import QueryError
from search.query.rejection import EngineError, rejection

log = logging.getLogger("ratio.web")
STATIC = Path(__file__).with_name("static")
OPEN_PATHS = ("/api/v1/health",)  # in the OpenAPI spec: the routes without the security requirement


def _error(status: int, code: str, message: str, detail: list[dict[str, Any]] | None = None,
           headers: dict[str, str] | None = None) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if detail is not None:
        body["detail"] = detail
    return JSONResponse({"error": body}, status_code=status, headers=headers)


def _field(loc: Sequence[Any]) -> str:
    parts = [str(p) for p in loc if p not in ("query", "body", "path")]
    return ".".join(parts) or "request"


def _validation_detail(exc: RequestValidationError) -> list[dict[str, Any]]:
    return [{"field": _field(e.get("loc", ())), "message": e.get("msg", "invalid"), "type": e.get("type", "")}
            for e in exc.errors()]


def create_app(client: Client, *, api_key: str | None = None, cors_origins: Sequence[str] = (),
               pages: bool = True, rate_limit: str | None = None, heavy_timeout: float = 30.0,
               citation_workers: int = CITATION_WORKERS,
               webhooks: WebhookPolicy | None = None, answer_timeout: float | None = None,
               sessions: security.SessionStore | None = None) -> FastAPI:
    """The ASGI app serving ``client``'s indices (see the module docstring for the policies).

    ``rate_limit`` is per client in the ``limits`` notation (``120/minute``; None: no limit);
    ``heavy_timeout`` bounds CPU-heavy requests (seconds); ``webhooks`` says where saved searches' webhooks
    may go (default: public hosts only); ``answer_timeout`` bounds an answer (seconds; default 180: answers are
    slower than searches, :mod:`ratio.web.api_ask`); ``sessions`` keeps the browser sessions and failed keys
    (:mod:`ratio.web.sessions`; default: this process's memory).
    """
    citations = CitationExtractor(heavy_timeout, citation_workers)  # its worker processes live as long as the app
    app = FastAPI(
        title="Ratio", version=ratio.__version__, lifespan=citations.lifespan,
        description="Search over court judgments: role-aware hybrid (BM25 + vector) retrieval over OpenSearch. "
                    "Errors are {\"error\": {\"code\", \"message\"}}.",
        openapi_url="/api/v1/openapi.json", docs_url=None, redoc_url=None)  # docs: ratio.web.docs
    app.state.service = Service(client)
    app.state.api_key = api_key
    app.state.heavy_timeout = heavy_timeout
    app.state.webhooks = webhooks or WebhookPolicy()
    app.state.extract_citations = citations
    app.state.document_searches = Gate()  # large document searches at once (api_document)

    if cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["X-API-Key", "Authorization", "Content-Type"])

    security.install(app, api_key=api_key, rate_limit=rate_limit, sessions=sessions)

    @app.exception_handler(QueryError)
    async def query_error(request: Request, exc: QueryError) -> JSONResponse:
        # bad_query (400); a sorted search's expired cursor says cursor_expired (410)
        return _error(exc.status, exc.code, str(exc))

    @app.exception_handler(RatioError)
    async def ratio_error(request: Request, exc: RatioError) -> JSONResponse:
        # ratio.NotFoundError (404), UnavailableError (503), ...: each says its own code and status
        if exc.status >= 500:
            log.warning("%s: %s", exc.code, exc.message)
        return _error(exc.status, exc.code, exc.message or exc.code)

    @app.exception_handler(BriefError)
    async def bad_brief(request: Request, exc: BriefError) -> JSONResponse:
        return _error(exc.status, exc.code, str(exc))

    @app.exception_handler(OSNotFoundError)
    async def missing(request: Request, exc: OSNotFoundError) -> JSONResponse:
        error = from_opensearch(exc) or NotFoundError("no such item in the corpus")
        return _error(error.status, error.code, error.message)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        detail = _validation_detail(exc)
        message = "; ".join(f"{d['field']}: {d['message']}" for d in detail[:5])
        return _error(422, "invalid_request", message or "the request does not match the API's schema", detail)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        codes = {404: "not_found", 405: "method_not_allowed"}
        return _error(exc.status_code, codes.get(exc.status_code, "http_error"), str(exc.detail),
                      headers=getattr(exc, "headers", None))

    @app.exception_handler(CitationLookupError)
    async def lookup_failed(request: Request, exc: CitationLookupError) -> JSONResponse:
        return _error(503, "opensearch_refused", str(exc))

    @app.exception_handler(DeadlineExceededError)
    async def too_slow(request: Request, exc: DeadlineExceededError) -> JSONResponse:
        return _error(503, "deadline_exceeded", str(exc), headers={"Retry-After": "30"})

    @app.exception_handler(PoolBusyError)
    async def busy(request: Request, exc: PoolBusyError) -> JSONResponse:
        return _error(503, "busy", str(exc), headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(OSTransportError)
    @app.exception_handler(EngineError)
    async def refused(request: Request, exc: Exception) -> JSONResponse:
        # the node refused a request: the query's doing (400: too many clauses, a bad query) or the node's (502)
        error = rejection(exc) or from_opensearch(exc)
        if error is None:
            log.error("OpenSearch failed a request: %s", exc)
            return _error(502, "opensearch_error", "OpenSearch could not answer this request; try again shortly")
        return _error(error.status, error.code, error.message)

    @app.exception_handler(OSConnectionError)
    @app.exception_handler(ConnectionTimeout)
    async def unavailable(request: Request, exc: Exception) -> JSONResponse:
        log.warning("OpenSearch unavailable: %s", exc)
        return _error(503, "opensearch_unavailable", "OpenSearch did not answer; try again shortly")

    if api_key:
        app.openapi_schema = None  # rebuilt lazily with the security scheme below
        _declare_key(app)
    app.include_router(api.router)
    _include_extras(app)
    api_ask.install(app, timeout=answer_timeout)
    install_docs(app)  # before the /static mount, which would otherwise take /static/swagger-ui
    if pages:
        from ratio.web import ask_page, saved_page
        from ratio.web import pages as web_pages
        from ratio.web import pages_brief as web_pages_brief

        app.include_router(web_pages.router)
        app.include_router(web_pages_brief.router)
        app.include_router(ask_page.router)
        app.include_router(saved_page.router)
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _declare_key(app: FastAPI) -> None:
    """Publish the API key requirement in the OpenAPI spec (what clients and schemathesis read)."""
    original = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        spec = original()
        spec.setdefault("components", {})["securitySchemes"] = {
            "ApiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}}
        for path, methods in spec.get("paths", {}).items():
            if path.startswith("/api/") and path not in OPEN_PATHS:
                for operation in methods.values():
                    operation["security"] = [{"ApiKey": []}]
        app.openapi_schema = spec
        return spec

    app.openapi = openapi  # type: ignore[method-assign]


def _include_extras(app: FastAPI) -> None:
    """Routers of optional features (citation checks, saved searches), present when their modules are."""
    from ratio.web import api_document, api_extras

    app.include_router(api_extras.router)
    app.include_router(api_document.router)
