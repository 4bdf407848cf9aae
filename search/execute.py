"""Running a :class:`~search.request.SearchRequest` against OpenSearch and rolling chunks up to judgments.

Fusion runs on the server through the search pipelines when the cluster has neural-search and the
request uses the pipelines' weights; otherwise the BM25 and k-NN bodies run separately and
:func:`search.fusion.fuse` combines them here, with the same method. A judgment's score is that of its
best chunk; it keeps its best passages (with role, offsets and highlighted sentences) for display. In
``filter`` role mode the result says how many otherwise-matching chunks the role filter removed.

With an LLM (optional), the searcher can expand the query by legal issues (each searched too, the lists
fused by RRF) and by parametric provisions (queries for provision retrieval), and explain the top
``explain_top`` hits in the LLM's words, checked against the hit; without one, or when it fails, every
step falls back to its non-LLM path and the result says so.

A request sorted by date or cited-by count does not rank: it pages the whole matching set in that order
(:mod:`search.sorting`), each hit shown with its best passages as on the ranker's path.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from opensearchpy import NotFoundError, OpenSearch

import mappings
from backends.encoders import Encoder
from backends.llm import LLM
from backends.opensearch.indices import NEURAL_PLUGIN, index_encoder
from search.builders import (
    bm25_body,
    highlight_body,
    hybrid_body,
    knn_body,
    role_filter_count_body,
)
from search.citation_graph import CitationGraph, GraphCache
from search.expand import Expansion, expand
from search.explain import Explanation, explain, explain_filters
from search.explain_llm import hit_record, llm_explain
from search.facets import facets
from search.fusion import DEFAULT_RANK_CONSTANT, FusionMethod, fuse
from search.intent import classify_intent
from search.matching import (
    CountRule,
    Matching,
    allowed_body,
    cosine,
    count_body,
    meaning_floor,
    missing_words,
    returned_ids,
    words_body,
)
from search.named_provisions import find_named, named_first
from search.options import ExpansionKind, RoleMode, SortOrder
from search.provisions import ProvisionHit, find_provisions
from search.ranking import serve
from search.ranking.bodies import chunk_similarity_body
from search.ranking.evidence import evidence
from search.ranking.features import RankingError
from search.ranking.model import DEFAULT_MODEL, RankerModel, RankerModelError
from search.ranking.rank import Ranker, Ranking
from search.ranking.statutes import rank_provisions
from search.records import HIT_FIELDS, ChunkHit, JudgmentChunks, MatchKind, StoredJudgment, by_id, roll_up
from search.request import SearchRequest
from search.rerank import DEFAULT_RERANK_WEIGHT, Reranker, rerank
from search.sorting import SortPosition, SortValue, cited_by_counts, fetch
from search.syntax import as_plain_text, parse_query
from search.understand import QueryKind

__all__ = ["ChunkHit", "JudgmentChunks", "JudgmentHit", "MatchKind", "Passage", "SearchResult", "Searcher",
           "SortPosition", "roll_up"]

PIPELINES = {method: mappings.HYBRID_PIPELINES[method.value] for method in FusionMethod}


@dataclass(frozen=True)
class Passage:
    """A chunk that matched, located in its judgment."""

    chunk_id: str
    role: str
    score: float
    text: str
    char_start: int
    char_end: int
    highlights: tuple[str, ...] = ()  # sentences with the matched words in <mark>, HTML-escaped
    sentence_start: int | None = None  # the number of its first sentence: the judgment page's anchor ``s{n}``

    @classmethod
    def from_chunk(cls, chunk: ChunkHit, highlights: tuple[str, ...] = ()) -> Passage:
        source = chunk.source
        return cls(chunk.chunk_id, source["role"], chunk.score, source["text"], source["char_start"],
                   source["char_end"], highlights, chunk.sentence_start)


@dataclass(frozen=True)
class JudgmentHit:
    """A judgment in the results, scored as its best chunk."""

    judgment_id: str
    score: float
    title: str | None
    court: str | None
    decision_date: dt.date | None
    judges: tuple[str, ...]
    passages: tuple[Passage, ...]
    explanation: Explanation | None = None
    match: MatchKind = MatchKind.WORDS  # "meaning": found by the vector side alone, none of the words matched
    similarity: float | None = None  # a meaning-only hit's cosine with the query (at least the floor)
    missing: tuple[str, ...] = ()  # the typed words (or OR-groups) the judgment lacks (search.matching)
    cited_by: int = field(default=0, metadata={"description": "How many judgments of the corpus cite this one (the "
                                                              "citation graph the cited_by sort and the judgment "
                                                              "page's 'cited by' read); 0: none does."})

    @classmethod
    def of(cls, judgment: StoredJudgment, passages: tuple[Passage, ...], explanation: Explanation | None = None,
           match: MatchKind = MatchKind.WORDS, similarity: float | None = None,
           missing: tuple[str, ...] = (), score: float | None = None) -> JudgmentHit:
        """A hit for a judgment read back from the index, scored as ``score`` (None: its first passage's)."""
        return cls(judgment.judgment_id, passages[0].score if score is None else score, judgment.title,
                   judgment.court, judgment.decision_date, judgment.judges, passages, explanation, match, similarity,
                   missing)


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
    expansion: Expansion | None = None
    provisions: tuple[ProvisionHit, ...] = ()
    expand_ms: float | None = None
    explain_ms: float | None = None
    ranking: str = "fusion"  # "ranker:<model>" when the learned ranker ordered the hits
    ranking_note: str | None = None  # why the fusion path ran instead of the ranker (None: it was not asked)
    total: int | None = None  # judgments matching the words (count_rule) and every constraint, exactly
    total_any: int | None = None  # judgments with any of the words (None: total counts any word, or no words)
    count_rule: str = CountRule.EVERY_WORD  # what total counts: every_word, any_word (pasted text) or filters
    meaning_floor: float | None = None  # the least similarity of a meaning-only hit
    below_floor: int = 0  # meaning-only judgments of the window dropped for being under the floor
    sort: str = "relevance"  # a search.options.SortOrder: anything else pages the whole matching set, sorted
    sort_values: tuple[tuple[SortValue, ...], ...] = ()  # each hit's sort values (a sorted search's page keys)
    pit_id: str | None = None  # the point in time a sorted page was read in (None: the live index)


class Searcher:
    """Executes requests on the ``chunks`` alias and decorates hits from the ``judgments`` alias."""

    def __init__(self, client: OpenSearch, aliases: dict[str, str], encoder: Encoder,
                 server_fusion: bool | None = None, reranker: Reranker | None = None,
                 llm: LLM | None = None, rerank_weight: float = DEFAULT_RERANK_WEIGHT,
                 ranker: str | RankerModel | None = DEFAULT_MODEL, meaning_floor: float | None = None,
                 graphs: GraphCache | None = None) -> None:
        self.client = client
        self.aliases = aliases
        self.encoder = encoder
        self.reranker = reranker
        self.rerank_weight = rerank_weight  # the reranker's share of a reranked score (search.rerank.blend)
        self.llm = llm
        if server_fusion is None:
            plugins = {row["component"] for row in client.cat.plugins(format="json")}
            server_fusion = NEURAL_PLUGIN in plugins
        self.server_fusion = server_fusion
        self.pipeline_weights = self._pipeline_weights() if server_fusion else None
        self._ranker_spec = ranker
        self._ranker: Ranker | None = None
        self.ranker_note: str | None = None if ranker is not None else "the learned ranker is off"
        self._floor = meaning_floor  # None: the floor of the encoder the chunks index was built with
        self._provisions_floor: float | None = None
        # the corpus's citation graph (shared with the judgment page when given) and its cited-by counts
        self.graphs = graphs or GraphCache(client, aliases["judgments"])
        self._cited_by: tuple[CitationGraph, dict[str, int]] | None = None

    @property
    def floor(self) -> float:
        """The least cosine similarity for a meaning-only hit (:mod:`search.matching`), read once."""
        if self._floor is None:
            self._floor = meaning_floor(index_encoder(self.client, self.aliases["chunks"]))
        return self._floor

    @property
    def provisions_floor(self) -> float:
        """The least cosine similarity for a provision found by meaning alone (none of the query's words): the
        floor of the encoder the provisions index was built with, read once."""
        if self._provisions_floor is None:
            self._provisions_floor = meaning_floor(index_encoder(self.client, self.aliases["provisions"]))
        return self._provisions_floor

    def match(self, request: SearchRequest, ids: list[str], similarity: dict[str, float] | None = None,
              check_constraints: bool = True) -> Matching:
        """What each of the window's judgments ``ids`` matched, and the exact count of judgments matching the
        words (:mod:`search.matching`). ``similarity`` (cosines, when the caller has them) saves the request that
        measures the meaning-only judgments' closest passages; ``check_constraints`` False when every id is
        known to satisfy them (the ranker's candidates)."""
        lines: list[dict[str, Any]] = []
        for index, body in self.match_requests(request, ids, check_constraints):
            lines += [{"index": index}, body]
        return self.matched(request, ids, self.client.msearch(body=lines)["responses"], similarity)

    def match_requests(self, request: SearchRequest, ids: Sequence[str],
                       check_constraints: bool = True) -> list[tuple[str, dict[str, Any]]]:
        """The requests :meth:`match` sends, as ``(index, body)``: the ranker sends them with its features."""
        bodies = [("judgments", count_body(request))]
        if request.query is not None and request.every_word:  # the any-word count beside the rule's
            bodies.append(("judgments", count_body(request, any_word=True)))
        if ids:
            bodies.append(("judgments", words_body(request, ids)))
            allowed = allowed_body(request, ids) if check_constraints else None
            if allowed is not None:
                bodies.append(("judgments", allowed))
        return [(self.aliases[kind], body) for kind, body in bodies]

    def matched(self, request: SearchRequest, ids: Sequence[str], answers: Sequence[Mapping[str, Any]],
                similarity: dict[str, float] | None = None, named: Collection[str] = ()) -> Matching:
        """:meth:`match`'s decision from the answers to :meth:`match_requests`; ``named``: judgments a citation
        typed alone names (kept though their text never writes it)."""
        responses = list(answers)
        any_word = request.query is not None and request.every_word
        for response in responses:
            if "error" in response:
                raise RuntimeError(f"the match count failed: {response['error']}")
        total = int(responses[0]["hits"]["total"]["value"])
        total_any = int(responses.pop(1)["hits"]["total"]["value"]) if any_word else None
        words = returned_ids(responses[1]) if ids else frozenset()
        missing = missing_words(request, responses[1]) if ids else {}
        allowed_ids = returned_ids(responses[2]) if len(responses) > 2 else None
        meaning = [d for d in ids if d not in words and (allowed_ids is None or d in allowed_ids)]
        if meaning and request.query is not None and similarity is None:
            body = {**chunk_similarity_body(self.vector(request), meaning), "size": len(meaning)}
            found = self.client.search(index=self.aliases["chunks"], body=body)["hits"]["hits"]
            similarity = {h["fields"]["judgment_id"][0]: cosine(h["_score"]) for h in found}
        return Matching.decide(request, ids, total=total, floor=self.floor, words=words, allowed=allowed_ids,
                               similarity=similarity or {}, total_any=total_any, missing=missing, named=named)

    def fused_window(self, request: SearchRequest, chunks: list[ChunkHit],
                     passages: int = 3) -> tuple[list[JudgmentChunks], Matching]:
        """The fused chunks rolled up to judgments, less those breaking a constraint or found by meaning only
        under the floor, with what each kept judgment matched. Each judgment shows its chunks that score best
        with the court's reasoning preferred, as on the ranker's path (:func:`search.ranking.serve.passage_weight`)."""
        groups = roll_up(chunks, passages, weight=serve.passage_weight(request))
        matching = self.match(request, [group.judgment_id for group in groups])
        return [group for group in groups if matching.keeps(group.judgment_id)], matching

    @property
    def ranker(self) -> Ranker | None:
        """The learned ranker (loaded on first use). The shipped model missing or unloadable (no lightgbm)
        leaves None and a note, so search falls back to fusion and says why; a model named explicitly that
        cannot load raises :class:`RankerModelError`."""
        if self._ranker is None and self._ranker_spec is not None and self.ranker_note is None:
            spec = self._ranker_spec
            try:
                model = spec if isinstance(spec, RankerModel) else RankerModel.load(spec)
            except RankerModelError as exc:
                if spec != DEFAULT_MODEL:
                    raise
                self.ranker_note = f"no learned ranker: {exc}"
                return None
            # the ranker's graph (exact resolution) from the same scroll as the pages' (by parties)
            self._ranker = Ranker(self.client, self.aliases, model, graph=lambda: self.graphs.graph(by_parties=False))
        return self._ranker

    def ranking(self, request: SearchRequest, depth: int | None = None,
                issues: bool | None = None) -> tuple[Ranking | None, str | None]:
        """The learned ranker's ranking of ``request`` (its constraints applied to every candidate), or None
        and the reason the fusion path must run instead (``issues``: whether an expansion produced issues)."""
        reason = serve.fallback_reason(request, issues)
        ranker = self.ranker if reason is None else None
        if reason is None and ranker is None:
            reason = self.ranker_note
        if ranker is None:
            return None, reason
        vector = self.vector(request)
        # what each candidate matched and the exact counts ride with the features (one round trip fewer);
        # every candidate source applied the constraints, so they are not checked again
        found = ranker.rank(request.semantic_text or request.text, vector=vector,
                            filters=serve.constraints(request),
                            explain=depth or (request.page * request.size if request.explain else 0),
                            understanding=request.understanding,
                            also=lambda ids: self.match_requests(request, ids, check_constraints=False))
        similarity = {j.judgment_id: cosine(j.features["sim_chunk"]) for j in found.judgments
                      if j.features.get("sim_chunk")}
        ids = [j.judgment_id for j in found.judgments]
        named = found.sources.named if found.sources else {}
        matching = self.matched(request, ids, found.extra, similarity, named) if found.extra else \
            self.match(request, ids, similarity, check_constraints=False)
        kept = tuple(j for j in found.judgments if matching.keeps(j.judgment_id))
        return dataclasses.replace(found, judgments=kept, matching=matching), None

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

    def vector(self, request: SearchRequest) -> list[float]:
        return np.asarray(self.encoder.encode([request.semantic_text], normalize_embeddings=True))[0].tolist()

    def hits(self, response: dict[str, Any]) -> list[ChunkHit]:
        return ChunkHit.from_response(response)

    def highlights(self, request: SearchRequest, chunk_ids: list[str]) -> dict[str, tuple[str, ...]]:
        """Highlighted sentences of the given chunks for the request's words (one small request)."""
        if not chunk_ids or request.query is None or not request.highlight:
            return {}
        response = self.client.search(index=self.aliases["chunks"], body=highlight_body(request, chunk_ids))
        return {h["_id"]: tuple(h.get("highlight", {}).get("text", ())) for h in response["hits"]["hits"]}

    def chunks(self, request: SearchRequest) -> tuple[list[ChunkHit], str, dict]:
        """Fused chunk hits in score order, how they were fused, and the raw aggregations."""
        index = self.aliases["chunks"]
        if request.query is None:
            response = self.client.search(index=index, body=bm25_body(request))
            return self.hits(response), "bm25", response.get("aggregations", {})
        vector = self.vector(request)
        if self._server_fuses(request):
            pipeline = PIPELINES[request.fusion]
            response = self.client.search(index=index, body=hybrid_body(request, vector),
                                          params={"search_pipeline": pipeline})
            return self.hits(response), f"server:{pipeline}", response.get("aggregations", {})
        bm25 = self.client.search(index=index, body=bm25_body(request))
        knn = self.client.search(index=index, body=knn_body(request, vector))
        lists = [self.hits(bm25), self.hits(knn)]
        found = by_id(lists)
        fused = fuse([[(h.chunk_id, h.score) for h in hits] for hits in lists],
                     request.fusion, weights=request.weights, rank_constant=request.rank_constant)
        return ([found[hit.id].rescored(hit.score) for hit in fused], f"client:{request.fusion.value}",
                bm25.get("aggregations", {}))

    def expanded_chunks(self, request: SearchRequest, issues: tuple[str, ...]) -> tuple[list[ChunkHit], str, dict]:
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

    def _explain(self, request: SearchRequest, rank: int, judgment: StoredJudgment, best: Passage) -> Explanation:
        if request.query is None:  # no words to quote: what the judgment has that the filters ask for
            return explain_filters(request.filters, court=judgment.court, decision_date=judgment.decision_date,
                                   judges=judgment.judges, cited_provisions=judgment.cited_provisions,
                                   cited_judgments=judgment.cited_judgments)
        query = request.semantic_text or request.text
        fallback = explain(query, best.role, best.text, statutes=request.filters.statutes, cites=request.filters.cites,
                           cited_provisions=judgment.cited_provisions, cited_judgments=judgment.cited_judgments,
                           legal_issues=judgment.legal_issues)
        if self.llm is None or rank >= request.explain_top:
            return fallback
        return llm_explain(self.llm, query, hit_record(judgment, best.role, best.text), fallback)

    def judgments(self, judgment_ids: list[str]) -> dict[str, StoredJudgment]:
        """The hit fields (:data:`search.records.HIT_FIELDS`) of the judgments the index holds, by id."""
        if not judgment_ids:
            return {}
        docs = self.client.mget(index=self.aliases["judgments"], body={"ids": judgment_ids},
                                params={"_source_includes": ",".join(HIT_FIELDS)})["docs"]
        return {d["_id"]: StoredJudgment.from_source(d.get("_source", {}), d["_id"]) for d in docs if d.get("found")}

    def search(self, request: SearchRequest, position: SortPosition | None = None) -> SearchResult:
        """The page of ``request``: ranked (``relevance``) or sorted (``position``: where a sorted page starts,
        after or before a hit in a point in time; None: page ``request.page`` from the top). Each hit says how many
        corpus judgments cite it (:meth:`cited_by_counts`)."""
        result = self._search(request, position)
        if not result.hits:
            return result
        counts = self.cited_by_counts()
        return dataclasses.replace(result, hits=tuple(dataclasses.replace(hit, cited_by=counts.get(hit.judgment_id, 0))
                                                      for hit in result.hits))

    def _search(self, request: SearchRequest, position: SortPosition | None) -> SearchResult:
        if request.sort is not SortOrder.RELEVANCE:
            return self._sorted_search(request, position)
        started = time.perf_counter()
        expansion, expand_ms = None, None
        if request.expand:
            expansion = expand(self.llm, request.semantic_text, issues=ExpansionKind.ISSUES in request.expand,
                               provisions=ExpansionKind.PROVISIONS in request.expand)
            expand_ms = round((time.perf_counter() - started) * 1000, 1)
        ranked, note = self.ranking(request, issues=bool(expansion and expansion.issues))
        if ranked is not None:
            return self._ranked_search(request, ranked, started, expansion, expand_ms)
        # facets are counted apart (search.facets): the hybrid response's aggregations would count the window
        chunks, fusion, _ = self.expanded_chunks(dataclasses.replace(request, facets=False),
                                                 expansion.issues if expansion else ())
        rerank_ms = None
        if request.rerank and request.query is not None:
            if self.reranker is None:
                raise ValueError("the request asks for reranking but this Searcher has no reranker")
            chunks, rerank_ms = rerank(request.semantic_text or request.text, chunks, self.reranker,
                                       request.rerank_top, self.rerank_weight)
        groups, matching = self.fused_window(request, chunks)
        start = (request.page - 1) * request.size
        page = groups[start:start + request.size]
        stored = self.judgments([group.judgment_id for group in page])
        marked = self.highlights(request, [chunk.chunk_id for group in page for chunk in group.chunks])
        hits = []
        explain_started = time.perf_counter()
        for rank, group in enumerate(page):
            judgment = stored.get(group.judgment_id) or StoredJudgment(group.judgment_id)
            passages = tuple(Passage.from_chunk(chunk, marked.get(chunk.chunk_id, ())) for chunk in group.chunks)
            explanation = self._explain(request, rank, judgment, passages[0]) if request.explain else None
            hits.append(JudgmentHit.of(judgment, passages, explanation, matching.kinds[group.judgment_id],
                                       matching.similarity.get(group.judgment_id),
                                       matching.missing.get(group.judgment_id, ()), score=group.score))
        explain_ms = round((time.perf_counter() - explain_started) * 1000, 1) if request.explain else None
        provisions = self._provisions(request, expansion)
        removed, removed_roles = None, {}
        if request.role_mode is RoleMode.FILTER and request.query is not None:
            counted = self.client.search(index=self.aliases["chunks"], body=role_filter_count_body(request))
            bucket = counted["aggregations"]["removed_by_role"]
            removed = int(bucket["doc_count"])
            removed_roles = {b["key"]: b["doc_count"] for b in bucket["roles"]["buckets"]}
        return SearchResult(tuple(hits), len(groups), fusion, self._facets(request), removed, removed_roles,
                            round((time.perf_counter() - started) * 1000, 1),
                            None if rerank_ms is None else round(rerank_ms, 1), expansion, provisions, expand_ms,
                            explain_ms, "fusion", note, total=matching.total, meaning_floor=matching.floor,
                            below_floor=matching.below_floor, total_any=matching.total_any,
                            count_rule=CountRule.of(request))

    def _provisions(self, request: SearchRequest, expansion: Expansion | None) -> tuple[ProvisionHit, ...]:
        if not request.provisions or request.query is None:
            return ()
        texts = [p.query for p in expansion.provisions] if expansion and expansion.provisions else []
        return find_provisions(self.client, self.aliases["provisions"], self.encoder,
                               texts or [request.semantic_text], size=request.provisions, floor=self.provisions_floor)

    def _ranked_provisions(self, request: SearchRequest, expansion: Expansion | None,
                           ranked: Ranking) -> tuple[ProvisionHit, ...]:
        """The provisions box for the ranked judgments (:meth:`provision_hits`); the LLM's parametric provisions,
        when expanded, as on the fusion path."""
        if not request.provisions or (expansion and expansion.provisions):
            return self._provisions(request, expansion)
        pasted = request.kind is QueryKind.PASTED  # as the box answers (provisions_for)
        return self.provision_hits(request, [j.judgment_id for j in ranked.judgments] if pasted else [],
                                   request.provisions)

    def provisions_for(self, query: str, size: int = 10) -> tuple[ProvisionHit, ...]:
        """The provisions box: the statutes for ``query``. ``ratio provisions``, the API, the page's box and ``ratio
        eval run aila-statutes``'s ``default`` all come here. A pasted text (a fact pattern) is answered by
        :mod:`search.ranking.statutes` from its words and the provisions its top-ranked precedents cite and quote;
        a typed query (``murder``, ``dowry death``, ``section 304B IPC``) by its own words, since a few words name
        what they ask for and the precedents of a topic cite much else besides (:meth:`provision_hits`)."""
        request = SearchRequest.from_query(query, facets=False, highlight=False)
        ranked = None
        if request.query is not None and request.kind is QueryKind.PASTED:
            ranked, _ = self.ranking(request, depth=0)
        return self.provision_hits(request, [j.judgment_id for j in ranked.judgments] if ranked else [], size)

    def provision_hits(self, request: SearchRequest, judgments: Sequence[str], size: int) -> tuple[ProvisionHit, ...]:
        """The ``size`` best provisions for ``request`` given its judgments ranked best first (none: the query's own
        words alone); those the query names (``section 304B IPC``, ``s.304-B``: :mod:`search.named_provisions`)
        first."""
        index = self.aliases["provisions"]
        named = find_named(self.client, index, [request.semantic_text], ("provision_id",))
        weights = None if judgments else {"direct": 1.0, "passages": 0.0, "citations": 0.0}
        order = named_first(rank_provisions(self.client, self.aliases, self.encoder, request.semantic_text,
                                            judgments, depth=size, weights=weights, floor=self.provisions_floor),
                            named)[:size]
        if not order:
            return ()
        docs = self.client.mget(index=index, body={"ids": [p for p, _ in order]},
                                params={"_source_excludes": "vector"})["docs"]
        found = {d["_id"]: d["_source"] for d in docs if d.get("found")}
        return tuple(ProvisionHit(pid, round(score, 6), found[pid].get("act"), found[pid].get("section"),
                                  found[pid].get("citation"), found[pid].get("title"), found[pid].get("text") or "",
                                  (0,), pid in named.by) for pid, score in order if pid in found)

    def _facets(self, request: SearchRequest) -> dict[str, Any]:
        """Facets by the counting rule of :mod:`search.facets` (the same on both paths, and Explore's)."""
        return facets(self.client, self.aliases, request) if request.facets else {}

    def _ranked_search(self, request: SearchRequest, ranked: Ranking, started: float, expansion: Expansion | None,
                       expand_ms: float | None) -> SearchResult:
        """The page of the ranker's judgments with their best passages and the evidence that placed them."""
        start = (request.page - 1) * request.size
        page = ranked.judgments[start:start + request.size]
        ids = [j.judgment_id for j in page]
        stored: dict[str, StoredJudgment] = {}
        passages: dict[str, list[serve.PassageRow]] = {}
        if ids:  # one round trip: the page's judgments, their matching (highlighted) and most similar chunks
            lines: list[dict[str, Any]] = [{"index": self.aliases["judgments"]}, serve.judgments_body(ids)]
            for body in serve.passage_requests(request, ids, ranked.vector, ranked.profile):
                lines += [{"index": self.aliases["chunks"]}, body]
            found, *chunk_responses = self.client.msearch(body=lines)["responses"]
            for response in (found, *chunk_responses):
                if "error" in response:
                    raise RankingError(f"fetching the page failed: {response['error']}", response)
            stored = {h["_id"]: StoredJudgment.from_source(h.get("_source", {}), h["_id"])
                      for h in found["hits"]["hits"]}
            passages = serve.best_passages(chunk_responses)
        hits = []
        explain_started = time.perf_counter()
        for judged in page:
            judgment = stored.get(judged.judgment_id) or StoredJudgment(judged.judgment_id)
            shown = tuple(Passage.from_chunk(ChunkHit(cid, score, src), marked)
                          for cid, score, src, _, marked in passages.get(judged.judgment_id, ()))
            explanation = None
            if request.explain and shown:
                found = evidence(judged.contributions, judged.features, judged.meta, ranked.profile)
                base = self._explain(request, len(hits), judgment, shown[0])
                explanation = dataclasses.replace(base, text=f"{found.text}. {base.text}" if found.phrases
                                                  else base.text, evidence=found.phrases)
            matched = ranked.matching
            hits.append(JudgmentHit(judgment.judgment_id, judged.score, judgment.title, judgment.court,
                                    judgment.decision_date, judgment.judges, shown, explanation,
                                    matched.kinds[judged.judgment_id] if matched else MatchKind.WORDS,
                                    matched.similarity.get(judged.judgment_id) if matched else None,
                                    matched.missing.get(judged.judgment_id, ()) if matched else ()))
        explain_ms = round((time.perf_counter() - explain_started) * 1000, 1) if request.explain else None
        return SearchResult(tuple(hits), len(ranked.judgments), f"ranker:{ranked.model}", self._facets(request),
                            took_ms=round((time.perf_counter() - started) * 1000, 1), expansion=expansion,
                            provisions=self._ranked_provisions(request, expansion, ranked), expand_ms=expand_ms,
                            explain_ms=explain_ms, ranking=f"ranker:{ranked.model}",
                            total=ranked.matching.total if ranked.matching else None,
                            meaning_floor=ranked.matching.floor if ranked.matching else None,
                            below_floor=ranked.matching.below_floor if ranked.matching else 0,
                            total_any=ranked.matching.total_any if ranked.matching else None,
                            count_rule=CountRule.of(request))

    def cited_by_counts(self) -> dict[str, int]:
        """How many corpus judgments cite each judgment (those cited at all), from the citation graph."""
        graph = self.graphs.graph()
        if self._cited_by is None or self._cited_by[0] is not graph:
            self._cited_by = (graph, cited_by_counts(graph))
        return self._cited_by[1]

    def _sorted_search(self, request: SearchRequest, position: SortPosition | None) -> SearchResult:
        """A page of every matching judgment in ``request.sort`` order (:mod:`search.sorting`), with the passages
        the ranker's path would show and what each hit matched."""
        started = time.perf_counter()
        vector = self.vector(request) if request.semantic_text else None
        counts = self.cited_by_counts() if request.sort is SortOrder.CITED_BY else None
        window = fetch(self.client, self.aliases, request, vector=vector, floor=self.floor, size=request.size,
                       start=(request.page - 1) * request.size, position=position, counts=counts)
        ids = list(window.ids)
        matching = self.match(request, ids, dict(window.similarity), check_constraints=False)
        stored: dict[str, StoredJudgment] = {}
        passages: dict[str, list[serve.PassageRow]] = {}
        if ids:
            lines: list[dict[str, Any]] = [{"index": self.aliases["judgments"]}, serve.judgments_body(ids)]
            bodies = (serve.passage_requests(request, ids, vector) if request.query is not None
                      else [serve.first_passages_body(ids)])
            for body in bodies:
                lines += [{"index": self.aliases["chunks"]}, body]
            found, *chunk_responses = self.client.msearch(body=lines)["responses"]
            for response in (found, *chunk_responses):
                if "error" in response:
                    raise RuntimeError(f"fetching the page failed: {response['error']}")
            stored = {h["_id"]: StoredJudgment.from_source(h.get("_source", {}), h["_id"])
                      for h in found["hits"]["hits"]}
            passages = serve.best_passages(chunk_responses)
        hits = []
        for doc, score in zip(ids, window.scores, strict=True):
            judgment = stored.get(doc) or StoredJudgment(doc)
            shown = tuple(Passage.from_chunk(ChunkHit(cid, chunk_score, src), marked)
                          for cid, chunk_score, src, _, marked in passages.get(doc, ()))
            explanation = self._explain(request, len(hits), judgment, shown[0]) if request.explain and shown else None
            hits.append(JudgmentHit(doc, score, judgment.title, judgment.court, judgment.decision_date, judgment.judges,
                                    shown, explanation, matching.kinds.get(doc, MatchKind.MEANING),
                                    matching.similarity.get(doc, window.similarity.get(doc)),
                                    matching.missing.get(doc, ())))
        return SearchResult(tuple(hits), window.found, f"sorted:{request.sort.value}", self._facets(request),
                            took_ms=round((time.perf_counter() - started) * 1000, 1),
                            provisions=self._provisions(request, None), ranking=f"sorted:{request.sort.value}",
                            ranking_note=request.sort_note, total=matching.total, meaning_floor=matching.floor,
                            sort=request.sort.value, sort_values=window.sort_values, pit_id=window.pit_id,
                            total_any=matching.total_any, count_rule=CountRule.of(request))
