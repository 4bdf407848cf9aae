"""What every loader shares: the options, bounded reading, text decoding and building a Judgment.

Reading is bounded by ``LoadOptions.max_bytes`` before anything is decoded, both on disk and after
gunzip, so a mislabelled or hostile file cannot exhaust memory. Decoding tries UTF-8 (with or without a
BOM), then the fallback encoding (cp1252 by default, the usual culprit in Indian court exports); a text
decoded by the fallback carries a warning so that it can be re-checked.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from indexer.citations import enrich
from indexer.document import Judgment, LoadError, safe_id
from indexer.metadata import apply_metadata, extract_metadata
from legal.citations import extract_citations

__all__ = ["DEFAULT_MAX_BYTES", "LoadOptions", "build_judgment", "decode_text", "read_bounded"]

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
MAX_PREFIX_BYTES = 100  # a file name is at most 255 bytes: prefix, name and a chunk's ordinal stay under 512
_SNIFF_BYTES = 8192
_MAX_CONTROL_SHARE = 0.01  # more control characters than this and the "text" is really binary
_ALLOWED_CONTROLS = frozenset("\n\r\t\f\v")


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """How to load: size limit, id prefix, source label, and which enrichment steps to run.

    ``source`` overrides the source label a loader would pick (``aila-2019``, ``jsonl``, ``pdf``...).
    ``fallback_encoding=None`` turns a text that is not UTF-8 into a LoadError instead of a guess.
    """

    max_bytes: int = DEFAULT_MAX_BYTES
    id_prefix: str | None = None
    source: str | None = None
    fallback_encoding: str | None = "cp1252"
    extract_metadata: bool = True
    extract_citations: bool = True

    def __post_init__(self) -> None:
        if self.max_bytes < 1:
            raise ValueError(f"the size limit must be at least 1 byte, not {self.max_bytes}")
        prefix = self.id_prefix
        if prefix is not None and (not prefix or safe_id(prefix) != prefix or len(prefix.encode()) > MAX_PREFIX_BYTES):
            raise ValueError(f"an id prefix is 1 to {MAX_PREFIX_BYTES} bytes of letters, digits and _.:-, "
                             f"not {prefix[:60]!r}")


def is_gzip(path: Path) -> bool:
    return path.name.lower().endswith(".gz")


def read_bounded(path: Path, options: LoadOptions) -> bytes | LoadError:
    """The file's bytes (gunzipped for ``.gz``), or a LoadError if unreadable, corrupt or too large."""
    item = str(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        return LoadError(item, f"cannot read file: {exc.strerror or exc}")
    if size > options.max_bytes:
        return LoadError(item, f"file is {size} bytes, over the limit of {options.max_bytes} bytes")
    try:
        if is_gzip(path):
            with gzip.open(path, "rb") as handle:
                data = handle.read(options.max_bytes + 1)
            if len(data) > options.max_bytes:
                return LoadError(item, f"file unpacks to over the limit of {options.max_bytes} bytes")
            return data
        return path.read_bytes()
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        return LoadError(item, f"corrupt gzip file: {exc}")
    except OSError as exc:
        return LoadError(item, f"cannot read file: {exc.strerror or exc}")


def decode_text(data: bytes, item: str, options: LoadOptions) -> tuple[str, tuple[str, ...]] | LoadError:
    """Decode ``data`` to text, returning the text and any warnings, or a LoadError saying why not."""
    if not data.strip():
        return LoadError(item, "empty file" if not data else "file holds only whitespace")
    if b"\x00" in data[:_SNIFF_BYTES]:
        return LoadError(item, "binary file (contains NUL bytes), not text")
    warnings: tuple[str, ...] = ()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if options.fallback_encoding is None:
            return LoadError(item, f"not valid UTF-8 (byte {exc.start}) and no fallback encoding is set")
        try:
            text = data.decode(options.fallback_encoding)
        except UnicodeDecodeError:
            return LoadError(item, f"neither UTF-8 nor {options.fallback_encoding} (byte {exc.start})")
        warnings = (f"not valid UTF-8 (byte {exc.start}); decoded as {options.fallback_encoding}",)
    sample = text[:_SNIFF_BYTES]
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in _ALLOWED_CONTROLS)
    if controls > _MAX_CONTROL_SHARE * len(sample):
        return LoadError(item, f"binary file ({controls} control characters in the first {len(sample)})")
    return text.replace("\r\n", "\n"), warnings


def build_judgment(
    judgment_id: str,
    text: str,
    source: str,
    options: LoadOptions,
    source_path: str | None = None,
    fields: Mapping[str, object] | None = None,
    warnings: tuple[str, ...] = (),
) -> Judgment:
    """Make a Judgment from loaded text and explicit fields, then fill in header metadata and citations.

    Fields given by the source (a JSON record's ``title``, say) win over what the header says. The text is
    scanned for citations once, here (unless ``extract_citations`` is off); the judgment carries them
    (``text_citations``) to the header reader and to later stages.
    """
    judgment = Judgment(
        judgment_id=judgment_id,
        text=text,
        source=options.source or source,
        source_path=source_path,
        warnings=warnings,
        text_citations=tuple(extract_citations(text)) if options.extract_citations else None,
        **dict(fields or {}),  # type: ignore[arg-type]
    )
    if options.extract_metadata:
        judgment = apply_metadata(judgment, extract_metadata(text, judgment.text_citations))
    if options.extract_citations:
        judgment = enrich(judgment)
    return judgment
