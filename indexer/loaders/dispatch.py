"""The single entry point: expand paths, pick a loader per file, stream what they yield.

Files are chosen by extension; a file named explicitly with an unknown extension is sniffed by its
first bytes (``%PDF``, ``<html``, ``{``/``[``, else text). A directory is walked recursively in sorted
order, and only files with a known extension are taken from it, so that a README beside the data is not
indexed as a judgment. A string with ``*``, ``?`` or ``[`` that is not an existing path is a glob
(``**`` recurses).
"""

from __future__ import annotations

import fnmatch
import glob
import gzip
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from indexer.document import Judgment, LoadError, Provision
from indexer.loaders._common import LoadOptions
from indexer.loaders.html import load_html
from indexer.loaders.pdf import load_pdf
from indexer.loaders.records import load_json, load_jsonl
from indexer.loaders.text import load_text

__all__ = ["Loaded", "iter_files", "load", "loader_for"]

Loaded = Judgment | Provision | LoadError
Loader = Callable[[Path, LoadOptions], Iterator[Loaded]]

_BY_SUFFIX: dict[str, Loader] = {
    ".txt": load_text,
    ".text": load_text,
    ".jsonl": load_jsonl,
    ".ndjson": load_jsonl,
    ".json": load_json,
    ".pdf": load_pdf,
    ".html": load_html,
    ".htm": load_html,
    ".xhtml": load_html,
}
_GLOB_CHARS = frozenset("*?[")


def _suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def _sniff(path: Path) -> Loader:
    try:
        if path.name.lower().endswith(".gz"):
            with gzip.open(path, "rb") as handle:
                head = handle.read(512)
        else:
            with path.open("rb") as handle:
                head = handle.read(512)
    except (OSError, EOFError, zlib.error):
        return load_text  # it will report the read error itself
    start = head.lstrip()[:15].lower()
    if start.startswith(b"%pdf"):
        return load_pdf
    if start.startswith((b"<!doctype html", b"<html", b"<?xml")) or b"<body" in head.lower():
        return load_html
    if start.startswith((b"{", b"[")):
        return load_jsonl if start.startswith(b"{") and head.count(b"\n") > 1 else load_json
    return load_text


def loader_for(path: Path, sniff: bool = True) -> Loader | None:
    """The loader for ``path``: by extension, else (when ``sniff``) by its first bytes."""
    known = _BY_SUFFIX.get(_suffix(path))
    if known is not None or not sniff:
        return known
    return _sniff(path)


# Files inside a dataset folder that describe the data rather than hold judgments: READMEs, licences,
# query lists and relevance judgments. Skipped when a folder is walked; a file named explicitly is loaded.
DATASET_METADATA: tuple[str, ...] = (
    "README*", "LICENSE*", "NOTICE*", "*.md", "Query_doc*", "relevance_judgments*", "*qrel*", "categories.txt",
)


def _is_dataset_metadata(path: Path) -> bool:
    return any(fnmatch.fnmatch(path.name, pattern) for pattern in DATASET_METADATA)


def iter_files(paths: Iterable[str | Path]) -> Iterator[tuple[Path, bool] | LoadError]:
    """Expand files, directories and globs to ``(file, named_explicitly)``, or a LoadError per bad path.

    A folder walk skips hidden files, files no loader reads, and dataset metadata (:data:`DATASET_METADATA`).
    """
    for entry in paths:
        path = Path(entry)
        if path.is_file():
            yield path, True
        elif path.is_dir():
            for child in sorted(path.rglob("*")):
                if (child.is_file() and not child.name.startswith(".") and not _is_dataset_metadata(child)
                        and loader_for(child, sniff=False)):
                    yield child, False
        elif _GLOB_CHARS & set(str(entry)):
            matches = sorted(glob.glob(str(entry), recursive=True))
            files = [Path(m) for m in matches if Path(m).is_file()]
            if not files:
                yield LoadError(str(entry), "pattern matched no files")
            yield from ((f, True) for f in files)
        else:
            yield LoadError(str(entry), "no such file or directory")


def load(paths: Iterable[str | Path], options: LoadOptions | None = None) -> Iterator[Loaded]:
    """Stream judgments, provisions and load errors from files, directories and globs.

    Never raises for bad input: every problem becomes a LoadError and the batch goes on. Nothing is held
    beyond the file being read (a ``.json`` list is the exception: it is parsed whole).
    """
    options = options or LoadOptions()
    for found in iter_files(paths):
        if isinstance(found, LoadError):
            yield found
            continue
        path, explicit = found
        loader = loader_for(path, sniff=explicit)
        if loader is not None:
            yield from loader(path, options)
