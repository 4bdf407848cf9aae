"""``POST /api/v1/search/document``: a brief as the query, sent as JSON text or uploaded as a file; and ``GET
/api/v1/provisions/{provision_id}``: one provision as a document, with the judgments citing it.

The route takes either body: ``application/json`` (:class:`~ratio.web.schemas_brief.DocumentSearchBody`) or
``multipart/form-data`` with a ``file`` (``.txt``, ``.pdf``) or a ``text`` field and the same options as form
fields. Both are declared in the OpenAPI spec (FastAPI cannot declare two bodies for one route, so the route
reads the body itself and publishes both shapes by hand). The brief is read with the loaders' checks
(:mod:`ratio.briefs`): empty 400 ``empty_brief``, too large 413 ``brief_too_large``, binary or not UTF-8 415
``not_text``, a word-processor or other file 415 ``unsupported_type``, a damaged, encrypted or scanned PDF 422
``unreadable_pdf``. Reading and ranking run off the event loop under the app's deadline, which also stops the
search's OpenSearch work (:func:`ratio.web.offload.with_deadline`); a few run at once (:class:`ratio.web.offload.Gate`),
a few more wait, the rest get 503 ``busy`` with ``Retry-After``.

A provision's document is what its page shows (:func:`ratio.web.pages.provision_page`): its Act, section, chapter,
text and mapping, and a page of the judgments citing it (or a sub-section of it) with the exact ``total``, ``page``,
``size``, ``sort`` (``newest`` or ``cited_by``) and, for each judgment, the sentence that cites it.
"""

from __future__ import annotations

from functools import partial
from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field, ValidationError
from python_multipart.exceptions import MultipartParseError
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException

from ratio.briefs import (
    MAX_BRIEF_BYTES,
    MAX_UPLOAD_BYTES,
    BriefError,
    BriefTooLargeError,
    read_brief,
    validate_brief,
)
from ratio.errors import NotFoundError
from ratio.results import BriefPage
from ratio.web.api import ERRORS, NOT_FOUND, ServiceDep, heavy, page_url
from ratio.web.schemas import ErrorResponse
from ratio.web.schemas_brief import DocumentOptions, DocumentSearchBody, json_schema, multipart_schema
from search.provisions.retrieve import CITING_PAGE_SIZE, MAX_CITING_PAGE_SIZE, CitingJudgment
from search.query.errors import BadValueError
from search.query.options import SortOrder

__all__ = ["router"]

router = APIRouter(prefix="/api/v1", responses=ERRORS)
FORM_FIELDS = frozenset({"file", "text", *DocumentOptions.model_fields})
BRIEF_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorResponse, "description": "The brief is over the size limit (brief_too_large)."},
    415: {"model": ErrorResponse, "description": "The brief is not text (not_text), or a file Ratio does not "
                                                 "read (unsupported_type), or the body is neither JSON nor a form."},
    422: {"model": ErrorResponse, "description": "The request does not match the schema, or the PDF cannot be "
                                                 "read (unreadable_pdf: damaged, encrypted, or scanned)."},
}
REQUEST_BODY = {"required": True, "content": {"application/json": {"schema": json_schema()},
                                              "multipart/form-data": {"schema": multipart_schema()}}}


class UnsupportedMediaError(BriefError):
    status, code = 415, "unsupported_media_type"


def _invalid(errors: list[Any]) -> RequestValidationError:
    return RequestValidationError([{**e, "loc": ("body", *e.get("loc", ()))} for e in errors])


def _options(raw: dict[str, Any], model: type[DocumentOptions]) -> DocumentOptions:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise _invalid(exc.errors(include_url=False, include_context=False, include_input=False)) from None


async def _from_json(request: Request) -> tuple[DocumentOptions, bytes, str]:
    try:
        raw = await request.json()
    except ValueError:
        raise _invalid([{"type": "json_invalid", "loc": (), "msg": "the body is not valid JSON"}]) from None
    if not isinstance(raw, dict):
        raise _invalid([{"type": "model_type", "loc": (), "msg": "the body must be a JSON object"}])
    body = _options(raw, DocumentSearchBody)
    assert isinstance(body, DocumentSearchBody)
    return body, body.text.encode("utf-8", "surrogatepass"), "text"


async def _from_form(request: Request) -> tuple[DocumentOptions, bytes, str]:
    try:
        form = await request.form(max_files=1, max_fields=2 * len(FORM_FIELDS) + 20,
                                  max_part_size=MAX_BRIEF_BYTES + 1024)
    except (MultiPartException, MultipartParseError) as exc:
        message = str(getattr(exc, "message", exc))
        if "size" in message.lower() or "exceeded" in message.lower():
            raise BriefTooLargeError(f"a form field is over the limit of {MAX_BRIEF_BYTES:,} bytes: upload the "
                                     "brief as a file") from None
        raise _invalid([{"type": "multipart", "loc": (), "msg": f"the form cannot be read: {message}"}]) from None
    unknown = sorted(set(form.keys()) - FORM_FIELDS)
    if unknown:
        raise _invalid([{"type": "extra_forbidden", "loc": (name,), "msg": "Extra inputs are not permitted"}
                        for name in unknown[:5]])
    raw: dict[str, Any] = {}
    for key in DocumentOptions.model_fields:
        values = [v for v in form.getlist(key) if isinstance(v, str)]
        if key == "court":
            raw[key] = values
        elif values:
            raw[key] = values[0]
    options = _options(raw, DocumentOptions)
    upload = form.get("file")
    if isinstance(upload, UploadFile):
        data = await upload.read(MAX_UPLOAD_BYTES + 1)
        name = upload.filename or "brief.txt"
        return options, data, ("pdf" if name.lower().endswith(".pdf") or data.lstrip()[:5] == b"%PDF-" else "txt")\
            + ":" + name
    text = upload if isinstance(upload, str) and upload.strip() else form.get("text")
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else b""
    return options, data, "text"


def _read(data: bytes, source: str) -> str:
    if source == "text":
        return validate_brief(data.decode("utf-8", "surrogatepass"))
    return read_brief(data, source.partition(":")[2])


@router.post("/search/document", response_model=BriefPage, tags=["search"], responses=BRIEF_ERRORS,
             openapi_extra={"requestBody": REQUEST_BODY})
async def search_document(request: Request, svc: ServiceDep) -> BriefPage:
    """Precedents for a brief (a draft, a judgment), read whole: the learned ranker's document path (what
    ``ratio.Client.search_by_document`` ranks), with each judgment's best passages and the parts of the brief
    it matched: provisions and precedents cited by both, the brief's citation contexts that found it, and the
    brief's sentences matching its facts or the issues it frames. Send JSON ``{"text": ...}`` or a multipart
    form with a ``file`` (.txt or .pdf) or ``text``; options ``size``, ``court``, ``date_from``, ``date_to``,
    ``exclude`` (a judgment id to leave out)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == "multipart/form-data":
        options, data, source = await _from_form(request)
    elif content_type in ("application/json", ""):
        options, data, source = await _from_json(request)
    else:
        raise UnsupportedMediaError(f"send the brief as JSON or as a multipart form, not {content_type!r}")
    async with request.app.state.document_searches.admit(request.app.state.heavy_timeout):  # bounded: 503 busy
        text = await heavy(request, _read, data, source)
        search = partial(svc.client.search_by_document, exclude=options.exclude, courts=options.court,
                         date_from=options.date_from, date_to=options.date_to, source=source.partition(":")[0])
        return await heavy(request, search, text, options.size)


# ---------------------------------------------------------------- a provision and the judgments citing it

class CitingPage(BaseModel):
    """A page of the judgments citing a provision: ``total`` is exact, ``pages`` how many pages of ``size``."""

    total: int
    page: int
    size: int
    pages: int
    sort: Literal["newest", "cited_by"]
    judgments: list[CitingJudgment]
    next: str | None = Field(None, description="The URL of the next page of citing judgments (absolute, the same "
                             "size and sort); null on the last.")


class ProvisionDocument(BaseModel):
    """A provision as its page shows it: ``label`` (``IPC, section 302 — Punishment for murder``), the Act,
    section, chapter and canonical citation when known, the ``mapping`` that found them (status ``given``,
    ``mapped``, ``ambiguous`` or ``unmapped``, confidence, supporting judgments, evidence sentences; None for a
    provision never mapped), its text, and the judgments citing it."""

    provision_id: str
    label: str
    act: str | None = None
    section: str | None = None
    citation: str | None = None
    chapter: str | None = None
    title: str | None = None
    text: str = ""
    source: str | None = None
    mapping: dict[str, Any] | None = None
    citing: CitingPage


CITING_WINDOW = 10_000  # the citing judgments one can page to (OpenSearch's from + size window)
ProvisionId = Annotated[str, Path(min_length=1, max_length=512, description="The provision's id.")]


def _provision_document(svc: Any, provision_id: str, page: int, size: int, sort: SortOrder) -> ProvisionDocument:
    provision = svc.provision(provision_id)
    if provision is None:
        raise NotFoundError(f"the corpus has no provision {provision_id!r}")
    citing = svc.citing(provision, page, size, sort)
    return ProvisionDocument(
        **{k: provision.get(k) for k in ("provision_id", "label", "act", "section", "citation", "chapter", "title",
                                         "source", "mapping")}, text=provision.get("text") or "",
        citing=CitingPage(total=citing.total, page=citing.page, size=citing.size, pages=citing.pages,
                          sort=citing.sort.value, judgments=list(citing.judgments)))


@router.get("/provisions/{provision_id}", response_model=ProvisionDocument, responses=NOT_FOUND, tags=["provisions"])
async def provision(provision_id: ProvisionId, svc: ServiceDep, request: Request,
                    page: Annotated[int, Query(ge=1, le=CITING_WINDOW,
                                               description="Which page of the citing judgments.")] = 1,
                    size: Annotated[int, Query(ge=1, le=MAX_CITING_PAGE_SIZE,
                                               description="Citing judgments per page.")] = CITING_PAGE_SIZE,
                    sort: Annotated[Literal["newest", "cited_by"],
                                    Query(description="Newest first, or most cited first.")] = "newest",
                    ) -> ProvisionDocument:
    """A provision (Act, section, chapter, text, and how its Act and section were found) with a page of the corpus
    judgments citing it or a sub-section of it: the exact total, newest or most cited first, each judgment with the
    sentence that cites it and how many judgments cite it."""
    if page * size > CITING_WINDOW:
        raise BadValueError(f"page {page} of {size} goes past the first {CITING_WINDOW:,} citing judgments: use "
                            "larger pages or the search (statute:\"...\")")
    document = await heavy(request, _provision_document, svc, provision_id, page, size, SortOrder(sort))
    if page < document.citing.pages and (page + 1) * size <= CITING_WINDOW:
        document.citing.next = page_url(request, f"/api/v1/provisions/{quote(provision_id, safe='')}",
                                        [("page", str(page + 1)), ("size", str(size)), ("sort", sort)])
    return document
