"""Judgments as PDF files, read from their text layer with pypdf.

pypdf is pure Python and well maintained, so it installs everywhere the indexer runs. Pages are joined
with a blank line (a page break is at least a paragraph break). A PDF without a text layer (a scan)
is reported as a LoadError: OCR is a separate step, not a silent empty judgment. A PDF of a bare Act becomes one
provision per section (:mod:`indexer.loaders.act`).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

from indexer.document import Judgment, LoadError, Provision, judgment_id_for
from indexer.loaders._common import LoadOptions, build_judgment, read_bounded
from indexer.loaders.act import act_items

__all__ = ["load_pdf"]

# pypdf signals a damaged file with its own errors but also with assorted built-in ones from deep in
# its parser; all of them mean "this file cannot be read", and one such file must not stop a batch.
_PDF_FAILURES: tuple[type[BaseException], ...] = (
    ValueError,
    KeyError,
    TypeError,
    IndexError,
    AttributeError,
    OSError,
    RecursionError,
    ZeroDivisionError,
    AssertionError,
)


def _extract(data: bytes) -> tuple[str, int]:
    from pypdf import PdfReader  # imported on use: only PDF loading needs it

    reader = PdfReader(io.BytesIO(data), strict=False)
    if reader.is_encrypted and not reader.decrypt(""):
        raise PermissionError("encrypted PDF that needs a password")
    pages = [page.extract_text() or "" for page in reader.pages]
    return "\n\n".join(p.strip("\n") for p in pages), len(pages)


def load_pdf(path: Path, options: LoadOptions) -> Iterator[Judgment | Provision | LoadError]:
    """Yield the judgment in one PDF file (or each section of a bare Act), or one LoadError."""
    from pypdf.errors import PyPdfError

    data = read_bounded(path, options)
    if isinstance(data, LoadError):
        yield data
        return
    if not data.strip():
        yield LoadError(str(path), "empty file")
        return
    if not data.lstrip()[:5].startswith(b"%PDF"):
        yield LoadError(str(path), "not a PDF file (no %PDF signature)")
        return
    try:
        text, page_count = _extract(data)
    except PermissionError as exc:
        yield LoadError(str(path), str(exc))
        return
    except (PyPdfError, *_PDF_FAILURES) as exc:
        yield LoadError(str(path), f"corrupt PDF: {type(exc).__name__}: {exc}")
        return
    if not text.strip():
        yield LoadError(str(path), f"PDF has no text layer ({page_count} pages; scanned? OCR it first)")
        return
    sections = act_items(text, path, options, where="line of its text")
    if sections is not None:
        yield from sections
        return
    yield build_judgment(
        judgment_id_for(path, prefix=options.id_prefix),
        text,
        "pdf",
        options,
        source_path=str(path),
        fields={"extra": {"pages": page_count}},
    )
