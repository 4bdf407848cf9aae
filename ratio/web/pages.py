"""Server-rendered pages: search, judgment, explore, provision, and the explanation fragment.

The pages work without JavaScript: every filter is a form field or a link, every facet value and chart bar a
link that selects it (or, selected, removes it), and every applied filter a chip whose link removes just it
(:mod:`ratio.web.chips`). Two small scripts improve on that: explanations are fetched after the
results are shown (``/ui/explain``), so an LLM never delays the list, and the judgment page's role legend
hides and shows sentences by role. Templates autoescape; the only markup passed through is the
highlighter's, whose text OpenSearch has already HTML-escaped.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from pydantic import ValidationError

from legal.roles import load_role_set
from legal.statutes import display_label
from ratio.counts import counted
from ratio.errors import RatioError
from ratio.results import SearchPage, passage_link
from ratio.web.chips import FacetLink, chips, clear_all, facet_links, hidden_fields, query_roles, search_query
from ratio.web.offload import DeadlineExceededError, with_deadline
from ratio.web.pages_brief import more_like_url
from ratio.web.passages import highlight_words, hl_pattern, sentences_html
from ratio.web.schemas import ExplainParams, SearchParams
from ratio.web.service import Service
from search.query.errors import ExpiredPositionError, QueryError
from search.query.options import RoleMode, SortOrder
from search.query.request import SearchRequest
from search.query.syntax import MAX_CHARS
from search.query.understand import MAX_PASTE_CHARS, QueryKind

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))
SEARCH_FIELDS = ("q", "court", "judge", "statute", "date_from", "date_to", "role", "mode", "sort", "cursor")
PROVISIONS_SHOWN = 3  # statute provisions beside a query's judgments
CITING_SIZE = 20  # judgments citing a provision per page of its page
SORTS = [("relevance", "Relevance"), ("newest", "Newest first"), ("oldest", "Oldest first"),
         ("cited_by", "Most cited")]


def _roles() -> list[dict[str, str]]:
    roles = load_role_set()
    return [{"name": r, "label": r.replace("_", " "), "coarse": roles.coarse(r)} for r in roles.names]


ROLES = _roles()
ROLE_NAMES = [r["name"] for r in ROLES]


def _service(request: Request) -> Service:
    return request.app.state.service


def _params(request: Request) -> tuple[SearchParams, str | None]:
    """Search parameters from the page's query string (repeatable fields as lists), and any error."""
    raw: dict[str, Any] = {}
    for key in SEARCH_FIELDS:
        values = [v for v in request.query_params.getlist(key) if v.strip()]
        if key in ("court", "judge", "role", "statute"):
            raw[key] = values
        elif values:
            raw[key] = values[0]
    try:
        params = SearchParams(**raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
        return SearchParams(), problems
    if params.mode in (RoleMode.FILTER, RoleMode.BOOST) and not params.role and not query_roles(params.q):
        # the form always says what a role does; with no role named anywhere there is nothing for it to do
        params = params.model_copy(update={"mode": None})
    return params, None


def _with(params: SearchParams, **changes: Any) -> str:
    """A search URL for ``params`` changed by ``changes`` (None removes a field); the cursor never carries (only
    ``cursor=`` given here, for page links), the sort order does (:func:`ratio.web.chips.search_query`)."""
    cursor = changes.pop("cursor", None)  # a page link's own cursor (chips.search_query drops cursors)
    url = search_query(params, **changes)
    return url + ("&" if len(url) > 1 else "") + urlencode({"cursor": cursor}) if cursor else url


def _add_filter(params: SearchParams, clause: str) -> str:
    query = f"{params.q} {clause}".strip() if clause not in params.q else params.q
    return _with(params, q=query)


def _render(request: Request, name: str, context: dict[str, Any], status: int = 200) -> HTMLResponse:
    base = {"roles": ROLES, "max_chars": MAX_PASTE_CHARS, "mark": Markup}  # the box takes a whole judgment
    return templates.TemplateResponse(request, name, {**base, **context}, status_code=status)


def _not_found(request: Request, kind: str, item_id: str) -> HTMLResponse:
    return _render(request, "error.html", {"title": f"{kind.capitalize()} not found",
                                           "message": f"The corpus has no {kind} {item_id!r}."}, 404)


@router.get("/", response_class=HTMLResponse)
async def search_page(request: Request) -> HTMLResponse:
    params, error = _params(request)
    svc = _service(request)
    page, status = None, 200
    if error is None and (params.q.strip() or params.court or params.judge or params.date_from or params.date_to
                          or params.statute):
        try:
            page = await with_deadline(request.app.state.heavy_timeout, svc.search, params)
        except ExpiredPositionError as exc:
            error, status = str(exc), 410
        except QueryError as exc:
            error, status = str(exc), 400
        except DeadlineExceededError as exc:
            error, status = str(exc), 503
    elif error:
        status = 422
    provisions = await _matched_provisions(request, svc, params, page)
    applied = chips(params)
    facets: dict[str, list] = {}
    if page is not None:
        for name in ("court", "year", "role", "cited_provisions", "judges"):
            facets[name] = facet_links(params, name, page.facets.get(name, []), applied,
                                       limit=None if name == "year" else 10)
    more_like = {hit.judgment_id: more_like_url(hit.judgment_id) for hit in page.hits} if page else {}
    passage_links = {hit.judgment_id: [passage_link(hit.judgment_id, p.sentence_start,
                                                    highlight_words(p.highlights, _plain_words(params.q)))
                                       for p in hit.passages] for hit in page.hits} if page else {}
    return _render(request, "search.html", {
        "params": params, "page": page, "error": error, "facets": facets, "more_like": more_like,
        "passage_links": passage_links, "provisions": provisions,
        "chips": applied, "clear_url": clear_all(params), "year_fields": hidden_fields(params, "date_from", "date_to"),
        "matched_by": "words" if _has_words(params.q) else "filters", "filters_said": _filters_said(params),
        "read_as": _read_as(params) if page else None,
        "counted": counted(page, (page.page - 1) * params.size + 1) if page else "",
        "explain_filters": urlencode([(key, value) for key in ("court", "judge", "statute") for value in
                                      getattr(params, key)] + [(key, getattr(params, key)) for key in
                                                               ("date_from", "date_to") if getattr(params, key)]),
        "next_url": _with(params, cursor=page.next_cursor) if page and page.next_cursor else None,
        "prev_url": _prev_url(params, page), "sorts": SORTS,
        "export_url": "/api/v1/export.csv" + _with(params) if page else None,
        "explore_url": "/explore" + _with(params),
        "rank_offset": (page.page - 1) * params.size if page else 0}, status)


def _prev_url(params: SearchParams, page: Any) -> str | None:
    """The previous page: page 1 of a ranked search is the search itself; a sorted search goes back in its point
    in time by the cursor."""
    if page is None or page.page <= 1:
        return None
    if page.page == 2 and page.sort is SortOrder.RELEVANCE:  # the order run (a filter-only search is sorted)
        return _with(params)
    return _with(params, cursor=page.prev_cursor) if page.prev_cursor else None


def _filters_said(params: SearchParams) -> list[str]:
    """The form's filters in words, for the no-match sentence (those typed in the box are in the query)."""
    said = [f"court {c}" for c in params.court] + [f"judge {j}" for j in params.judge]
    said += [f"provision {s}" for s in params.statute]
    said += [f"decided from {params.date_from}"] if params.date_from else []
    said += [f"decided to {params.date_to}"] if params.date_to else []
    return said + [f"role {r.replace('_', ' ')}" for r in params.role]


async def _matched_provisions(request: Request, svc: Service, params: SearchParams,
                              page: SearchPage | None) -> list[dict[str, str]]:
    """The statute provisions the query's words find (BM25 and vectors fused, as ``/api/v1/provisions``),
    shown beside the judgments on a query's first page; none for a filter-only search. A failure here never
    costs the page its judgments."""
    words = _plain_words(params.q)
    if page is None or page.page != 1 or not words.strip():
        return []
    try:
        hits = await with_deadline(request.app.state.heavy_timeout, svc.provisions, words, PROVISIONS_SHOWN)
    except (QueryError, DeadlineExceededError, RatioError):
        return []
    return [{"id": h.provision_id, "url": f"/provisions/{quote(h.provision_id, safe='')}",
             "label": display_label(h.act, h.section, h.title, h.provision_id, h.citation),
             "text": h.text[:160] + ("…" if len(h.text) > 160 else "")} for h in hits]


def _read_as(params: SearchParams) -> str | None:
    """How the box read the query, when it was not read as plain typed words (:mod:`search.query.understand`): a case
    or party name, a citation, a provision, or a pasted text whose quotes and operators are words (so a stray
    quote in a fact pattern is no syntax error). None for typed words and for a search of filters alone."""
    try:
        understood = SearchRequest.from_query(params.q, classify=False).understanding if params.q.strip() else None
    except QueryError:
        return None
    if understood is None or understood.kind is QueryKind.TOPIC:
        return None
    if understood.kind is QueryKind.PASTED:
        whole = ", read whole as a brief is" if understood.whole else ""
        return f"Read as pasted text ({understood.words:,} words{whole}): quotes and operators are not parsed."
    return f"Read as {understood.label}."


def _plain_words(query: str) -> str:
    """The query's words without its syntax (fields, operators), to mark when a passage has no highlights."""
    try:
        return SearchRequest.from_query(query, classify=False).semantic_text or "" if query.strip() else ""
    except QueryError:
        return ""


@router.get("/judgments/{judgment_id}", response_class=HTMLResponse)
def judgment_page(request: Request, judgment_id: str,
                  hl: Annotated[str, Query(max_length=MAX_CHARS, description="Words to mark in the text.")] = ""
                  ) -> HTMLResponse:
    """A judgment in its paragraphs; ``hl`` words are marked, and a fragment ``#s{n}`` (a hit's passage) or
    ``#para-{n}`` (a pinpoint citation) is highlighted by the page's CSS."""
    view = _service(request).judgment(judgment_id) if len(judgment_id) <= 512 else None
    if view is None:
        return _not_found(request, "judgment", judgment_id)
    present = [r for r in ROLES if r["name"] in view.role_counts]
    more_like = more_like_url(view.judgment_id)  # the judgment's text as a brief, itself left out
    by_number = {s.number: s for s in view.sentences}
    rendered = sentences_html([(s.number, s.start, s.text) for s in view.sentences], view.text_links,
                              hl_pattern(hl))
    return _render(request, "judgment.html", {"view": view, "present_roles": present, "more_like": more_like,
                                              "sentence": by_number, "rendered": rendered, "hl": hl})


@router.get("/explore", response_class=HTMLResponse)
async def explore_page(request: Request) -> HTMLResponse:
    params, error = _params(request)
    status = 422 if error else 200
    view = None
    if error is None:
        try:
            view = await with_deadline(request.app.state.heavy_timeout, _service(request).explore, params)
        except QueryError as exc:
            error, status = str(exc), 400
        except DeadlineExceededError as exc:
            error, status = str(exc), 503
    links = {}
    applied = chips(params)
    if view is not None:
        words = _has_words(params.q)
        for name, facet in (("years", "year"), ("courts", "court"), ("roles", "role"),
                            ("provisions", "cited_provisions"), ("judges", "judges")):
            # a role only says where to look, so a role bar links to a search only when there are words
            buckets = [_bucket(b) for b in getattr(view, name)]
            links[name] = facet_links(params, facet, buckets, applied, limit=None, link=words or name != "roles")
        # a cited case: its name, then its parallel reports (counted together: search.graph.most_cited)
        links["cited_judgments"] = [FacetLink(b.key, _case_label(b), b.judgments, _add_filter(params, b.filter))
                                    for b in view.cited_judgments]
        # Acts, then their sections: a section the corpus holds links to its page (whose list counts sub-sections as
        # this count does); one it does not hold, to a search for judgments citing it
        links["acts"] = [(act, [FacetLink(b.key, f"{b.key} — {b.title}" if b.title else b.key, b.judgments,
                                          _add_filter(params, b.filter),
                                          page=_bucket(b).get("link")) for b in act.sections])
                         for act in view.acts]
    return _render(request, "explore.html", {
        "params": params, "view": view, "error": error, "links": links,
        "search_url": _with(params), "export_url": "/api/v1/export.csv" + _with(params),
        "chips": applied, "clear_url": clear_all(params), "year_fields": hidden_fields(params, "date_from", "date_to")},
        status)


def _case_label(bucket: Any) -> str:
    """``State of Karnataka v. Umadevi — (2006) 4 SCC 1; 2006 Indlaw SC 125``: a cited case and its reports."""
    reports = [c for c in bucket.citations if " v. " not in c and c != bucket.key]
    return f"{bucket.key} — {'; '.join(reports)}" if reports else bucket.key


def _bucket(bucket: Any) -> dict[str, Any]:
    """An Explore bucket as :func:`ratio.web.chips.facet_links` reads it (a provision's title and page with it)."""
    out = {"key": bucket.key, "judgments": bucket.judgments}
    if getattr(bucket, "provision_id", None):
        out.update(title=bucket.title, link=f"/provisions/{quote(bucket.provision_id, safe='')}")
    return out


def _has_words(query: str) -> bool:
    try:
        return bool(SearchRequest.from_query(query, classify=False).semantic_text) if query.strip() else False
    except QueryError:
        return False


CITING_SORTS = [(SortOrder.NEWEST, "Newest first"), (SortOrder.CITED_BY, "Most cited")]
MAPPING_STATUS = {"given": "Act and section given by the source",
                  "mapped": "Act and section mapped from the judgments that quote it",
                  "ambiguous": "Ambiguous: too few of the judgments quoting it agree on one Act and section to map it",
                  "unmapped": "Unmapped: no Act and section could be found for it in the corpus's judgments"}


def _citing_options(page: str, sort: str) -> tuple[int, SortOrder]:
    """The provision page's ``page`` and ``sort`` from its query string; anything else reads as the first page,
    newest first (a link with a stale value still shows the list)."""
    number = int(page) if page.isdigit() and 0 < len(page) <= 4 else 1
    order = next((o for o, _ in CITING_SORTS if o.value == sort), SortOrder.NEWEST)
    return max(1, min(number, 10_000 // CITING_SIZE)), order


def _citing_url(provision_id: str, page: int, sort: SortOrder) -> str:
    query = {k: v for k, v in (("sort", sort.value if sort is not SortOrder.NEWEST else ""),
                               ("page", str(page) if page > 1 else "")) if v}
    return f"/provisions/{quote(provision_id, safe='')}" + ("?" + urlencode(query) if query else "") + "#citing"


def _page_numbers(current: int, last: int) -> list[int | None]:
    """The page links to show: the first, the last, and two either side of the current one (None: a gap)."""
    shown = sorted({1, last, *range(max(1, current - 2), min(last, current + 2) + 1)})
    out: list[int | None] = []
    for n in shown:
        if out and out[-1] is not None and n - out[-1] > 1:
            out.append(None)
        out.append(n)
    return out


@router.get("/provisions/{provision_id}", response_class=HTMLResponse)
def provision_page(request: Request, provision_id: str,
                   page: Annotated[str, Query(max_length=8)] = "1",
                   sort: Annotated[str, Query(max_length=20)] = "newest") -> HTMLResponse:
    """A provision: its Act, section and chapter, how its Act and section were found (its mapping, with the
    evidence), its text, and the judgments citing it (or a sub-section of it), paged, newest or most cited first,
    each with the sentence that cites it."""
    svc = _service(request)
    provision = svc.provision(provision_id) if len(provision_id) <= 512 else None
    if provision is None:
        return _not_found(request, "provision", provision_id)
    number, order = _citing_options(page, sort)
    cited = provision.get("citation")
    search_url = _with(SearchParams(), q=f'statute:"{cited}"') if cited else None
    citing = svc.citing(provision, number, CITING_SIZE, order)
    pages = [(n, _citing_url(provision_id, n, order) if n else None) for n in _page_numbers(number, citing.pages)]
    mapping = provision.get("mapping") or {}
    return _render(request, "provision.html", {
        "provision": provision, "search_url": search_url, "citing": citing, "pages": pages,
        "sorts": [(label, _citing_url(provision_id, 1, o), o is order) for o, label in CITING_SORTS],
        "prev_url": _citing_url(provision_id, number - 1, order) if number > 1 else None,
        "next_url": _citing_url(provision_id, number + 1, order) if number < citing.pages else None,
        "first": (number - 1) * citing.size + 1, "mapping": mapping,
        "mapping_said": MAPPING_STATUS.get(str(mapping.get("status") or "")),
        "unit": "Article" if " art. " in (cited or "") else "Section"})


@router.get("/ui/explain", response_class=HTMLResponse)
async def explain_fragment(request: Request, q: Annotated[str, Query(max_length=MAX_CHARS)] = "",
                           judgment_id: Annotated[str, Query(max_length=512)] = "") -> HTMLResponse:
    """One hit's explanation as a small HTML fragment, fetched by the search page after it has rendered
    (under the app's deadline: it may call the LLM). The search's filters come along (``court``, ``judge``,
    ``statute``, ``date_from``, ``date_to``), so a filter-only search's hit is explained by them. An unknown
    judgment is a 404 fragment."""
    params, error = _params(request)
    filters = {} if error else ExplainParams(q=q, judgment_id=judgment_id or "-", court=params.court,
                                             judge=params.judge, statute=params.statute, date_from=params.date_from,
                                             date_to=params.date_to).filters()
    if error or not judgment_id or not (q.strip() or filters):
        return HTMLResponse("", status_code=400)
    svc = _service(request)
    timeout = request.app.state.heavy_timeout
    if not await with_deadline(timeout, svc.judgment_exists, judgment_id):
        return HTMLResponse(f'<span class="muted">The corpus has no judgment {Markup.escape(repr(judgment_id))}.'
                            '</span>', status_code=404)
    try:
        explanation = await with_deadline(timeout, partial(svc.explain, q, judgment_id, **filters))
    except (QueryError, LookupError) as exc:
        return HTMLResponse(f'<span class="muted">{Markup.escape(str(exc))}</span>', status_code=400)
    except DeadlineExceededError as exc:
        return HTMLResponse(f'<span class="muted">{Markup.escape(str(exc))}</span>', status_code=503)
    return _render(request, "_explanation.html", {"explanation": explanation})


FAVICON = Path(__file__).with_name("static") / "favicon.svg"


@router.get("/favicon.ico")
def favicon() -> FileResponse:
    """The site's icon where browsers and tools look for it without a ``<link rel="icon">`` (the pages name
    ``/static/favicon.svg``): the same SVG, as SVG, so the path answers instead of 404."""
    return FileResponse(FAVICON, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})
