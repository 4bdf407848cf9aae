"""Sorted search: every judgment that matches, ordered by a field of the judgment, paged in a point in time.

What a sorted search returns. ``relevance`` ranks a window (the best ``candidates``); a date or cited-by order
is not that window re-sorted, which would put the newest of the hundred best first and silently drop every
other match. It orders **the set of matching judgments**, the same set match semantics define
(:mod:`search.retrieval.matching`):

* the judgments matching the query's words by the counting rule (every word of a typed query, any word of a
  pasted text: :func:`search.retrieval.matching.lexical_query`) with every constraint (filters, phrases, required and
  excluded words), the set ``total`` counts exactly; with a role filter, those whose chunks of the role match;
* plus the judgments found by meaning only, matching none of the words, whose closest passage is at least the
  similarity floor from the query, under the same constraints (a radial k-NN search over the chunks: every chunk
  within the floor, not a top k; up to :data:`MAX_MEANING` judgments, the most similar). A judgment with some of
  a typed query's words but not all is in neither: it misses a word the order was asked over.

A filter-only search sorts every judgment passing its filters; asked for in relevance order, it is sorted newest
first (it has no words to rank by: :data:`search.query.request.FILTERS_ONLY_ORDER`). The order is the judgment's field
with ties broken by ``judgment_id``, so it is total and pages never overlap:

* ``newest``/``oldest``: ``decision_date``; judgments without a date come last in both orders;
* ``cited_by``: how many corpus judgments cite it, from the resolved citation graph
  (:mod:`search.graph.citation_graph`, the same that the judgment page's "cited by" shows), newest first among equals.
  ``ratio index`` stores each judgment's count on its document (``cited_by_count``, :mod:`search.graph.store`)
  and marks the index state the counts are exact for. While the index is at that state and the server holds the
  graph of it (:meth:`search.graph.cache.GraphCache.counts_current`), the order is a plain field sort on the
  stored count (missing: 0; ``counts`` is :data:`STORED_COUNTS`), and a request carries no counts. Otherwise
  (an old index, a corpus written by other means, a run under way: a stored count goes stale whenever a newer
  judgment cites an older one) it is a script sort over the held graph's counts (:func:`cited_by_counts`), a
  parameter map of every cited judgment in each request (~700k entries, ~15 MB, at a million judgments). Both
  give the same order, tie-breaks and paging; a cursor's count is an integer in one, a float in the other, and
  either continues in both.

Paging. Page ``n`` of a plain call is ``from``/``size`` (up to OpenSearch's 10,000 result window). Deeper, and
for stable pages while the index changes, a :class:`SortPosition` names a point in time (PIT) and the sort
values of the hit to continue after (or, going back, before: the order reversed and the page turned round).
A point in time lives :data:`KEEP_ALIVE` after its last use; an expired or unknown one is an
:class:`ExpiredPositionError` asking to start again. The cluster caps open points in time
(``search.max_open_pit_context``); when none can be opened the pages go on without one (still ordered and
non-overlapping by the tie-break; a judgment indexed meanwhile may appear) and the result says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import NotFoundError, OpenSearch, RequestError, TransportError

from search.graph.citation_graph import CitationGraph
from search.graph.store import FIELD as CITED_BY_FIELD
from search.query.errors import ExpiredPositionError
from search.query.options import MAX_CANDIDATES, RoleMode, SortOrder
from search.query.request import SearchRequest
from search.retrieval.builders import bm25_query, constraints
from search.retrieval.matching import cosine, lexical_query

__all__ = [
    "KEEP_ALIVE",
    "MAX_MEANING",
    "STORED_COUNTS",
    "CitedBy",
    "ExpiredPositionError",
    "SortPosition",
    "SortedWindow",
    "StoredCounts",
    "cited_by_counts",
    "fetch",
    "meaning_body",
    "open_point_in_time",
    "sort_clauses",
    "sorted_body",
    "sorted_query",
]

Body = dict[str, Any]
SortValue = str | int | float | None
KEEP_ALIVE = "5m"
MAX_MEANING = MAX_CANDIDATES  # meaning-only judgments a sorted search can include (the most similar)
CITED_BY_SCRIPT = "params.counts.getOrDefault(doc['judgment_id'].value, 0)"


@dataclass(frozen=True)
class StoredCounts:
    """What the cited-by sort orders by instead of a counts map when the judgments' stored counts are current
    (:mod:`search.graph.store`): their ``cited_by_count`` field."""


STORED_COUNTS = StoredCounts()
CitedBy = Mapping[str, int] | StoredCounts  # the cited-by sort's source: the graph's counts, or the stored ones


@dataclass(frozen=True)
class SortPosition:
    """Where a page of a sorted search starts: right after ``after`` (the sort values of the previous page's
    last hit) or, with ``backwards``, right before them (the next page's first hit), in the point in time
    ``pit_id`` (None: the live index)."""

    pit_id: str | None = None
    after: tuple[SortValue, ...] | None = None
    backwards: bool = False


@dataclass(frozen=True)
class SortedWindow:
    """One page of a sorted search: the judgments in order with their sort values and lexical scores, how many
    judgments the sorted set holds, the meaning-only judgments' similarity, and the point in time used."""

    ids: tuple[str, ...]
    sort_values: tuple[tuple[SortValue, ...], ...]
    scores: tuple[float, ...]
    found: int
    similarity: Mapping[str, float] = field(default_factory=dict)
    pit_id: str | None = None


def sort_clauses(order: SortOrder, counts: CitedBy | None = None, *, reverse: bool = False) -> list[Body]:
    """The ``sort`` of ``order``, tie-broken by ``judgment_id``; ``reverse`` turns every key round (judgments
    without a date then come first, so that paging backwards meets them where forwards left them). ``counts``:
    the cited-by counts, a map (a script sort) or :data:`STORED_COUNTS` (the stored field)."""
    if order is SortOrder.RELEVANCE:
        raise ValueError("relevance is ranked, not sorted")

    def turn(direction: str) -> str:
        return {"asc": "desc", "desc": "asc"}[direction] if reverse else direction

    missing = "_first" if reverse else "_last"
    date_order = "asc" if order is SortOrder.OLDEST else "desc"
    by_date = {"decision_date": {"order": turn(date_order), "missing": missing}}
    clauses: list[Body] = [by_date]
    if order is SortOrder.CITED_BY and isinstance(counts, StoredCounts):
        clauses.insert(0, {CITED_BY_FIELD: {"order": turn("desc"), "missing": 0, "unmapped_type": "integer"}})
    elif order is SortOrder.CITED_BY:
        script = {"source": CITED_BY_SCRIPT, "lang": "painless", "params": {"counts": dict(counts or {})}}
        clauses.insert(0, {"_script": {"type": "number", "order": turn("desc"), "script": script}})
    return [*clauses, {"judgment_id": {"order": turn("asc")}}]


def meaning_body(request: SearchRequest, vector: Sequence[float], floor: float, limit: int = MAX_MEANING) -> Body:
    """Every chunk at least ``floor`` similar (cosine) to the query (a radial k-NN search, cosinesimil scores
    being ``(1 + cos) / 2``), grouped by judgment with each judgment's best score, most similar first. With a
    role filter, only those roles' chunks."""
    knn: Body = {"vector": list(vector), "min_score": (1.0 + floor) / 2.0}
    if request.role_mode is RoleMode.FILTER and request.roles:
        knn["filter"] = {"terms": {"role": list(request.roles)}}
    return {"size": 0, "track_total_hits": False, "query": {"knn": {"vector": knn}},
            "aggs": {"judgments": {"terms": {"field": "judgment_id", "size": limit, "order": {"best": "desc"}},
                                   "aggs": {"best": {"max": {"script": "_score"}}}}}}


def role_words_body(request: SearchRequest, limit: int = MAX_CANDIDATES) -> Body:
    """The judgments whose chunks of the filtered roles match the words (role filter mode)."""
    return {"size": 0, "track_total_hits": False, "query": bm25_query(request, with_roles=True),
            "aggs": {"judgments": {"terms": {"field": "judgment_id", "size": limit}}}}


def sorted_query(request: SearchRequest, meaning: Sequence[str] = (), within: Sequence[str] | None = None) -> Body:
    """The sorted set: judgments matching the words by the counting rule and the constraints
    (:func:`search.retrieval.matching.lexical_query`), or among ``meaning`` with none of the words and the constraints;
    ``within`` (role filter mode) restricts the word matches."""
    words = lexical_query(request)
    if within is not None:
        words = {"bool": {"must": [words], "filter": [{"terms": {"judgment_id": list(within)}}]}}
    if not meaning:
        return words
    clauses = constraints(request)
    by_meaning: Body = {"terms": {"judgment_id": list(meaning)}}
    if clauses:
        by_meaning = {"bool": {"filter": [by_meaning, *clauses]}}
    if request.every_word and request.query is not None:  # meaning only: none of the words (some is not every)
        by_meaning = {"bool": {"filter": [by_meaning], "must_not": [lexical_query(request, any_word=True)]}}
    return {"bool": {"should": [words, by_meaning], "minimum_should_match": 1}}


def sorted_body(request: SearchRequest, query: Body, *, size: int, start: int = 0,
                position: SortPosition | None = None, counts: CitedBy | None = None) -> Body:
    """A page of ``query`` in ``request.sort`` order: ``from``/``size``, or after a position in a point in time."""
    position = position or SortPosition()
    body: Body = {"query": query, "size": size, "sort": sort_clauses(request.sort, counts, reverse=position.backwards),
                  "track_total_hits": True, "track_scores": True, "_source": False,
                  "docvalue_fields": ["judgment_id"]}
    if position.after is not None:
        body["search_after"] = list(position.after)
    else:
        body["from"] = start
    if position.pit_id is not None:
        body["pit"] = {"id": position.pit_id, "keep_alive": KEEP_ALIVE}
    return body


def open_point_in_time(client: OpenSearch, index: str) -> str | None:
    """A point in time over ``index`` for :data:`KEEP_ALIVE`, or None when the cluster will not open one (its
    cap on open points in time reached): the caller pages without."""
    try:
        return str(client.create_pit(index=index, params={"keep_alive": KEEP_ALIVE})["pit_id"])
    except TransportError as exc:
        if isinstance(exc.status_code, int) and exc.status_code in (400, 429, 500, 503):
            return None
        raise


def cited_by_counts(graph: CitationGraph) -> dict[str, int]:
    """The parameters of the cited-by sort: how many corpus judgments cite each judgment cited at all."""
    return graph.cited_by_counts()


def _values(hit: Mapping[str, Any]) -> tuple[SortValue, ...]:
    return tuple(None if isinstance(v, float) and not math.isfinite(v) else v for v in hit["sort"])


def fetch(client: OpenSearch, aliases: Mapping[str, str], request: SearchRequest, *, vector: Sequence[float] | None,
          floor: float, size: int, start: int = 0, position: SortPosition | None = None,
          counts: CitedBy | None = None) -> SortedWindow:
    """One page of the sorted set of ``request`` (see the module docstring); ``vector`` None: no meaning matches
    (a filter-only search, or a query with no words to embed)."""
    similarity: dict[str, float] = {}
    if vector is not None and request.query is not None:
        response = client.search(index=aliases["chunks"], body=meaning_body(request, vector, floor))
        similarity = {b["key"]: cosine(b["best"]["value"]) for b in response["aggregations"]["judgments"]["buckets"]
                      if b["best"]["value"] is not None and cosine(b["best"]["value"]) >= floor}
    within = None
    if request.role_mode is RoleMode.FILTER and request.query is not None:
        response = client.search(index=aliases["chunks"], body=role_words_body(request))
        within = [b["key"] for b in response["aggregations"]["judgments"]["buckets"]]
    body = sorted_body(request, sorted_query(request, list(similarity), within), size=size, start=start,
                       position=position, counts=counts)
    pit_id = position.pit_id if position else None
    try:
        response = client.search(body=body) if pit_id else client.search(index=aliases["judgments"], body=body)
    except (NotFoundError, RequestError) as exc:
        if pit_id is None:
            raise
        raise ExpiredPositionError("this page's point in time has expired (it lasts "
                                   f"{KEEP_ALIVE.removesuffix('m')} minutes after the last page) or is not one this "
                                   "server opened: search again from the first page") from exc
    hits = response["hits"]["hits"]
    if pit_id and hits:
        own = set(client.indices.get_alias(index=aliases["judgments"]))
        if any(hit["_index"] not in own for hit in hits):
            raise ExpiredPositionError("the cursor's point in time is not of this corpus: search again from the "
                                       "first page")
    if position is not None and position.backwards:
        hits = hits[::-1]
    return SortedWindow(tuple(h["fields"]["judgment_id"][0] for h in hits), tuple(_values(h) for h in hits),
                        tuple(float(h.get("_score") or 0.0) for h in hits), int(response["hits"]["total"]["value"]),
                        {d: round(s, 4) for d, s in similarity.items()}, response.get("pit_id", pit_id))
