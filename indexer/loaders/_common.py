"""What every loader shares: the options, bounded reading, text decoding and building a Judgment.

Reading is bounded by ``LoadOptions.max_bytes`` before anything is decoded, both on disk and after
gunzip, so a mislabelled or hostile file cannot exhaust memory. Decoding tries UTF-8 (with or without a
BOM), then the fallback encoding (cp1252 by default, the usual culprit in Indian court exports); a text
decoded by the fallback carries a warning so that it can be re-checked.

The whole text is checked for binary content, not only its head: a NUL byte anywhere, or control characters
making up more than 1% of the text, refuse the file. Fewer control characters (a terminal escape sequence
pasted into a judgment, a stray form of page break) are removed, escape sequences whole, with a warning.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from indexer.budget import DEFAULT_JUDGMENT_SECONDS, JudgmentBudget
from indexer.citations import enrich
from indexer.document import Judgment, LoadError, safe_id
from indexer.metadata import apply_metadata, extract_metadata
from legal.citations import extract_citations

__all__ = [
    "DEFAULT_JUDGMENT_SECONDS",
    "DEFAULT_MAX_BYTES",
    "LoadOptions",
    "build_judgment",
    "decode_text",
    "read_bounded",
    "remove_controls",
]

DEFAULT_MAX_BYTES = 50 * 1024 * 1024
MAX_PREFIX_BYTES = 100  # a file name is at most 255 bytes: prefix, name and a chunk's ordinal stay under 512
_MAX_CONTROL_SHARE = 0.01  # more control characters than this and the "text" is really binary
# Control characters other than the white space ones (\n \r \t \f \v).
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f]")
# What is removed from a text: a terminal escape sequence whole (an OSC title ``ESC ] ... BEL`` of up to 256
# characters, a CSI ``ESC [ ... m``, or a two-character one), else one control character.
_REMOVED = re.compile(r"\x1b\][^\x07\x1b\n]{0,256}+(?:\x07|\x1b\\)|\x1b\[[0-?]*+[ -/]*+[@-~]|\x1b[@-Z\\-_]"
                      r"|[\x00-\x08\x0e-\x1f]")


@dataclass(frozen=True, slots=True)
class LoadOptions:
    """How to load: size limit, id prefix, source label, and which enrichment steps to run.

    ``source`` overrides the source label a loader would pick (``aila-2019``, ``jsonl``, ``pdf``...).
    ``fallback_encoding=None`` turns a text that is not UTF-8 into a LoadError instead of a guess.
    ``judgment_seconds`` bounds the time spent reading one judgment's header and citations (None: no bound):
    a judgment over it becomes a LoadError, and the batch goes on. The rules are linear in the text, so
    the bound is a safety net checked after each step (:mod:`indexer.budget`).
    """

    max_bytes: int = DEFAULT_MAX_BYTES
    id_prefix: str | None = None
    source: str | None = None
    fallback_encoding: str | None = "cp1252"
    extract_metadata: bool = True
    extract_citations: bool = True
    judgment_seconds: float | None = DEFAULT_JUDGMENT_SECONDS

    def __post_init__(self) -> None:
        if self.judgment_seconds is not None and self.judgment_seconds <= 0:
            raise ValueError(f"the time per judgment must be positive ({self.judgment_seconds} s)")
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
    nul = data.find(b"\x00")
    if nul >= 0:
        return LoadError(item, f"binary file (a NUL byte at byte {nul}), not text")
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
    controls = sum(1 for _ in _CONTROL.finditer(text))
    if controls > _MAX_CONTROL_SHARE * len(text):
        return LoadError(item, f"binary file ({controls} control characters in {len(text)})")
    return text.replace("\r\n", "\n"), warnings


def remove_controls(text: str) -> tuple[str, str | None]:
    """``text`` without terminal escape sequences and control characters other than white space, and a
    warning saying how many were removed (None when there were none)."""
    removed = 0

    def count(_match: re.Match[str]) -> str:
        nonlocal removed
        removed += 1
        return ""

    cleaned = _REMOVED.sub(count, text)
    if not removed:
        return text, None
    return cleaned, f"removed {removed} control characters or terminal escape sequences"


def build_judgment(
    judgment_id: str,
    text: str,
    source: str,
    options: LoadOptions,
    source_path: str | None = None,
    fields: Mapping[str, object] | None = None,
    warnings: tuple[str, ...] = (),
    item: str | None = None,
) -> Judgment | LoadError:
    """Make a Judgment from loaded text and explicit fields, then fill in header metadata and citations.

    Fields given by the source (a JSON record's ``title``, say) win over what the header says. The text is
    scanned for citations once, here (unless ``extract_citations`` is off); the judgment carries them
    (``text_citations``) to the header reader and to later stages. Control characters are removed first
    (:func:`remove_controls`), whatever the format. A judgment that takes longer than
    ``options.judgment_seconds`` becomes a LoadError naming ``item`` (default: the source path, else the id)
    and the step it was in.
    """
    text, removed = remove_controls(text)
    if removed:
        warnings = (*warnings, removed)
    if not text.strip():
        return LoadError(item or source_path or judgment_id, "no text left once control characters are removed")
    budget = JudgmentBudget(options.judgment_seconds)

    def over_budget(step: str) -> LoadError | None:
        reason = budget.over(step)
        return None if reason is None else LoadError(item or source_path or judgment_id, reason)

    judgment = Judgment(
        judgment_id=judgment_id,
        text=text,
        source=options.source or source,
        source_path=source_path,
        warnings=warnings,
        text_citations=tuple(extract_citations(text)) if options.extract_citations else None,
        **dict(fields or {}),  # type: ignore[arg-type]
    )
    if late := over_budget("citation extraction"):
        return late
    if options.extract_metadata:
        judgment = apply_metadata(judgment, extract_metadata(text, judgment.text_citations))
        if late := over_budget("header metadata"):
            return late
    if options.extract_citations:
        judgment = enrich(judgment)
        if late := over_budget("cited judgments and provisions"):
            return late
    return judgment
