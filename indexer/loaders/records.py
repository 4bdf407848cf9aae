"""Judgments given as JSON: JSON Lines records, a JSON record or list, and OpenNyAI Label-Studio exports.

The record schema (one JSON object per line in ``.jsonl``/``.ndjson``, or the items of a ``.json`` list):

=================  ======================================================================
``id``             string or integer: the judgment id (see :mod:`indexer.document`); required,
                   except in a ``.json`` file holding one record, where the file stem is used
``text``           required, non-empty string: the full judgment text
``title``          optional string
``parties``        optional list of strings
``court``          optional string
``date``           optional ``YYYY-MM-DD`` or ``26 September 1973`` / ``05/05/1961`` (day first)
``judges``         optional list of strings (or one string)
``case_number``    optional string
``citations``      optional list of strings: the judgment's own reporter citations
``status``         optional string
``language``       optional string, default ``en``
``source``         optional string: the source label
(anything else)    kept in ``Judgment.extra``
=================  ======================================================================

A Label-Studio item (``{"id", "data": {"text"}, "meta", "annotations"}``) is recognised by its ``data``
object; its ``meta`` goes into ``extra`` and its annotations are not loaded here.

JSON Lines stream line by line. A ``.json`` file is one JSON value, so it is parsed whole (within the
size limit); use JSON Lines for large corpora. A bad record becomes a LoadError naming the line or the
list position, and the rest of the file still loads.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path

from indexer.document import Judgment, LoadError, id_problem, judgment_id_for
from indexer.loaders._common import LoadOptions, build_judgment, decode_text, is_gzip, read_bounded
from indexer.metadata import parse_date

__all__ = ["load_json", "load_jsonl", "record_to_judgment"]

_STRING_FIELDS = ("title", "court", "case_number", "status", "language")
_LIST_FIELDS = ("parties", "judges", "citations")
_TOO_DEEP = "invalid JSON: nested too deeply to read (thousands of levels of arrays or objects)"
_KNOWN = frozenset({"id", "text", "date", "source", "data", "meta", "annotations", *_STRING_FIELDS, *_LIST_FIELDS})


def _string_list(value: object, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError(f"field {name!r} must be a list of strings")


def _fields(record: Mapping[str, object]) -> dict[str, object]:
    fields: dict[str, object] = {}
    for name in _STRING_FIELDS:
        value = record.get(name)
        if value is not None:
            if not isinstance(value, str):
                raise ValueError(f"field {name!r} must be a string")
            fields[name] = value
    for name in _LIST_FIELDS:
        if record.get(name) is not None:
            fields[name] = _string_list(record[name], name)
    if record.get("date") is not None:
        raw = str(record["date"]).strip()
        date = _iso_date(raw) or parse_date(raw)
        if date is None:
            raise ValueError(f"field 'date' is not a date: {raw!r}")
        fields["decision_date"] = date
    extra = {k: v for k, v in record.items() if k not in _KNOWN}
    if isinstance(record.get("meta"), Mapping):
        extra.update(record["meta"])  # type: ignore[arg-type]
    fields["extra"] = extra
    return fields


def _iso_date(raw: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(raw[:10]) if len(raw) >= 10 and raw[4] == "-" else None
    except ValueError:
        return None


def record_to_judgment(
    record: object,
    item: str,
    path: Path,
    options: LoadOptions,
    default_source: str,
    id_from_path: bool = False,
) -> Judgment | LoadError:
    """Turn one decoded JSON value into a Judgment, or a LoadError naming ``item`` and the problem.

    ``id_from_path`` lets a record without an ``id`` take the file stem (a one-record file).
    """
    if not isinstance(record, Mapping):
        return LoadError(item, f"expected a JSON object, got {type(record).__name__}")
    text = record.get("text")
    source = default_source
    if isinstance(record.get("data"), Mapping):  # Label-Studio export
        text = record["data"].get("text")  # type: ignore[union-attr]
        source = "opennyai"
    if not isinstance(text, str) or not text.strip():
        return LoadError(item, "missing or empty 'text'")
    record_id = record.get("id")
    if record_id is None and id_from_path:
        record_id = judgment_id_for(path)
    if not isinstance(record_id, (str, int)) or isinstance(record_id, bool) or not str(record_id).strip():
        return LoadError(item, "missing 'id' (a string or an integer)")
    try:
        fields = _fields(record)
    except ValueError as exc:
        return LoadError(item, str(exc))
    if isinstance(record.get("source"), str):
        source = str(record["source"])
    if item != str(path):
        fields["source_item"] = item
    judgment_id = judgment_id_for(None, record_id, options.id_prefix)
    problem = id_problem(judgment_id)
    if problem is not None:  # refused here, alone: sent to the cluster it would fail its whole bulk request
        return LoadError(item, problem)
    return build_judgment(
        judgment_id,
        text.replace("\r\n", "\n"),
        source,
        options,
        source_path=str(path),
        fields=fields,
        item=item,
    )


def load_jsonl(path: Path, options: LoadOptions) -> Iterator[Judgment | LoadError]:
    """Stream a JSON Lines file (optionally gzipped): one judgment or LoadError per non-blank line."""
    size_check = read_bounded(path, options) if is_gzip(path) else None
    if isinstance(size_check, LoadError):
        yield size_check
        return
    del size_check  # the gzip was only read to check that it is sound and within the limit
    try:
        size = path.stat().st_size
    except OSError as exc:
        yield LoadError(str(path), f"cannot read file: {exc.strerror or exc}")
        return
    if size > options.max_bytes:
        yield LoadError(str(path), f"file is {size} bytes, over the limit of {options.max_bytes} bytes")
        return
    opener = gzip.open if is_gzip(path) else open
    seen_any = False
    try:
        with opener(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                seen_any = True
                item = f"{path}#line {number}"
                decoded = decode_text(raw, item, options)
                if isinstance(decoded, LoadError):
                    yield decoded
                    continue
                try:
                    record = json.loads(decoded[0])
                except json.JSONDecodeError as exc:
                    yield LoadError(item, f"invalid JSON at line {number}, column {exc.colno}: {exc.msg}")
                    continue
                except RecursionError:
                    yield LoadError(item, _TOO_DEEP)
                    continue
                except ValueError as exc:  # a number json cannot convert (over 4,300 digits)
                    yield LoadError(item, f"invalid JSON at line {number}: {exc}")
                    continue
                yield record_to_judgment(record, item, path, options, "jsonl")
    except (OSError, EOFError, zlib.error) as exc:
        yield LoadError(str(path), f"cannot read file: {exc}")
        return
    if not seen_any:
        yield LoadError(str(path), "empty file")


def load_json(path: Path, options: LoadOptions) -> Iterator[Judgment | LoadError]:
    """Load a ``.json`` file holding one record or a list of records (Label-Studio or our schema)."""
    data = read_bounded(path, options)
    if isinstance(data, LoadError):
        yield data
        return
    decoded = decode_text(data, str(path), options)
    if isinstance(decoded, LoadError):
        yield decoded
        return
    try:
        value = json.loads(decoded[0])
    except json.JSONDecodeError as exc:
        yield LoadError(str(path), f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
        return
    except RecursionError:
        yield LoadError(str(path), _TOO_DEEP)
        return
    except ValueError as exc:  # a number json cannot convert (over 4,300 digits)
        yield LoadError(str(path), f"invalid JSON: {exc}")
        return
    if isinstance(value, list):
        for position, record in enumerate(value):
            yield record_to_judgment(record, f"{path}#doc {position}", path, options, "json")
    else:
        yield record_to_judgment(value, str(path), path, options, "json", id_from_path=True)
