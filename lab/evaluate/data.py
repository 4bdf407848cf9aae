"""Read evaluation queries and TREC qrels, and pick the queries that can be scored.

The benchmarks we evaluate on ship their queries in different shapes, so :func:`read_queries` takes each
of them rather than asking people to convert: AILA's ``AILA_Q1||text`` lines, ``qid<TAB>text`` lines,
JSON lines (``{"qid": ..., "text": ...}`` or ``{"id": ..., "query": ...}``) and a folder holding one query
per file (FIRE IRLeD's ``current_case_0001.txt.gz``). A single file's format is told from its first
non-empty line and then held to, so a stray line gets an error that says what was expected. Files may be
gzip-compressed (told by their magic bytes, not their name); text that is not UTF-8 is read as cp1252,
which covers the Windows-typed files legal data sets often carry.

Qrels are TREC's ``qid iter docid rel``. A query can only be scored when it has at least one relevant
judgment, and the shared benchmark copies deliberately hold back the judgments of some queries (AILA:
20 of 50), so :func:`judged` splits queries into the ones to run and the ones to skip instead of failing.

Bad input raises :class:`EvalDataError`, a ``ValueError`` whose message names the file, the line (from 1)
and what is wrong, in the ``path:line: reason`` form editors can jump to.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EvalDataError", "Qrels", "Query", "judged", "qid_sort_key", "read_qrels", "read_queries"]

Qrels = dict[str, dict[str, int]]

GZIP_MAGIC = b"\x1f\x8b"
_AILA_LINE = re.compile(r"[^\s|]+\|\|")  # a qid without spaces or bars, then the two bars
_QUERY_SUFFIXES = (".gz", ".txt")  # stripped in this order from a file name to give its qid


class EvalDataError(ValueError):
    """A queries or qrels file cannot be read; the message names the file, the line and the reason."""

    def __init__(self, path: Path | str, reason: str, line: int | None = None) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {reason}")
        self.path = Path(path)
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class Query:
    """One evaluation query: its id as the qrels spell it, and its text."""

    qid: str
    text: str


def qid_sort_key(qid: str) -> tuple[tuple[int, int | str], ...]:
    """Order qids as people do: ``AILA_Q2`` before ``AILA_Q10`` (runs of digits compare as numbers)."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", qid) if part)


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise EvalDataError(path, f"cannot be read ({exc.strerror or exc})") from None
    if data.startswith(GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise EvalDataError(path, f"is not a valid gzip file ({exc})") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError as exc:
        raise EvalDataError(path, f"is neither UTF-8 nor cp1252 text (byte {exc.start})") from None


def _lines(text: str) -> Iterable[tuple[int, str]]:
    """Numbered non-empty lines. Only ``\\n`` ends a line: judgments carry form feeds that are not breaks."""
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if line.strip():
            yield number, line


def _query_fields(line: str, separator: str, shape: str, path: Path, number: int) -> tuple[str, str]:
    if separator not in line:
        raise EvalDataError(path, f"expected {shape}, found no {separator!r} separator", number)
    qid, text = (part.strip() for part in line.split(separator, 1))
    if not qid or any(c.isspace() for c in qid):
        raise EvalDataError(path, f"expected {shape}, the query id {qid!r} is empty or has spaces", number)
    if not text:
        raise EvalDataError(path, f"query {qid!r} has no text", number)
    return qid, text


def _json_fields(line: str, path: Path, number: int) -> tuple[str, str]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise EvalDataError(path, f"not valid JSON ({exc.msg} at column {exc.colno})", number) from None
    if not isinstance(record, dict):
        raise EvalDataError(path, "expected a JSON object with 'qid' and 'text'", number)
    qid = record.get("qid", record.get("id"))
    text = record.get("text", record.get("query"))
    if isinstance(qid, int) and not isinstance(qid, bool):
        qid = str(qid)
    if not isinstance(qid, str) or not qid.strip():
        raise EvalDataError(path, "the JSON object has no 'qid' (or 'id') string", number)
    if not isinstance(text, str) or not text.strip():
        raise EvalDataError(path, f"query {qid.strip()!r} has no 'text' (or 'query') string", number)
    return qid.strip(), text.strip()


def _add(queries: dict[str, tuple[Query, str]], query: Query, where: str, path: Path, line: int | None) -> None:
    if query.qid in queries:
        raise EvalDataError(path, f"query {query.qid!r} appears twice (first at {queries[query.qid][1]})", line)
    queries[query.qid] = (query, where)


def _read_query_file(path: Path) -> list[Query]:
    numbered = list(_lines(_read_text(path)))
    if not numbered:
        raise EvalDataError(path, "holds no queries")
    first = numbered[0][1].lstrip()
    queries: dict[str, tuple[Query, str]] = {}
    for number, line in numbered:
        if first.startswith("{"):
            qid, text = _json_fields(line, path, number)
        elif _AILA_LINE.match(first):
            qid, text = _query_fields(line, "||", "'qid||text' as on the first line", path, number)
        elif "\t" in first:
            qid, text = _query_fields(line, "\t", "'qid<TAB>text' as on the first line", path, number)
        else:
            raise EvalDataError(path, "unknown query format: expected 'qid||text', 'qid<TAB>text' or JSON lines "
                                      "with 'qid' and 'text'", number)
        _add(queries, Query(qid, text), f"line {number}", path, number)
    return [query for query, _ in queries.values()]


def _qid_from_name(name: str) -> str:
    for suffix in _QUERY_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def _read_query_folder(folder: Path) -> list[Query]:
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise EvalDataError(folder, "holds no query files")
    queries: dict[str, tuple[Query, str]] = {}
    for path in files:
        text = _read_text(path).strip()
        if not text:
            raise EvalDataError(path, "is empty: a query file holds one query's text")
        _add(queries, Query(_qid_from_name(path.name), text), path.name, path, None)
    ordered = sorted(queries.values(), key=lambda item: qid_sort_key(item[0].qid))
    return [query for query, _ in ordered]


def read_queries(path: Path | str) -> list[Query]:
    """Queries from a file (AILA ``qid||text``, TSV ``qid<TAB>text`` or JSON lines) or a folder of query files.

    A folder holds one query per file, named by its qid with an optional ``.txt`` / ``.txt.gz`` suffix; its
    queries come back in qid order (``q2`` before ``q10``). A file's queries keep the file's order.
    Raises :class:`EvalDataError` for a missing or unreadable path, a malformed line or a repeated qid.
    """
    path = Path(path)
    if path.is_dir():
        return _read_query_folder(path)
    if not path.exists():
        raise EvalDataError(path, "no such file or folder")
    return _read_query_file(path)


def read_qrels(path: Path | str) -> Qrels:
    """TREC qrels (``qid iter docid rel``, whitespace-separated) as ``{qid: {docid: rel}}``.

    The ``iter`` column is ignored. A pair judged twice with the same relevance is accepted; judged twice
    with different relevance is an error, as is a line without four fields or with a non-integer relevance.
    """
    path = Path(path)
    if not path.is_file():
        raise EvalDataError(path, "no such file")
    qrels: Qrels = {}
    for number, line in _lines(_read_text(path)):
        fields = line.split()
        if len(fields) != 4:
            raise EvalDataError(path, f"expected 4 fields 'qid iter docid rel', found {len(fields)}", number)
        qid, _, docid, value = fields
        try:
            rel = int(value)
        except ValueError:
            raise EvalDataError(path, f"the relevance {value!r} is not an integer", number) from None
        docs = qrels.setdefault(qid, {})
        if docs.get(docid, rel) != rel:
            raise EvalDataError(path, f"{qid} {docid} is judged twice, as {docs[docid]} and as {rel}", number)
        docs[docid] = rel
    if not qrels:
        raise EvalDataError(path, "holds no judgments")
    return qrels


def judged(queries: Sequence[Query], qrels: Qrels) -> tuple[list[Query], list[str]]:
    """Split queries into those with at least one relevant (rel > 0) judgment and the qids of the rest.

    Queries without judgments are expected (held-out splits), so they are returned as skipped, never raised.
    Both lists keep the order of ``queries``.
    """
    kept: list[Query] = []
    skipped: list[str] = []
    for query in queries:
        if any(rel > 0 for rel in qrels.get(query.qid, {}).values()):
            kept.append(query)
        else:
            skipped.append(query.qid)
    return kept, skipped
