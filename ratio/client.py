"""``ratio.Client``: the programmatic face of Ratio (search, judgments, facets, explanations, provisions).

The client wires the layers below with explicit settings; models load on first use (or all at once with
:meth:`Client.load_models`, which ``ratio serve`` calls before it takes requests), so creating a client is cheap
and makes no request.

It returns the REST API's shapes (:mod:`ratio.results`): a search is a :class:`~ratio.results.SearchPage`, a
judgment a :class:`~search.pages.browse.JudgmentView`, and so on, the same objects :class:`ratio.RemoteClient` rebuilds
from the API's JSON. It raises Ratio's errors (:mod:`ratio.errors`), never opensearch-py's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

from backends.encoders import Encoder
from backends.llm import LLM
from backends.opensearch import ConnectionSettings, IndexLayout, LocalNode, connect
from ratio import settings
from ratio.answer_results import AnswerOut, answer_out
from ratio.encoders import query_encoder_name, search_encoders, tuned_encoder
from ratio.errors import (
    IndexNotFoundError,
    LLMUnavailableError,
    NotFoundError,
    UnavailableError,
    opensearch_errors,
)
from ratio.llm import open_llm
from ratio.results import BriefPage, Health, SearchPage, to_page
from search.answer import Answerer, AskOptions, ask
from search.brief import search_brief
from search.document_query import document_ranking
from search.execute import Searcher
from search.explain.extractive import Explanation, explain, explain_filters
from search.explain.llm import hit_record, llm_explain
from search.graph.cache import GraphCache
from search.graph.citecheck import CitationReport, check_citations
from search.hits import SearchResult
from search.pages.browse import ExploreView, JudgmentView, explore, judgment_view
from search.provisions.retrieve import ProvisionHit
from search.query.errors import BadValueError
from search.query.intent import classify_intent
from search.query.options import MAX_PROVISIONS, PROVISIONS_SIZE, FilterOptions, SearchOptions, SortOrder, merge_options
from search.query.request import SearchRequest
from search.ranking.model import DEFAULT_MODEL, RankerModel
from search.retrieval.records import JUDGMENT_FIELDS, StoredJudgment
from search.retrieval.rerank import DEFAULT_RERANK_WEIGHT, BiEncoderRescorer, CrossEncoderReranker, Reranker

JudgmentRecord = StoredJudgment  # the name this class had before the read side had one home
# Keywords of Client.search besides the SearchOptions fields: filters and weights the query syntax also spells
# (``cites:``, ``statute:``, ``year:``), passed to SearchRequest.from_query.
REQUEST_EXTRAS = ("cites", "statutes", "years", "weights", "rank_constant", "role_boost", "classify",
                  "search_after")
REQUIRED_INDICES = ("judgments", "chunks", "provisions")


def window_notes(result: SearchResult, page: int, size: int, candidates: int) -> tuple[bool, list[str]]:
    """Whether a page follows this one inside the ranked window, and the note when the window ends first (the
    API and the client say the same). A sorted search (a filter-only one included) has no window: every match."""
    if result.sort != SortOrder.RELEVANCE:
        return result.judgments_found > page * size, []
    more = result.judgments_found > page * size and (page + 1) * size <= candidates
    notes = []
    if result.judgments_found > page * size and not more:
        notes.append(f"the ranked window of {candidates} chunks ends here: raise candidates (up to the API's "
                     "limit) or narrow the query to see more")
    return more, notes


class Client:
    """Search Ratio's indices on a cluster (default: the local node)."""

    def __init__(self, url: str | None = None, *, user: str | None = None, password: str | None = None,
                 verify_certs: bool = True, prefix: str = "ratio", encoder: str | Encoder | None = None,
                 reranker: str | Reranker | None = None, rerank_weight: float = DEFAULT_RERANK_WEIGHT,
                 llm: LLM | settings.LLMSettings | None = None,
                 ranker: str | RankerModel | None = DEFAULT_MODEL, graphs_dir: Path | None = None) -> None:
        if url is None:
            url = LocalNode(home=settings.home_dir() / "opensearch", cache_dir=settings.cache_dir() / "maven").url
            if url is None:
                raise UnavailableError("no OpenSearch: pass url=, set OPENSEARCH_URL, or run 'ratio opensearch start'")
        self.connection = ConnectionSettings(url, user, password, verify_certs)
        self.layout = IndexLayout(prefix)
        self._encoder = encoder
        self._reranker = reranker
        self.rerank_weight = rerank_weight
        self._llm = llm
        self._ranker = ranker  # the learned ranker's model folder ("default": shipped; None: fusion only)
        self.graphs_dir = graphs_dir  # where the citation graph's snapshot is kept (None: rebuilt at every start)

    @classmethod
    def from_env(cls, **overrides: Any) -> Client:
        """A client configured like the CLI (``OPENSEARCH_URL``, ``RATIO_INDEX_PREFIX``, ``RATIO_LLM``, ...)."""
        env = settings.Environment.read()
        options: dict[str, Any] = {"url": env.opensearch_url, "user": env.opensearch_user,
                                   "password": env.opensearch_password,
                                   "verify_certs": env.opensearch_verify_certs, "prefix": env.index_prefix,
                                   "llm": settings.LLMSettings.read(), "ranker": env.ranker,
                                   "graphs_dir": settings.graphs_dir()}
        return cls(**{**options, **overrides})

    @cached_property
    def client(self):
        return connect(self.connection)

    @cached_property
    def aliases(self) -> dict[str, str]:
        return self.layout.aliases()

    @cached_property
    def _encoders(self) -> tuple[Encoder, Encoder]:
        """(query encoder, rescoring encoder): by default the one the index was built with (ratio.encoders)."""
        if self._encoder is None or isinstance(self._encoder, str):
            self.check_indices(("chunks",))  # where the index's encoder is read
            with opensearch_errors(self.connection.url):
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

    @property
    def has_llm(self) -> bool:
        """Whether an LLM is configured, without loading it (a page can say answers are off at once)."""
        if isinstance(self._llm, settings.LLMSettings):
            return self._llm.kind != "none"
        return self._llm is not None

    @cached_property
    def graphs(self) -> GraphCache:
        """The corpus's citation graph, kept between judgment views ("cites" and "cited by" read it, and the
        cited-by sort)."""
        return GraphCache(self.client, self.aliases["judgments"], self.graphs_dir)

    def check_indices(self, kinds: tuple[str, ...] = ("judgments", "chunks")) -> None:
        """Raise ``ratio.IndexNotFoundError`` naming the indices a search needs that do not exist (a wrong
        prefix, indices never created), before any model loads for a search that cannot run."""
        with opensearch_errors(self.connection.url):
            missing = [self.aliases[k] for k in kinds if not self.client.indices.exists(index=self.aliases[k])]
        if missing:
            raise IndexNotFoundError(f"OpenSearch at {self.connection.url} has no index {', '.join(missing)}: check "
                                     "the index prefix (--prefix, RATIO_INDEX_PREFIX) or create the indices with "
                                     "'ratio indices create' and fill them with 'ratio index'")

    @cached_property
    def searcher(self) -> Searcher:
        self.check_indices()
        return Searcher(self.client, self.aliases, self.encoder, reranker=self.reranker, llm=self.llm,
                        rerank_weight=self.rerank_weight, ranker=self._ranker, graphs=self.graphs,
                        tuned=tuned_encoder(self.client, self.aliases))

    def search(self, query: str, options: SearchOptions | None = None, **overrides: Any) -> SearchPage:
        """One page of judgments for ``query`` (Ratio's query syntax) with ``options``
        (:class:`search.query.options.SearchOptions`, the same as ``ratio search`` and the API take); keyword
        ``overrides`` change single options (``courts=["Supreme Court of India"]``, ``size=5``, ``page=2``) or
        add filters the query syntax also spells (``cites=[...]``, ``statutes=[...]``, ``years="1990..1999"``).
        An unknown keyword or a wrong type (``courts="..."``: a string, not a list) raises ``ratio.QueryError``.
        ``sort="newest"`` (``oldest``, ``cited_by``) pages every matching judgment in that order (``page`` counts in
        it, up to the first 10,000; the API's cursors page further).

        The page is the API's :class:`~ratio.results.SearchPage`; it pages by ``page=``, so its
        ``next_cursor`` (an API cursor) is None. :meth:`run` gives the engine's fuller ``SearchResult``."""
        options, extras = merge_options(options, overrides, REQUEST_EXTRAS)
        result = self.run(SearchRequest.from_options(query, options, **extras))
        _, notes = window_notes(result, options.page, options.size, options.candidates)
        return to_page(query, result, options.page, None, notes, size=options.size)

    def run(self, request: SearchRequest) -> SearchResult:
        """Run a built request: the engine's result with its timings (rerank, expansion, explanations)."""
        with opensearch_errors(self.connection.url):
            return self.searcher.search(request)

    def facets(self, query: str, options: SearchOptions | None = None,
               **overrides: Any) -> dict[str, list[dict[str, Any]]]:
        """Facet counts (court, year, role, cited provisions, judges) over the judgments matching ``query``."""
        changes = {**overrides, "size": 1, "page": 1, "explain": False, "facets": True}
        return self.search(query, options, **changes).facets

    def explore(self, query: str = "", options: FilterOptions | None = None, **overrides: Any) -> ExploreView:
        """Judgments per year, court, role, cited provision, cited judgment and judge, and provisions cited
        together, over the whole corpus or the judgments ``query`` and the options' filters match, counted as the
        search's facets and ``total`` count them (:mod:`search.pages.facets`)."""
        options, extras = merge_options(options, overrides, REQUEST_EXTRAS)
        filtered = options.courts or options.judges or options.date_from or options.date_to
        request = (SearchRequest.from_options(query, options, facets=False, **extras)
                   if query.strip() or filtered or extras else None)
        with opensearch_errors(self.connection.url):
            return explore(self.client, self.aliases, request, self.graphs.graph())

    def judgment(self, judgment_id: str) -> JudgmentView:
        """One judgment as the judgment page and ``GET /api/v1/judgments/{id}`` show it: metadata, summary
        fields, every sentence with its role, its citations resolved to the corpus, and who cites it. Raises
        ``ratio.NotFoundError`` for an id the corpus does not hold."""
        with opensearch_errors(self.connection.url):
            view = judgment_view(self.client, self.aliases, judgment_id, self.graphs.graph())
        if view is None:
            self.check_indices(("judgments",))  # a wrong prefix is not an unknown id
            raise NotFoundError(f"the corpus has no judgment {judgment_id!r}")
        return view

    def record(self, judgment_id: str) -> StoredJudgment:
        """The judgment's stored document (metadata, summary fields and the whole text as one string), what
        ``Client.judgment`` returned before it returned the API's view."""
        from opensearchpy import NotFoundError as MissingDocument

        with opensearch_errors(self.connection.url):
            try:
                source = self.client.get(index=self.aliases["judgments"], id=judgment_id,
                                         params={"_source_includes": ",".join(JUDGMENT_FIELDS)})["_source"]
            except MissingDocument as exc:
                if exc.error == "index_not_found_exception":
                    raise  # said as a missing index by opensearch_errors
                raise NotFoundError(f"the corpus has no judgment {judgment_id!r}") from None
        return StoredJudgment.from_source(source, judgment_id)

    def provisions(self, query: str, size: int = PROVISIONS_SIZE) -> list[ProvisionHit]:
        """Statute provisions for a question, a provision typed (``section 304B IPC``) or a description of facts:
        the provisions box (:meth:`search.execute.Searcher.provisions_for`), from the query's own words (BM25 and
        vectors; none for gibberish) and the provisions its top-ranked precedents cite and quote."""
        if not 1 <= size <= MAX_PROVISIONS:
            from search.query.errors import BadValueError

            raise BadValueError(f"size must be between 1 and {MAX_PROVISIONS}, not {size}")
        with opensearch_errors(self.connection.url):
            return list(self.searcher.provisions_for(query, size))

    def health(self) -> Health:
        """OpenSearch's state and the document count of each index (status ``unavailable`` when the cluster
        does not answer: a health check reports, it does not raise)."""
        from opensearchpy.exceptions import OpenSearchException

        try:
            health = self.client.cluster.health()
            version = self.client.info()["version"]["number"]
        except (OpenSearchException, ConnectionError) as exc:
            return Health(status="unavailable", message=f"OpenSearch at {self.connection.url} did not answer: "
                                                         f"{type(exc).__name__}")
        counts: dict[str, int | None] = {}
        missing = []
        for kind, alias in self.aliases.items():
            try:
                counts[alias] = int(self.client.count(index=alias)["count"])
            except OpenSearchException:
                counts[alias] = None
                if kind in REQUIRED_INDICES:  # saved searches are optional: created on the first save
                    missing.append(alias)
        status = "ok" if health["status"] != "red" and not missing else "degraded"
        message = f"missing indices: {', '.join(missing)} (run 'ratio indices create')" if missing else None
        return Health(status=status, opensearch=version, cluster_status=health["status"], indices=counts,
                      message=message)

    def load_models(self, report: Callable[[str], None] | None = None) -> float:
        """Load every model a search uses now rather than on the first search: the query encoder (the one the
        index was built with), the learned ranker, and the reranker when one is named. ``report`` hears what is
        loading; returns the seconds it took. A missing index or an unreachable cluster raises Ratio's errors."""
        say = report or (lambda message: None)
        started = time.perf_counter()
        with opensearch_errors(self.connection.url):
            if self._encoder is None or isinstance(self._encoder, str):
                say(f"loading the query encoder {query_encoder_name(self.client, self.aliases, self._encoder)}")
            self.encoder.encode(["warm up"], normalize_embeddings=True)  # the first call pays for torch's set-up
            if self._ranker is not None:
                say(f"loading the learned ranker ({self._ranker if isinstance(self._ranker, str) else 'given'})")
                ranker = self.searcher.ranker
                if ranker is None and self.searcher.ranker_note:
                    say(f"searching without the learned ranker: {self.searcher.ranker_note}")
                elif ranker is not None:
                    say("reading the corpus's citation graph (a ranker feature)")
                    ranker.features.graph  # noqa: B018 - one scroll over the judgments, kept
            if isinstance(self._reranker, str):
                say(f"loading the reranker {self._reranker}")
                self.reranker  # noqa: B018 - a cached property: loads the cross-encoder
            self.searcher.floor  # noqa: B018 - reads the similarity floor once
            self.searcher.provisions_floor  # noqa: B018 - and the provisions index's
            say("reading the citation graph for the judgment pages")
            self.graphs.graph()
            classify_intent("warm up")  # reads the intent rules
        return time.perf_counter() - started

    def check_citations(self, text: str | bytes) -> CitationReport:
        """Which judgments and provisions cited in ``text`` (a brief, a draft) the corpus holds, which are
        ambiguous and which it does not know (:mod:`search.graph.citecheck`); a guard against invented citations.
        Raises a :class:`search.graph.citecheck.CitationTextError` (a ``QueryError``) for empty, binary or huge text."""
        return check_citations(self.client, self.aliases, text)

    def search_by_document(self, text: str, size: int = 10, *, exclude: str | None = None,
                           courts: Sequence[str] = (), date_from: str | None = None, date_to: str | None = None,
                           source: str = "text") -> BriefPage:
        """Precedents for a whole document (a judgment, a brief), read whole rather than cut to the query
        limit (:mod:`search.document_query`) and ordered by the learned ranker (whole-text BM25 of the whole
        document where no ranker model is loaded). ``exclude`` drops the document's own id when it is indexed;
        ``courts``, ``date_from`` and ``date_to`` filter every candidate. Each hit has its best passages and
        the parts of the brief it matched (provisions and precedents cited by both, the brief's citation
        contexts that found it, its sentences matching the hit's facts or issues: :mod:`search.brief`). The
        answer is the API's (``POST /api/v1/search/document``), as ``RemoteClient.search_by_document`` returns
        it; ``source`` says how the brief came (text, txt, pdf)."""
        if isinstance(courts, str):
            raise BadValueError("courts must be a list of court names, not a string")
        with opensearch_errors(self.connection.url):
            result = search_brief(self.searcher, text, size=size, courts=courts, date_from=date_from,
                                  date_to=date_to, exclude=exclude)
        return BriefPage.of(result, source, len(text))

    def rank_document(self, text: str, size: int = 10, *, exclude: str | None = None) -> list[str]:
        """The judgment ids :meth:`search_by_document` ranks, best first, without decorating them (what the
        evaluation's ``default_document`` configuration scores)."""
        with opensearch_errors(self.connection.url):
            return [doc for doc, _ in document_ranking(self.searcher, text, depth=size, exclude=exclude)]

    def ask(self, question: str, *, mode: str = "auto", parametric: bool = True,
            options: AskOptions | None = None, on_event: Any = None) -> AnswerOut:
        """A grounded answer to ``question`` with citations, or the passages and the reason it was withheld
        (:mod:`search.answer`), in the API's shape (``POST /api/v1/ask``), as ``RemoteClient.ask`` returns it.
        ``mode``: ``judgments``, ``provisions`` (statute questions, provision-guided) or ``auto`` (provisions
        when the question's intent is a statute). Needs an LLM: without one, :class:`ratio.LLMUnavailableError`.
        (The engine's own outcome, with every round's scores: :func:`search.answer.ask`.)"""
        if self.llm is None:
            raise LLMUnavailableError("answering needs an LLM: Client(llm=...) or RATIO_LLM=local|http")
        return answer_out(ask(Answerer(self.searcher, self.llm, options), question, mode=mode, parametric=parametric,
                              on_event=on_event))

    def explain(self, query: str, judgment_id: str, **options: Any) -> Explanation:
        """Why ``judgment_id`` matches ``query``, from its best passage for the query: by the LLM when one is
        configured (generated on demand, cached, checked against the judgment), else extractively. ``options``
        are filters as :meth:`search.query.request.SearchRequest.from_query` takes them (``courts=[...]``,
        ``statutes=[...]``, ``date_from=``, ...); a search of filters alone (no words) is explained by what the
        judgment has that they ask for ("Cites IPC s. 304B; Supreme Court of India; decided 12 March 2005")."""
        request = SearchRequest.from_query(query, **options)
        if request.query is None:
            record = self.record(judgment_id)
            return explain_filters(request.filters, court=record.court, decision_date=record.decision_date,
                                   judges=record.judges, cited_provisions=record.cited_provisions,
                                   cited_judgments=record.cited_judgments)
        body = {"size": 1, "query": {"bool": {"must": [{"match": {"text": request.semantic_text or query}}],
                                              "filter": [{"term": {"judgment_id": judgment_id}}]}},
                "_source": ["role", "text"]}
        record = self.record(judgment_id)
        with opensearch_errors(self.connection.url):
            hits = self.client.search(index=self.aliases["chunks"], body=body)["hits"]["hits"]
        passage = hits[0]["_source"] if hits else {"role": "none", "text": record.text[:2000]}
        text = request.semantic_text or query
        extractive = explain(text, passage["role"], passage["text"], statutes=request.filters.statutes,
                             cites=request.filters.cites, cited_provisions=record.cited_provisions,
                             cited_judgments=record.cited_judgments,
                             legal_issues=record.legal_issues)
        if self.llm is None:
            return extractive
        return llm_explain(self.llm, text, hit_record(record, passage["role"], passage["text"]), extractive)
