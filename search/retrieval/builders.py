"""Pure query builders: ``(request[, vector]) -> dict`` bodies for OpenSearch; no HTTP, no models.

User text only ever reaches OpenSearch as the *value* of ``match`` / ``match_phrase`` / ``multi_match``
queries (and, escaped, of a ``wildcard`` on judge names), never as query DSL or ``query_string``.

Bodies (chunks index unless said otherwise):

* :func:`highlight_body` -- the sentences of the shown chunks that carry the query's words
  (:data:`HIGHLIGHT`). Highlighting is a second, small request over the page's passages only: asking for
  it in the main request would highlight every candidate and double the BM25 time.
* :func:`hybrid_body` -- ``hybrid`` at the top level, BM25 first and k-NN second (the pipeline's weights
  follow this order), the same filters inside both; run with ``?search_pipeline=``.
* :func:`bm25_body`, :func:`knn_body` -- the two halves alone, same filters, for client-side fusion
  (:func:`search.retrieval.fusion.fuse`) when the cluster has no neural-search.
* :func:`role_filter_count_body` -- in ``filter`` mode, how many chunks matching the text and filters the
  role restriction removed (``aggregations.removed_by_role.doc_count``, with a per-role breakdown).
* :func:`facet_aggregations` -- court, year histogram, roles, cited provisions, judges; each bucket also
  counts distinct judgments, since chunk counts overstate them.
* :func:`constraints` -- the clauses every hit must satisfy, on the judgments index (:data:`FULLTEXT_FIELDS`):
  the filters, and the query's hard parts (:func:`hard_text`: quoted phrases, required and excluded words).
* :func:`judgment_summary_body` -- BM25 over the judgments index's summary fields (same text query and
  filters), for a judgment-level list or to feed a roll-up.

Role modes: ``off`` adds nothing; ``boost`` adds a ``should`` ``terms`` clause on ``role`` with
``request.role_boost`` to the BM25 part (a constant added to matching chunks' scores; nothing excluded, and
the k-NN part is untouched because a knn clause cannot be boosted per document); ``filter`` adds a
``terms`` clause on ``role`` to the filters of both parts.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from legal.judges import judge_pattern
from search.query.errors import QueryError
from search.query.request import RoleMode, SearchRequest
from search.query.syntax import AnyOf, Clauses, Filters, Node, Phrase, Term

__all__ = [
    "CHUNK_FIELDS", "FULLTEXT_FIELDS", "HIGHLIGHT", "SUMMARY_FIELDS", "TextFields", "bm25_body", "bm25_query",
    "constraints", "facet_aggregations", "filter_clauses", "hard_text", "highlight_body", "hybrid_body",
    "judgment_summary_body", "knn_body", "knn_query", "role_filter_count_body", "text_query",
]

Body = dict[str, Any]


@dataclass(frozen=True)
class TextFields:
    """Where words and where quoted phrases are matched (several fields -> ``multi_match``)."""

    words: tuple[str, ...]
    phrases: tuple[str, ...]


CHUNK_FIELDS = TextFields(words=("text",), phrases=("text.exact",))
# A judgment's whole text on the judgments index: what the constraints, the counts and whole-text BM25 match.
FULLTEXT_FIELDS = TextFields(words=("text",), phrases=("text.exact",))
SUMMARY_FIELDS = TextFields(
    words=("title", "summary.facts", "summary.legal_issues", "summary.reasoning", "summary.legal_principles",
           "summary.cited_principles"),
    phrases=("title.exact", "text.exact"),
)
# Sentence-sized fragments of the chunk text with the matched words in <mark>; the text is HTML-escaped
# first (encoder "html"), so a judgment's own angle brackets cannot pass for markup.
HIGHLIGHT: Body = {
    "pre_tags": ["<mark>"], "post_tags": ["</mark>"], "encoder": "html",
    "fields": {"text": {"type": "unified", "boundary_scanner": "sentence", "fragment_size": 250,
                        "number_of_fragments": 3}},
}
MAX_CLAUSES = 1024  # indices.query.bool.max_clause_count's default
VECTOR_FIELD = "vector"
SOURCE_EXCLUDES = ["vector", "tuned_*"]  # the vectors (the tuned facts vectors: search.ranking.tuned)
FACET_SIZE = 20


# ---------------------------------------------------------------- text

def _words(words: list[str], fields: TextFields) -> Body:
    """Ranked words over one field (``match``) or several (``multi_match``). A multi-field query makes one
    clause per word per field, and OpenSearch refuses more than ``MAX_CLAUSES``: past that, the first distinct
    words are kept (a pasted fact pattern against six summary fields would otherwise fail outright)."""
    limit = MAX_CLAUSES // len(fields.words)
    if len(words) > limit:
        words = list(dict.fromkeys(w.lower() for w in words))[:limit]
    query = " ".join(words)
    if len(fields.words) == 1:
        return {"match": {fields.words[0]: {"query": query}}}
    return {"multi_match": {"query": query, "fields": list(fields.words), "type": "best_fields"}}


def _phrase(text: str, fields: TextFields) -> Body:
    if len(fields.phrases) == 1:
        return {"match_phrase": {fields.phrases[0]: {"query": text}}}
    return {"multi_match": {"query": text, "fields": list(fields.phrases), "type": "phrase"}}


def _soft(nodes: tuple[Node, ...], fields: TextFields) -> list[Body]:
    """Soft items: consecutive bare words become one ``match`` (BM25 ranks chunks with more of them
    higher); anything else is translated on its own."""
    out: list[Body] = []
    run: list[str] = []
    for node in nodes:
        if isinstance(node, Term):
            run.append(node.text)
            continue
        if run:
            out.append(_words(run, fields))
            run = []
        out.append(text_query(node, fields))
    if run:
        out.append(_words(run, fields))
    return out


def text_query(node: Node, fields: TextFields = CHUNK_FIELDS) -> Body:
    """Translate the syntax tree into a query over ``fields``."""
    if isinstance(node, Term):
        return _words([node.text], fields)
    if isinstance(node, Phrase):
        return _phrase(node.text, fields)
    if isinstance(node, AnyOf):
        if all(isinstance(item, Term) for item in node.items):  # a OR b is what match does with "a b"
            return _words([item.text for item in node.items], fields)  # type: ignore[union-attr]
        return {"bool": {"should": [text_query(item, fields) for item in node.items], "minimum_should_match": 1}}
    assert isinstance(node, Clauses)
    should = _soft(node.should, fields)
    if len(should) == 1 and not node.must and not node.must_not:
        return should[0]
    bool_: Body = {}
    if node.must:
        bool_["must"] = [text_query(item, fields) for item in node.must]
    if should:
        bool_["should"] = should
        if not node.must:
            bool_["minimum_should_match"] = 1
    if node.must_not:
        bool_["must_not"] = [text_query(item, fields) for item in node.must_not]
    return {"bool": bool_}


# ---------------------------------------------------------------- filters

def _fold(value: str) -> str:
    """Lower case without accents, like the ``ratio_keyword`` normalizer (lowercase + asciifolding)."""
    decomposed = unicodedata.normalize("NFKD", value.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _wildcard_escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("*", "\\*").replace("?", "\\?")


def filter_clauses(filters: Filters) -> list[Body]:
    """The common filter clauses, valid in a ``bool.filter`` and inside a k-NN ``filter`` alike.

    Courts: any of, case-insensitive exact names. Judges: all of, each a case-insensitive containment match
    on the normalised name (a lawyer types a surname; "Ray" also matches "Murray": accepted for now), or the
    name in any of the ways a header writes it (:func:`legal.judges.judge_pattern`: ``D. K. Jain`` matches a
    stored ``d.k.jain``, ``Arijit Pasayat`` a stored ``hon'ble justice dr. arijit pasayat``).
    Citations and provisions: all of, canonical strings. Years and dates: inclusive ranges.
    """
    clauses: list[Body] = []
    if filters.courts:
        courts = [{"term": {"court": {"value": court, "case_insensitive": True}}} for court in filters.courts]
        clauses.append(courts[0] if len(courts) == 1 else {"bool": {"should": courts, "minimum_should_match": 1}})
    for judge in filters.judges:
        pattern = f"*{_wildcard_escape(_fold(judge))}*"
        clause: Body = {"wildcard": {"judges": {"value": pattern, "case_insensitive": True}}}
        written = judge_pattern(judge)  # the same judge however a header wrote the name (legal.judges)
        if written is not None:
            clause = {"bool": {"should": [clause, {"regexp": {"judges": {"value": written, "case_insensitive": True}}}],
                               "minimum_should_match": 1}}
        clauses.append(clause)
    if filters.years:
        span = {k: v for k, v in (("gte", filters.years.start), ("lte", filters.years.end)) if v is not None}
        clauses.append({"range": {"year": span}})
    if filters.dates:
        span = {k: v.isoformat() for k, v in (("gte", filters.dates.start), ("lte", filters.dates.end))
                if v is not None}
        clauses.append({"range": {"decision_date": span}})
    clauses += [{"term": {"cited_judgments": cite}} for cite in filters.cites]
    clauses += [{"term": {"cited_provisions": statute}} for statute in filters.statutes]
    return clauses


def hard_text(node: Node) -> Node | None:
    """The parts of a parsed query every hit must satisfy: required items, excluded items and quoted phrases
    (a phrase is asked for exactly wherever it stands). Bare words and OR-groups only rank. None: nothing hard."""
    if isinstance(node, Phrase):
        return node
    if not isinstance(node, Clauses):
        return None
    phrases = tuple(item for item in node.should if isinstance(item, Phrase))
    if not node.must and not node.must_not and not phrases:
        return None
    return Clauses(must=(*node.must, *phrases), must_not=node.must_not)


def constraints(request: SearchRequest) -> list[Body]:
    """Filter clauses (valid on the judgments index, whose metadata fields carry the chunks' names) that keep
    only judgments satisfying the request's filters and its hard text parts: what every hit must satisfy on every
    path (the ranker's candidate sources, the counts and matching of :mod:`search.retrieval.matching`, the sorted
    set)."""
    clauses = filter_clauses(request.filters)
    hard = hard_text(request.query) if request.query is not None else None
    if hard is not None:
        clauses.append(text_query(hard, FULLTEXT_FIELDS))
    return clauses


def _role_terms(request: SearchRequest) -> Body:
    return {"terms": {"role": list(request.preferred_roles)}}


def _chunk_filters(request: SearchRequest, with_roles: bool = True) -> list[Body]:
    clauses = filter_clauses(request.filters)
    if with_roles and request.role_mode is RoleMode.FILTER:
        clauses.append(_role_terms(request))
    return clauses


# ---------------------------------------------------------------- the two parts

def bm25_query(request: SearchRequest, with_roles: bool = True) -> Body:
    """The BM25 part: the text query (``match_all`` for a filter-only search), filters, role boost."""
    bool_: Body = {"must": [text_query(request.query) if request.query is not None else {"match_all": {}}]}
    if with_roles and request.role_mode is RoleMode.BOOST and request.preferred_roles:
        bool_["should"] = [{"terms": {"role": list(request.preferred_roles), "boost": request.role_boost}}]
    filters = _chunk_filters(request, with_roles)
    if filters:
        bool_["filter"] = filters
    return {"bool": bool_}


def knn_query(request: SearchRequest, vector: list[float]) -> Body:
    """The k-NN part, filtering during the search (inside the knn clause), never after it."""
    if request.query is None:
        raise QueryError("a filter-only search has no text to embed: run the BM25 body alone")
    if not vector:
        raise ValueError("the query vector is empty")
    knn: Body = {"vector": list(vector), "k": request.candidates}
    filters = _chunk_filters(request)
    if filters:
        knn["filter"] = {"bool": {"filter": filters}}
    return {"knn": {VECTOR_FIELD: knn}}


SCORE_ORDER = [{"_score": "desc"}, {"chunk_id": "asc"}]  # ties broken by chunk id: every page in one order
WINDOW_SIZE = 10_000  # the most hits one search returns (max_result_window's default): a whole hybrid window


def _page(request: SearchRequest, body: Body, facets: bool = True) -> Body:
    body = {"size": request.candidates, "_source": {"excludes": SOURCE_EXCLUDES}, **body}
    if facets and request.facets:
        body["aggs"] = facet_aggregations()
    return body


# ---------------------------------------------------------------- bodies

def hybrid_body(request: SearchRequest, vector: list[float], *, whole_window: bool = False) -> Body:
    """The server-side fusion body: ``hybrid`` at the top level, BM25 first, k-NN second.

    ``pagination_depth`` (2.19+) is fixed at ``candidates`` so pages drawn from it stay stable: the fused scores
    depend on that depth alone, not on ``size``. A hybrid query takes no tie-break sort (the server refuses
    ``_score`` beside another criterion), so a ``search_after`` key is applied to the fused window by the caller
    (:class:`search.retrieval.chunk_search.ChunkSearch`): ``whole_window`` asks for every hit of the window.
    """
    if request.search_after is not None:
        raise ValueError("a hybrid body pages inside its window: apply search_after to the fused hits")
    hybrid = {"queries": [bm25_query(request), knn_query(request, vector)], "pagination_depth": request.candidates}
    body = _page(request, {"query": {"hybrid": hybrid}})
    if whole_window:
        body["size"] = WINDOW_SIZE
    return body


def bm25_body(request: SearchRequest) -> Body:
    """BM25 alone, with the same filters and role mode: one list for client-side fusion, or the whole
    search when there is no text to embed. Sorted by score then chunk id, so a ``search_after`` key (the last
    hit's score and chunk id) continues exactly the list the first page began."""
    body = {**_page(request, {"query": bm25_query(request)}), "sort": SCORE_ORDER}
    if request.search_after is not None:
        body["search_after"] = list(request.search_after)
    return body


def knn_body(request: SearchRequest, vector: list[float]) -> Body:
    """k-NN alone, with the same filters (and role filter): the other list for client-side fusion. No
    facets here: over k neighbours they would count a fixed-size sample, not the matches."""
    if request.search_after is not None:
        raise ValueError("a k-NN list is fused whole: apply search_after to the fused hits")
    return {**_page(request, {"query": knn_query(request, vector)}, facets=False), "sort": SCORE_ORDER}


def highlight_body(request: SearchRequest, chunk_ids: list[str]) -> Body:
    """Highlights of the chunks ``chunk_ids`` for the request's text query (no scores, no sources)."""
    if request.query is None:
        raise QueryError("a filter-only search has no words to highlight")
    return {"size": len(chunk_ids), "_source": False,
            "query": {"bool": {"must": [text_query(request.query)], "filter": [{"ids": {"values": chunk_ids}}]}},
            "highlight": HIGHLIGHT}


def role_filter_count_body(request: SearchRequest) -> Body:
    """Count chunks that match the text and filters but that the role filter removed.

    The query is the BM25 part without any role clause; ``aggregations.removed_by_role.doc_count`` is the
    number removed and its ``roles`` buckets say which roles they had. ``hits.total`` (exact) is the number
    matching before the role filter. Only meaningful in ``filter`` mode.
    """
    if request.role_mode is not RoleMode.FILTER:
        raise ValueError("the removed-chunk count only applies to role mode 'filter'")
    removed = {"bool": {"must_not": [_role_terms(request)]}}
    return {
        "size": 0,
        "track_total_hits": True,
        "query": bm25_query(request, with_roles=False),
        "aggs": {"removed_by_role": {"filter": removed,
                                     "aggs": {"roles": {"terms": {"field": "role", "size": FACET_SIZE}}}}},
    }


def facet_aggregations(size: int = FACET_SIZE) -> Body:
    """Facets over the matching chunks, each bucket with its distinct-judgment count."""
    judgments = {"judgments": {"cardinality": {"field": "judgment_id"}}}
    return {
        "court": {"terms": {"field": "court", "size": size}, "aggs": judgments},
        "year": {"histogram": {"field": "year", "interval": 1, "min_doc_count": 1}, "aggs": judgments},
        "role": {"terms": {"field": "role", "size": size}, "aggs": judgments},
        "cited_provisions": {"terms": {"field": "cited_provisions", "size": size}, "aggs": judgments},
        "judges": {"terms": {"field": "judges", "size": size}, "aggs": judgments},
    }


def judgment_summary_body(request: SearchRequest) -> Body:
    """BM25 over the judgments index's summary fields with the same filters (roles do not apply there)."""
    must = [text_query(request.query, SUMMARY_FIELDS) if request.query is not None else {"match_all": {}}]
    bool_: Body = {"must": must}
    filters = filter_clauses(request.filters)
    if filters:
        bool_["filter"] = filters
    body: Body = {"size": request.size, "from": (request.page - 1) * request.size,
                  "_source": {"excludes": [*SOURCE_EXCLUDES, "text"]}, "query": {"bool": bool_}}
    return body
