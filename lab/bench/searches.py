"""Latency of the search paths, measured in one run over the same queries: figures, not assertions.

Each mode runs every query once after one warm-up query: ``bm25`` (BM25 body alone), ``bm25_page`` (what a
plain BM25 search engine does to show a page: BM25 over whole judgments with the exact count, then the page's
judgments and their highlighted passages in one more round trip, as the ranker's page is fetched), ``knn`` (query
embedding plus the k-NN body), ``hybrid`` (embedding, hybrid body, roll-up and judgment lookup: a full
search), ``hybrid_rerank`` (the same plus reranking of the top chunks). With an LLM (give the searcher
an uncached one, or every run after the first is a cache hit): ``hybrid_expand_issues`` (three issues
generated, four searches fused), ``provisions_parametric`` (parametric provisions generated, provision
retrieval with them) and ``hybrid_explain_llm`` (a search whose top 3 hits the LLM explains). Times are
wall-clock milliseconds on the client, so they include the HTTP round trip.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from search.execute import Searcher
from search.query.request import RankingMode, SearchRequest
from search.ranking import serve
from search.retrieval.bodies import IDS_ONLY
from search.retrieval.builders import FULLTEXT_FIELDS, bm25_body, knn_body, text_query

MODES = ("bm25", "bm25_page", "knn", "hybrid", "hybrid_rerank", "ranker", "document")
LLM_MODES = ("hybrid_expand_issues", "provisions_parametric", "hybrid_explain_llm")


@dataclass(frozen=True)
class Latency:
    mode: str
    queries: int
    p50_ms: float
    p95_ms: float
    mean_ms: float


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    position = q * (len(ordered) - 1)  # linear interpolation between closest ranks
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _runner(searcher: Searcher, mode: str) -> Callable[[SearchRequest], object]:
    index = searcher.aliases["chunks"]
    if mode == "bm25":
        return lambda r: searcher.client.search(index=index, body=bm25_body(r))
    if mode == "bm25_page":
        return lambda r: _bm25_page(searcher, r)
    if mode == "knn":
        return lambda r: searcher.client.search(index=index, body=knn_body(r, searcher.vector(r)))
    if mode == "hybrid":
        return lambda r: searcher.search(replace(r, rerank=False, ranking=RankingMode.FUSION))
    if mode == "hybrid_rerank":
        return lambda r: searcher.search(replace(r, rerank=True, ranking=RankingMode.FUSION))
    if mode in ("ranker", "document") and searcher.ranker is None:
        raise ValueError(f"benchmark mode {mode!r} needs the learned ranker: {searcher.ranker_note}")
    if mode == "ranker":
        return lambda r: searcher.search(replace(r, rerank=False, ranking=RankingMode.RANKER))
    if mode == "document":  # the query read whole as a document (Client.search_by_document), no page decoration
        ranker = searcher.ranker
        assert ranker is not None
        return lambda r: ranker.rank(r.text, vector=searcher.vector(r), explain=0,
                                     tuned=searcher.tuned_query(r.text, ranker.model))
    if mode in LLM_MODES and searcher.llm is None:
        raise ValueError(f"benchmark mode {mode!r} needs a searcher with an LLM")
    if mode == "hybrid_expand_issues":
        return lambda r: searcher.search(replace(r, rerank=False, expand=("issues",)))
    if mode == "provisions_parametric":
        return lambda r: searcher.search(replace(r, rerank=False, expand=("provisions",), provisions=5))
    if mode == "hybrid_explain_llm":
        return lambda r: searcher.search(replace(r, rerank=False, size=3, explain=True, explain_top=3))
    raise ValueError(f"unknown benchmark mode {mode!r}; choose from {MODES + LLM_MODES}")


def _bm25_page(searcher: Searcher, request: SearchRequest) -> object:
    """A plain BM25 search's page: the best ``size`` judgments by BM25 over their whole text, counted exactly,
    then the page's judgments and passages (:mod:`search.ranking.serve`'s bodies) in one ``_msearch``."""
    judgments = searcher.aliases["judgments"]
    assert request.query is not None
    body = {"query": text_query(request.query, FULLTEXT_FIELDS), "size": request.size, **IDS_ONLY,
            "track_total_hits": True}
    found = searcher.client.search(index=judgments, body=body)["hits"]["hits"]
    ids = [hit["fields"]["judgment_id"][0] for hit in found]
    lines: list[dict] = [{"index": judgments}, serve.judgments_body(ids)]
    for page_body in serve.passage_requests(request, ids, None):
        lines += [{"index": searcher.aliases["chunks"]}, page_body]
    return searcher.client.msearch(body=lines) if ids else None


def measure(searcher: Searcher, requests: Sequence[SearchRequest], modes: Sequence[str] = MODES) -> list[Latency]:
    """p50 / p95 / mean latency per mode over ``requests``, after one warm-up search per mode. The modes take
    turns on each request (not one mode over every request, then the next), so a change in the machine's load
    meets every mode alike and their ratios hold even where the absolute figures drift."""
    if not requests:
        raise ValueError("no queries to measure")
    runs = {mode: _runner(searcher, mode) for mode in modes}
    for run in runs.values():
        run(requests[0])
    times: dict[str, list[float]] = {mode: [] for mode in modes}
    for request in requests:
        for mode, run in runs.items():
            started = time.perf_counter()
            run(request)
            times[mode].append((time.perf_counter() - started) * 1000)
    return [Latency(mode, len(t), round(percentile(t, 0.5), 1), round(percentile(t, 0.95), 1),
                    round(statistics.fmean(t), 1)) for mode, t in times.items()]
