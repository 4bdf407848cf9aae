"""Loaders turn files into :class:`~indexer.document.Judgment` and :class:`~indexer.document.Provision`
objects, and every file they cannot read into a :class:`~indexer.document.LoadError`.

Use :func:`load`; the per-format loaders are public for callers that already know the format.
"""

from indexer.loaders._common import DEFAULT_JUDGMENT_SECONDS, DEFAULT_MAX_BYTES, LoadOptions
from indexer.loaders.dispatch import Loaded, iter_files, load, loader_for
from indexer.loaders.html import html_to_text, load_html
from indexer.loaders.pdf import load_pdf
from indexer.loaders.records import load_json, load_jsonl, record_to_judgment
from indexer.loaders.text import load_text, parse_statute

__all__ = [
    "DEFAULT_JUDGMENT_SECONDS",
    "DEFAULT_MAX_BYTES",
    "LoadOptions",
    "Loaded",
    "html_to_text",
    "iter_files",
    "load",
    "load_html",
    "load_json",
    "load_jsonl",
    "load_pdf",
    "load_text",
    "loader_for",
    "parse_statute",
    "record_to_judgment",
]
