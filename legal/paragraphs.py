"""A judgment's paragraphs, read from its text and its sentences' offsets, with the judgment's own numbers.

Lawyers cite a passage by paragraph (``para 12``), so the judgment page must show the paragraphs the court
numbered, under those numbers. The index stores the judgment's text with its line breaks and, on the chunks,
every sentence's offsets; a paragraph is a run of whole sentences, so it can be computed when the page is
read, for any index, without storing anything new.

The rules:

1. A sentence starts a new line when the text between it and the sentence before holds a line break.
2. A line that opens with a number marker (``12.``, ``12)``, ``(12)``) is a numbered paragraph when its number
   continues the judgment's sequence: it is greater than the last number accepted and at most
   :data:`MAX_SKIP` more (a sub-list ``(1) ... (2)`` inside paragraph 7 or a year ``1972.`` at a line start is
   not a paragraph). The splitter (:mod:`legal.sentences`) always starts a sentence at such a marker.
3. A judgment with at least two accepted numbers is *numbered*: a paragraph runs from one accepted marker to
   the next, its unnumbered lines (a quotation, a list) inside it; what precedes the first number (the
   header: parties, court, date) is one paragraph without a number.
4. A judgment that numbers none is cut at blank lines when it has some, else at every line break, and its
   paragraphs are counted from 1, marked as counted (``numbered`` False) so a page can say so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["MAX_SKIP", "Paragraph", "paragraphs"]

MAX_SKIP = 3  # a judgment may skip a number or two (a paragraph lost to a page break); more is another sequence
_MARKER = re.compile(r"\(?(\d{1,3})\\?[.)]\s+\S")
_BLANK = re.compile(r"\n[ \t\r\f\v]*\n")


@dataclass(frozen=True, slots=True)
class Paragraph:
    """Sentences ``first`` to ``end`` (exclusive; indices into the sentence list given) as one paragraph.

    ``number`` is the judgment's own number when ``numbered``, else the paragraph's count from 1; None for the
    text before a numbered judgment's first paragraph. ``line_starts`` are the indices of the sentences after
    ``first`` that begin a new line (the paragraph's unnumbered lines)."""

    number: int | None
    numbered: bool
    first: int
    end: int
    line_starts: tuple[int, ...] = ()


def _accepted_markers(text: str, spans: Sequence[tuple[int, int]], new_line: list[bool]) -> dict[int, int]:
    """Sentence index → paragraph number, for the markers that continue the sequence (rule 2)."""
    accepted: dict[int, int] = {}
    last = 0
    for i, (start, _end) in enumerate(spans):
        if not new_line[i]:
            continue
        match = _MARKER.match(text, start)
        if match is None:
            continue
        number = int(match.group(1))
        if last < number <= last + MAX_SKIP:
            accepted[i] = number
            last = number
    return accepted


def paragraphs(text: str, spans: Sequence[tuple[int, int]]) -> list[Paragraph]:
    """The paragraphs of ``text`` whose sentences lie at ``spans`` (``(start, end)`` offsets, in text order)."""
    if not spans:
        return []
    gaps = [text[max(0, spans[i - 1][1]):spans[i][0]] if i else text[:spans[0][0]] for i in range(len(spans))]
    new_line = [i == 0 or "\n" in gap for i, gap in enumerate(gaps)]
    accepted = _accepted_markers(text, spans, new_line)
    if len(accepted) >= 2:
        starts = sorted(set(accepted) | {0})
        numbers: dict[int, int | None] = {i: accepted.get(i) for i in starts}
        numbered = True
    else:
        blank = [i for i in range(1, len(spans)) if _BLANK.search(gaps[i])]
        starts = [0] + (blank if len(blank) >= 2 else [i for i in range(1, len(spans)) if new_line[i]])
        numbers = {i: n for n, i in enumerate(starts, start=1)}
        numbered = False
    found = []
    for position, first in enumerate(starts):
        end = starts[position + 1] if position + 1 < len(starts) else len(spans)
        lines = tuple(i for i in range(first + 1, end) if new_line[i])
        number = numbers[first]
        found.append(Paragraph(number, numbered and number is not None, first, end, lines))
    return found
