"""``POST /api/v1/search/document``: a brief as the query, sent as JSON text or uploaded as a file.

The route takes either body: ``application/json`` (:class:`~ratio.web.schemas_brief.DocumentSearchBody`) or
``multipart/form-data`` with a ``file`` (``.txt``, ``.pdf``) or a ``text`` field and the same options as form
fields. Both are declared in the OpenAPI spec (FastAPI cannot declare two bodies for one route, so the route
reads the body itself and publishes both shapes by hand). The brief is read with the loaders' checks
(:mod:`ratio.briefs`): empty 400 ``empty_brief``, too large 413 ``brief_too_large``, binary or not UTF-8 415
``not_text``, a word-processor or other file 415 ``unsupported_type``, a damaged, encrypted or scanned PDF 422
``unreadable_pdf``. Reading and ranking run off the event loop under the app's deadline.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
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
from ratio.web.api import ERRORS, ServiceDep, heavy
from ratio.web.schemas import ErrorResponse
from ratio.web.schemas_brief import BriefPage, DocumentOptions, DocumentSearchBody, json_schema, multipart_schema

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
    text = await heavy(request, _read, data, source)
    search = partial(svc.client.search_by_document, exclude=options.exclude, courts=options.court,
                     date_from=options.date_from, date_to=options.date_to, source=source.partition(":")[0])
    return await heavy(request, search, text, options.size)
