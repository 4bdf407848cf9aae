"""The fusion path's retrieval: a request's chunks, BM25 and k-NN fused on the server or here, and their highlights.

Fusion runs on the server through the search pipelines when the cluster has neural-search and the request uses
the pipelines' weights; otherwise the BM25 and k-NN bodies run separately and :func:`search.retrieval.fusion.fuse`
combines
them here, with the same method. An LLM issue expansion searches each issue as plain text too and fuses the lists
by RRF. The learned ranker does not come here (it gathers its own candidates: :mod:`search.ranking`); the fusion
path, the evaluation's fusion systems and the answer loop do.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from opensearchpy import NotFoundError, OpenSearch

import mappings
from backends.opensearch.indices import NEURAL_PLUGIN
from search.query.intent import classify_intent
from search.query.request import RoleMode, SearchRequest
from search.query.syntax import as_plain_text, parse_query
from search.retrieval.builders import bm25_body, highlight_body, hybrid_body, knn_body, role_filter_count_body
from search.retrieval.fusion import DEFAULT_RANK_CONSTANT, FusionMethod, fuse
from search.retrieval.records import ChunkHit, by_id

__all__ = ["PIPELINES", "ChunkSearch", "after"]

PIPELINES = {method: mappings.HYBRID_PIPELINES[method.value] for method in FusionMethod}
Chunks = tuple[list[ChunkHit], str, dict[str, Any]]  # fused hits in score order, how they were fused, aggregations


def after(hits: list[ChunkHit], key: Sequence[object] | None, size: int) -> list[ChunkHit]:
    """The first ``size`` of ``hits`` in score order, ties by chunk id, that come after ``key`` (a hit's score and
    chunk id; None: from the top)."""
    ordered = sorted(hits, key=lambda hit: (-hit.score, hit.chunk_id))
    if key is not None:
        score, chunk_id = float(key[0]), str(key[1])
        ordered = [hit for hit in ordered if (-hit.score, hit.chunk_id) > (-score, chunk_id)]
    return ordered[:size]


class ChunkSearch:
    """Chunk searches on the ``chunks`` alias; ``vector`` embeds a request's semantic text (the searcher's encoder)."""

    def __init__(self, client: OpenSearch, aliases: dict[str, str], vector: Callable[[SearchRequest], list[float]],
                 server_fusion: bool | None = None) -> None:
        self.client = client
        self.aliases = aliases
        self.vector = vector
        if server_fusion is None:
            plugins = {row["component"] for row in client.cat.plugins(format="json")}
            server_fusion = NEURAL_PLUGIN in plugins
        self.server_fusion = server_fusion
        self.pipeline_weights = self._pipeline_weights() if server_fusion else None

    def _pipeline_weights(self) -> tuple[float, ...] | None:
        """The weights the cluster's min-max pipeline uses (None if it is missing): a cluster set up before
        the defaults changed keeps its old pipeline until ``ratio indices create`` runs again, and a request
        must not be fused there with weights it did not ask for."""
        name = PIPELINES[FusionMethod.MINMAX]
        try:
            body = self.client.transport.perform_request("GET", f"/_search/pipeline/{name}")
            processor = body[name]["phase_results_processors"][0]["normalization-processor"]
            return tuple(float(w) for w in processor["combination"]["parameters"]["weights"])
        except (NotFoundError, KeyError, IndexError, TypeError, ValueError):
            return None

    def _server_fuses(self, request: SearchRequest) -> bool:
        if not self.server_fusion:
            return False
        if request.fusion is FusionMethod.RRF:
            return request.rank_constant == DEFAULT_RANK_CONSTANT
        weights = self.pipeline_weights
        return weights is not None and len(weights) == 2 and all(
            abs(a - b) < 1e-9 for a, b in zip(weights, request.weights, strict=True))

    def highlights(self, request: SearchRequest, chunk_ids: list[str]) -> dict[str, tuple[str, ...]]:
        """Highlighted sentences of the given chunks for the request's words (one small request)."""
        if not chunk_ids or request.query is None or not request.highlight:
            return {}
        response = self.client.search(index=self.aliases["chunks"], body=highlight_body(request, chunk_ids))
        return {h["_id"]: tuple(h.get("highlight", {}).get("text", ())) for h in response["hits"]["hits"]}

    def removed_by_role(self, request: SearchRequest) -> tuple[int | None, dict[str, int]]:
        """In ``filter`` role mode, how many chunks matching the words and filters the role filter removed, and how
        many of each role; ``(None, {})`` in any other mode or without words."""
        if request.role_mode is not RoleMode.FILTER or request.query is None:
            return None, {}
        counted = self.client.search(index=self.aliases["chunks"], body=role_filter_count_body(request))
        bucket = counted["aggregations"]["removed_by_role"]
        return int(bucket["doc_count"]), {b["key"]: b["doc_count"] for b in bucket["roles"]["buckets"]}

    def chunks(self, request: SearchRequest) -> Chunks:
        """Fused chunk hits in score order (ties by chunk id), how they were fused, and the raw aggregations.

        A ``search_after`` key pages on: BM25 alone pages on the server (sorted by score, then chunk id); a fused
        list is a window (``candidates`` per sub-query), so its key picks the hits after it inside that window."""
        index = self.aliases["chunks"]
        if request.query is None:
            response = self.client.search(index=index, body=bm25_body(request))
            return ChunkHit.from_response(response), "bm25", response.get("aggregations", {})
        key = request.search_after
        window = dataclasses.replace(request, search_after=None)
        vector = self.vector(window)
        if self._server_fuses(window):
            pipeline = PIPELINES[window.fusion]
            response = self.client.search(index=index, body=hybrid_body(window, vector, whole_window=key is not None),
                                          params={"search_pipeline": pipeline})
            hits, fusion = ChunkHit.from_response(response), f"server:{pipeline}"
        else:
            response = self.client.search(index=index, body=bm25_body(window))
            knn = self.client.search(index=index, body=knn_body(window, vector))
            lists = [ChunkHit.from_response(response), ChunkHit.from_response(knn)]
            found = by_id(lists)
            fused = fuse([[(h.chunk_id, h.score) for h in hits] for hits in lists], window.fusion,
                         weights=window.weights, rank_constant=window.rank_constant, limit=len(found))  # all: a window
            hits, fusion = [found[hit.id].rescored(hit.score) for hit in fused], f"client:{window.fusion.value}"
        return after(hits, key, request.candidates), fusion, response.get("aggregations", {})

    def expanded_chunks(self, request: SearchRequest, issues: tuple[str, ...]) -> Chunks:
        """The request's chunks, fused by RRF with those of each issue searched as plain text with the
        same filters and role mode (facets stay those of the original query)."""
        chunks, fusion, aggregations = self.chunks(request)
        if not issues:
            return chunks, fusion, aggregations
        lists = [chunks]
        for issue in issues:
            query = parse_query(as_plain_text(issue)).query
            sub = dataclasses.replace(request, query=query, text=issue, facets=False,
                                      intent=classify_intent(issue) if request.intent else None)
            found, _, _ = self.chunks(sub)
            lists.append(found)
        first = by_id(lists)
        fused = fuse([[(hit.chunk_id, hit.score) for hit in found] for found in lists], FusionMethod.RRF,
                     rank_constant=request.rank_constant)
        return [first[hit.id].rescored(hit.score) for hit in fused], f"{fusion}+issues:rrf", aggregations
