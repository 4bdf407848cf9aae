"""The REST API under ``/api/v1``: search, judgments, facets, explore, explanations, provisions, CSV, health.

Every route validates its input with the models in :mod:`ratio.web.schemas` (so the OpenAPI spec is the
contract) and reports problems as ``{"error": {"code", "message"}}`` with a 4xx status; the handlers are
installed by :func:`ratio.web.app.create_app`. Light routes are plain ``def``: FastAPI runs them in its
thread pool, which suits the blocking OpenSearch client. Routes that encode, rank or call the LLM run the
same way but under the app's deadline (:func:`ratio.web.offload.with_deadline`): past it, a 503.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Annotated, Any, TypeVar
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from ratio.errors import NotFoundError  # an id the corpus does not hold: the app answers 404
from ratio.results import ExplainResponse, Health, ProvisionsResponse, SearchPage
from ratio.web.offload import with_deadline
from ratio.web.schemas import ErrorResponse, ExplainParams, ExportParams, SearchParams
from ratio.web.service import Service
from search.pages.browse import ExploreView, JudgmentView
from search.query.options import MAX_PROVISIONS, PROVISIONS_SIZE
from search.query.syntax import MAX_CHARS

T = TypeVar("T")

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "The query or an option cannot be run; the message says why."},
    401: {"model": ErrorResponse, "description": "An API key is required and was missing or wrong."},
    422: {"model": ErrorResponse, "description": "The request does not match the schema."},
    429: {"model": ErrorResponse, "description": "Too many requests from this client (Retry-After says when "
                                                 "to try again)."},
    503: {"model": ErrorResponse, "description": "OpenSearch did not answer, or the request outlasted the "
                                                 "server's deadline."},
}
PAGED: dict[int | str, dict[str, Any]] = {
    410: {"model": ErrorResponse, "description": "The cursor's point in time has expired (a sorted search keeps "
                                                 "it 5 minutes after the last page): search again without it."}}
NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "No such item in the corpus."}}

router = APIRouter(prefix="/api/v1", responses=ERRORS)
JudgmentId = Annotated[str, Path(min_length=1, max_length=512, description="The judgment's id (its file stem).")]


def service(request: Request) -> Service:
    return request.app.state.service


ServiceDep = Annotated[Service, Depends(service)]


def site_url(request: Request) -> str:
    """This server's base URL as the client reached it, without the trailing slash (``root_path`` included, so a
    server behind a proxy at ``/ratio`` links to ``https://host/ratio/...``)."""
    return str(request.base_url).rstrip("/")


def page_url(request: Request, path: str, query: list[tuple[str, str]]) -> str:
    """The absolute URL of ``path`` on this server with ``query``: what a ``next`` link holds."""
    return f"{site_url(request)}{path}?{urlencode(query)}" if query else site_url(request) + path


def search_query(params: SearchParams, cursor: str) -> list[tuple[str, str]]:
    """``params`` as a GET query string (the values that differ from the defaults, lists repeated) with ``cursor``:
    the same search, so the cursor's fingerprint matches."""
    query: list[tuple[str, str]] = []
    for name, value in params.model_dump(mode="json", exclude_defaults=True, exclude={"cursor"}).items():
        for item in value if isinstance(value, list) else [value]:
            query.append((name, str(item).lower() if isinstance(item, bool) else str(item)))
    return [*query, ("cursor", cursor)]


def with_next(request: Request, params: SearchParams, page: SearchPage) -> SearchPage:
    """``page`` with ``next``: the GET URL of the following page, or None on the last."""
    if page.next_cursor:
        page.next = page_url(request, "/api/v1/search", search_query(params, page.next_cursor))
    return page


async def heavy(request: Request, func: Callable[..., T], *args: Any) -> T:
    """``func(*args)`` in the thread pool under the app's deadline for CPU-heavy work."""
    return await with_deadline(request.app.state.heavy_timeout, func, *args)




@router.get("/health", response_model=Health, tags=["status"])
def health(svc: ServiceDep) -> JSONResponse:
    """OpenSearch's state and the document count of each index; 503 when the cluster does not answer."""
    data = svc.health()
    return JSONResponse(Health(**data).model_dump(), status_code=503 if data["status"] == "unavailable" else 200)


@router.get("/search", response_model=SearchPage, responses=PAGED, tags=["search"])
async def search_get(params: Annotated[SearchParams, Query()], svc: ServiceDep, request: Request) -> SearchPage:
    """Judgments for a query, best first (or every matching judgment by date or cited-by count: ``sort``), each
    with its best passages (highlighted, with their roles). Pages follow ``next`` (the next page's URL, null on
    the last), or ``next_cursor`` and ``prev_cursor``."""
    return with_next(request, params, await heavy(request, svc.search, params))


@router.post("/search", response_model=SearchPage, responses=PAGED, tags=["search"])
async def search_post(params: SearchParams, svc: ServiceDep, request: Request) -> SearchPage:
    """The same search with the parameters as a JSON body (for long pasted facts). ``next`` is the GET URL of the
    next page (the same parameters in its query string); POST the body again with ``cursor`` set to ``next_cursor``
    when the query is too long for a URL."""
    return with_next(request, params, await heavy(request, svc.search, params))


@router.get("/facets", response_model=dict[str, list[dict[str, Any]]], tags=["search"])
async def facets(params: Annotated[SearchParams, Query()], svc: ServiceDep,
                 request: Request) -> dict[str, list[dict[str, Any]]]:
    """Facet counts (court, year, role, cited provisions, judges): the judgments a search matches, counted as
    Explore counts them (docs/web.md, "Counting")."""
    page = await heavy(request, svc.search, params.model_copy(update={"size": 1, "explain": False, "cursor": None}))
    return page.facets


@router.get("/explore", response_model=ExploreView, tags=["explore"])
async def explore(params: Annotated[SearchParams, Query()], svc: ServiceDep, request: Request) -> ExploreView:
    """Judgments per year, court, role, cited provision, cited judgment and judge, and provisions cited
    together, over the whole corpus or the chunks a query matches lexically. Each bucket carries the query
    filter that selects it."""
    return await heavy(request, svc.explore, params)


@router.get("/export.csv", response_class=PlainTextResponse, tags=["explore"],
            responses={200: {"content": {"text/csv": {}}, "description": "The ranked judgments as CSV."}})
async def export_csv(params: Annotated[ExportParams, Query()], svc: ServiceDep,
                     request: Request) -> PlainTextResponse:
    """A search's judgments as CSV (rank, id, title, court, date, judges, score, best passage, link).
    Cells that a spreadsheet would run as a formula (starting with = + - @, a tab or CR) start with ``'``; a link is
    absolute (this server's URL as the request reached it), so it opens from the spreadsheet."""
    body = await heavy(request, svc.export_csv, SearchParams(**params.model_dump(exclude={"limit"})), params.limit,
                       site_url(request))
    return PlainTextResponse(body, media_type="text/csv",
                             headers={"Content-Disposition": 'attachment; filename="ratio-results.csv"'})


@router.get("/judgments/{judgment_id}", response_model=JudgmentView, responses=NOT_FOUND, tags=["judgments"])
def judgment(judgment_id: JudgmentId, svc: ServiceDep) -> JudgmentView:
    """A judgment: metadata, summary fields, every sentence with its role, the citations it makes (resolved
    to the corpus where possible) and the corpus judgments that cite it."""
    view = svc.judgment(judgment_id)
    if view is None:
        raise NotFoundError(f"the corpus has no judgment {judgment_id!r}")
    return view


@router.get("/explain", response_model=ExplainResponse, responses=NOT_FOUND, tags=["search"])
async def explain(params: Annotated[ExplainParams, Query()], svc: ServiceDep, request: Request) -> ExplainResponse:
    """Why a judgment matches a query, in one line (the LLM's when one is configured, checked against the
    judgment; else extractive). With filters and no words (``q`` empty or filters only), by what the judgment
    has that the filters ask for: the provisions it cites, its court, its date."""
    if await heavy(request, svc.judgment_exists, params.judgment_id) is False:
        raise NotFoundError(f"the corpus has no judgment {params.judgment_id!r}")
    explanation = await heavy(request, partial(svc.explain, params.q, params.judgment_id, **params.filters()))
    return ExplainResponse(judgment_id=params.judgment_id, query=params.q, explanation=explanation)


@router.get("/provisions", response_model=ProvisionsResponse, tags=["provisions"])
async def provisions(q: Annotated[str, Query(min_length=1, max_length=MAX_CHARS, description="A question or a "
                                             "description of facts.")], svc: ServiceDep, request: Request,
                     size: Annotated[int, Query(ge=1, le=MAX_PROVISIONS, description="Provisions to return.")]
                     = PROVISIONS_SIZE) -> ProvisionsResponse:
    """Statute provisions for a question or a description of facts (BM25 and vectors, fused)."""
    return ProvisionsResponse(query=q, provisions=await heavy(request, svc.provisions, q, size))
