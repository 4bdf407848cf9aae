"""Provision retrieval: statute sections that match a fact pattern or the LLM's parametric provisions.

Each query text runs as BM25 (title, text, act name) and k-NN over the ``provisions`` index; the two lists
are fused by min-max (as for chunks) and, when there are several queries (one per parametric provision,
or the user's text when no LLM is configured), the per-query lists are fused again by RRF, which needs no
score calibration across queries. Each hit says which queries found it.

Given a ``floor`` (what the product passes: :func:`search.matching.meaning_floor` of the provisions index's encoder),
a provision is kept only when it matches the query's words (BM25 found it: any word, since a provision rarely
repeats a lawyer's phrasing) or its cosine similarity to the query is at least the floor: the judgments' own rule
for hits found by meaning alone. k-NN always returns neighbours, so without it gibberish (``xyzzyqwerty``) listed
the provisions nearest to nothing in particular. Without a floor (the evaluation's configurations) every fused
provision is kept.

A query that names provisions (``section 304B IPC``, ``s.304-B``, ``Article 21``) lists those first, whatever the
floor, each marked ``named`` (:mod:`search.named_provisions`), then the rest as ranked.

The texts are plain strings (user text or LLM output): they reach OpenSearch only as the value of a
``multi_match``, never as query syntax, and are cut to ``MAX_WORDS`` words.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from opensearchpy import OpenSearch

from backends.encoders import Encoder
from search.fusion import FusionMethod, fuse
from search.matching import cosine
from search.named_provisions import find_named, named_first
from search.records import stored_date

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


@dataclass(frozen=True)
class CitingJudgment:
    """A judgment of the corpus that cites a provision, as a provision page lists it."""

    judgment_id: str
    title: str | None
    court: str | None
    decision_date: dt.date | None


@dataclass(frozen=True)
class CitingJudgments:
    """The judgments citing a provision: how many there are (``total``) and the first ``size`` of them."""

    total: int
    judgments: tuple[CitingJudgment, ...]


def citing_judgments_body(keys: Sequence[str], size: int) -> dict[str, Any]:
    """A ``terms`` query on ``cited_provisions`` for the provision's keys (its canonical citation, and its id
    for corpora whose judgments cite provisions by id), newest first, with an exact total."""
    return {"size": size, "track_total_hits": True, "_source": ["judgment_id", "title", "court", "decision_date"],
            "query": {"bool": {"filter": [{"terms": {"cited_provisions": list(keys)}}]}},
            "sort": [{"decision_date": {"order": "desc", "missing": "_last"}}, {"judgment_id": "asc"}]}


def citing_judgments(client: OpenSearch, index: str, keys: Sequence[str], size: int = 50) -> CitingJudgments:
    """The judgments in ``index`` whose ``cited_provisions`` hold any of ``keys``."""
    keys = [k for k in dict.fromkeys(keys) if k]
    if not keys:
        return CitingJudgments(0, ())
    hits = client.search(index=index, body=citing_judgments_body(keys, size))["hits"]
    found = tuple(CitingJudgment(h["_source"].get("judgment_id", h["_id"]), h["_source"].get("title"),
                                 h["_source"].get("court"), stored_date(h["_source"].get("decision_date")))
                  for h in hits["hits"])
    return CitingJudgments(int(hits["total"]["value"]), found)
