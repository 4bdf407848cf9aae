"""The options of a search, spelled once: what the CLI, the REST API, the Python client and saved searches accept.

Two frozen values, validated when made, so a bad choice fails where it is typed with a sentence naming the
allowed values (a :class:`search.query.errors.BadValueError`: the CLI shows it, the API answers 400):

- :class:`FilterOptions`: which judgments may match (courts, judges, dates, roles) and what the roles do
  (:class:`RoleMode`). It is all a saved search keeps besides its query (:mod:`search.alerts`).
- :class:`SearchOptions`: those plus how a search ranks, orders and shows them (fusion, sort order, paging,
  reranking, explanations, LLM expansion, provisions, facets, highlights, plain text).

The choices are enums (:class:`RoleMode`, :class:`SortOrder`, :class:`ExpansionKind`, and
:class:`FusionMethod`, which the fusion reads); the CLI's ``click.Choice`` and the API's schemas list their
members, never string literals. The defaults are :class:`SearchOptions`' field defaults, read through
:data:`DEFAULTS` by the CLI's options, the API's parameters and :class:`search.query.request.SearchRequest`, never
written again as literals.
The numeric limits live in :func:`check_counts`, which :class:`search.query.request.SearchRequest` applies too, so the
rules have one home.
:meth:`search.query.request.SearchRequest.from_options` turns query text and options into a request.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from search.query.errors import BadValueError

__all__ = [
    "DEFAULTS",
    "EXPANSIONS",
    "MAX_CANDIDATES",
    "MAX_PROVISIONS",
    "MAX_RERANK",
    "MAX_SIZE",
    "OPTION_NAMES",
    "PROVISIONS_SIZE",
    "ExpansionKind",
    "FilterOptions",
    "FusionMethod",
    "RoleMode",
    "SearchOptions",
    "SortOrder",
    "check_counts",
    "check_types",
    "choice",
    "merge_options",
    "texts",
    "unknown_options",
]


class FusionMethod(StrEnum):
    """How ranked lists are combined; the values are what the CLI and the API accept."""

    MINMAX = "minmax"
    RRF = "rrf"


MAX_SIZE = 100
MAX_CANDIDATES = 10_000  # k-NN's k and OpenSearch's result window
MAX_RERANK = 1_000
DEFAULT_LLM_RERANK = 20  # the top k the LLM rerank grades when asked without a number (ratio search --llm-rerank)
MAX_LLM_RERANK = 50  # judgments the LLM rerank stage grades at most (search.llm.rerank): minutes on a CPU
MAX_LLM_RERANK_DEADLINE = 600  # seconds
MAX_PROVISIONS = 50  # the most provisions any list shows: a search page's box, the provisions box, the API
PROVISIONS_SIZE = 10  # how many the provisions box lists when nobody says (ratio provisions, the API, clients)

E = TypeVar("E", bound=StrEnum)


class RoleMode(StrEnum):
    """What the preferred roles do to the search: nothing, rank their chunks higher, or restrict to them."""

    OFF = "off"
    BOOST = "boost"
    FILTER = "filter"


class RankingMode(StrEnum):
    """What orders the judgments: the learned ranker (the default; :mod:`search.ranking`) or the chunk fusion
    it replaced (BM25 + k-NN over role chunks, rolled up to judgments)."""

    RANKER = "ranker"
    FUSION = "fusion"


class SortOrder(StrEnum):
    """The order of the results. ``relevance`` (the default) ranks the best ``candidates`` window; the others order
    *every* matching judgment by a field of the judgment (:mod:`search.retrieval.sorting`): decision date newest or
    oldest
    first (judgments without a date last), or how many corpus judgments cite it (most first)."""

    RELEVANCE = "relevance"
    NEWEST = "newest"
    OLDEST = "oldest"
    CITED_BY = "cited_by"


class ExpansionKind(StrEnum):
    """LLM expansions: legal issues searched as extra queries, parametric provisions for provision retrieval."""

    ISSUES = "issues"
    PROVISIONS = "provisions"


EXPANSIONS: tuple[str, ...] = tuple(e.value for e in ExpansionKind)


def choice(kind: type[E], value: str | E, option: str) -> E:
    """``value`` as a member of ``kind``; a :class:`BadValueError` naming the allowed values otherwise."""
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(member.value for member in kind)
        raise BadValueError(f"{option} must be one of {allowed}, not {value!r}") from None


def expansions(value: str | Iterable[str] | None) -> tuple[ExpansionKind, ...]:
    """``"issues,provisions"`` or a sequence of names, lower-cased and de-duplicated, as :class:`ExpansionKind`s."""
    if not value:
        return ()
    items = value.split(",") if isinstance(value, str) else [p for v in value for p in str(v).split(",")]
    names = tuple(dict.fromkeys(i.strip().lower() for i in items if i.strip()))
    unknown = [n for n in names if n not in EXPANSIONS]
    if unknown:
        raise BadValueError(f"expand takes {', '.join(EXPANSIONS)}, not {', '.join(map(repr, unknown))}")
    return tuple(ExpansionKind(n) for n in names)


def check_counts(*, size: int, page: int, candidates: int, rerank_top: int, explain_top: int,
                 provisions: int, sort: SortOrder | None = SortOrder.RELEVANCE, llm_rerank: int = 0,
                 llm_rerank_deadline: int = 1) -> None:
    """The limits on a search's numbers (one home for them: options and requests both apply it). Pages of a
    relevance search stay inside the ranked window of ``candidates``; pages of a sorted one inside OpenSearch's
    result window (deeper pages go by the API's cursor: point in time and ``search_after``). ``sort`` None: the
    order is not known yet (options in relevance order: a filter-only query is sorted, so only the request, which
    knows the query, checks the ranked window)."""
    if not 1 <= size <= MAX_SIZE:
        raise BadValueError(f"size must be between 1 and {MAX_SIZE}, not {size}")
    if page < 1:
        raise BadValueError(f"page counts from 1, not {page}")
    if not 1 <= candidates <= MAX_CANDIDATES:
        raise BadValueError(f"candidates must be between 1 and {MAX_CANDIDATES}, not {candidates}")
    if sort is not SortOrder.RELEVANCE:
        if page * size > MAX_CANDIDATES:
            raise BadValueError(f"page {page} of {size} is past the first {MAX_CANDIDATES} judgments: page further "
                                "with the API's cursor (point in time and search_after)")
    elif page * size > candidates:
        raise BadValueError(f"page {page} of {size} needs {page * size} candidates but only {candidates} are "
                            "fetched: raise candidates or use search_after")
    if not 1 <= rerank_top <= MAX_RERANK:
        raise BadValueError(f"rerank_top must be between 1 and {MAX_RERANK}, not {rerank_top}")
    if not 0 <= provisions <= MAX_PROVISIONS:
        raise BadValueError(f"provisions must be between 0 and {MAX_PROVISIONS}, not {provisions}")
    if explain_top < 0:
        raise BadValueError(f"explain_top cannot be negative, not {explain_top}")
    if not 0 <= llm_rerank <= MAX_LLM_RERANK:
        raise BadValueError(f"llm_rerank must be between 0 (off) and {MAX_LLM_RERANK}, not {llm_rerank}")
    if not 1 <= llm_rerank_deadline <= MAX_LLM_RERANK_DEADLINE:
        raise BadValueError(f"llm_rerank_deadline must be between 1 and {MAX_LLM_RERANK_DEADLINE} seconds, "
                            f"not {llm_rerank_deadline}")


def texts(values: Iterable[str] | None, option: str) -> tuple[str, ...]:
    """A repeatable text option (a list of names) as a tuple of strings.

    A lone string is refused rather than guessed at: read as a sequence it would be its characters (each a
    "court" no judgment has, so 0 hits and no word why), and read as one value it hides the mistake from
    every other caller that iterates. The message shows the list to write instead."""
    if values is None:
        return ()
    if isinstance(values, str | bytes):
        raise BadValueError(f"{option} takes a list of values, not the string {values!r}: write "
                            f"{option}=[{values!r}]")
    try:
        items = tuple(values)
    except TypeError:
        raise BadValueError(f"{option} takes a list of strings, not {type(values).__name__}") from None
    wrong = [v for v in items if not isinstance(v, str)]
    if wrong:
        raise BadValueError(f"{option} takes strings, not {wrong[0]!r}")
    return items


def check_types(options: object, kinds: Mapping[str, type | tuple[type, ...]]) -> None:
    """Each named field of ``options`` has its kind (a bool is not an int here: ``size=True`` is a mistake)."""
    for name, kind in kinds.items():
        value = getattr(options, name)
        if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
            raise BadValueError(f"{name} must be {_KIND_NAMES.get(kind, 'of another type')}, not {value!r}")


_DATE = (str, dt.date, type(None))
_KIND_NAMES: dict[Any, str] = {int: "a whole number", bool: "true or false", _DATE: "a date (YYYY-MM-DD)"}


def unknown_options(names: Iterable[str], known: Iterable[str]) -> None:
    """Refuse option names that are not ``known``, suggesting the nearest (``court`` -> ``courts``)."""
    import difflib

    known = sorted(known)
    for name in names:
        if name not in known:
            near = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean {near[0]!r}? " if near else ""
            raise BadValueError(f"unknown search option {name!r}: {hint}the options are {', '.join(known)}")


@dataclass(frozen=True)
class FilterOptions:
    """Which judgments a search may return, as given (the query text may add more filters of its own).

    ``role_mode`` None means the default: ``filter`` when roles are named in the query text, else ``boost``
    for a search; a saved search restricts to named roles unless told otherwise (:mod:`search.alerts`).
    """

    courts: tuple[str, ...] = ()
    judges: tuple[str, ...] = ()
    date_from: str | dt.date | None = None  # YYYY, YYYY-MM or YYYY-MM-DD, or a date
    date_to: str | dt.date | None = None
    roles: tuple[str, ...] = ()
    role_mode: RoleMode | None = None

    def __post_init__(self) -> None:
        for name in ("courts", "judges", "roles"):
            object.__setattr__(self, name, texts(getattr(self, name), name))
        check_types(self, {"date_from": _DATE, "date_to": _DATE})
        if self.role_mode is not None:
            object.__setattr__(self, "role_mode", choice(RoleMode, self.role_mode, "role_mode"))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FilterOptions:
        """From a stored (or JSON) mapping of these fields; other keys are ignored."""
        names = {f.name for f in dataclasses.fields(FilterOptions)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def request_kwargs(self) -> dict[str, Any]:
        """These options as keyword arguments of :meth:`search.query.request.SearchRequest.from_query`."""
        return {"courts": self.courts, "judges": self.judges, "date_from": self.date_from, "date_to": self.date_to,
                "roles": self.roles, "role_mode": self.role_mode}


@dataclass(frozen=True)
class SearchOptions(FilterOptions):
    """Everything a person can ask of a search besides its query text. Its field defaults are the one home of
    every option's default: ``ratio search``, the API and the clients read them (:data:`DEFAULTS`).

    ``plain`` reads the query text as plain words (pasted facts): operators and filters in it are not parsed.
    ``provisions`` 0 with ``expand`` naming provisions lists five provisions.
    """

    ranking: RankingMode = RankingMode.RANKER
    fusion: FusionMethod = FusionMethod.MINMAX
    sort: SortOrder = SortOrder.RELEVANCE
    size: int = 10
    page: int = 1
    candidates: int = 100
    rerank: bool = False
    rerank_top: int = 50
    explain: bool = False
    explain_top: int = 5
    llm_rerank: int = 0  # the ranker's top k graded by the LLM (search.llm.rerank); 0: off
    llm_rerank_deadline: int = 120  # seconds a search waits for those grades before keeping the ranker's order
    expand: tuple[ExpansionKind, ...] = ()
    provisions: int = 0
    facets: bool = True
    highlight: bool = True
    plain: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "ranking", choice(RankingMode, self.ranking, "ranking"))
        object.__setattr__(self, "fusion", choice(FusionMethod, self.fusion, "fusion"))
        object.__setattr__(self, "sort", choice(SortOrder, self.sort, "sort"))
        object.__setattr__(self, "expand", expansions(self.expand))
        check_types(self, {**dict.fromkeys(("size", "page", "candidates", "rerank_top", "explain_top", "provisions",
                                            "llm_rerank", "llm_rerank_deadline"), int),
                           **dict.fromkeys(("rerank", "explain", "facets", "highlight", "plain"), bool)})
        check_counts(size=self.size, page=self.page, candidates=self.candidates, rerank_top=self.rerank_top,
                     explain_top=self.explain_top, provisions=self.provisions,
                     sort=None if self.sort is SortOrder.RELEVANCE else self.sort, llm_rerank=self.llm_rerank,
                     llm_rerank_deadline=self.llm_rerank_deadline)  # the request checks the window

    def request_kwargs(self) -> dict[str, Any]:
        return {**super().request_kwargs(), "ranking": self.ranking, "fusion": self.fusion, "sort": self.sort,
                "size": self.size,
                "page": self.page,
                "candidates": self.candidates, "rerank": self.rerank, "rerank_top": self.rerank_top,
                "explain": self.explain, "explain_top": self.explain_top, "llm_rerank": self.llm_rerank,
                "llm_rerank_deadline": self.llm_rerank_deadline, "expand": self.expand,
                "provisions": self.provisions, "facets": self.facets, "highlight": self.highlight,
                "plain": self.plain}


OPTION_NAMES: frozenset[str] = frozenset(f.name for f in dataclasses.fields(SearchOptions))
# The options nobody changed: the CLI's ``default=``, the API's ``Field(...)`` defaults and SearchRequest's read each
# default here (``DEFAULTS.size``), so a default changes in one place and every front end follows.
DEFAULTS: SearchOptions = SearchOptions()


def merge_options(options: FilterOptions | None, changes: Mapping[str, Any],
                  extras: Iterable[str] = ()) -> tuple[SearchOptions, dict[str, Any]]:
    """``options`` (default: ``ratio search``'s) with keyword ``changes`` applied, validated, and the changes that
    are not options but named in ``extras`` (a client's own keywords) set apart. Any other name is refused
    with the nearest option suggested, so ``court="..."`` is an error rather than a keyword nobody reads."""
    extras = set(extras)
    unknown_options(changes, OPTION_NAMES | extras)
    if options is None:
        base: dict[str, Any] = {}
    elif isinstance(options, FilterOptions):
        base = {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
    else:
        raise BadValueError(f"options must be a SearchOptions, not {type(options).__name__}")
    merged = SearchOptions(**{**base, **{k: v for k, v in changes.items() if k in OPTION_NAMES}})
    return merged, {k: v for k, v in changes.items() if k in extras}
