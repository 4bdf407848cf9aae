"""The brief page: "Search with a brief" (paste or upload) and "More like this judgment".

``GET /brief`` shows the form; ``POST /brief`` (a multipart form, so a file can come with it, and no script is
needed) searches with the pasted text or the uploaded ``.txt``/``.pdf``; ``GET /brief?like=ID`` searches with a
judgment's own text as the brief, leaving the judgment itself out: what "More like this judgment" links to on
the judgment page and in every hit list. Results are those of ``POST /api/v1/search/document`` (the same
service call), each hit with the parts of the brief it matched.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from opensearchpy.exceptions import NotFoundError as OSNotFoundError
from pydantic import ValidationError
from python_multipart.exceptions import MultipartParseError
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException

from ratio.briefs import MAX_BRIEF_BYTES, MAX_UPLOAD_BYTES, BriefError, read_brief, validate_brief
from ratio.errors import NotFoundError, RatioError
from ratio.results import BriefPage, passage_link
from ratio.web.offload import DeadlineExceededError, PoolBusyError, with_deadline
from ratio.web.passages import highlight_words
from ratio.web.schemas_brief import MAX_DOCUMENT_SIZE, DocumentOptions
from search.query.errors import QueryError

__all__ = ["more_like_url", "router"]

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=Path(__file__).with_name("templates"))
PART_TITLES = {"provisions": "Provisions", "precedents": "Precedents", "cited_by_brief": "Cited by the brief",
               "contexts": "Citation contexts", "facts": "Facts", "issues": "Issues", "passages": "Passages"}


def more_like_url(judgment_id: str) -> str:
    """The brief page run with this judgment as the brief (itself left out)."""
    return f"/brief?like={quote(judgment_id, safe='')}"


def _passage_link(judgment_id: str, passage: Any) -> str:
    """The judgment opened at the passage, its highlighted words marked (as the search page links it)."""
    return passage_link(judgment_id, getattr(passage, "sentence_start", None), highlight_words(passage.highlights))


def _render(request: Request, context: dict[str, Any], status: int = 200) -> HTMLResponse:
    base = {"mark": Markup, "passage_link": _passage_link, "more_like_url": more_like_url, "part_titles": PART_TITLES,
            "max_size": MAX_DOCUMENT_SIZE,
            "max_upload": MAX_UPLOAD_BYTES, "max_brief": MAX_BRIEF_BYTES, "options": DocumentOptions(),
            "text": "", "result": None, "error": None, "like": None}
    return templates.TemplateResponse(request, "brief.html", {**base, **context}, status_code=status)


def _options(raw: dict[str, Any]) -> DocumentOptions:
    try:
        return DocumentOptions.model_validate({k: v for k, v in raw.items() if v not in (None, "", [])})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
        raise BriefError(problems) from None


async def _search(request: Request, text: str, options: DocumentOptions) -> BriefPage:
    client = request.app.state.service.client
    search = partial(client.search_by_document, exclude=options.exclude, courts=options.court,
                     date_from=options.date_from, date_to=options.date_to)
    async with request.app.state.document_searches.admit(request.app.state.heavy_timeout):  # as the API's
        return await with_deadline(request.app.state.heavy_timeout, search, text, options.size)


@router.get("/brief", response_class=HTMLResponse)
async def brief_form(request: Request) -> HTMLResponse:
    like = request.query_params.get("like", "")
    if not like:
        return _render(request, {})
    client = request.app.state.service.client
    timeout = request.app.state.heavy_timeout
    try:
        if len(like) > 512:
            raise NotFoundError(f"the corpus has no judgment {like[:60]!r}...")
        judgment = await with_deadline(timeout, client.record, like)  # its stored text, the brief
    except (NotFoundError, OSNotFoundError):
        return _render(request, {"error": f"The corpus has no judgment {like!r}."}, 404)
    except RatioError as exc:  # an id OpenSearch refuses, an unreachable cluster: said, never a 500
        return _render(request, {"error": exc.message or exc.code}, exc.status)
    except DeadlineExceededError as exc:
        return _render(request, {"error": str(exc)}, 503)
    options = DocumentOptions(exclude=like)
    try:
        result = await _search(request, judgment.text or judgment.title or like, options)
    except QueryError as exc:
        return _render(request, {"error": str(exc)}, getattr(exc, "status", 400))
    except (DeadlineExceededError, PoolBusyError) as exc:
        return _render(request, {"error": str(exc)}, 503)
    return _render(request, {"result": result, "like": judgment, "options": options})


@router.post("/brief", response_class=HTMLResponse)
async def brief_search(request: Request) -> HTMLResponse:
    try:
        form = await request.form(max_files=1, max_fields=40, max_part_size=MAX_BRIEF_BYTES + 1024)
    except (MultiPartException, MultipartParseError) as exc:
        return _render(request, {"error": f"The form could not be read: {getattr(exc, 'message', exc)}"}, 400)
    pasted = form.get("text")
    text = pasted if isinstance(pasted, str) else ""
    raw = {"size": form.get("size"), "court": [c for c in form.getlist("court") if isinstance(c, str) and c.strip()],
           "date_from": form.get("date_from"), "date_to": form.get("date_to"), "exclude": form.get("exclude")}
    context: dict[str, Any] = {"text": text}
    timeout = request.app.state.heavy_timeout
    try:
        options = _options(raw)
        context["options"] = options
        upload = form.get("file")
        if isinstance(upload, UploadFile) and upload.filename:
            data = await upload.read(MAX_UPLOAD_BYTES + 1)
            brief = await with_deadline(timeout, read_brief, data, upload.filename)
            context["uploaded"] = upload.filename
        else:
            brief = await with_deadline(timeout, validate_brief, text)
        context["result"] = await _search(request, brief, options)
    except QueryError as exc:
        return _render(request, {**context, "error": str(exc)}, getattr(exc, "status", 400))
    except (DeadlineExceededError, PoolBusyError) as exc:
        return _render(request, {**context, "error": str(exc)}, 503)
    return _render(request, context)
