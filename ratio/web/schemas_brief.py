"""The request shapes of ``POST /api/v1/search/document``: a brief as the query (JSON text or an uploaded file).

The answer is :class:`ratio.results.BriefPage` (beside the clients, which return it too): a hit is a search hit
(:class:`search.hits.JudgmentHit`'s fields) plus ``matched``: the parts of the brief it matched
(:class:`search.brief.MatchedPart`) and ``evidence``, the ranker's strongest.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ratio.briefs import MAX_BRIEF_BYTES, MAX_UPLOAD_BYTES
from search.query.options import MAX_SIZE
from search.query.syntax import MAX_CHARS

__all__ = ["MAX_DOCUMENT_SIZE", "DocumentOptions", "DocumentSearchBody", "multipart_schema"]

MAX_DOCUMENT_SIZE = min(MAX_SIZE, 50)  # judgments per brief search: each is explained part by part
MAX_LIST = 20


class DocumentOptions(BaseModel):
    """What may go with a brief: how many judgments, filters every hit must satisfy, a judgment to leave out."""

    model_config = ConfigDict(extra="forbid")

    size: int = Field(10, ge=1, le=MAX_DOCUMENT_SIZE, description="Judgments to return.")
    court: list[str] = Field(default_factory=list, max_length=MAX_LIST, description="Only these courts.")
    date_from: str | None = Field(None, max_length=20, description="Decided on or after (YYYY, YYYY-MM-DD).")
    date_to: str | None = Field(None, max_length=20, description="Decided on or before.")
    exclude: str | None = Field(None, min_length=1, max_length=512,
                                description="A judgment id to leave out (the brief's own, when it is a judgment "
                                            "of the corpus).")


class DocumentSearchBody(DocumentOptions):
    """A brief as JSON: its text and the options."""

    text: str = Field(min_length=1, max_length=MAX_BRIEF_BYTES,
                      description=f"The brief, a draft or a judgment, whole (up to {MAX_BRIEF_BYTES:,} bytes of "
                                  "UTF-8); read whole, not cut to the query limit.")


def _option_properties() -> dict[str, Any]:
    schema = DocumentOptions.model_json_schema()
    return schema["properties"]


def multipart_schema() -> dict[str, Any]:
    """The multipart form's schema: a ``file`` (``.txt`` or ``.pdf``) or a ``text`` field, and the options."""
    return {"type": "object", "additionalProperties": False,
            "properties": {
                "file": {"type": "string", "format": "binary",
                         "description": f"The brief as a .txt (UTF-8) or .pdf file (text layer), up to "
                                        f"{MAX_UPLOAD_BYTES:,} bytes."},
                "text": {"type": "string", "maxLength": MAX_BRIEF_BYTES, "description": "The brief as text "
                         "(when no file is given)."},
                **_option_properties()}}


def json_schema() -> dict[str, Any]:
    return DocumentSearchBody.model_json_schema()


assert MAX_CHARS < MAX_BRIEF_BYTES  # a brief is searched whole: far past what a typed query may hold
