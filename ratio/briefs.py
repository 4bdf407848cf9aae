"""Reading a brief handed to Ratio as text or as a file (``.txt``, ``.pdf``): the loaders' checks, one error each.

A brief comes from a paste, an upload or ``ratio search --document FILE``. It is read with the indexer's own
loaders (:mod:`indexer.loaders`), so it meets the checks every indexed file meets: a size cap before anything
is decoded, a NUL byte or more than 1% control characters refuses it as binary, stray control characters are
removed, and a PDF is read from its text layer by pypdf (a scan, an encrypted or a damaged PDF is refused,
saying which). Each refusal is a :class:`BriefError` (a ``QueryError``) whose ``status`` and ``code`` the API
answers with. Word files are not read: no ``.docx`` reader is a dependency (save the brief as PDF or text).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from indexer.document import Judgment, LoadError
from indexer.loaders import LoadOptions, load_pdf
from indexer.loaders._common import decode_text, remove_controls
from search.query.errors import QueryError

__all__ = ["MAX_BRIEF_BYTES", "MAX_UPLOAD_BYTES", "BriefError", "BriefTooLargeError", "EmptyBriefError",
           "NotTextError", "UnreadablePdfError", "UnsupportedBriefError", "read_brief", "read_brief_file",
           "validate_brief"]

MAX_BRIEF_BYTES = 1_000_000  # the text of a brief (UTF-8): a long brief is ~200 kB, a long judgment ~1 MB
MAX_UPLOAD_BYTES = 10_000_000  # an uploaded file: a PDF weighs several times its text
TEXT_SUFFIXES = (".txt", ".text", ".md")
PDF_SUFFIXES = (".pdf",)


class BriefError(QueryError):
    """A brief that cannot be searched with; ``status`` and ``code`` are what the API answers."""

    status = 400
    code = "bad_brief"


class EmptyBriefError(BriefError):
    status, code = 400, "empty_brief"


class BriefTooLargeError(BriefError):
    status, code = 413, "brief_too_large"


class NotTextError(BriefError):
    status, code = 415, "not_text"


class UnsupportedBriefError(BriefError):
    status, code = 415, "unsupported_type"


class UnreadablePdfError(BriefError):
    status, code = 422, "unreadable_pdf"


def _options(max_bytes: int) -> LoadOptions:
    # header metadata and citations are the ranker's business (its query profile): read the text only
    return LoadOptions(max_bytes=max_bytes, fallback_encoding=None, extract_metadata=False, extract_citations=False)


def _checked(text: str) -> str:
    text, _ = remove_controls(text)
    if not text.strip():
        raise EmptyBriefError("the brief is empty: paste its text or upload a .txt or .pdf file")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BRIEF_BYTES:
        raise BriefTooLargeError(f"the brief's text is {size:,} bytes, over the limit of {MAX_BRIEF_BYTES:,}: "
                                 "search with its facts and issues, or a part of it")
    return text


def validate_brief(text: str) -> str:
    """A pasted brief as it will be searched (control characters removed), or a :class:`BriefError`."""
    if not isinstance(text, str):
        raise NotTextError(f"the brief must be text, not {type(text).__name__}")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise NotTextError(f"the brief holds characters that are not valid Unicode (at character {exc.start + 1})"
                           ) from exc
    return read_brief(data, "brief.txt")


def _kind(name: str, data: bytes) -> str:
    lower = name.lower()
    if lower.endswith(PDF_SUFFIXES) or data.lstrip()[:5].startswith(b"%PDF"):
        return "pdf"
    if lower.endswith(TEXT_SUFFIXES) or "." not in Path(lower).name:
        return "text"
    if lower.endswith((".docx", ".doc", ".odt", ".rtf")):
        raise UnsupportedBriefError(f"{Path(name).name!r} is a word-processor file, which Ratio does not read: "
                                    "save the brief as PDF or plain text")
    raise UnsupportedBriefError(f"{Path(name).name!r} is not a brief Ratio can read: give a .txt or .pdf file")


def read_brief(data: bytes, name: str = "brief.txt") -> str:
    """The text of a brief given as the bytes of a file called ``name`` (its suffix, or a ``%PDF`` signature,
    says PDF or text), or a :class:`BriefError` saying why it cannot be read."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise BriefTooLargeError(f"the file is {len(data):,} bytes, over the limit of {MAX_UPLOAD_BYTES:,}")
    if not data.strip():
        raise EmptyBriefError("the brief is empty: paste its text or upload a .txt or .pdf file")
    if _kind(name, data) == "pdf":
        return _checked(_pdf_text(data))
    if len(data) > MAX_BRIEF_BYTES:
        raise BriefTooLargeError(f"the brief is {len(data):,} bytes of text, over the limit of "
                                 f"{MAX_BRIEF_BYTES:,}: search with its facts and issues, or a part of it")
    decoded = decode_text(data, name, _options(MAX_BRIEF_BYTES))
    if isinstance(decoded, LoadError):
        raise NotTextError(f"the brief is not plain UTF-8 text ({decoded.reason}): save it as UTF-8 text or PDF")
    return _checked(decoded[0])


def _pdf_text(data: bytes) -> str:
    """The PDF's text layer through the indexer's PDF loader (its checks: signature, encryption, damage, scans)."""
    with tempfile.TemporaryDirectory(prefix="ratio-brief-") as folder:
        path = Path(folder) / "brief.pdf"
        path.write_bytes(data)
        loaded = next(iter(load_pdf(path, _options(MAX_UPLOAD_BYTES))))
    if isinstance(loaded, LoadError):
        reason = loaded.reason
        if reason == "empty file":
            raise EmptyBriefError("the PDF is empty")
        raise UnreadablePdfError(f"the PDF cannot be read: {reason}")
    assert isinstance(loaded, Judgment)
    return loaded.text


def read_brief_file(path: str | Path) -> str:
    """The text of a brief on disk (``ratio search --document FILE``), or a :class:`BriefError`."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_UPLOAD_BYTES:
            raise BriefTooLargeError(f"{path.name} is {size:,} bytes, over the limit of {MAX_UPLOAD_BYTES:,}")
        data = path.read_bytes()
    except OSError as exc:
        raise BriefError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return read_brief(data, path.name)
