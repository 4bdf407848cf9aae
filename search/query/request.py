"""The search request: one frozen value holding everything a search needs, validated when it is made.

Build it with :meth:`SearchRequest.from_query`, which parses the typed query, validates every option and
merges the query's fielded filters with explicit options (the CLI's ``--court``, the API's JSON), so the
builders downstream never see an invalid request ("validate, then build").

Role handling. ``roles`` are the roles the user named (``role:`` or ``roles=``); ``preferred_roles`` are
what the builders use: the named roles, else the intent's. The mode decides what they do: ``off`` ignores
them, ``boost`` (default) ranks their chunks higher and excludes nothing, ``filter`` restricts both the
BM25 and the k-NN parts to them. Naming ``role:`` in the query text asks for a restriction, so it switches
the default mode to ``filter``; an explicit ``role_mode`` always wins. ``filter`` without named roles is an
error rather than a silent restriction to whatever the intent guessed.

Expansion. ``expand`` names LLM expansions (``issues``, ``provisions``); they run only where the searcher has
an LLM, and the result says when they could not. ``provisions`` asks for that many statute provisions
beside the judgments (the LLM's parametric provisions as queries when expanded, else the query text).

Paging. ``candidates`` chunks are fetched per sub-query (k for k-NN, ``pagination_depth`` for hybrid) and
rolled up to judgments; ``page`` and ``size`` count judgments inside that window, which stays fixed while
paging so pages do not shift. ``search_after`` (the last chunk's score and chunk id) pages the chunk list in score
order, ties by chunk id: without bound for BM25 alone, and for a fused list on to the end of its window (the
``candidates`` of each sub-query fused: up to twice as many chunks).

Sort. ``sort`` other than ``relevance`` orders every matching judgment by a field (:mod:`search.retrieval.sorting`);
``page``
then counts in that whole list, not in the ranked window. A filter-only search has no words to rank by, so
``relevance`` there means newest first: the request is sorted (every judgment passing the filters, paged), and
``sort_note`` says why (:data:`FILTERS_ONLY_ORDER`). The ranked window's limit on pages applies here, where the
query is known, not to the options (:func:`search.query.options.check_counts`).

Counting. :attr:`SearchRequest.every_word` says which judgments "match the words" for the count, the sorts and
the facets (:mod:`search.retrieval.matching`): every word of a typed query, any word of a pasted text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import mappings
from search.query.bounds import bound_query
from search.query.errors import BadValueError
from search.query.intent import Intent, classify_intent
from search.query.options import (
    DEFAULTS,
    EXPANSIONS,
    MAX_CANDIDATES,
    MAX_PROVISIONS,
    MAX_RERANK,
    MAX_SIZE,
    ExpansionKind,
    FilterOptions,
    FusionMethod,
    RankingMode,
    RoleMode,
    SortOrder,
    check_counts,
    choice,
    expansions,
    texts,
)
from search.query.syntax import (
    DateRange,
    Filters,
    Node,
    YearRange,
    normalise_citation,
    normalise_roles,
    normalise_statute,
    parse_date,
    parse_year_range,
    positive_text,
)
from search.query.understand import QueryKind, Understanding, read_query

# The options and their limits are defined in search.query.options; they are re-exported here for older imports.
__all__ = ["EXPANSIONS", "FILTERS_ONLY_ORDER", "MAX_CANDIDATES", "MAX_PROVISIONS", "MAX_RERANK", "MAX_SIZE",
           "RankingMode", "RoleMode", "SearchRequest", "SortOrder"]

# Why a filter-only search asked for in relevance order is sorted instead (said on the page, the API and the CLI).
FILTERS_ONLY_ORDER = "no words to rank by: every judgment passing the filters, newest first"


@dataclass(frozen=True)
class SearchRequest:
    """A validated search. ``query`` is the text part (None for a filter-only search such as
    ``cites:"(2017) 10 SCC 1"``); ``text`` is what was typed."""

    query: Node | None
    text: str = ""
    filters: Filters = field(default_factory=Filters)
    roles: tuple[str, ...] = ()
    role_mode: RoleMode = RoleMode.BOOST
    intent: Intent | None = None
    size: int = DEFAULTS.size
    page: int = DEFAULTS.page
    search_after: tuple[str | int | float, ...] | None = None
    candidates: int = DEFAULTS.candidates
    fusion: FusionMethod = DEFAULTS.fusion
    weights: tuple[float, float] = mappings.HYBRID_WEIGHTS
    rank_constant: int = mappings.RRF_RANK_CONSTANT
    role_boost: float = 2.0
    rerank: bool = DEFAULTS.rerank
    rerank_top: int = DEFAULTS.rerank_top
    explain: bool = DEFAULTS.explain
    explain_top: int = DEFAULTS.explain_top
    llm_rerank: int = DEFAULTS.llm_rerank
    llm_rerank_deadline: int = DEFAULTS.llm_rerank_deadline
    expand: tuple[ExpansionKind, ...] = DEFAULTS.expand
    provisions: int = DEFAULTS.provisions
    facets: bool = DEFAULTS.facets
    highlight: bool = DEFAULTS.highlight
    ranking: RankingMode = DEFAULTS.ranking
    sort: SortOrder = DEFAULTS.sort
    understanding: Understanding | None = None  # what the text is (search.query.understand); None: not read yet
    sort_note: str | None = None  # why ``sort`` is not the order asked for (a filter-only search: newest first)
    query_note: str | None = None  # what was left out of a query too long for the engine (search.query.bounds)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sort", choice(SortOrder, self.sort, "sort"))
        if self.query is None and self.sort is SortOrder.RELEVANCE and self.search_after is None:
            object.__setattr__(self, "sort", SortOrder.NEWEST)  # nothing to rank: every match, newest first
            object.__setattr__(self, "sort_note", FILTERS_ONLY_ORDER)
        check_counts(size=self.size, page=self.page, candidates=self.candidates, rerank_top=self.rerank_top,
                     explain_top=self.explain_top, provisions=self.provisions, sort=self.sort,
                     llm_rerank=self.llm_rerank, llm_rerank_deadline=self.llm_rerank_deadline)
        if self.search_after is not None and self.page != 1:
            raise BadValueError("use either page or search_after, not both")
        if self.search_after is not None and (len(self.search_after) != 2 or isinstance(self.search_after[0], bool)
                                              or not isinstance(self.search_after[0], (int, float))):
            raise BadValueError(f"search_after is the last chunk's score and chunk id, not {list(self.search_after)}")
        if len(self.weights) != 2 or any(w < 0 for w in self.weights) or abs(sum(self.weights) - 1) > 1e-6:
            raise BadValueError(f"weights are (bm25, vector), non-negative and summing to 1, not {self.weights}")
        if self.rank_constant < 1:
            raise BadValueError(f"rank_constant must be at least 1, not {self.rank_constant}")
        if self.role_boost <= 0:
            raise BadValueError(f"role_boost must be positive, not {self.role_boost}")
        object.__setattr__(self, "expand", expansions(self.expand))
        if self.expand and self.query is None:
            raise BadValueError("expansion needs query text: a filter-only search has nothing to expand")
        if self.role_mode is RoleMode.FILTER and not self.roles:
            raise BadValueError("role mode 'filter' needs roles: add role:ratio (or roles=...), "
                                "or use mode 'boost' to prefer the roles the query suggests")
        if self.query is None and self.filters.empty:
            raise BadValueError("nothing to search for: give a query or at least one filter")

    @property
    def preferred_roles(self) -> tuple[str, ...]:
        """The roles the mode acts on: those named by the user, else the intent's."""
        if self.roles:
            return self.roles
        return self.intent.roles if self.intent else ()

    @property
    def kind(self) -> QueryKind | None:
        """What the query text is (a case name, a citation, a provision, words, a pasted text); None for a
        filter-only search."""
        if self.query is None:
            return None
        return self.understanding.kind if self.understanding else QueryKind.TOPIC

    @property
    def every_word(self) -> bool:
        """Whether the count, the sorts and the facets require every typed word (a typed query: as on Indian
        Kanoon and CourtListener) rather than any (a pasted text, whose words are evidence, not conditions)."""
        return self.understanding.every_word if self.understanding else True

    @property
    def semantic_text(self) -> str:
        """The text to embed for k-NN (words and phrases, excluded ones and filters left out); empty when
        the search is filter-only, in which case there is no k-NN part."""
        return positive_text(self.query)

    @classmethod
    def from_query(
        cls,
        text: str,
        *,
        courts: Sequence[str] = (),
        judges: Sequence[str] = (),
        years: str | YearRange | None = None,
        date_from: str | date | None = None,
        date_to: str | date | None = None,
        roles: Sequence[str] = (),
        cites: Sequence[str] = (),
        statutes: Sequence[str] = (),
        role_mode: str | RoleMode | None = None,
        size: int = DEFAULTS.size,
        page: int = DEFAULTS.page,
        search_after: Sequence[str | int | float] | None = None,
        candidates: int = DEFAULTS.candidates,
        fusion: str | FusionMethod = DEFAULTS.fusion,
        weights: Sequence[float] = mappings.HYBRID_WEIGHTS,
        rank_constant: int = mappings.RRF_RANK_CONSTANT,
        role_boost: float = 2.0,
        rerank: bool = DEFAULTS.rerank,
        rerank_top: int = DEFAULTS.rerank_top,
        explain: bool = DEFAULTS.explain,
        explain_top: int = DEFAULTS.explain_top,
        llm_rerank: int = DEFAULTS.llm_rerank,
        llm_rerank_deadline: int = DEFAULTS.llm_rerank_deadline,
        expand: str | Sequence[str] | None = DEFAULTS.expand,
        provisions: int = DEFAULTS.provisions,
        facets: bool = DEFAULTS.facets,
        highlight: bool = DEFAULTS.highlight,
        classify: bool = True,
        ranking: str | RankingMode = DEFAULTS.ranking,
        sort: str | SortOrder = DEFAULTS.sort,
        plain: bool = DEFAULTS.plain,
    ) -> SearchRequest:
        """Parse ``text`` as the search box reads it (:func:`search.query.understand.read_query`; ``plain``: operators
        and
        filters in it read as words), normalise explicit options the same way as fielded filters, merge both,
        classify the intent (``classify=False`` skips it) and validate. Raises a ``QueryError`` saying what to
        fix."""
        courts, judges, roles = texts(courts, "courts"), texts(judges, "judges"), texts(roles, "roles")
        cites, statutes = texts(cites, "cites"), texts(statutes, "statutes")
        parsed, understood, read_note = None, None, None
        if text.strip() or not _any_filter(courts, judges, years, date_from, date_to, cites, statutes):
            reading = read_query(text, plain=plain)
            parsed, understood, read_note = reading.parsed, reading.understanding, reading.note
        option_roles: tuple[str, ...] = ()
        for value in roles:
            option_roles += normalise_roles(value)
        dates = None
        if date_from is not None or date_to is not None:
            dates = DateRange(_date(date_from, end=False), _date(date_to, end=True))
            dates = dates.intersect(DateRange())  # checks from <= to
        explicit = Filters(
            courts=tuple(" ".join(c.split()) for c in courts if c.strip()),
            judges=tuple(" ".join(j.split()) for j in judges if j.strip()),
            years=parse_year_range(years) if isinstance(years, str) else years,
            dates=dates,
            cites=tuple(normalise_citation(c) for c in cites),
            statutes=tuple(s for value in statutes for s in normalise_statute(value)),
        )
        filters = parsed.filters.merged(explicit) if parsed else Filters().merged(explicit)
        named = tuple(dict.fromkeys((parsed.roles if parsed else ()) + option_roles))
        if role_mode is None:
            mode = RoleMode.FILTER if parsed and parsed.roles else RoleMode.BOOST
        else:
            mode = choice(RoleMode, role_mode, "role_mode")
        query, query_note = bound_query(parsed.query if parsed else None,  # what reaches the engine is bounded
                                        plain=bool(understood and understood.plain))
        if understood is not None and understood.whole:
            query_note = _whole_note(understood, query_note is not None)
        query_note = "; ".join(n for n in (read_note, query_note) if n) or None
        intent = classify_intent(positive_text(query)) if classify and query is not None else None
        expanded = expansions(expand)
        return cls(
            query=query, text=text, filters=filters, roles=named, role_mode=mode, intent=intent, size=size,
            page=page, search_after=tuple(search_after) if search_after is not None else None,
            candidates=candidates, fusion=choice(FusionMethod, fusion, "fusion"),
            weights=tuple(weights), rank_constant=rank_constant, role_boost=role_boost,  # type: ignore[arg-type]
            rerank=rerank, rerank_top=rerank_top, explain=explain, explain_top=explain_top, llm_rerank=llm_rerank,
            llm_rerank_deadline=llm_rerank_deadline, expand=expanded,
            provisions=provisions or (5 if ExpansionKind.PROVISIONS in expanded else 0),
            facets=facets, highlight=highlight, ranking=choice(RankingMode, ranking, "ranking"),
            sort=choice(SortOrder, sort, "sort"), understanding=understood if query is not None else None,
            query_note=query_note,
        )

    @classmethod
    def from_options(cls, text: str, options: FilterOptions | None = None, **overrides: Any) -> SearchRequest:
        """The request for ``text`` with ``options`` (a :class:`search.query.options.SearchOptions`, or the filter
        part alone); ``overrides`` are further keyword arguments of :meth:`from_query` (``classify``,
        ``cites``, ``weights``, ...), winning over the options. Raises a ``QueryError`` saying what to fix."""
        options = options or FilterOptions()
        return cls.from_query(text, **{**options.request_kwargs(), **overrides})


def _whole_note(understood: Understanding, shortened: bool) -> str:
    """What the page, the API and the CLI say of a pasted text the ranker reads whole."""
    said = (f"pasted text of {understood.words:,} words, read whole as a document (as /brief reads a brief): the "
            "ranking weighs every word")
    return said + ("; the count and the highlights use its first thousand words" if shortened else "")


def _any_filter(*values: object) -> bool:
    return any(bool(v) for v in values)


def _date(value: str | date | None, end: bool) -> date | None:
    if value is None or isinstance(value, date):
        return value
    return parse_date(value, end=end)
