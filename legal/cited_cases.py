"""Citations of one case written together: a case name and its parallel reporter citations.

A judgment cites a case as ``Sahaj Ram v. State of U.P. [(1973) 1 SCC 490 : 1972 Indlaw SC 432]``: three
citations, one case. Shown one by one they read as three cases, and a later ``1972 Indlaw SC 432 (supra)``
cannot be linked to the case the name found. :func:`cited_cases` groups the citations the extractor found
(:func:`legal.citations.extract_citations`) into cases, by how they are written:

* only brackets, colons, semicolons, commas and spaces stand between two citations of one case, or an
  opening bracket and a short text without brackets (a report the rules do not read: ``[1988 Supp SCC 686``);
* a case has at most one case name, and it opens the case (a name after citations starts the next case);
* a case has at most one citation per reporter series (``(2001) 8 SCC 311, (2002) 7 SCC 198`` are two
  cases), and their years are at most :data:`MAX_YEAR_GAP` apart (a report may appear the year after the
  decision).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from legal.citations import Citation

__all__ = ["MAX_YEAR_GAP", "CitedCase", "cited_cases", "reporter_series"]

MAX_YEAR_GAP = 2
_JOINER = re.compile(r"[\s\[\]():;,]*")
# a name, then a bracket holding a report the rules do not read (``[1988 Supp SCC 686``), then one they do
_BRACKETED = re.compile(r"[\s:;,]*[\[(][^\[\]()]{0,40}?\)?[\s:;,]*")
_YEAR = re.compile(r"\b(1[789]\d\d|20\d\d)\b")
_SERIES_NOISE = re.compile(r"[\d\[\]()]+")
_CASE_KINDS = frozenset({"judgment", "case_name"})


@dataclass(frozen=True, slots=True)
class CitedCase:
    """One case as the text cites it: its citations in text order (a case name first, when there is one)."""

    citations: tuple[Citation, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """The canonical strings of its citations, each once."""
        return tuple(dict.fromkeys(c.normalized for c in self.citations))


def reporter_series(canonical: str) -> str:
    """The reporter a canonical citation is in: ``(1973) 1 SCC 490`` → ``SCC``, ``AIR 1973 SC 1461`` →
    ``AIR SC``; two citations of one series name two reports, so two cases."""
    return " ".join(_SERIES_NOISE.sub(" ", canonical).split())


def _year(canonical: str) -> int | None:
    match = _YEAR.search(canonical)
    return int(match.group(1)) if match else None


def _joins(case: list[Citation], citation: Citation, text: str) -> bool:
    last = case[-1]
    if _JOINER.fullmatch(text, last.end, citation.start) is None and (
            _BRACKETED.fullmatch(text, last.end, citation.start) is None):
        return False
    if citation.kind == "case_name":
        return False  # a name opens its case
    if citation.normalized in {c.normalized for c in case}:
        return True  # the same citation matched twice (several rules), not a second case
    series = reporter_series(citation.normalized)
    if any(c.kind == "judgment" and reporter_series(c.normalized) == series for c in case):
        return False
    year = _year(citation.normalized)
    years = [y for c in case if c.kind == "judgment" and (y := _year(c.normalized)) is not None]
    return year is None or all(abs(year - y) <= MAX_YEAR_GAP for y in years)


def cited_cases(text: str, citations: Sequence[Citation]) -> list[CitedCase]:
    """The judgment and case-name citations of ``text`` grouped into cases, in text order."""
    found: list[list[Citation]] = []
    for citation in sorted((c for c in citations if c.kind in _CASE_KINDS), key=lambda c: (c.start, c.end)):
        if found and citation.start >= found[-1][-1].end and _joins(found[-1], citation, text):
            found[-1].append(citation)
        elif found and citation.start < found[-1][-1].end:
            found[-1].append(citation)  # overlapping matches of one written citation
        else:
            found.append([citation])
    return [CitedCase(tuple(case)) for case in found]
