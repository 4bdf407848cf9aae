"""The grid behind the provisions box's mixing (:mod:`search.provisions.precedents`: ``WEIGHTS``, ``CITING``), on tuning
queries only: ``ratio eval statutes-grid``.

For a pasted fact pattern the box mixes three min-max normalised parts: the query's own provision search
(``direct``), the statute passages of the top ``PRECEDENTS`` judgments (``passages``) and the provisions the top
``CITING`` judgments cite through the corpus mapping (``citations``). Each part is asked of the node once per query
(the citation votes once per depth of the grid), then every combination of weights and citing depth is mixed here,
exactly as :func:`search.provisions.precedents.rank_provisions` mixes them, with the named provisions first as the box
puts them (:meth:`search.provisions.box.ProvisionBox.best`), and scored by MAP. The row of the shipped values
therefore ranks what ``ratio provisions`` returns (a test holds that), so the table says how far the shipped mix
is from the grid's best on the queries it may be chosen on.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from search.execute import Searcher
from search.provisions.named import Named, find_named, named_first
from search.provisions.precedents import (
    CITING,
    PRECEDENTS,
    WEIGHTS,
    citation_votes,
    minmax,
    mix_parts,
    passage_votes,
)
from search.provisions.retrieve import find_provisions
from search.query.request import SearchRequest
from search.query.understand import QueryKind

__all__ = ["GRID", "GridRow", "QueryParts", "grid", "leave_one_out", "mix", "query_parts", "shipped"]

# The values tried (the shipped ones among them): weights of the three parts and the citing depth.
GRID: dict[str, tuple[float, ...]] = {
    "direct": (0.0, 0.1, 0.3, 0.6, 1.0),
    "passages": (0.0, 0.2, 0.5, 1.0),
    "citations": (0.0, 0.5, 1.0),
    "citing": (20, 50, 100),
}


@dataclass(frozen=True)
class QueryParts:
    """One query's parts, each normalised as the box normalises it; ``citations`` by citing depth."""

    direct: dict[str, float]
    passages: dict[str, float]
    citations: dict[int, dict[str, float]]
    named: Named  # the provisions the query names, put first


@dataclass(frozen=True)
class GridRow:
    """One combination and its mean average precision over the queries."""

    direct: float
    passages: float
    citations: float
    citing: int
    map: float
    aps: tuple[float, ...] = ()  # per query, in the order the queries were given

    @property
    def shipped(self) -> bool:
        return (self.direct, self.passages, self.citations, self.citing) == shipped()


def shipped() -> tuple[float, float, float, int]:
    """The shipped combination, as a grid row names it."""
    return WEIGHTS["direct"], WEIGHTS["passages"], WEIGHTS["citations"], CITING


def query_parts(searcher: Searcher, text: str, depth: int, citing: Iterable[int] = GRID["citing"]) -> QueryParts:
    """The parts of ``text``'s provisions, read as :meth:`Searcher.provisions_for` reads a query: its judgments
    are the default ranking's when the box reads it as a pasted text, none otherwise."""
    request = SearchRequest.from_query(text, facets=False, highlight=False)
    judgments: list[str] = []
    if request.query is not None and request.kind is QueryKind.PASTED:
        ranked, _ = searcher.ranking(request, depth=0)
        judgments = [j.judgment_id for j in ranked.judgments] if ranked else []
    client, aliases, plain = searcher.client, searcher.aliases, request.semantic_text
    direct = {h.provision_id: h.score for h in find_provisions(
        client, aliases["provisions"], searcher.encoder, [plain], size=depth, candidates=depth,
        floor=searcher.provisions_floor)}
    passages = passage_votes(client, aliases, judgments, depth, PRECEDENTS) if judgments else {}
    citations = {c: minmax(citation_votes(client, aliases, judgments, c)) for c in citing} if judgments else {}
    named = find_named(client, aliases["provisions"], [plain], ("provision_id",))
    return QueryParts(minmax(direct), minmax(passages), citations, named)


def mix(parts: QueryParts, weights: Mapping[str, float], citing: int, depth: int) -> list[str]:
    """Provision ids best first for one combination, mixed as the box mixes them (a query with no judgments is
    ranked by its own words alone, as the box ranks it)."""
    if not parts.citations:
        weights = {"direct": 1.0, "passages": 0.0, "citations": 0.0}
    chosen = {"direct": parts.direct, "passages": parts.passages, "citations": parts.citations.get(citing, {})}
    return [p for p, _ in named_first(mix_parts(chosen, weights, depth), parts.named)][:depth]


def average_precision(ranked: Sequence[str], relevant: set[str]) -> float:
    """Average precision of one ranking (0 for a query with nothing relevant)."""
    hits, total = 0, 0.0
    for rank, doc in enumerate(ranked, start=1):
        if doc in relevant:
            hits += 1
            total += hits / rank
    return total / len(relevant) if relevant else 0.0


def grid(prepared: Sequence[tuple[QueryParts, set[str]]], depth: int) -> list[GridRow]:
    """Every combination of :data:`GRID` (all weights zero left out), best MAP first, ties by the values."""
    rows = []
    for direct, passages, citations, citing in itertools.product(*GRID.values()):
        if not direct + passages + citations:
            continue
        weights = {"direct": direct, "passages": passages, "citations": citations}
        aps = [average_precision(mix(parts, weights, int(citing), depth), relevant) for parts, relevant in prepared]
        rows.append(GridRow(direct, passages, citations, int(citing), sum(aps) / len(aps) if aps else 0.0,
                            tuple(aps)))
    return sorted(rows, key=_order)


def _order(row: GridRow) -> tuple[float, float, float, float, int]:
    return -row.map, row.direct, row.passages, row.citations, row.citing


def leave_one_out(rows: Sequence[GridRow]) -> tuple[float, list[GridRow]]:
    """The grid as a choice, judged out of sample: for each query, the row best on the other queries (ties as
    :func:`grid` orders them) scored on that query alone. Returns the mean of those held-out APs (what choosing
    by this grid is worth on a query it did not see, to compare with the shipped row's MAP) and the row chosen
    for each query."""
    count = len(rows[0].aps) if rows else 0
    if count < 2:
        raise ValueError("leave-one-out needs at least two queries")
    chosen = []
    for held in range(count):
        def rest(row: GridRow, held: int = held) -> tuple[float, float, float, float, int]:
            return -(sum(row.aps) - row.aps[held]), row.direct, row.passages, row.citations, row.citing
        chosen.append(min(rows, key=rest))
    return sum(row.aps[held] for held, row in enumerate(chosen)) / count, chosen
