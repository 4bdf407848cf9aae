"""Citation lookup: does the corpus hold the judgments and provisions a brief cites?

A draft written with an LLM's help may cite cases that do not exist. This module takes a text, finds its
citations with the extractor the indexer uses (:func:`legal.citations.extract_citations`, so a citation is
read exactly as the index stored the corpus's citations) and says for each distinct one whether the corpus
holds it (``found``, with a link), holds several things it could be (``ambiguous``, all listed) or does
not know it (``unknown``). ``unknown`` means "not in this corpus", not "invented": the reason says what the
corpus does hold (the Act but not that section; how many corpus judgments cite the same thing) so a reader
can tell a gap in the corpus from a citation nobody has ever made.

How each kind is looked up:

* reporter citations (``(2017) 10 SCC 1``): an exact term on the judgments' own ``citations``;
* case names (``A v. B``): a full-text query on ``title`` for candidates, then each candidate's parties are
  compared word by word (:mod:`search.query.party_names`): one best fit is ``found``, several are ``ambiguous``;
* provisions (``IPC s. 302``): an exact term on the provisions' ``citation``, else the Act and section
  fields; a cited sub-section (``s. 302(1)``) is found in its section's provision.

All lookups for a text are batched (a few requests, whatever the number of citations).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from opensearchpy import OpenSearch

from legal.citations import KINDS, Citation, CitationRules, extract_citations
from search.graph.citecheck_lookup import (
    MAX_MATCHES,
    CorpusMatch,
    Verdict,
    cited_by_counts,
    lookup_case_names,
    lookup_provisions,
    lookup_reporters,
)
from search.query.errors import EmptyQueryError, QueryError, QueryTooLongError

__all__ = [
    "KINDS",
    "MAX_CITATIONS",
    "MAX_MATCHES",
    "MAX_TEXT_BYTES",
    "STATUSES",
    "BinaryTextError",
    "CitationCheck",
    "CitationReport",
    "CitationTextError",
    "CorpusMatch",
    "EmptyTextError",
    "TextTooLongError",
    "check_citations",
    "decode_text",
    "validate_text",
]

MAX_TEXT_BYTES = 1_000_000  # 1 MB of UTF-8: a long brief is ~200 kB; more is a corpus, not a draft
MAX_CITATIONS = 2_000  # distinct citations checked in one call, so one request cannot hold the cluster long
STATUSES = ("found", "ambiguous", "unknown")
_SNIFF_CHARS = 8192
_MAX_CONTROL_SHARE = 0.01  # the loaders' rule: more control characters than this and the text is binary
_ALLOWED_CONTROLS = frozenset("\n\r\t\f\v")


class CitationTextError(QueryError):
    """The text given for a citation check cannot be checked; the message says why and what to do."""


class EmptyTextError(CitationTextError, EmptyQueryError):
    """The text is empty or holds only whitespace."""


class TextTooLongError(CitationTextError, QueryTooLongError):
    """The text is over :data:`MAX_TEXT_BYTES`, or cites more than :data:`MAX_CITATIONS` distinct things."""


class BinaryTextError(CitationTextError):
    """The input is not text: NUL bytes, many control characters, or bytes that are not UTF-8."""


@dataclass(frozen=True)
class CitationCheck:
    """One distinct citation of the text and what the corpus says about it.

    ``text``, ``start`` and ``end`` are the first occurrence as written (``text == input[start:end]``);
    ``occurrences`` lists every ``[start, end]`` span of the same canonical citation. ``cited_by`` counts
    the corpus judgments that cite it (in their ``cited_judgments`` or ``cited_provisions``), whatever the
    status: a citation the corpus does not hold but many of its judgments cite is real, just not indexed.
    """

    kind: str
    text: str
    start: int
    end: int
    canonical: str
    status: str
    matches: tuple[CorpusMatch, ...]
    reason: str
    cited_by: int
    occurrences: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class CitationReport:
    """Every distinct citation of a text, in order of first occurrence, with counts by status.

    Plain data (strings, integers, tuples), so ``dataclasses.asdict`` or :meth:`as_dict` gives JSON.
    """

    checks: tuple[CitationCheck, ...]
    found: int
    ambiguous: int
    unknown: int
    characters: int

    @property
    def ok(self) -> bool:
        """True when every citation was found (also for a text with no citations)."""
        return self.ambiguous == 0 and self.unknown == 0

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data, with ``ok`` included."""
        return {**dataclasses.asdict(self), "ok": self.ok}


def decode_text(data: bytes, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """UTF-8 text from uploaded or piped bytes (a BOM is dropped), or a :class:`CitationTextError`.

    No fallback encoding is guessed: a brief in another encoding should be saved as UTF-8, because a wrong
    guess would silently change the names being checked.
    """
    if len(data) > max_bytes:
        raise TextTooLongError(f"the text is over the limit of {max_bytes:,} bytes: check a shorter part of it")
    if b"\x00" in data:
        raise BinaryTextError("this looks like a binary file (it contains NUL bytes), not text: "
                              "give a plain-text brief (export a PDF or Word file to text first)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BinaryTextError(f"the text is not valid UTF-8 (byte {exc.start + 1} cannot be read): "
                              "save it as UTF-8 text and try again") from exc
    return validate_text(text, max_bytes)


def validate_text(text: str, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """``text`` itself when it can be checked; else a :class:`CitationTextError` saying why."""
    if not isinstance(text, str):
        raise BinaryTextError(f"the text must be a string, not {type(text).__name__}")
    if not text.strip():
        raise EmptyTextError("the text is empty: give the brief or draft whose citations should be checked")
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise BinaryTextError("the text holds characters that are not valid Unicode "
                              f"(at character {exc.start + 1}): send it as UTF-8 text") from exc
    if size > max_bytes:
        raise TextTooLongError(f"the text is {size:,} bytes, over the limit of {max_bytes:,}: "
                               "check a shorter part of it")
    if "\x00" in text:
        raise BinaryTextError("this looks like a binary file (it contains NUL characters), not text",
                              text.index("\x00"))
    sample = text[:_SNIFF_CHARS]
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in _ALLOWED_CONTROLS)
    if controls > _MAX_CONTROL_SHARE * len(sample):
        raise BinaryTextError(f"this looks like a binary file ({controls} control characters in the first "
                              f"{len(sample)}), not text")
    return text


def _distinct(found: Iterable[Citation]) -> dict[tuple[str, str], list[Citation]]:
    groups: dict[tuple[str, str], list[Citation]] = {}
    for citation in found:
        groups.setdefault((citation.kind, citation.normalized), []).append(citation)
    return groups


def _as_written(citation: Citation) -> tuple[str, int, int]:
    """The span of ``citation`` without the words the extractor dropped from its canonical form.

    A case-name match starts at the first capitalised word, so ``In Kesavananda Bharati v. ...`` and
    ``See State v. Sunil.`` come with ``In``/``See`` in front and a full stop behind; the span shown to the
    reader starts at the first party and leaves a sentence's full stop out (an initial's dot, ``U.P.``, stays).
    """
    text, start, end = citation.text, citation.start, citation.end
    if citation.kind == "case_name":
        first = citation.normalized.split(" ", 1)[0]
        at = text.find(first)
        if at > 0 and text[at - 1].isspace():
            text, start = text[at:], start + at
    if len(text) > 2 and text[-1] in ".,;:" and (text[-2].islower() or text[-2].isdigit()):
        text, end = text[:-1], end - 1
    return text, start, end


def _cited_by_note(count: int) -> str:
    if not count:
        return ""
    return f"; cited by {count} judgment{'s' if count != 1 else ''} in it"


def check_citations(client: OpenSearch, aliases: Mapping[str, str], text: str | bytes, *,
                    rules: CitationRules | None = None, kinds: Iterable[str] | None = None,
                    max_bytes: int = MAX_TEXT_BYTES, max_citations: int = MAX_CITATIONS,
                    extract: Callable[..., Iterable[Citation]] = extract_citations) -> CitationReport:
    """Check every citation in ``text`` against the ``judgments`` and ``provisions`` aliases.

    ``text`` may be bytes (an upload, a pipe): they are decoded as UTF-8 first. ``kinds`` restricts the
    check (default: all of :data:`KINDS`). ``extract`` finds the citations (called like
    :func:`legal.citations.extract_citations`; a server passes one that runs in a child process with a
    deadline). Raises a :class:`CitationTextError` for input that cannot be
    checked; a text without citations gives an empty report.
    """
    text = decode_text(text, max_bytes) if isinstance(text, bytes) else validate_text(text, max_bytes)
    wanted = set(KINDS if kinds is None else kinds)
    if wanted - set(KINDS):
        raise CitationTextError(f"unknown citation kind(s): {', '.join(sorted(wanted - set(KINDS)))}; "
                                f"choose from {', '.join(KINDS)}")
    groups = _distinct(extract(text, rules, wanted))
    if len(groups) > max_citations:
        raise TextTooLongError(f"the text cites {len(groups):,} distinct judgments and provisions; at most "
                               f"{max_citations:,} are checked at once: split the text")
    by_kind: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for kind, canonical in groups:
        by_kind[kind].append(canonical)
    verdicts: dict[tuple[str, str], Verdict] = {}
    if by_kind["judgment"]:
        found = lookup_reporters(client, aliases["judgments"], by_kind["judgment"])
        verdicts.update({("judgment", c): v for c, v in found.items()})
    if by_kind["case_name"]:
        found = lookup_case_names(client, aliases["judgments"], by_kind["case_name"])
        verdicts.update({("case_name", c): v for c, v in found.items()})
    if by_kind["provision"]:
        found = lookup_provisions(client, aliases["provisions"], by_kind["provision"], rules)
        verdicts.update({("provision", c): v for c, v in found.items()})
    cited_by = cited_by_counts(client, aliases["judgments"], by_kind["judgment"] + by_kind["case_name"],
                               by_kind["provision"]) if groups else {}
    checks = []
    for (kind, canonical), occurrences in groups.items():
        text_as_written, start, end = _as_written(occurrences[0])
        verdict = verdicts[(kind, canonical)]
        count = cited_by.get(("provision" if kind == "provision" else "judgment", canonical), 0)
        checks.append(CitationCheck(
            kind=kind, text=text_as_written, start=start, end=end, canonical=canonical,
            status=verdict.status, matches=verdict.matches, reason=verdict.reason + _cited_by_note(count),
            cited_by=count, occurrences=tuple(dict.fromkeys(_as_written(c)[1:] for c in occurrences))))
    checks.sort(key=lambda c: (c.start, KINDS.index(c.kind)))
    counts = {status: sum(1 for c in checks if c.status == status) for status in STATUSES}
    return CitationReport(tuple(checks), counts["found"], counts["ambiguous"], counts["unknown"], len(text))
