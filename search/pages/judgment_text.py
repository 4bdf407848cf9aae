"""A judgment's text as the judgment page reads it: its paragraphs, and the citations in it linked to the corpus.

Both are computed when the page is read, from what every index already stores (the text with its line breaks,
each sentence's offsets on the chunks), so an index built before paragraphs were shown renders them too.

Citations are read with the indexer's extractor (:func:`legal.citations.extract_citations`) and grouped into
cited cases (:func:`legal.cited_cases.cited_cases`): a case name with its parallel reporter citations is one
case, linked as a whole when any of its citations names a corpus judgment in the citation graph
(:mod:`search.graph.citation_graph`), the same graph "cited by" is read from, so the two always agree. A case whose
citations name two different judgments is not merged: each citation keeps its own link.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from legal.citations import Citation
from legal.cited_cases import cited_cases
from legal.paragraphs import paragraphs
from search.graph.citation_graph import CitationGraph

__all__ = ["CitedCaseLink", "ParagraphView", "TextLink", "cited_case_links", "paragraph_views", "text_links"]


@dataclass(frozen=True)
class ParagraphView:
    """One paragraph of the judgment page: its sentences (by number) and where its lines break.

    ``number`` is the judgment's own paragraph number when ``numbered`` (``12`` for ``12.``), else the count
    the page gives an unnumbered judgment's paragraphs; None for the header before a numbered judgment's first
    paragraph. ``anchor`` is the page's fragment for a pinpoint link (``para-12``), None with no number."""

    number: int | None
    numbered: bool
    anchor: str | None
    start: int
    end: int
    sentences: tuple[int, ...]
    line_starts: tuple[int, ...] = ()


@dataclass(frozen=True)
class TextLink:
    """A citation written in the text at ``[start, end)`` that names a corpus item (``kind`` ``judgment`` or
    ``provision``, ``target_id`` its id)."""

    start: int
    end: int
    kind: str
    citation: str
    target_id: str


@dataclass(frozen=True)
class CitedCaseLink:
    """A case the judgment cites: its citations as written together (name first), the corpus judgment they
    name (None: not in the corpus) and its title."""

    citations: tuple[str, ...]
    target_id: str | None = None
    target_title: str | None = None


def paragraph_views(text: str, sentences: Sequence[tuple[int, int, int]]) -> tuple[ParagraphView, ...]:
    """Paragraphs of ``text`` from its sentences ``(number, start, end)`` in order (:mod:`legal.paragraphs`)."""
    views = []
    for p in paragraphs(text, [(start, end) for _, start, end in sentences]):
        numbers = tuple(sentences[i][0] for i in range(p.first, p.end))
        anchor = f"para-{p.number}" if p.number is not None else None
        views.append(ParagraphView(p.number, p.numbered, anchor, sentences[p.first][1], sentences[p.end - 1][2],
                                   numbers, tuple(sentences[i][0] for i in p.line_starts)))
    return tuple(views)


def _case_targets(text: str, found: Sequence[Citation], graph: CitationGraph,
                  own_id: str) -> list[tuple[tuple[Citation, ...], str | None]]:
    """Each cited case of the text with the judgment it names; a case naming two is split into its citations."""
    out: list[tuple[tuple[Citation, ...], str | None]] = []
    for case in cited_cases(text, found):
        targets = {t for c in case.citations if (t := graph.target(c.normalized)) and t != own_id}
        if len(targets) <= 1:
            out.append((case.citations, next(iter(targets), None)))
        else:
            out += [((c,), t if (t := graph.target(c.normalized)) != own_id else None) for c in case.citations]
    return out


Titles = Callable[[Iterable[str]], Mapping[str, str | None]]


def cited_case_links(text: str, found: Sequence[Citation], cited: Iterable[str], graph: CitationGraph,
                     own_id: str, titles: Titles) -> tuple[CitedCaseLink, ...]:
    """The judgment's stored ``cited`` strings as cited cases, in the order the text first cites them; a string
    the text scan does not group (other rules at index time) is a case of its own. ``titles`` reads the
    targets' titles in one call."""
    wanted = list(dict.fromkeys(cited))
    seen: set[str] = set()
    cases: list[tuple[tuple[str, ...], str | None]] = []
    for citations, target in _case_targets(text, found, graph, own_id):
        names = tuple(n for n in dict.fromkeys(c.normalized for c in citations) if n in wanted and n not in seen)
        if names:
            seen.update(names)
            cases.append((names, target))
    for name in wanted:
        if name not in seen:
            target = graph.target(name)
            cases.append(((name,), target if target != own_id else None))
    known = titles({t for _, t in cases if t})
    return tuple(CitedCaseLink(names, target, known.get(target) if target else None) for names, target in cases)


def text_links(text: str, found: Sequence[Citation], graph: CitationGraph, own_id: str,
               provisions: Mapping[str, str]) -> tuple[TextLink, ...]:
    """The citations in the text that name a corpus judgment (through their cited case; a later bare
    ``1972 Indlaw SC 432 (supra)`` links where its case did) or a corpus provision (``provisions``: canonical
    citation → provision id)."""
    by_name: dict[str, str] = {}
    links: list[TextLink] = []
    for citations, target in _case_targets(text, found, graph, own_id):
        for c in citations:
            if target:
                by_name.setdefault(c.normalized, target)
            linked = target or by_name.get(c.normalized)
            if linked:
                links.append(TextLink(c.start, c.end, "judgment", c.normalized, linked))
    for c in found:
        if c.kind == "provision" and c.normalized in provisions:
            links.append(TextLink(c.start, c.end, "provision", c.normalized, provisions[c.normalized]))
    links.sort(key=lambda link: (link.start, -link.end))
    kept: list[TextLink] = []
    for link in links:  # one link per stretch of text: ``ss. 302 and 34 IPC`` is two citations of one span
        if not kept or link.start >= kept[-1].end:
            kept.append(link)
    return tuple(kept)
