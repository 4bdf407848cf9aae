"""Running a :class:`~search.query.request.SearchRequest`: the order of the steps, and which final stage gives the page.

:class:`Searcher` is orchestration; each step lives in its own module and is called from here:

* the learned ranker (the default final stage): :mod:`search.ranking` (when it may rank: ``serve.fallback_reason``);
* the fusion path (its fallback): the chunks, fused on the server or here (:mod:`search.retrieval.chunk_search`),
rolled up to
  judgments (:func:`search.retrieval.records.roll_up`), a judgment scored as its best chunk; in ``filter`` role mode the
  result says how many otherwise-matching chunks the role filter removed;
* a sorted page (by date or cited-by count): :mod:`search.retrieval.sorting`;
* what each judgment of a window matched and the exact counts: :mod:`search.retrieval.matcher`;
* a page read back and made into hits: :mod:`search.page`; the result shapes: :mod:`search.hits`;
* the provisions box: :mod:`search.provisions.box`; facets: :mod:`search.pages.facets`.

With an LLM (optional), the searcher can expand the query by legal issues (each searched too, the lists
fused by RRF) and by parametric provisions (queries for provision retrieval), and explain the top
``explain_top`` hits in the LLM's words, checked against the hit; without one, or when it fails, every
step falls back to its non-LLM path and the result says so.

A request sorted by date or cited-by count does not rank: it pages the whole matching set in that order
(:mod:`search.retrieval.sorting`), each hit shown with its best passages as on the ranker's path.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from opensearchpy import OpenSearch
from opensearchpy.exceptions import TransportError

from backends.encoders import Encoder
from backends.llm import LLM
from backends.opensearch.indices import index_encoder
from search.explain.extractive import Explanation
from search.explain.llm import explain_hit, hit_record
from search.graph.cache import GraphCache
from search.graph.citation_graph import CitationGraph
from search.hits import Passage, SearchResult
from search.llm.expand import Expansion, expand
from search.llm.grades import LLMReranking
from search.llm.rerank import DEFAULT_WEIGHT, Candidate, explanation, llm_rerank
from search.page import Explainer, PageRecords, fetch_page, fused_hits, ranked_hits, sorted_hits
from search.pages.facets import facets
from search.provisions.box import ProvisionBox
from search.provisions.retrieve import ProvisionHit
from search.query.options import PROVISIONS_SIZE, ExpansionKind, SortOrder
from search.query.rejection import EngineError, rejection
from search.query.request import SearchRequest
from search.query.syntax import as_plain_text
from search.query.understand import QueryKind
from search.ranking import serve
from search.ranking.model import DEFAULT_MODEL, RankerModel, RankerModelError, default_typed_model_path
from search.ranking.rank import Ranker, Ranking
from search.ranking.tuned import SERVING, TunedQuery
from search.retrieval.builders import constraints
from search.retrieval.chunk_search import Chunks, ChunkSearch
from search.retrieval.matcher import Matcher
from search.retrieval.matching import CountRule, Matching, cosine, meaning_floor
from search.retrieval.records import HIT_FIELDS, ChunkHit, JudgmentChunks, StoredJudgment, roll_up
from search.retrieval.rerank import DEFAULT_RERANK_WEIGHT, Reranker, rerank
from search.retrieval.sorting import STORED_COUNTS, CitedBy, SortPosition, cited_by_counts, fetch

__all__ = ["Searcher"]


class Searcher:
    """Executes requests on the ``chunks`` alias and decorates hits from the ``judgments`` alias."""

    def __init__(self, client: OpenSearch, aliases: dict[str, str], encoder: Encoder,
                 server_fusion: bool | None = None, reranker: Reranker | None = None,
                 llm: LLM | None = None, rerank_weight: float = DEFAULT_RERANK_WEIGHT,
                 ranker: str | RankerModel | None = DEFAULT_MODEL, meaning_floor: float | None = None,
                 graphs: GraphCache | None = None, llm_rerank_weight: float = DEFAULT_WEIGHT,
                 tuned: Encoder | None = None) -> None:
        self.client = client
        self.aliases = aliases
        self.encoder = encoder
        self.tuned = tuned  # the tuned facts encoder (search.ranking.tuned), None where the index has no vectors
        self.reranker = reranker
        self.rerank_weight = rerank_weight  # the reranker's share of a reranked score (search.retrieval.rerank.blend)
        self.llm = llm
        self.llm_rerank_weight = llm_rerank_weight  # the LLM grade's share after the ranker (search.llm.rerank)
        self.chunk_search = ChunkSearch(client, aliases, self.vector, server_fusion)  # the fusion path's chunks
        self.box = ProvisionBox(client, aliases, encoder)  # the provisions listed beside the judgments
        self.matcher = Matcher(client, aliases, self.vector, lambda: self.floor)  # what a window's judgments matched
        self._ranker_spec = ranker
        self._ranker: Ranker | None = None
        self.ranker_note: str | None = None if ranker is not None else "the learned ranker is off"
        self._floor = meaning_floor  # None: the floor of the encoder the chunks index was built with
        # the corpus's citation graph (shared with the judgment page when given) and its cited-by counts
        self.graphs = graphs or GraphCache(client, aliases["judgments"])
        self._cited_by: tuple[CitationGraph, dict[str, int]] | None = None

    @property
    def floor(self) -> float:
        """The least cosine similarity for a meaning-only hit (:mod:`search.retrieval.matching`), read once."""
        if self._floor is None:
            self._floor = meaning_floor(index_encoder(self.client, self.aliases["chunks"]))
        return self._floor

    @property
    def provisions_floor(self) -> float:
        """The least cosine similarity for a provision found by meaning alone (:attr:`ProvisionBox.floor`)."""
        return self.box.floor

    def match(self, request: SearchRequest, ids: list[str], similarity: dict[str, float] | None = None,
              check_constraints: bool = True) -> Matching:
        """What each of the window's judgments ``ids`` matched, and the exact counts (:meth:`Matcher.match`)."""
        return self.matcher.match(request, ids, similarity, check_constraints)

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
                # the shipped models rank typed queries with their own model; a model named explicitly ranks all
                typed = RankerModel.load(default_typed_model_path()) if spec == DEFAULT_MODEL else None
            except RankerModelError as exc:
                if spec != DEFAULT_MODEL:
                    raise
                self.ranker_note = f"no learned ranker: {exc}"
                return None
            # the ranker's graph (exact resolution) from the same scroll as the pages' (by parties)
            self._ranker = Ranker(self.client, self.aliases, model, graph=lambda: self.graphs.graph(by_parties=False),
                                  typed=typed)
        return self._ranker

    def ranking(self, request: SearchRequest, depth: int | None = None, issues: bool | None = None,
                whole: bool | None = None) -> tuple[Ranking | None, str | None]:
        """The learned ranker's ranking of ``request`` (its constraints applied to every candidate), or None
        and the reason the fusion path must run instead (``issues``: whether an expansion produced issues).
        ``whole`` says whether the ranker reads the request's text whole (None: as the box reads it,
        :attr:`search.query.understand.Understanding.whole`; False: the engine's query alone, for the evaluation that
        chose the length)."""
        reason = serve.fallback_reason(request, issues)
        ranker = self.ranker if reason is None else None
        if reason is None and ranker is None:
            reason = self.ranker_note
        if ranker is None:
            return None, reason
        # a pasted text read whole is ranked as /brief ranks a brief (search.document_query.document_ranked): the
        # whole text, its vector of every word; else the query as the engine takes it
        if whole is None:
            whole = request.understanding is not None and request.understanding.whole
        text = request.text if whole else request.semantic_text or request.text
        vector = self.text_vector(as_plain_text(text)) if whole else self.vector(request)
        # what each candidate matched and the exact counts ride with the features (one round trip fewer);
        # every candidate source applied the constraints, so they are not checked again
        model = ranker.model_for(request.understanding.kind.value if request.understanding else None)
        found = ranker.rank(text, vector=vector, tuned=self.tuned_query(as_plain_text(text) if whole else text, model),
                            filters=constraints(request),
                            explain=depth or (request.page * request.size if request.explain else 0),
                            understanding=request.understanding,
                            also=lambda ids: self.matcher.requests(request, ids, check_constraints=False))
        similarity = {j.judgment_id: cosine(j.features["sim_chunk"]) for j in found.judgments
                      if j.features.get("sim_chunk") and not math.isnan(j.features["sim_chunk"])}  # NaN: not rescored
        ids = [j.judgment_id for j in found.judgments]
        named = found.sources.named if found.sources else {}
        matching = self.matcher.decide(request, ids, found.extra, similarity, named) if found.extra else \
            self.match(request, ids, similarity, check_constraints=False)
        kept = tuple(j for j in found.judgments if matching.keeps(j.judgment_id))
        return dataclasses.replace(found, judgments=kept, matching=matching), None

    def vector(self, request: SearchRequest) -> list[float]:
        return self.text_vector(request.semantic_text)

    def text_vector(self, text: str) -> list[float]:
        """``text`` under the query encoder, normalised (a whole pasted text or brief: every word of it)."""
        return np.asarray(self.encoder.encode([text], normalize_embeddings=True))[0].tolist()

    def tuned_query(self, text: str, model: RankerModel | None = None) -> TunedQuery | None:
        """``text`` under the tuned facts encoder, for the ranker's ``tuned`` features: None without the encoder
        (the index holds no tuned vectors) or when ``model`` is given and reads none of them (the shipped one:
        docs/evaluation.md), so such a search costs no transformer pass."""
        if self.tuned is None or (model is not None and not model.reads("tuned")):
            return None
        vector = np.asarray(self.tuned.encode([text], normalize_embeddings=True))[0]
        return TunedQuery(SERVING, tuple(map(float, vector)))

    def highlights(self, request: SearchRequest, chunk_ids: list[str]) -> dict[str, tuple[str, ...]]:
        """Highlighted sentences of the given chunks for the request's words (:class:`ChunkSearch`)."""
        return self.chunk_search.highlights(request, chunk_ids)

    def chunks(self, request: SearchRequest) -> Chunks:
        """The fusion path's chunks for ``request``, how they were fused, the aggregations (:class:`ChunkSearch`)."""
        return self.chunk_search.chunks(request)

    def expanded_chunks(self, request: SearchRequest, issues: tuple[str, ...]) -> Chunks:
        """:meth:`chunks` fused by RRF with those of each expanded issue (:class:`ChunkSearch`)."""
        return self.chunk_search.expanded_chunks(request, issues)

    def _explainer(self, request: SearchRequest, reranked: LLMReranking | None = None) -> Explainer | None:
        """How this request's hits are explained (:func:`search.explain.llm.explain_hit`), None when it asks not. A
        hit the LLM rerank graded is explained by the grade's reason where it passed the grounding check
        (:func:`search.llm.rerank.explanation`), whether or not the request asked for explanations."""
        graded = reranked if reranked is not None and reranked.applied else None
        if not request.explain and graded is None:
            return None

        def explain_one(rank: int, judgment: StoredJudgment, best: Passage) -> Explanation:
            found = graded.grade_of(judgment.judgment_id) if graded else None
            if found is None:
                llm = self.llm if request.explain else None
                return explain_hit(llm, request, rank, judgment, best.role, best.text)
            fallback = explain_hit(None, request, rank, judgment, best.role, best.text)
            return explanation(found, fallback, graded.model)  # type: ignore[union-attr]

        return explain_one

    def llm_reranked(self, request: SearchRequest, ranked: Ranking,
                     weight: float | None = None) -> tuple[Ranking, LLMReranking, PageRecords]:
        """``ranked`` with its top ``request.llm_rerank`` judgments graded by the LLM and reordered
        (:func:`search.llm.rerank.llm_rerank`, within ``request.llm_rerank_deadline`` seconds), what the stage did,
        and the records read for it (the page reuses them). Without an LLM, or past the deadline, the ranker's
        order stays and the stage's note says why."""
        top = ranked.judgments[:request.llm_rerank]
        ids = [j.judgment_id for j in top]
        weight = self.llm_rerank_weight if weight is None else weight
        records = fetch_page(self.client, self.aliases, request, ids, ranked.vector, ranked.profile)
        if self.llm is None:
            return ranked, LLMReranking(tuple(ids), (), "none", weight, 0.0, False,
                                        "llm_rerank needs an LLM and none is configured: the ranker's order"), records
        candidates = []
        for judged in top:
            shown = records.passages(judged.judgment_id)
            role, text = (shown[0].role, shown[0].text) if shown else ("", "")
            candidates.append(Candidate(judged.judgment_id, judged.score,
                                        hit_record(records.judgment(judged.judgment_id), role, text)))
        found = llm_rerank(self.llm, request.semantic_text or request.text, candidates, weight=weight,
                           deadline_s=request.llm_rerank_deadline)
        if found.applied:
            position = {doc: i for i, doc in enumerate(found.order)}
            top = tuple(sorted(top, key=lambda j: position[j.judgment_id]))
            ranked = dataclasses.replace(ranked, judgments=top + ranked.judgments[len(top):])
        return ranked, found, records

    def judgments(self, judgment_ids: list[str]) -> dict[str, StoredJudgment]:
        """The hit fields (:data:`search.retrieval.records.HIT_FIELDS`) of the judgments the index holds, by id."""
        if not judgment_ids:
            return {}
        docs = self.client.mget(index=self.aliases["judgments"], body={"ids": judgment_ids},
                                params={"_source_includes": ",".join(HIT_FIELDS)})["docs"]
        return {d["_id"]: StoredJudgment.from_source(d.get("_source", {}), d["_id"]) for d in docs if d.get("found")}

    def search(self, request: SearchRequest, position: SortPosition | None = None) -> SearchResult:
        """The page of ``request``: ranked (``relevance``) or sorted (``position``: where a sorted page starts,
        after or before a hit in a point in time; None: page ``request.page`` from the top). Each hit says how many
        corpus judgments cite it (the graph's in-degree)."""
        try:
            result = self._search(request, position)
        except (EngineError, TransportError) as exc:  # the engine refused the query: a typed 400, not a 500
            refused = rejection(exc)
            if refused is None:
                raise
            raise refused from exc
        if request.query_note:
            result = dataclasses.replace(result, query_note=request.query_note)
        if not result.hits:
            return result
        graph = self.graphs.graph()  # each hit's in-degree read from the graph's arrays, not a map of every count
        return dataclasses.replace(result, hits=tuple(dataclasses.replace(hit, cited_by=graph.cited_by_count(
            hit.judgment_id)) for hit in result.hits))

    def _search(self, request: SearchRequest, position: SortPosition | None) -> SearchResult:
        """The final stage that gives the page: sorted, else (after an LLM expansion, when asked) the learned
        ranker's, else the fusion path's."""
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
        return self._fused_search(request, note, started, expansion, expand_ms)

    def _fused_search(self, request: SearchRequest, note: str | None, started: float, expansion: Expansion | None,
                      expand_ms: float | None) -> SearchResult:
        """The fusion path's page (``note``: why the ranker did not rank): fused chunks, reranked when asked, rolled
        up to judgments that keep the constraints, with their passages highlighted."""
        # facets are counted apart (search.pages.facets): the hybrid response's aggregations would count the window
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
        explain_started = time.perf_counter()
        hits = fused_hits(page, stored, marked, matching, self._explainer(request))
        explain_ms = round((time.perf_counter() - explain_started) * 1000, 1) if request.explain else None
        provisions = self.box.by_meaning(request, expansion)
        removed, removed_roles = self.chunk_search.removed_by_role(request)
        return SearchResult(tuple(hits), len(groups), fusion, self._facets(request), removed, removed_roles,
                            round((time.perf_counter() - started) * 1000, 1),
                            None if rerank_ms is None else round(rerank_ms, 1), expansion, provisions, expand_ms,
                            explain_ms, "fusion", note, total=matching.total, meaning_floor=matching.floor,
                            below_floor=matching.below_floor, total_any=matching.total_any,
                            count_rule=CountRule.of(request), llm_rerank=self._not_reranked(request, groups))

    def _not_reranked(self, request: SearchRequest, groups: Sequence[JudgmentChunks]) -> LLMReranking | None:
        """What the LLM rerank stage says on the fusion path, which it does not follow: it grades the learned
        ranker's top judgments, and the ranker did not rank (``ranking_note`` says why)."""
        if not request.llm_rerank or request.query is None:
            return None
        return LLMReranking(tuple(g.judgment_id for g in groups[:request.llm_rerank]), (),
                            getattr(self.llm, "name", "none"), self.llm_rerank_weight, 0.0, False,
                            "llm_rerank grades the learned ranker's top judgments, and the fusion path ranked these")

    def _ranked_provisions(self, request: SearchRequest, expansion: Expansion | None,
                           ranked: Ranking) -> tuple[ProvisionHit, ...]:
        """The provisions box for the ranked judgments (:meth:`provision_hits`); the LLM's parametric provisions,
        when expanded, as on the fusion path."""
        if not request.provisions or (expansion and expansion.provisions):
            return self.box.by_meaning(request, expansion)
        pasted = request.kind is QueryKind.PASTED  # as the box answers (provisions_for)
        return self.provision_hits(request, [j.judgment_id for j in ranked.judgments] if pasted else [],
                                   request.provisions)

    def provisions_for(self, query: str, size: int = PROVISIONS_SIZE) -> tuple[ProvisionHit, ...]:
        """The provisions box: the statutes for ``query``. ``ratio provisions``, the API, the page's box and ``ratio
        eval run aila-statutes``'s ``default`` all come here. A pasted text (a fact pattern) is answered by
        :mod:`search.provisions.precedents` from its words and the provisions its top-ranked precedents cite and quote;
        a typed query (``murder``, ``dowry death``, ``section 304B IPC``) by its own words, since a few words name
        what they ask for and the precedents of a topic cite much else besides (:meth:`provision_hits`)."""
        request = SearchRequest.from_query(query, facets=False, highlight=False)
        ranked = None
        if request.query is not None and request.kind is QueryKind.PASTED:
            ranked, _ = self.ranking(request, depth=0)
        return self.provision_hits(request, [j.judgment_id for j in ranked.judgments] if ranked else [], size)

    def provision_hits(self, request: SearchRequest, judgments: Sequence[str], size: int) -> tuple[ProvisionHit, ...]:
        """The ``size`` best provisions for ``request`` given its judgments ranked best first (none: the query's own
        words alone), those it names first (:meth:`ProvisionBox.best`)."""
        return self.box.best(request, judgments, size)

    def _facets(self, request: SearchRequest) -> dict[str, Any]:
        """Facets by the counting rule of :mod:`search.pages.facets` (the same on both paths, and Explore's)."""
        return facets(self.client, self.aliases, request) if request.facets else {}

    def _ranked_search(self, request: SearchRequest, ranked: Ranking, started: float, expansion: Expansion | None,
                       expand_ms: float | None) -> SearchResult:
        """The page of the ranker's judgments (its top ones graded by the LLM when asked) with their best passages and
        the evidence that placed them."""
        reranked, known = None, PageRecords()
        if request.llm_rerank and request.query is not None:
            ranked, reranked, known = self.llm_reranked(request, ranked)
        start = (request.page - 1) * request.size
        page = ranked.judgments[start:start + request.size]
        # one round trip: the page's judgments, their matching (highlighted) and most similar chunks
        missing = [j.judgment_id for j in page if j.judgment_id not in known.stored]
        fetched = fetch_page(self.client, self.aliases, request, missing, ranked.vector, ranked.profile)
        records = PageRecords({**known.stored, **fetched.stored}, {**known.rows, **fetched.rows})
        explain_started = time.perf_counter()
        hits = ranked_hits(page, records, ranked.matching, ranked.profile, self._explainer(request, reranked))
        explain_ms = round((time.perf_counter() - explain_started) * 1000, 1) if request.explain else None
        return SearchResult(tuple(hits), len(ranked.judgments), f"ranker:{ranked.model}", self._facets(request),
                            took_ms=round((time.perf_counter() - started) * 1000, 1), expansion=expansion,
                            provisions=self._ranked_provisions(request, expansion, ranked), expand_ms=expand_ms,
                            explain_ms=explain_ms, ranking=f"ranker:{ranked.model}",
                            total=ranked.matching.total if ranked.matching else None,
                            meaning_floor=ranked.matching.floor if ranked.matching else None,
                            below_floor=ranked.matching.below_floor if ranked.matching else 0,
                            total_any=ranked.matching.total_any if ranked.matching else None,
                            count_rule=CountRule.of(request), llm_rerank=reranked)

    def cited_by_counts(self) -> dict[str, int]:
        """How many corpus judgments cite each judgment (those cited at all), from the citation graph."""
        graph = self.graphs.graph()
        if self._cited_by is None or self._cited_by[0] is not graph:
            self._cited_by = (graph, cited_by_counts(graph))
        return self._cited_by[1]

    def cited_by_order(self) -> CitedBy:
        """What the cited-by sort orders by: the stored counts when they are the held graph's, else its counts."""
        return STORED_COUNTS if self.graphs.counts_current() else self.cited_by_counts()

    def _sorted_search(self, request: SearchRequest, position: SortPosition | None) -> SearchResult:
        """A page of every matching judgment in ``request.sort`` order (:mod:`search.retrieval.sorting`), with the
        passages
        the ranker's path would show and what each hit matched."""
        started = time.perf_counter()
        vector = self.vector(request) if request.semantic_text else None
        counts = self.cited_by_order() if request.sort is SortOrder.CITED_BY else None
        window = fetch(self.client, self.aliases, request, vector=vector, floor=self.floor, size=request.size,
                       start=(request.page - 1) * request.size, position=position, counts=counts)
        ids = list(window.ids)
        matching = self.match(request, ids, dict(window.similarity), check_constraints=False)
        records = fetch_page(self.client, self.aliases, request, ids, vector)
        hits = sorted_hits(ids, window.scores, records, matching, window.similarity, self._explainer(request))
        return SearchResult(tuple(hits), window.found, f"sorted:{request.sort.value}", self._facets(request),
                            took_ms=round((time.perf_counter() - started) * 1000, 1),
                            provisions=self.box.by_meaning(request, None), ranking=f"sorted:{request.sort.value}",
                            ranking_note=request.sort_note, total=matching.total, meaning_floor=matching.floor,
                            sort=request.sort.value, sort_values=window.sort_values, pit_id=window.pit_id,
                            total_any=matching.total_any, count_rule=CountRule.of(request))
