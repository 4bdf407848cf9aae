"""A first hybrid search over chunks, rolled up to judgments.

This is the seed of the read path: free text only, no query syntax, no role modes, no reranking yet.
The request body is built by a pure function (BM25 over chunk text plus k-NN over chunk vectors, the same
filters inside both), executed through the min-max search pipeline when the cluster has neural-search,
and the chunk hits are grouped into judgment hits that keep their best chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opensearchpy import OpenSearch

from search.errors import QueryError

MAX_TEXT = 10_000


@dataclass(frozen=True)
class BasicRequest:
    """Free text plus optional filters."""

    text: str
    court: str | None = None
    roles: tuple[str, ...] = ()
    size: int = 10
    candidates: int = 100

    def __post_init__(self) -> None:
        if not self.text.strip():
            raise QueryError("the query is empty: type some words to search for")
        if len(self.text) > MAX_TEXT:
            raise QueryError(f"the query is {len(self.text)} characters long; shorten it to {MAX_TEXT}")
        if not 1 <= self.size <= 100:
            raise QueryError("size must be between 1 and 100")


@dataclass(frozen=True)
class ChunkHit:
    chunk_id: str
    role: str
    score: float
    text: str
    char_start: int
    char_end: int


@dataclass(frozen=True)
class JudgmentHit:
    judgment_id: str
    score: float
    title: str | None
    court: str | None
    decision_date: str | None
    chunks: tuple[ChunkHit, ...] = field(default_factory=tuple)


def filter_clauses(request: BasicRequest) -> list[dict[str, Any]]:
    clauses: list[dict[str, Any]] = []
    if request.court:
        clauses.append({"term": {"court": request.court}})
    if request.roles:
        clauses.append({"terms": {"role": list(request.roles)}})
    return clauses


def hybrid_body(request: BasicRequest, vector: list[float]) -> dict[str, Any]:
    """The ``hybrid`` query body: BM25 first, k-NN second (the pipeline weights follow this order)."""
    filters = filter_clauses(request)
    knn: dict[str, Any] = {"vector": vector, "k": request.candidates}
    if filters:
        knn["filter"] = {"bool": {"filter": filters}}
    return {
        "size": request.candidates,
        "_source": {"excludes": ["vector", "sentence_offsets", "sentence_roles"]},
        "query": {"hybrid": {"queries": [
            {"bool": {"must": [{"match": {"text": {"query": request.text}}}], "filter": filters}},
            {"knn": {"vector": knn}},
        ]}},
    }


def roll_up(hits: list[dict[str, Any]], size: int, chunks_per_judgment: int = 3) -> list[tuple[str, list[dict]]]:
    """Group chunk hits by judgment in score order; a judgment scores as its best chunk."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for hit in hits:
        group = grouped.setdefault(hit["_source"]["judgment_id"], [])
        if len(group) < chunks_per_judgment:
            group.append(hit)
    return list(grouped.items())[:size]


def search(client: OpenSearch, aliases: dict[str, str], request: BasicRequest, vector: list[float],
           pipeline: str = "ratio-hybrid-minmax") -> list[JudgmentHit]:
    """Run the hybrid request and return judgment hits with their best chunks."""
    response = client.search(index=aliases["chunks"], body=hybrid_body(request, vector),
                              params={"search_pipeline": pipeline})
    groups = roll_up(response["hits"]["hits"], request.size)
    if not groups:
        return []
    found = client.mget(index=aliases["judgments"], body={"ids": [jid for jid, _ in groups]},
                        params={"_source_includes": "title,court,decision_date"})["docs"]
    meta = {d["_id"]: d.get("_source", {}) for d in found if d.get("found")}
    results = []
    for judgment_id, chunk_hits in groups:
        info = meta.get(judgment_id, {})
        chunks = tuple(ChunkHit(h["_id"], h["_source"]["role"], h["_score"], h["_source"]["text"],
                                h["_source"]["char_start"], h["_source"]["char_end"]) for h in chunk_hits)
        results.append(JudgmentHit(judgment_id, chunks[0].score, info.get("title"), info.get("court"),
                                   info.get("decision_date"), chunks))
    return results
