"""Provision retrieval: statute sections that match a fact pattern or the LLM's parametric provisions.

Each query text runs as BM25 (title, text, act name) and k-NN over the ``provisions`` index; the two lists
are fused by min-max (as for chunks) and, when there are several queries (one per parametric provision,
or the user's text when no LLM is configured), the per-query lists are fused again by RRF, which needs no
score calibration across queries. Each hit says which queries found it.

Given a ``floor`` (what the product passes: :func:`search.retrieval.matching.meaning_floor` of the provisions index's
encoder),
a provision is kept only when it matches the query's words (BM25 found it: any word, since a provision rarely
repeats a lawyer's phrasing) or its cosine similarity to the query is at least the floor: the judgments' own rule
for hits found by meaning alone. k-NN always returns neighbours, so without it gibberish (``xyzzyqwerty``) listed
the provisions nearest to nothing in particular. Without a floor (the evaluation's configurations) every fused
provision is kept.

A query that names provisions (``section 304B IPC``, ``s.304-B``, ``Article 21``) lists those first, whatever the
floor, each marked ``named`` (:mod:`search.provisions.named`), then the rest as ranked.

The texts are plain strings (user text or LLM output): they reach OpenSearch only as the value of a
``multi_match``, never as query syntax, and are cut to ``MAX_WORDS`` words.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from opensearchpy import OpenSearch

from backends.encoders import Encoder
from legal.citations import CitationRules, extract_citations, parse_provision
from legal.sentences import split as split_sentences
from search.provisions.named import find_named, named_first
from search.query.options import SortOrder
from search.retrieval.fusion import FusionMethod, fuse
from search.retrieval.matching import cosine
from search.retrieval.records import stored_date
from search.retrieval.sorting import CitedBy, sort_clauses

MAX_WORDS = 300
PROVISION_TEXT_FIELDS = ["title^2", "text", "act.text"]
_SOURCE = ["provision_id", "act", "section", "citation", "title", "text"]


@dataclass(frozen=True)
class ProvisionHit:
    """A statute provision that matched, with the query texts that found it (by number, from 0); ``named``: a
    query text names it (its citation or section), which is why it is listed first."""

    provision_id: str
    score: float
    act: str | None
    section: str | None
    citation: str | None
    title: str | None
    text: str
    matched_by: tuple[int, ...]
    named: bool = False


def _words(text: str) -> str:
    return " ".join(text.split()[:MAX_WORDS])


def provision_bm25_body(text: str, size: int) -> dict[str, Any]:
    """BM25 over provision title, text and act name, for plain ``text``."""
    return {"size": size, "_source": _SOURCE,
            "query": {"multi_match": {"query": _words(text), "fields": PROVISION_TEXT_FIELDS}}}


def provision_knn_body(vector: Sequence[float], size: int) -> dict[str, Any]:
    """k-NN over provision vectors."""
    return {"size": size, "_source": _SOURCE, "query": {"knn": {"vector": {"vector": list(vector), "k": size}}}}


def find_provisions(client: OpenSearch, index: str, encoder: Encoder, texts: Sequence[str],
                    size: int = 5, candidates: int = 20, floor: float | None = None) -> tuple[ProvisionHit, ...]:
    """The ``size`` best provisions for ``texts`` (each a separate query), fused as described above; with a
    ``floor``, only those matching a query's words or at least ``floor`` similar to it (cosine)."""
    texts = [t for t in (_words(t) for t in texts) if t]
    if not texts:
        return ()
    vectors = np.asarray(encoder.encode(list(texts), normalize_embeddings=True))
    per_query: list[list[tuple[str, float]]] = []
    sources: dict[str, dict[str, Any]] = {}
    for text, vector in zip(texts, vectors, strict=True):
        lists = []
        for body in (provision_bm25_body(text, candidates), provision_knn_body(vector.tolist(), candidates)):
            hits = client.search(index=index, body=body)["hits"]["hits"]
            sources.update({h["_id"]: h["_source"] for h in hits})
            lists.append([(h["_id"], float(h["_score"] or 0.0)) for h in hits])
        fused = [(hit.id, hit.score) for hit in fuse(lists, FusionMethod.MINMAX)]
        if floor is not None:
            words, similar = lists
            kept = {doc for doc, _ in words} | {doc for doc, score in similar if cosine(score) >= floor}
            fused = [(doc, score) for doc, score in fused if doc in kept]
        per_query.append(fused)
    named = find_named(client, index, texts, _SOURCE)
    sources.update({doc: dict(source) for doc, source in named.sources.items()})
    if not any(per_query) and not named.order:
        return ()
    ranked = per_query[0] if len(per_query) == 1 else [(hit.id, hit.score) for hit in fuse(per_query, FusionMethod.RRF)]
    ranked = named_first(ranked, named)  # what the texts name first, then the rest as ranked
    results = []
    for doc_id, score in ranked[:size]:
        source = sources[doc_id]
        matched = tuple(n for n, hits in enumerate(per_query) if any(h[0] == doc_id for h in hits))
        results.append(ProvisionHit(source.get("provision_id", doc_id), round(score, 6), source.get("act"),
                                    source.get("section"), source.get("citation"), source.get("title"),
                                    source.get("text") or "", tuple(sorted({*matched, *named.by.get(doc_id, ())})),
                                    doc_id in named.by))
    return tuple(results)



# ---------------------------------------------------------------- the judgments citing a provision

CITING_SORTS = (SortOrder.NEWEST, SortOrder.CITED_BY)
CITING_PAGE_SIZE = 20
MAX_CITING_PAGE_SIZE = 100
MAX_LOOKS = 40  # mentions of the section number read for the citing sentence, per judgment
_WINDOW = 400  # characters either side of a mention handed to the citation extractor
_CONTEXT = 1_500  # characters either side of a citation split into sentences
SENTENCE_CHARS = 500  # the longest citing sentence shown; a longer one is cut around the citation


@dataclass(frozen=True)
class CitingJudgment:
    """A judgment of the corpus that cites a provision, as a provision page lists it: ``cited_as`` is the
    citation it makes (the provision or one of its sub-sections), ``sentence`` the sentence of the judgment that
    makes it (None when the text does not spell it where the extractor can read it), ``cited_by`` how many corpus
    judgments cite this one."""

    judgment_id: str
    title: str | None
    court: str | None
    decision_date: dt.date | None
    cited_as: tuple[str, ...] = ()
    sentence: str | None = None
    cited_by: int = 0


@dataclass(frozen=True)
class CitingJudgments:
    """The judgments citing a provision: how many there are (``total``, exact) and page ``page`` of ``size`` of
    them in ``sort`` order."""

    total: int
    judgments: tuple[CitingJudgment, ...]
    page: int = 1
    size: int = CITING_PAGE_SIZE
    sort: SortOrder = SortOrder.NEWEST

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.size))


def _provision_keys(keys: Sequence[str]) -> list[str]:
    return [k for k in keys if parse_provision(k) is not None]


def citing_judgments_query(keys: Sequence[str]) -> dict[str, Any]:
    """Judgments whose ``cited_provisions`` hold one of ``keys`` (the provision's canonical citation, and its id
    for corpora whose judgments cite provisions by id) or a sub-section of one (``IPC s. 304B(1)`` cites ``IPC s.
    304B``)."""
    should: list[dict[str, Any]] = [{"terms": {"cited_provisions": list(keys)}}]
    should += [{"prefix": {"cited_provisions": f"{key}("}} for key in _provision_keys(keys)]
    return {"bool": {"filter": [{"bool": {"should": should, "minimum_should_match": 1}}]}}


def citing_judgments_body(keys: Sequence[str], size: int, page: int = 1, sort: SortOrder = SortOrder.NEWEST,
                          counts: CitedBy | None = None) -> dict[str, Any]:
    """Page ``page`` of the judgments citing ``keys`` (:func:`citing_judgments_query`) newest first, or most cited
    first (``counts``: corpus judgment id -> judgments citing it, :func:`search.retrieval.sorting.cited_by_counts`, or
    the
    stored counts, :data:`search.retrieval.sorting.STORED_COUNTS`), with an exact total."""
    if sort not in CITING_SORTS:
        raise ValueError(f"the citing judgments are listed newest first or most cited first, not {sort}")
    return {"size": size, "from": (page - 1) * size, "track_total_hits": True,
            "_source": ["judgment_id", "title", "court", "decision_date", "cited_provisions", "text"],
            "query": citing_judgments_query(keys), "sort": sort_clauses(sort, counts)}


def _cites(normalized: str, keys: Sequence[str]) -> bool:
    return any(normalized == key or normalized.startswith(f"{key}(") for key in keys)


def _loose(section: str) -> str:
    """A section number as a judgment may write it: ``304B`` also as ``304-B`` or ``304 B``."""
    parts = re.findall(r"\d+|[A-Za-z]+|.", section)
    return r"[\s-]?".join(re.escape(p) for p in parts)


def citing_sentence(text: str, keys: Sequence[str], rules: CitationRules | None = None) -> str | None:
    """The first sentence of ``text`` that cites one of ``keys`` or a sub-section of one, by the citation
    extractor; None when none does. Bounded: only the first :data:`MAX_LOOKS` mentions of the section numbers are
    read, each in a window of a few hundred characters, whatever the judgment's length."""
    wanted = _provision_keys(keys)
    numbers = {parsed.section.split("(", 1)[0] for parsed in map(parse_provision, wanted) if parsed}
    if not numbers:
        return None
    alternatives = "|".join(_loose(n) for n in sorted(numbers, key=len, reverse=True))
    mention = re.compile(rf"(?<![0-9A-Za-z])(?:{alternatives})(?![0-9A-Za-z])", re.IGNORECASE)
    for looks, match in enumerate(mention.finditer(text)):
        if looks >= MAX_LOOKS:
            break
        low = max(0, match.start() - _WINDOW)
        window = text[low:match.end() + _WINDOW]
        for found in extract_citations(window, rules, {"provision"}):
            if low + found.start <= match.start() < low + found.end and _cites(found.normalized, wanted):
                return _sentence_at(text, low + found.start, low + found.end)
    return None


def _sentence_at(text: str, start: int, end: int) -> str:
    """The sentence holding ``text[start:end]``, cut to :data:`SENTENCE_CHARS` around it when longer."""
    low = max(0, start - _CONTEXT)
    around = text[low:end + _CONTEXT]
    sentence = next((s for s in split_sentences(around) if s.start <= start - low < s.end), None)
    first, last = (low + sentence.start, low + sentence.end) if sentence else (start, end)
    if last - first > SENTENCE_CHARS:
        room = max(0, SENTENCE_CHARS - (end - start)) // 2
        cut_first, cut_last = max(first, start - room), min(last, end + room)
        return ("… " if cut_first > first else "") + " ".join(text[cut_first:cut_last].split()) + (
            " …" if cut_last < last else "")
    return " ".join(text[first:last].split())


def citing_judgments(client: OpenSearch, index: str, keys: Sequence[str], size: int = CITING_PAGE_SIZE,
                     page: int = 1, sort: SortOrder = SortOrder.NEWEST,
                     counts: Mapping[str, int] | None = None, order: CitedBy | None = None) -> CitingJudgments:
    """Page ``page`` of the judgments in ``index`` whose ``cited_provisions`` hold any of ``keys`` or a sub-section
    of one, each with the sentence that cites it (:func:`citing_sentence`) and how many judgments cite it
    (``counts``, which the most-cited order sorts by unless ``order`` names another source of the same counts:
    :data:`search.retrieval.sorting.STORED_COUNTS` when they are current)."""
    keys = [k for k in dict.fromkeys(keys) if k]
    if not keys:
        return CitingJudgments(0, (), page, size, sort)
    body = citing_judgments_body(keys, size, page, sort, counts if order is None else order)
    hits = client.search(index=index, body=body)["hits"]
    found = []
    wanted = _provision_keys(keys)
    for hit in hits["hits"]:
        source = hit["_source"]
        judgment_id = source.get("judgment_id", hit["_id"])
        cited = tuple(c for c in source.get("cited_provisions") or () if _cites(c, keys))
        found.append(CitingJudgment(judgment_id, source.get("title"), source.get("court"),
                                    stored_date(source.get("decision_date")), cited,
                                    citing_sentence(source.get("text") or "", wanted),
                                    int((counts or {}).get(judgment_id, 0))))
    return CitingJudgments(int(hits["total"]["value"]), tuple(found), page, size, sort)
