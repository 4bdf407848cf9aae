"""Reading one judgment as a page, and the corpus as charts: the read path behind the web pages and the API.

A judgment's sentences and their roles are not stored on the judgment itself: each chunk holds the
character offsets (``sentence_offsets``, flat start/end pairs into the judgment's text) and the role of each
of its sentences, so :func:`judgment_view` reads the chunks in order and cuts the text, which keeps the
judgment document small and the view exactly what the index holds.

Citations are stored as the extractor's canonical strings: reporter citations (``(2017) 10 SCC 1``) and
party names (``A v. B``). "Cites" and "cited by" both come from the corpus's citation graph
(:mod:`search.graph.citation_graph`, one resolution), so a judgment listed as cited always lists its citer; the
cited cases are grouped with their parallel citations, and the citations in the text are linked, by
:mod:`search.pages.judgment_text`, which also cuts the text into its numbered paragraphs.

:func:`explore` counts judgments per bucket by the rule the search page follows (:mod:`search.pages.facets`: the
judgments whose whole text matches the query's words and every constraint, over the judgments index; roles over
the chunks), optionally restricted by a request; it is what the explore page draws and what a CSV or Dashboards
user would recount.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import NotFoundError, OpenSearch

from legal.citations import extract_citations, parse_provision
from search.graph.citation_graph import CitationGraph, load_graph
from search.graph.citecheck_lookup import lookup_case_names, lookup_reporters
from search.graph.most_cited import most_cited
from search.pages.facets import count, judges, labelled_provisions
from search.pages.judgment_text import (
    CitedCaseLink,
    ParagraphView,
    TextLink,
    cited_case_links,
    paragraph_views,
    text_links,
)
from search.provisions.links import corpus_refs
from search.query.request import SearchRequest
from search.retrieval.matching import lexical_query
from search.retrieval.records import JUDGMENT_FIELDS, StoredJudgment, stored_date

__all__ = ["ActBucket", "CitationLink", "CitedCaseLink", "ExploreView", "JudgmentView", "ParagraphView",
           "SentenceView", "TextLink", "explore", "judgment_view"]

MAX_CHUNKS = 2_000  # a judgment of ~60k sentences; beyond it the view is cut and says so
CITED_BY_LIMIT = 200
ACT_SECTIONS = 8  # sections listed under an Act on Explore
_VERSUS = re.compile(r"\s+(?:v|vs|versus)\.?\s+", re.IGNORECASE)


@dataclass(frozen=True)
class SentenceView:
    """One sentence as the judgment page shows it: its number, offsets into the text, role and text (the
    splitter's :class:`legal.sentences.Sentence` plus the role the chunks stored for it)."""

    number: int
    start: int
    end: int
    role: str
    text: str


@dataclass(frozen=True)
class CitationLink:
    """A citation the judgment makes, with the corpus item it resolves to (None: not in the corpus)."""

    citation: str
    target_id: str | None = None
    target_title: str | None = None


@dataclass(frozen=True)
class CitingJudgment:
    judgment_id: str
    title: str | None
    decision_date: dt.date | None


@dataclass(frozen=True)
class JudgmentView:
    """Everything the judgment page shows."""

    judgment_id: str
    title: str | None
    court: str | None
    decision_date: dt.date | None
    judges: tuple[str, ...]
    case_number: str | None
    citations: tuple[str, ...]
    summary: dict[str, Any]
    sentences: tuple[SentenceView, ...]
    role_counts: dict[str, int]
    cites_judgments: tuple[CitationLink, ...]
    cites_provisions: tuple[CitationLink, ...]
    cited_by: tuple[CitingJudgment, ...]
    text_length: int
    truncated: bool = False
    paragraphs: tuple[ParagraphView, ...] = ()
    cited_cases: tuple[CitedCaseLink, ...] = ()  # cites_judgments grouped by case (parallel citations together)
    text_links: tuple[TextLink, ...] = ()  # citations in the text that name a corpus judgment or provision


def _sentences(client: OpenSearch, chunks_alias: str, judgment_id: str, text: str) -> tuple[list[SentenceView], bool]:
    body = {"size": MAX_CHUNKS, "query": {"term": {"judgment_id": judgment_id}}, "sort": [{"ordinal": "asc"}],
            "_source": ["sentence_offsets", "sentence_roles", "sentence_start", "role"]}
    response = client.search(index=chunks_alias, body=body)
    sentences: dict[int, SentenceView] = {}  # windows of a long role group overlap: keep each sentence once
    for hit in response["hits"]["hits"]:
        source = hit["_source"]
        offsets = source.get("sentence_offsets") or []
        roles = source.get("sentence_roles") or []
        first = int(source.get("sentence_start") or 0)
        for i, role in enumerate(roles):
            if 2 * i + 1 >= len(offsets):
                break
            start, end = int(offsets[2 * i]), int(offsets[2 * i + 1])
            sentences.setdefault(first + i, SentenceView(first + i, start, end, role or source.get("role") or "none",
                                                     text[start:end]))
    truncated = response["hits"]["total"]["value"] > MAX_CHUNKS
    return [sentences[n] for n in sorted(sentences)], truncated


def resolve_judgments(client: OpenSearch, judgments_alias: str, cited: list[str]) -> dict[str, tuple[str, str | None]]:
    """Map each cited string to the corpus judgment ``(id, title)`` it names, by the citation check's rules
    (:mod:`search.graph.citecheck_lookup`): a reporter citation the judgment carries, or a case name whose parties
    match; an ambiguous or unknown citation stays unlinked."""
    if not cited:
        return {}
    names = [c for c in cited if _VERSUS.search(f" {c} ")]
    reporters = [c for c in cited if c not in names]
    verdicts = {**(lookup_reporters(client, judgments_alias, reporters) if reporters else {}),
                **(lookup_case_names(client, judgments_alias, names) if names else {})}
    return {c: (v.matches[0].judgment_id, v.matches[0].title) for c, v in verdicts.items()
            if v.status == "found" and v.matches and v.matches[0].judgment_id}


def _titles(client: OpenSearch, judgments_alias: str, ids: list[str]) -> dict[str, dict[str, Any]]:
    """Title and date of each of ``ids`` that the corpus holds (one request)."""
    if not ids:
        return {}
    docs = client.mget(index=judgments_alias, body={"ids": ids}, params={"_source_includes": "title,decision_date"})
    return {d["_id"]: d.get("_source") or {} for d in docs["docs"] if d.get("found")}


def graph_cited_by(client: OpenSearch, judgments_alias: str, judgment_id: str, graph: CitationGraph,
                   limit: int = CITED_BY_LIMIT) -> list[CitingJudgment]:
    """The judgments the citation graph says cite this one, newest first (the first ``limit``)."""
    citers = list(graph.cited_by.get(judgment_id, ()))
    if not citers:
        return []
    body = {"size": limit, "query": {"ids": {"values": citers}}, "_source": ["title", "decision_date"],
            "sort": [{"decision_date": {"order": "desc", "missing": "_last"}}, {"judgment_id": "asc"}]}
    hits = client.search(index=judgments_alias, body=body)["hits"]["hits"]
    return [CitingJudgment(h["_id"], h["_source"].get("title"), stored_date(h["_source"].get("decision_date")))
            for h in hits]


def judgment_view(client: OpenSearch, aliases: dict[str, str], judgment_id: str,
                  graph: CitationGraph | None = None) -> JudgmentView | None:
    """The judgment page's data, or None when the corpus has no judgment with this id. ``graph`` is the
    corpus's citation graph (read now, one scroll, when not given: pass a kept one, see
    :class:`search.graph.cache.GraphCache`)."""
    try:
        source = client.get(index=aliases["judgments"], id=judgment_id,
                            params={"_source_includes": ",".join(JUDGMENT_FIELDS)})["_source"]
    except NotFoundError:
        return None
    stored = StoredJudgment.from_source(source, judgment_id)
    graph = graph if graph is not None else load_graph(client, aliases["judgments"])
    sentences, truncated = _sentences(client, aliases["chunks"], judgment_id, stored.text)
    refs = corpus_refs(client, aliases, stored.cited_provisions)  # one request for every cited provision
    provisions = {c: (ref.provision_id, ref.title) for c, ref in refs.items()}
    found = extract_citations(stored.text)

    def titles(ids):
        return {jid: src.get("title") for jid, src in _titles(client, aliases["judgments"], sorted(ids)).items()}

    cases = cited_case_links(stored.text, found, stored.cited_judgments, graph, judgment_id, titles)
    by_string = {name: (case.target_id, case.target_title) for case in cases for name in case.citations}
    return JudgmentView(
        judgment_id=judgment_id, title=stored.title, court=stored.court, decision_date=stored.decision_date,
        judges=stored.judges, case_number=stored.case_number, citations=stored.citations,
        summary=dict(stored.summary), sentences=tuple(sentences),
        role_counts=dict(Counter(s.role for s in sentences).most_common()),
        cites_judgments=tuple(CitationLink(c, *by_string.get(c, (None, None))) for c in stored.cited_judgments),
        cites_provisions=tuple(CitationLink(c, *provisions.get(c, (None, None))) for c in stored.cited_provisions),
        cited_by=tuple(graph_cited_by(client, aliases["judgments"], judgment_id, graph)),
        text_length=len(stored.text), truncated=truncated,
        paragraphs=paragraph_views(stored.text, [(s.number, s.start, s.end) for s in sentences]),
        cited_cases=cases,
        text_links=text_links(stored.text, found, graph, judgment_id, {c: t for c, (t, _) in provisions.items()}))


# ---------------------------------------------------------------- explore


@dataclass(frozen=True)
class Bucket:
    """One bar of a chart: its key, the judgments in it, and the query filter that selects it; a cited provision
    the corpus holds also carries the provision's ``title`` and ``provision_id``."""

    key: str
    judgments: int
    filter: str
    title: str | None = None
    provision_id: str | None = None
    judgment_id: str | None = None  # a cited case the corpus holds
    citations: tuple[str, ...] = ()  # a cited case's strings: its name(s) and parallel reports, most cited first


@dataclass(frozen=True)
class ActBucket:
    """An Act: the judgments citing any of its provisions, and its most cited sections (each a :class:`Bucket`
    whose count folds in the section's sub-sections, so ``IPC s. 304B`` counts a judgment citing ``IPC s.
    304B(1)``; its filter selects the section's own citation)."""

    act: str
    judgments: int
    sections: tuple[Bucket, ...] = ()


@dataclass(frozen=True)
class ExploreView:
    judgments: int
    chunks: int
    years: tuple[Bucket, ...] = ()
    courts: tuple[Bucket, ...] = ()
    roles: tuple[Bucket, ...] = ()
    provisions: tuple[Bucket, ...] = ()
    cited_judgments: tuple[Bucket, ...] = ()
    judges: tuple[Bucket, ...] = ()
    co_citations: tuple[tuple[str, str, int], ...] = field(default_factory=tuple)
    acts: tuple[ActBucket, ...] = ()


def _quoted(value: str) -> str:
    return '"' + value.replace('"', "") + '"'


def explore(client: OpenSearch, aliases: dict[str, str], request: SearchRequest | None = None,
            graph: CitationGraph | None = None) -> ExploreView:
    """Counts of judgments per year, court, role, cited provision and judgment, judge, cited Act and section, and
    pairs of provisions cited together, each bucket carrying the query filter that narrows a search to it. Counted
    by the rule of :mod:`search.pages.facets`, as the search page counts: ``judgments`` is the search's ``total``. Cited
    provisions and sections the corpus holds carry the provision's title and id (one request for all). Cited
    judgments are cases, each named and with its parallel citations counted together (:mod:`search.graph.most_cited`;
    ``graph``, the corpus's citation graph, names a case the corpus holds: read now when not given)."""
    counted = count(client, aliases, request, size=15, co_citations=True, by_act=True)
    graph = graph if graph is not None else load_graph(client, aliases["judgments"])
    query = lexical_query(request) if request is not None else {"match_all": {}}
    sections = counted.buckets("sections")
    named = labelled_provisions(client, aliases, counted.buckets("cited_provisions") + sections)
    titles = {b["key"]: (b.get("title"), b.get("provision_id")) for b in named}

    def bucket(key: str, judgments: int, made: str) -> Bucket:
        return Bucket(key, judgments, made, *titles.get(key, (None, None)))

    def buckets(name: str, make_filter) -> tuple[Bucket, ...]:
        return tuple(bucket(str(b["key"]), b["judgments"], make_filter(str(b["key"]))) for b in counted.buckets(name))

    by_act: dict[str, list[Bucket]] = {}
    for b in sections:
        act = parse_provision(b["key"])
        if act is not None:
            by_act.setdefault(act.act, []).append(bucket(b["key"], b["judgments"], f"statute:{_quoted(b['key'])}"))
    acts = tuple(ActBucket(str(b["key"]), b["judgments"], tuple(by_act.get(str(b["key"]), ())[:ACT_SECTIONS]))
                 for b in counted.buckets("acts"))

    pairs: dict[tuple[str, str], int] = {}
    for outer in counted.aggregations["co_citations"]["buckets"]:
        for inner in outer["with"]["buckets"]:
            if inner["key"] != outer["key"]:
                pair = tuple(sorted((outer["key"], inner["key"])))
                pairs[pair] = max(pairs.get(pair, 0), int(inner["doc_count"]))  # type: ignore[index]
    co = tuple((a, b, n) for (a, b), n in sorted(pairs.items(), key=lambda item: -item[1])[:15])
    return ExploreView(
        judgments=counted.total, chunks=counted.passages, years=buckets("year", lambda k: f"year:{k}"),
        courts=buckets("court", lambda k: f"court:{_quoted(k)}"),
        roles=buckets("role", lambda k: f"role:{k}"),
        provisions=buckets("cited_provisions", lambda k: f"statute:{_quoted(k)}"),
        cited_judgments=tuple(Bucket(c.name, c.judgments, f"cites:{_quoted(c.cite)}", judgment_id=c.judgment_id,
                                     citations=c.citations)
                              for c in most_cited(client, aliases["judgments"], query, graph)),
        judges=tuple(Bucket(b["key"], b["judgments"], f"judge:{_quoted(b['key'])}")
                     for b in judges(client, aliases, request, counted, 15)),
        co_citations=co, acts=acts)
