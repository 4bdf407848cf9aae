"""Running a :class:`~search.request.SearchRequest` against OpenSearch and rolling chunks up to judgments.

Fusion runs on the server through the search pipelines when the cluster has neural-search and the
request uses the pipelines' weights; otherwise the BM25 and k-NN bodies run separately and
:func:`search.fusion.fuse` combines them here, with the same method. A judgment's score is that of its
best chunk; it keeps its best passages (with role and offsets) for display. In ``filter`` role mode
the result says how many otherwise-matching chunks the role filter removed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from opensearchpy import OpenSearch

from search.builders import bm25_body, hybrid_body, knn_body, role_filter_count_body
from search.explain import Explanation, explain
from search.fusion import FusionMethod, fuse
from search.request import DEFAULT_WEIGHTS, RoleMode, SearchRequest
from search.rerank import Reranker, rerank

PIPELINES = {FusionMethod.MINMAX: "ratio-hybrid-minmax", FusionMethod.RRF: "ratio-hybrid-rrf"}
NEURAL_PLUGIN = "opensearch-neural-search"
_JUDGMENT_FIELDS = "title,court,decision_date,judges,cited_provisions,cited_judgments,summary.legal_issues"


class Encoder(Protocol):
    def encode(self, texts: list[str], **kwargs: Any) -> np.ndarray: ...


@dataclass(frozen=True)
class Passage:
    """A chunk that matched, located in its judgment."""

    chunk_id: str
    role: str
    score: float
    text: str
    char_start: int
    char_end: int


@dataclass(frozen=True)
class JudgmentHit:
    """A judgment in the results, scored as its best chunk."""

    judgment_id: str
    score: float
    title: str | None
    court: str | None
    decision_date: str | None
    judges: tuple[str, ...]
    passages: tuple[Passage, ...]
    explanation: Explanation | None = None


@dataclass(frozen=True)
class SearchResult:
    hits: tuple[JudgmentHit, ...]
    judgments_found: int
    fusion: str
    facets: dict[str, Any] = field(default_factory=dict)
    removed_by_role: int | None = None
    removed_roles: dict[str, int] = field(default_factory=dict)
    took_ms: float = 0.0
    rerank_ms: float | None = None


def roll_up(chunks: list[tuple[str, float, dict[str, Any]]], passages: int = 3) -> list[tuple[str, list]]:
    """Group ``(chunk_id, score, source)`` in score order by judgment; a judgment keeps its best passages."""
    grouped: dict[str, list[tuple[str, float, dict[str, Any]]]] = {}
    for chunk in chunks:
        group = grouped.setdefault(chunk[2]["judgment_id"], [])
        if len(group) < passages:
            group.append(chunk)
    return list(grouped.items())


class Searcher:
    """Executes requests on the ``chunks`` alias and decorates hits from the ``judgments`` alias."""

    def __init__(self, client: OpenSearch, aliases: dict[str, str], encoder: Encoder,
                 server_fusion: bool | None = None, reranker: Reranker | None = None) -> None:
        self.client = client
        self.aliases = aliases
        self.encoder = encoder
        self.reranker = reranker
        if server_fusion is None:
            plugins = {row["component"] for row in client.cat.plugins(format="json")}
            server_fusion = NEURAL_PLUGIN in plugins
        self.server_fusion = server_fusion

    def vector(self, request: SearchRequest) -> list[float]:
        return np.asarray(self.encoder.encode([request.semantic_text], normalize_embeddings=True))[0].tolist()

    def _hits(self, response: dict[str, Any]) -> list[tuple[str, float, dict[str, Any]]]:
        return [(h["_id"], float(h["_score"] or 0.0), h["_source"]) for h in response["hits"]["hits"]]

    def chunks(self, request: SearchRequest) -> tuple[list[tuple[str, float, dict[str, Any]]], str, dict]:
        """Fused chunk hits in score order, how they were fused, and the raw aggregations."""
        index = self.aliases["chunks"]
        if request.query is None:
            response = self.client.search(index=index, body=bm25_body(request))
            return self._hits(response), "bm25", response.get("aggregations", {})
        vector = self.vector(request)
        if self.server_fusion and tuple(request.weights) == DEFAULT_WEIGHTS:
            pipeline = PIPELINES[request.fusion]
            response = self.client.search(index=index, body=hybrid_body(request, vector),
                                          params={"search_pipeline": pipeline})
            return self._hits(response), f"server:{pipeline}", response.get("aggregations", {})
        bm25 = self.client.search(index=index, body=bm25_body(request))
        knn = self.client.search(index=index, body=knn_body(request, vector))
        sources = {h[0]: h[2] for h in self._hits(knn) + self._hits(bm25)}
        fused = fuse([[(h[0], h[1]) for h in self._hits(bm25)], [(h[0], h[1]) for h in self._hits(knn)]],
                     request.fusion, weights=request.weights, rank_constant=request.rank_constant)
        return ([(hit.id, hit.score, sources[hit.id]) for hit in fused], f"client:{request.fusion.value}",
                bm25.get("aggregations", {}))

    def search(self, request: SearchRequest) -> SearchResult:
        started = time.perf_counter()
        chunks, fusion, aggregations = self.chunks(request)
        rerank_ms = None
        if request.rerank and request.query is not None:
            if self.reranker is None:
                raise ValueError("the request asks for reranking but this Searcher has no reranker")
            chunks, rerank_ms = rerank(request.semantic_text or request.text, chunks, self.reranker,
                                       request.rerank_top)
        groups = roll_up(chunks)
        start = (request.page - 1) * request.size
        page = groups[start:start + request.size]
        meta: dict[str, dict[str, Any]] = {}
        if page:
            docs = self.client.mget(index=self.aliases["judgments"], body={"ids": [jid for jid, _ in page]},
                                    params={"_source_includes": _JUDGMENT_FIELDS})["docs"]
            meta = {d["_id"]: d.get("_source", {}) for d in docs if d.get("found")}
        hits = []
        for judgment_id, group in page:
            info = meta.get(judgment_id, {})
            passages = tuple(Passage(cid, src["role"], score, src["text"], src["char_start"], src["char_end"])
                             for cid, score, src in group)
            explanation = None
            if request.explain:
                explanation = explain(request.semantic_text or request.text, passages[0].role, passages[0].text,
                                      statutes=request.filters.statutes, cites=request.filters.cites,
                                      cited_provisions=info.get("cited_provisions") or (),
                                      cited_judgments=info.get("cited_judgments") or (),
                                      legal_issues=(info.get("summary") or {}).get("legal_issues") or ())
            hits.append(JudgmentHit(judgment_id, passages[0].score, info.get("title"), info.get("court"),
                                    info.get("decision_date"), tuple(info.get("judges") or ()), passages,
                                    explanation))
        removed, removed_roles = None, {}
        if request.role_mode is RoleMode.FILTER and request.query is not None:
            counted = self.client.search(index=self.aliases["chunks"], body=role_filter_count_body(request))
            bucket = counted["aggregations"]["removed_by_role"]
            removed = int(bucket["doc_count"])
            removed_roles = {b["key"]: b["doc_count"] for b in bucket["roles"]["buckets"]}
        facets = {name: [{"key": b["key"], "chunks": b["doc_count"], "judgments": b["judgments"]["value"]}
                         for b in agg.get("buckets", [])] for name, agg in aggregations.items()}
        return SearchResult(tuple(hits), len(groups), fusion, facets, removed, removed_roles,
                            round((time.perf_counter() - started) * 1000, 1),
                            None if rerank_ms is None else round(rerank_ms, 1))
