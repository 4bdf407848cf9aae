"""Named search configurations for evaluation and ablations, run through the product's own Searcher.

Each configuration turns a query text into a ranked list of judgment ids (precedent tasks) or provision ids
(the statute task). They differ in one design choice at a time, so an ablation table reads directly:

* retrieval: ``bm25`` / ``knn`` / ``hybrid`` (min-max, default weights) / ``hybrid_07`` (0.7/0.3, the former
  default) / ``hybrid_09`` / ``hybrid_rrf`` over role chunks;
* roles: ``hybrid`` has them off; ``hybrid_boost`` and ``hybrid_filter`` use the intent's roles;
* query side: ``issues_only`` (the LLM's issues, each searched, RRF) and ``facts_issues`` (both);
* document side: ``fulltext_bm25`` (whole judgment text) and ``summary_bm25`` (summary fields) against
  the chunk configurations;
* document-length queries: ``fulltext_bm25_whole`` reads the whole query (a judgment as the query) in
  segments and sums their BM25 scores, and ``hybrid_fulltext_whole`` fuses it with the hybrid chunks;
* ``hybrid_rerank``: the top chunks rescored (the configured reranker); ``hybrid_rerank:LABEL`` uses the
  runner's reranker of that label (:class:`LabelledReranker`), so one report compares several rerankers and
  blend weights on the same candidates;
* statutes: ``provisions_bm25`` / ``provisions_knn`` / ``provisions`` (both, fused) with the query text,
  ``provisions_parametric`` (the LLM's provisions as queries) and ``provisions_both``.

Chunk rankings roll up to judgments exactly as in search (a judgment scores as its best chunk) but over all
candidates rather than one page. Queries are searched as plain words cut to ``max_words`` (but for the
``_whole`` configurations).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from backends.llm import LLMError
from search.document_query import document_ranking, rank_by_document
from search.execute import Searcher
from search.llm.expand import legal_issues, parametric_provisions
from search.llm.grades import LLMReranking
from search.provisions.precedents import rank_provisions
from search.provisions.retrieve import find_provisions, provision_bm25_body, provision_knn_body
from search.query.options import DEFAULT_LLM_RERANK, MAX_LLM_RERANK_DEADLINE
from search.query.request import RankingMode, SearchRequest
from search.query.syntax import as_plain_text
from search.query.understand import QueryKind
from search.ranking.features import FeatureMatrix
from search.ranking.model import RankerModel
from search.retrieval.builders import FULLTEXT_FIELDS, bm25_body, judgment_summary_body, knn_body, text_query
from search.retrieval.fusion import FusionMethod, fuse
from search.retrieval.records import ChunkHit, by_id, roll_up
from search.retrieval.rerank import Reranker, rerank


@dataclass(frozen=True)
class Config:
    """One named configuration: its task (``judgments`` or ``provisions``), what it changes, and whether it
    needs an LLM or a reranker."""

    name: str
    task: str
    description: str
    llm: bool = False
    reranker: bool = False


CONFIGS: dict[str, Config] = {c.name: c for c in (
    Config("default", "judgments", "exactly what 'ratio search' and Client.search do by default (today: the "
           "learned ranker; the fusion path where it cannot run), on the query as the search box reads it "
           "(search.query.understand.read_query: a pasted text read whole, as /brief reads a brief)"),
    Config("default_cut", "judgments", "the default with a pasted text never read whole: the ranker given the part "
           "one engine query holds (its first 960 positions as plain words), as the search box read pastes to "
           "2026-12-05 (the choice of whole_words)"),
    Config("default_llm_rerank", "judgments", "the default, then its top k (--llm-rerank-top) graded by the LLM "
           "and reordered (search.llm.rerank): what 'ratio search --llm-rerank K' does, without its deadline",
           llm=True),
    Config("default_document", "judgments", "exactly what Client.search_by_document does: the query read whole "
           "as a document (the learned ranker; whole-text BM25 of the whole query where it cannot run)"),
    Config("fusion", "judgments", "the former default: 'ratio search' with --ranking fusion (hybrid chunks, "
           "intent's roles boosted)"),
    Config("bm25", "judgments", "BM25 over role chunks, roles off"),
    Config("knn", "judgments", "k-NN over chunk vectors, roles off"),
    Config("hybrid", "judgments", "BM25 + k-NN, min-max with the default weights, roles off"),
    Config("hybrid_07", "judgments", "BM25 + k-NN, min-max 0.7/0.3 (the former default), roles off"),
    Config("hybrid_rrf", "judgments", "BM25 + k-NN, RRF, roles off"),
    Config("hybrid_09", "judgments", "BM25 + k-NN, min-max 0.9/0.1, roles off"),
    Config("bm25_boost", "judgments", "BM25 over role chunks, intent's roles boosted"),
    Config("hybrid_boost", "judgments", "hybrid, intent's roles boosted"),
    Config("hybrid_filter", "judgments", "hybrid, only the intent's roles"),
    Config("hybrid_rerank", "judgments", "hybrid, top 50 chunks reranked", reranker=True),
    Config("issues_only", "judgments", "hybrid over the LLM's issues only (RRF)", llm=True),
    Config("facts_issues", "judgments", "hybrid over the facts and the LLM's issues (RRF)", llm=True),
    Config("fulltext_bm25", "judgments", "BM25 over whole judgment texts"),
    Config("fulltext_bm25_whole", "judgments", "BM25 over whole judgment texts with the whole query (in "
           "segments of 900 words, scores summed), not cut to max_words"),
    Config("hybrid_fulltext_whole", "judgments", "hybrid chunk roll-up and whole-query whole-text BM25, RRF"),
    Config("summary_bm25", "judgments", "BM25 over the judgments' summary fields"),
    Config("title_bm25", "judgments", "BM25 over the judgments' titles (a plain match on the title field)"),
    Config("hybrid_fulltext", "judgments", "hybrid chunk roll-up and whole-text BM25, fused by RRF"),
    Config("bm25_fulltext", "judgments", "BM25 chunk roll-up and whole-text BM25, fused by RRF"),
    Config("provisions_bm25", "provisions", "BM25 over provisions, query text"),
    Config("provisions_knn", "provisions", "k-NN over provisions, query text"),
    Config("provisions", "provisions", "BM25 + k-NN over provisions (min-max), query text"),
    Config("provisions_precedents", "provisions", "the provisions stage without the named-first rule: the query "
           "text (BM25 + k-NN), the top judgments' statute passages and the provisions the top judgments cite "
           "through the corpus mapping, mixed (search.provisions.precedents)"),
    Config("provisions_quoted", "provisions", "the former provisions stage (to 2026-12-02): the query text 0.3 and "
           "the top 10 judgments' statute passages 0.7, no citations through the mapping"),
    Config("provisions_cited", "provisions", "only the provisions the top 50 judgments cite through the corpus "
           "mapping (ablation)"),
    Config("provisions_parametric", "provisions", "provisions retrieved by the LLM's parametric provisions",
           llm=True),
    Config("provisions_both", "provisions", "query text and parametric provisions, RRF", llm=True),
)}


class CachedReranker:
    """A reranker that remembers its scores, so one model blended at several weights is run once per pair."""

    def __init__(self, reranker: Reranker) -> None:
        self.reranker = reranker
        self.cache: dict[tuple[str, str], float] = {}

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        missing = list(dict.fromkeys(p for p in passages if (query, p) not in self.cache))
        if missing:
            self.cache.update(zip(((query, p) for p in missing), self.reranker.score(query, missing), strict=True))
        return [self.cache[(query, p)] for p in passages]


@dataclass(frozen=True)
class LabelledRanker:
    """A learned ranker model under a label: configuration ``ranker:LABEL`` ranks the default's candidates and
    features with it (ablations: models trained without a feature group or without the mined queries)."""

    label: str
    model: RankerModel
    description: str = field(default="", compare=False)


@dataclass(frozen=True)
class LabelledReranker:
    """A reranker and its blend weight under a label: configuration ``hybrid_rerank:LABEL`` uses it."""

    label: str
    reranker: Reranker
    weight: float = 1.0
    description: str = field(default="", compare=False)


class Runner:
    """Ranks queries under the named configurations with one :class:`Searcher` (and its LLM/reranker)."""

    def __init__(self, searcher: Searcher, *, max_words: int = 300, candidates: int = 1000, depth: int = 1000,
                 rerank_top: int = 50, rerankers: Sequence[LabelledReranker] = (),
                 rankers: Sequence[LabelledRanker] = (),
                 saved: Mapping[str, Mapping[str, Sequence[str]]] | None = None, task: str = "judgments",
                 llm_rerank_top: int = DEFAULT_LLM_RERANK, llm_rerank_weight: float | None = None) -> None:
        self.searcher = searcher
        self.llm_rerank_top = llm_rerank_top  # default_llm_rerank's k
        self.llm_rerank_weight = llm_rerank_weight  # its grade weight (None: the searcher's, the product default)
        self.llm_reranks: list[LLMReranking] = []  # what the stage did per query, for the report's cost line
        self.task = task  # what the benchmark ranks: ``default`` is the search box's judgments, or its provisions
        self.saved = dict(saved or {})  # label -> qid -> judgment ids: rankings made elsewhere (run:LABEL)
        self.rerankers = {r.label: r for r in rerankers}
        self.rankers = {r.label: r for r in rankers}
        self._matrices: dict[tuple[str, bool], FeatureMatrix] = {}  # per text and path, for ranker:LABEL runs
        self._precedents: dict[str, list[str]] = {}  # the default's judgments per query text
        self._hybrid: dict[str, list] = {}  # hybrid chunks per query text, shared by the hybrid_rerank:LABEL runs
        self.max_words = max_words
        self.candidates = candidates
        self.depth = depth
        self.rerank_top = rerank_top
        self._issues: dict[str, tuple[str, ...]] = {}
        self._provisions: dict[str, tuple[str, ...]] = {}
        self.llm_failures: list[str] = []  # expansions that failed; the query then runs unexpanded

    def check(self, name: str) -> Config:
        """The configuration ``name``, if this runner can run it; a ValueError saying why not otherwise."""
        if name == "default" and self.task == "provisions":
            return Config("default", "provisions", "exactly what the provisions box, 'ratio provisions' and "
                          "Client.provisions return (Searcher.provisions_for): the query's own provisions mixed "
                          "with those its top-ranked precedents cite (through the corpus mapping) and quote")
        if name.startswith("run:"):
            if name.split(":", 1)[1] not in self.saved:
                raise ValueError(f"configuration {name!r} names no saved run; saved: {', '.join(self.saved) or 'none'}")
            return Config(name, "any", "rankings made elsewhere and read from a file (ratio eval rankings: "
                          "another checkout's default, say), scored as they are")
        if name.startswith("hybrid_rerank:"):
            label = name.split(":", 1)[1]
            if label not in self.rerankers:
                raise ValueError(f"configuration {name!r} names no reranker; labelled ones: "
                                 f"{', '.join(self.rerankers) or 'none'}")
            found = self.rerankers[label]
            return Config(name, "judgments", f"hybrid, top {self.rerank_top} chunks reranked by {label}"
                          f"{f' ({found.description})' if found.description else ''}, reranker weight "
                          f"{found.weight:g}")
        if name.startswith("default_rescore:"):
            if not name.split(":", 1)[1].isdigit() or int(name.split(":", 1)[1]) < 1:
                raise ValueError(f"configuration {name!r}: default_rescore:N takes a number of judgments, N >= 1")
            return Config(name, "judgments", f"the default with the ranker in two stages: every candidate scored on "
                          f"the first stage's features, the best {name.split(':', 1)[1]} rescored with all "
                          "(the choice of FeatureSettings.rescore)")
        if name.startswith(("ranker:", "ranker_document:")):
            label = name.split(":", 1)[1]
            if label not in self.rankers:
                raise ValueError(f"configuration {name!r} names no ranker model; labelled ones: "
                                 f"{', '.join(self.rankers) or 'none'}")
            if self.searcher.ranker is None:
                raise ValueError(f"configuration {name!r} needs the learned ranker: {self.searcher.ranker_note}")
            found = self.rankers[label]
            path = "default_document's" if name.startswith("ranker_document:") else "the default's"
            return Config(name, "judgments", f"{path} candidates and features ranked by model {label}"
                          f"{f' ({found.description})' if found.description else ''}")
        config = CONFIGS.get(name)
        if config is None:
            raise ValueError(f"unknown configuration {name!r}; known: {', '.join(CONFIGS)}")
        if config.llm and self.searcher.llm is None:
            raise ValueError(f"configuration {name!r} needs an LLM (--llm local or --llm http)")
        if config.reranker and self.searcher.reranker is None:
            raise ValueError(f"configuration {name!r} needs a reranker")
        return config

    def request(self, text: str, **options: Any) -> SearchRequest:
        return SearchRequest.from_query(as_plain_text(text, self.max_words), candidates=self.candidates,
                                        facets=False, highlight=False, **options)

    def issues(self, text: str) -> tuple[str, ...]:
        if text not in self._issues:
            try:
                self._issues[text] = legal_issues(self.searcher.llm, as_plain_text(text, self.max_words))
            except LLMError as exc:
                self.llm_failures.append(f"issues: {exc}")
                self._issues[text] = ()
        return self._issues[text]

    def parametric(self, text: str) -> tuple[str, ...]:
        if text not in self._provisions:
            try:
                found = parametric_provisions(self.searcher.llm, as_plain_text(text, self.max_words))
            except LLMError as exc:
                self.llm_failures.append(f"parametric provisions: {exc}")
                found = ()
            self._provisions[text] = tuple(p.query for p in found)
        return self._provisions[text]

    def _ids(self, body: dict[str, Any], index: str) -> list[str]:
        body = {**body, "size": self.depth, "_source": False}
        return [h["_id"] for h in self.searcher.client.search(index=index, body=body)["hits"]["hits"]]

    def _whole_query_bm25(self, text: str) -> list[str]:
        """BM25 of the whole query text over whole judgments (:func:`search.document_query.rank_by_document`)."""
        ranked = rank_by_document(self.searcher.client, self.searcher.aliases["judgments"], text, depth=self.depth)
        return [doc for doc, _ in ranked]

    def _judgments(self, chunks: list[ChunkHit]) -> list[str]:
        return [group.judgment_id for group in roll_up(chunks, passages=1)][: self.depth]

    def _chunk_judgments(self, body: dict[str, Any]) -> list[str]:
        """One chunk body (requests here ask for no facets and no highlights) rolled up to judgments."""
        s = self.searcher
        return self._judgments(ChunkHit.from_response(s.client.search(index=s.aliases["chunks"], body=body)))

    def rank(self, name: str, text: str, qid: str | None = None) -> list[str]:
        """Document ids for ``text`` under configuration ``name``, best first (a saved run, ``run:LABEL``, is
        looked up by ``qid``)."""
        self.check(name)
        if name.startswith("run:"):
            return list(self.saved[name.split(":", 1)[1]].get(qid or "", ()))[: self.depth]
        s = self.searcher
        if name == "default" and self.task == "provisions":
            return [hit.provision_id for hit in s.provisions_for(text, self.depth)]
        if name in ("default", "default_cut", "fusion") or name.startswith("ranker:"):
            return self._rank_default(name, text)
        if name.startswith("default_rescore:"):
            return self._rank_rescored(int(name.split(":", 1)[1]), text)
        if name == "default_llm_rerank":
            return self._rank_llm_reranked(text)
        if name.startswith("ranker_document:"):
            return self._rank_labelled(name, text, document=True)
        if name == "default_document":
            return [doc for doc, _ in document_ranking(s, text, depth=self.depth)]
        off = self.request(text, role_mode="off")
        if name.startswith("hybrid_rerank:"):
            chosen = self.rerankers[name.split(":", 1)[1]]
            if text not in self._hybrid:
                self._hybrid[text] = s.chunks(off)[0]
            chunks = rerank(off.semantic_text, self._hybrid[text], chosen.reranker, self.rerank_top, chosen.weight)
            return self._judgments(chunks[0])
        if name in ("bm25", "knn"):
            return self._chunk_judgments(bm25_body(off) if name == "bm25" else knn_body(off, s.vector(off)))
        if name == "bm25_boost":
            return self._chunk_judgments(bm25_body(self.request(text, role_mode="boost")))
        if name in ("hybrid", "hybrid_rrf", "hybrid_rerank", "hybrid_09", "hybrid_07"):
            request = replace(off, fusion=FusionMethod.RRF) if name == "hybrid_rrf" else off
            request = replace(request, weights=(0.9, 0.1)) if name == "hybrid_09" else request
            request = replace(request, weights=(0.7, 0.3)) if name == "hybrid_07" else request
            chunks = s.chunks(request)[0]
            if name == "hybrid_rerank":
                chunks = rerank(request.semantic_text, chunks, s.reranker, self.rerank_top, s.rerank_weight)[0]
            return self._judgments(chunks)
        if name == "hybrid_boost":
            return self._judgments(s.chunks(self.request(text, role_mode="boost"))[0])
        if name == "hybrid_filter":
            roles = off.intent.roles if off.intent else ()
            request = self.request(text, role_mode="filter", roles=roles) if roles else off
            return self._judgments(s.chunks(request)[0])
        if name == "facts_issues":
            return self._judgments(s.expanded_chunks(off, self.issues(text))[0])
        if name == "issues_only":
            lists = [s.chunks(self.request(issue, role_mode="off"))[0] for issue in self.issues(text)]
            if not lists:  # the LLM failed for this query: nothing to rank (counted in llm_failures)
                return []
            first = by_id(lists)
            fused = fuse([[(hit.chunk_id, hit.score) for hit in found] for found in lists], FusionMethod.RRF)
            return self._judgments([first[h.id].rescored(h.score) for h in fused])
        if name == "fulltext_bm25":
            body = {"query": text_query(off.query, FULLTEXT_FIELDS)}
            return self._ids(body, s.aliases["judgments"])
        if name == "fulltext_bm25_whole":
            return self._whole_query_bm25(text)
        if name == "hybrid_fulltext_whole":
            fused = fuse([[(d, 1.0) for d in self.rank("hybrid", text)],
                          [(d, 1.0) for d in self._whole_query_bm25(text)]], FusionMethod.RRF, limit=self.depth)
            return [hit.id for hit in fused]
        if name == "summary_bm25":
            return self._ids(judgment_summary_body(off), s.aliases["judgments"])
        if name == "title_bm25":
            return self._ids({"query": {"match": {"title": {"query": off.semantic_text}}}}, s.aliases["judgments"])
        if name in ("hybrid_fulltext", "bm25_fulltext"):
            chunks = self.rank("hybrid" if name == "hybrid_fulltext" else "bm25", text)
            whole = self.rank("fulltext_bm25", text)
            fused = fuse([[(d, 1.0) for d in chunks], [(d, 1.0) for d in whole]], FusionMethod.RRF,
                         limit=self.depth)
            return [hit.id for hit in fused]
        return self._rank_provisions(name, text, off)

    def _rank_default(self, name: str, text: str) -> list[str]:
        """``default`` as Searcher.search orders judgments (all candidates, not one page); ``fusion`` the same
        request on the fusion path; ``ranker:LABEL`` the default's feature matrix scored by another model."""
        s = self.searcher
        mode = RankingMode.FUSION if name == "fusion" else RankingMode.RANKER
        request = SearchRequest.from_query(text, ranking=mode, candidates=self.candidates, facets=False,
                                           highlight=False)
        if name.startswith("ranker:"):
            whole = request.understanding is not None and request.understanding.whole
            return self._rank_labelled(name, text if whole else request.semantic_text, document=whole)
        ranked, _ = s.ranking(request, depth=0, whole=False if name == "default_cut" else None)
        if ranked is not None:
            return [j.judgment_id for j in ranked.judgments][: self.depth]
        groups, _ = s.fused_window(request, s.expanded_chunks(request, ())[0], passages=1)
        return [group.judgment_id for group in groups][: self.depth]

    def _rank_rescored(self, rescore: int, text: str) -> list[str]:
        """``default`` with the ranker's features read in two stages for every kind of query, the best ``rescore``
        rescored."""
        ranker = self.searcher.ranker
        if ranker is None:
            raise ValueError(f"default_rescore needs the learned ranker: {self.searcher.ranker_note}")
        shipped = ranker.features.settings
        ranker.features.settings = replace(shipped, rescore=tuple((kind.value, rescore) for kind in QueryKind))
        try:
            return self._rank_default("default", text)
        finally:
            ranker.features.settings = shipped

    def _rank_llm_reranked(self, text: str) -> list[str]:
        """``default``'s ranking with its top ``llm_rerank_top`` graded by the LLM (:meth:`Searcher.llm_reranked`,
        no deadline but the longest a request may ask for), as ``ratio search --llm-rerank K`` orders them."""
        s = self.searcher
        request = SearchRequest.from_query(text, candidates=self.candidates, facets=False,
                                           highlight=False, llm_rerank=self.llm_rerank_top,
                                           llm_rerank_deadline=MAX_LLM_RERANK_DEADLINE)
        ranked, _ = s.ranking(request, depth=0)
        if ranked is None:  # the fusion path ranked: the stage does not follow it (as in search)
            return self._rank_default("default", text)
        ranked, stage, _ = s.llm_reranked(request, ranked, self.llm_rerank_weight)
        self.llm_reranks.append(stage)
        return [j.judgment_id for j in ranked.judgments][: self.depth]

    def _rank_labelled(self, name: str, text: str, document: bool = False) -> list[str]:
        """``text``'s candidates and features (computed once per text and path) scored by a labelled model; a
        document is read whole, as :func:`search.document_query.document_ranking` reads it."""
        s, key = self.searcher, (text, document)
        if key not in self._matrices:
            plain = as_plain_text(text) if document else text
            vector = np.asarray(s.encoder.encode([plain], normalize_embeddings=True))[0].tolist()
            self._matrices[key] = s.ranker.matrix(  # type: ignore[union-attr]
                text if document else plain, vector=vector, tuned=s.tuned_query(plain))[2]
        matrix = self._matrices[key]
        scores = self.rankers[name.split(":", 1)[1]].model.score(matrix.values)
        return [matrix.ids[i] for i in np.argsort(-scores, kind="stable")][: self.depth]

    def precedent_provisions(self, text: str, **options: Any) -> list[tuple[str, float]]:
        """Provisions for ``text`` as the default search lists them (the judgments ranked once per text)."""
        s = self.searcher
        if text not in self._precedents:
            self._precedents[text] = self._rank_default("default", text)
        plain = SearchRequest.from_query(text, facets=False, highlight=False).semantic_text
        options.setdefault("floor", s.provisions_floor)  # as the search lists them: the meaning floor holds
        return rank_provisions(s.client, s.aliases, s.encoder, plain, self._precedents[text], depth=self.depth,
                               **options)

    def _rank_provisions(self, name: str, text: str, request: SearchRequest) -> list[str]:
        s, index, plain = self.searcher, self.searcher.aliases["provisions"], request.semantic_text
        if name == "provisions_bm25":
            return self._ids(provision_bm25_body(plain, self.depth), index)
        if name == "provisions_knn":
            return self._ids(provision_knn_body(s.vector(request), self.depth), index)
        if name == "provisions_precedents":
            return [pid for pid, _ in self.precedent_provisions(text)]
        if name == "provisions_quoted":
            return [pid for pid, _ in self.precedent_provisions(
                text, weights={"direct": 0.3, "passages": 0.7, "citations": 0.0})]
        if name == "provisions_cited":
            return [pid for pid, _ in self.precedent_provisions(
                text, weights={"direct": 0.0, "passages": 0.0, "citations": 1.0})]
        parametric = list(self.parametric(text)) if name != "provisions" else []
        texts = parametric if name == "provisions_parametric" else [plain, *parametric]
        hits = find_provisions(s.client, index, s.encoder, texts or [plain], size=self.depth, candidates=self.depth)
        return [hit.provision_id for hit in hits]


def filter_safety(searcher: Searcher, queries: list, qrels: dict[str, dict[str, int]],
                  max_words: int = 300) -> dict[str, Any]:
    """What role mode ``filter`` can never return: over every query and its relevant judgments, how many
    judgments have no chunk at all in the intent's roles (``unreachable``: neither BM25 nor k-NN can reach
    them), and how many have no chunk in those roles that matches the query's words (``lexical``: only
    k-NN could). ``no_match`` counts relevant judgments with no chunk matching the query's words at all.
    One aggregation request per query."""
    totals = {"relevant": 0, "unreachable": 0, "lexical": 0, "no_match": 0, "queries": 0}
    per_query = {}
    for query in queries:
        relevant = [doc for doc, rel in qrels.get(query.qid, {}).items() if rel > 0]
        request = SearchRequest.from_query(as_plain_text(query.text, max_words), role_mode="off")
        roles = list(request.intent.roles) if request.intent else []
        if not relevant or not roles:
            continue
        by_role = {"terms": {"field": "judgment_id", "size": len(relevant)},
                   "aggs": {"allowed": {"filter": {"terms": {"role": roles}}}}}
        body = {"size": 0, "query": {"terms": {"judgment_id": relevant}},
                "aggs": {"all": by_role,
                         "matching": {"filter": text_query(request.query), "aggs": {"judgments": by_role}}}}
        aggs = searcher.client.search(index=searcher.aliases["chunks"], body=body)["aggregations"]
        allowed_any = {b["key"] for b in aggs["all"]["buckets"] if b["allowed"]["doc_count"] > 0}
        matching = {b["key"]: b["allowed"]["doc_count"] for b in aggs["matching"]["judgments"]["buckets"]}
        row = {"roles": roles, "relevant": len(relevant),
               "unreachable": sum(1 for doc in relevant if doc not in allowed_any),
               "lexical": sum(1 for doc in relevant if matching.get(doc, 0) == 0),
               "no_match": sum(1 for doc in relevant if doc not in matching)}
        per_query[query.qid] = row
        totals["queries"] += 1
        for key in ("relevant", "unreachable", "lexical", "no_match"):
            totals[key] += row[key]
    totals["share"] = totals["unreachable"] / totals["relevant"] if totals["relevant"] else 0.0
    totals["lexical_share"] = totals["lexical"] / totals["relevant"] if totals["relevant"] else 0.0
    return {**totals, "per_query": per_query}
