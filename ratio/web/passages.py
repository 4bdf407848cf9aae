"""From a hit to its passage: the link a search hit gives, and the judgment's sentences marked for a reader.

A hit's passage links to ``/judgments/{id}?hl=<words>#s{n}``: ``s{n}`` is the passage's first sentence (the
browser scrolls to it and the page's CSS highlights it with ``:target``, no script needed: the pages' CSP
forbids inline scripts), ``hl`` the words to mark in the text, taken from the highlighter's ``<mark>`` in the
hit's passage (the words as the judgment writes them, stemmed forms included), else the query's plain words.
The link itself is :func:`ratio.results.passage_link` (beside the result shapes, which answers build it into).

:func:`sentence_html` renders one sentence of the judgment page with those words in ``<mark>`` and the
citations that name a corpus judgment or provision as links (:class:`search.pages.judgment_text.TextLink`). The
text is escaped here; only the tags this module writes are markup.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from urllib.parse import quote

from markupsafe import Markup, escape

from search.pages.judgment_text import TextLink

__all__ = ["MAX_WORDS", "highlight_words", "hl_pattern", "sentence_html", "sentences_html"]

MAX_WORDS = 12  # words marked on the judgment page; more is a query, not a highlight
MAX_WORD_CHARS = 40
_MARKED = re.compile(r"<mark>(.*?)</mark>", re.DOTALL)
_WORD = re.compile(r"\w[\w'.-]*\w|\w", re.UNICODE)
_SHORT = 2  # one- and two-letter words (a, of, v) would mark half the text


def highlight_words(highlights: Iterable[str], query: str = "") -> list[str]:
    """The words to mark for a passage: those the highlighter marked in it, else the query's words."""
    marked = [html.unescape(m) for h in highlights for m in _MARKED.findall(h)]
    source = marked or [query]
    words = [w.lower() for text in source for w in _WORD.findall(text) if len(w) > _SHORT and ":" not in w]
    return list(dict.fromkeys(words))[:MAX_WORDS]


def hl_pattern(hl: str) -> re.Pattern[str] | None:
    """A pattern for the ``hl`` parameter's words (whole words, any case), or None when it has none."""
    words = [w for w in _WORD.findall(hl[:MAX_WORDS * (MAX_WORD_CHARS + 1)]) if len(w) > _SHORT][:MAX_WORDS]
    words = [w[:MAX_WORD_CHARS] for w in dict.fromkeys(w.lower() for w in words)]
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def _marked(text: str, pattern: re.Pattern[str] | None) -> Markup:
    if pattern is None:
        return escape(text)
    out, at = [], 0
    for match in pattern.finditer(text):
        out += [escape(text[at:match.start()]), Markup("<mark>"), escape(match.group(0)), Markup("</mark>")]
        at = match.end()
    out.append(escape(text[at:]))
    return Markup("").join(out)


def _href(link: TextLink) -> str:
    kind = "judgments" if link.kind == "judgment" else "provisions"
    return f"/{kind}/{quote(link.target_id, safe='')}"


def sentence_html(text: str, start: int, links: Sequence[TextLink], pattern: re.Pattern[str] | None) -> Markup:
    """One sentence (``text`` at offset ``start`` of the judgment) with its marks and citation links; ``links``
    are the judgment's, in text order (those outside the sentence are skipped; one that crosses its edge is
    cut to it)."""
    end = start + len(text)
    out, at = [], start
    for link in links:
        if link.end <= start or link.start >= end:
            continue
        lo, hi = max(link.start, start), min(link.end, end)
        if lo < at:
            continue
        out.append(_marked(text[at - start:lo - start], pattern))
        title = escape(f"{link.citation}: in the corpus")
        out.append(Markup('<a class="cite-link cite-{}" href="{}" title="{}">').format(link.kind, _href(link), title))
        out += [_marked(text[lo - start:hi - start], pattern), Markup("</a>")]
        at = hi
    out.append(_marked(text[at - start:], pattern))
    return Markup("").join(out)


def sentences_html(sentences: Sequence[tuple[int, int, str]], links: Sequence[TextLink],
                   pattern: re.Pattern[str] | None) -> dict[int, Markup]:
    """Each sentence ``(number, start, text)`` (in text order) rendered by :func:`sentence_html`, reading the
    links once in step with the sentences (a long judgment has thousands of each)."""
    rendered: dict[int, Markup] = {}
    first = 0
    for number, start, text in sentences:
        while first < len(links) and links[first].end <= start:
            first += 1
        end = start + len(text)
        last = first
        while last < len(links) and links[last].start < end:
            last += 1
        rendered[number] = sentence_html(text, start, links[first:last], pattern)
    return rendered
