"""``ratio.Client``: the programmatic face of Ratio (search, judgments, facets, explanations).

The client wires the layers below with explicit settings; models load on first use, not at construction,
so creating a client is cheap and makes no request.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import mappings
from backends.encoders import Encoder
from backends.llm import LLM
from backends.opensearch import ConnectionSettings, IndexLayout, LocalNode, connect
from ratio import settings
from ratio.encoders import search_encoders
from ratio.llm import open_llm
from search.answer import Answer, Answerer, AskOptions, ask
from search.citecheck import CitationReport, check_citations
from search.document_query import document_ranking
from search.execute import Searcher, SearchResult
from search.explain import Explanation, explain
from search.explain_llm import hit_record, llm_explain
from search.options import SearchOptions
from search.ranking.model import DEFAULT_MODEL, RankerModel
from search.records import JUDGMENT_FIELDS, StoredJudgment
from search.request import SearchRequest
from search.rerank import DEFAULT_RERANK_WEIGHT, BiEncoderRescorer, CrossEncoderReranker, Reranker

JudgmentRecord = StoredJudgment  # the name this class had before the read side had one home


class Client:
    """Search Ratio's indices on a cluster (default: the local node)."""

    def __init__(self, url: str | None = None, *, user: str | None = None, password: str | None = None,
                 verify_certs: bool = True, prefix: str = "ratio", encoder: str | Encoder | None = None,
                 reranker: str | Reranker | None = None, rerank_weight: float = DEFAULT_RERANK_WEIGHT,
                 llm: LLM | settings.LLMSettings | None = None,
                 ranker: str | RankerModel | None = DEFAULT_MODEL) -> None:
        if url is None:
            url = LocalNode(home=settings.home_dir() / "opensearch", cache_dir=settings.cache_dir() / "maven").url
            if url is None:
                raise ConnectionError("no OpenSearch: pass url=, set OPENSEARCH_URL, or run 'ratio opensearch start'")
        self.connection = ConnectionSettings(url, user, password, verify_certs)
        self.layout = IndexLayout(prefix)
        self._encoder = encoder
        self._reranker = reranker
        self.rerank_weight = rerank_weight
        self._llm = llm
        self._ranker = ranker  # the learned ranker's model folder ("default": shipped; None: fusion only)

    @classmethod
    def from_env(cls, **overrides: Any) -> Client:
        """A client configured like the CLI (``OPENSEARCH_URL``, ``RATIO_INDEX_PREFIX``, ``RATIO_LLM``, ...)."""
        env = settings.Environment.read()
        options: dict[str, Any] = {"url": env.opensearch_url, "user": env.opensearch_user,
                                   "password": env.opensearch_password,
                                   "verify_certs": env.opensearch_verify_certs, "prefix": env.index_prefix,
                                   "llm": settings.LLMSettings.read(), "ranker": env.ranker}
        return cls(**{**options, **overrides})

    @cached_property
    def client(self):
        return connect(self.connection)

    @cached_property
    def aliases(self) -> dict[str, str]:
        return {kind: self.layout.alias(kind) for kind in mappings.INDEX_KINDS}

    @cached_property
    def _encoders(self) -> tuple[Encoder, Encoder]:
        """(query encoder, rescoring encoder): by default the one the index was built with (ratio.encoders)."""
        if self._encoder is None or isinstance(self._encoder, str):
            return search_encoders(self.client, self.aliases, self._encoder)
        return self._encoder, self._encoder

    @property
    def encoder(self) -> Encoder:
        return self._encoders[0]

    @cached_property
    def reranker(self) -> Reranker:
        if isinstance(self._reranker, str):
            return CrossEncoderReranker(self._reranker)
        return self._reranker or BiEncoderRescorer(self._encoders[1])

    @cached_property
    def llm(self) -> LLM | None:
        """The LLM for expansion and explanations (None: the non-LLM paths); loaded on first use."""
        if isinstance(self._llm, settings.LLMSettings):
            return open_llm(self._llm)
        return self._llm

    @cached_property
    def searcher(self) -> Searcher:
        return Searcher(self.client, self.aliases, self.encoder, reranker=self.reranker, llm=self.llm,
                        rerank_weight=self.rerank_weight, ranker=self._ranker)

    def search(self, query: str, options: SearchOptions | None = None, **overrides: Any) -> SearchResult:
        """Search with Ratio's query syntax and ``options`` (:class:`search.options.SearchOptions`, the same as
        ``ratio search`` and the API take); keyword ``overrides`` are those of ``SearchRequest.from_query``
        (``expand="issues,provisions"``, ``explain=True``, ``provisions=5``, ``cites=[...]``, ...)."""
        return self.searcher.search(SearchRequest.from_options(query, options, **overrides))

    def facets(self, query: str, **options: Any) -> dict[str, Any]:
        """Facet counts (court, year, role, cited provisions, judges) over the judgments matching ``query``."""
        return self.search(query, facets=True, size=1, **options).facets

    def judgment(self, judgment_id: str) -> StoredJudgment:
        """One judgment with its metadata, summary fields and full text."""
        source = self.client.get(index=self.aliases["judgments"], id=judgment_id,
                                 params={"_source_includes": ",".join(JUDGMENT_FIELDS)})["_source"]
        return StoredJudgment.from_source(source, judgment_id)

    def check_citations(self, text: str | bytes) -> CitationReport:
        """Which judgments and provisions cited in ``text`` (a brief, a draft) the corpus holds, which are
        ambiguous and which it does not know (:mod:`search.citecheck`); a guard against invented citations.
        Raises a :class:`search.citecheck.CitationTextError` (a ``QueryError``) for empty, binary or huge text."""
        return check_citations(self.client, self.aliases, text)

    def search_by_document(self, text: str, size: int = 10, *, exclude: str | None = None) -> list[StoredJudgment]:
        """Precedents for a whole document (a judgment, a brief), read whole rather than cut to the query
        limit (:mod:`search.document_query`); ``exclude`` drops the document's own id when it is indexed. The
        records come without their text (``Client.judgment`` has it). The learned ranker orders them (whole-text
        BM25 of the whole document where no ranker model is loaded)."""
        ranked = document_ranking(self.searcher, text, depth=size, exclude=exclude)
        if not ranked:
            return []
        fields = ",".join(f for f in JUDGMENT_FIELDS if f != "text")
        docs = self.client.mget(index=self.aliases["judgments"], body={"ids": [doc for doc, _ in ranked]},
                                params={"_source_includes": fields})["docs"]
        return [StoredJudgment.from_source(d["_source"], d["_id"]) for d in docs if d.get("found")]

    def ask(self, question: str, *, mode: str = "auto", parametric: bool = True,
            options: AskOptions | None = None, on_event: Any = None) -> Answer:
        """A grounded answer to ``question`` with citations, or the passages and the reason it was withheld
        (:mod:`search.answer`). ``mode``: ``judgments``, ``provisions`` (statute questions, provision-guided)
        or ``auto`` (provisions when the question's intent is a statute). Needs an LLM."""
        if self.llm is None:
            raise ValueError("answering needs an LLM: Client(llm=...) or RATIO_LLM=local|http")
        return ask(Answerer(self.searcher, self.llm, options), question, mode=mode, parametric=parametric,
                   on_event=on_event)

    def explain(self, query: str, judgment_id: str, **options: Any) -> Explanation:
        """Why ``judgment_id`` matches ``query``, from its best passage for the query: by the LLM when one is
        configured (generated on demand, cached, checked against the judgment), else extractively."""
        request = SearchRequest.from_query(query, **options)
        body = {"size": 1, "query": {"bool": {"must": [{"match": {"text": request.semantic_text or query}}],
                                              "filter": [{"term": {"judgment_id": judgment_id}}]}},
                "_source": ["role", "text"]}
        hits = self.client.search(index=self.aliases["chunks"], body=body)["hits"]["hits"]
        record = self.judgment(judgment_id)
        passage = hits[0]["_source"] if hits else {"role": "none", "text": record.text[:2000]}
        text = request.semantic_text or query
        extractive = explain(text, passage["role"], passage["text"], statutes=request.filters.statutes,
                             cites=request.filters.cites, cited_provisions=record.cited_provisions,
                             cited_judgments=record.cited_judgments,
                             legal_issues=record.legal_issues)
        if self.llm is None:
            return extractive
        return llm_explain(self.llm, text, hit_record(record, passage["role"], passage["text"]), extractive)
