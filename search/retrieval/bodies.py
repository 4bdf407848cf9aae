"""Pure request bodies of the ranker: candidate sources and feature queries, as plain dicts (no HTTP).

Every body takes analysed terms (from :class:`search.ranking.query.QueryProfile`), so user text never reaches
the query DSL: a term is the value of a ``term`` query on a field the terms were analysed for. Feature bodies
are restricted to the candidate judgments (an ``ids``/``terms`` filter) and sized to return all of them, so
every candidate gets an exact score for every feature, not only those in some top-k.

``filters`` are clauses every judgment must satisfy (court, year, a required phrase...). They go into every
body, candidate and feature alike, so nothing the user excluded can come back through another source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "IDS_ONLY", "NO_ROLE", "SUMMARY_FIELDS", "TIE_BREAK", "best_per_role", "chunk_roles_body",
    "chunk_similarity_body", "chunk_similarity_roles_body", "judgment_similarity_body", "metadata_body",
    "own_citations_body", "provision_df_body", "provisions_body", "terms_body", "terms_query", "title_body",
]

Body = dict[str, Any]
Terms = Sequence[tuple[str, float]]

SUMMARY_FIELDS = ("summary.facts", "summary.legal_issues", "summary.reasoning", "summary.legal_principles",
                  "summary.cited_principles")
# Hits come back identified by the ``judgment_id`` doc value, with no stored field read: fetching a hit's ``_id``
# or ``_source`` decompresses its stored block (for a judgment, its whole text), which over a thousand candidates
# cost about ten times the search itself (``took`` 600-1,250 ms against 30-140 ms per feature request).
IDS_ONLY: Body = {"_source": False, "stored_fields": "_none_", "docvalue_fields": ["judgment_id"],
                  "track_total_hits": False}
_NO_SOURCE = IDS_ONLY
# A ranked list's ties (equal scores: every judgment a filter-only source matches, two judgments with the same
# matched terms and length) are ordered by judgment id. Without it Lucene orders them by internal document number,
# which follows how the index happened to be written and merged, so the same corpus indexed twice (on another
# machine, or a primary and its replica) kept other judgments at a source's cut and trained another model.
TIE_BREAK: tuple[Body, ...] = ({"_score": "desc"}, {"judgment_id": "asc"})


def _ranked(body: Body) -> Body:
    """``body`` with its hits in :data:`TIE_BREAK` order (a hit's ``_score`` is still the query's score)."""
    return {**body, "sort": list(TIE_BREAK)}


def terms_query(terms: Terms, fields: Sequence[str] = ("text",), weighted: bool = True) -> Body:
    """A disjunction of analysed terms over ``fields`` (summed across fields), each boosted by its selection weight
    when ``weighted``: BM25 per term, so a judgment with more of the query's distinctive terms scores higher."""
    clauses = [{"term": {f: {"value": term, "boost": round(max(weight, 1e-4), 6) if weighted else 1.0}}}
               for term, weight in terms for f in fields]
    return {"bool": {"should": clauses}} if clauses else {"match_none": {}}


def _bool(query: Body, filters: Sequence[Body]) -> Body:
    return {"bool": {"must": [query], "filter": list(filters)}} if filters else query


def terms_body(terms: Terms, size: int, *, fields: Sequence[str] = ("text",), weighted: bool = True,
               filters: Sequence[Body] = (), ids: Sequence[str] | None = None) -> Body:
    """Judgments ranked by ``terms`` over ``fields``; with ``ids``, only those judgments (a feature body)."""
    clauses = [*filters, *([{"ids": {"values": list(ids)}}] if ids is not None else [])]
    body = {"query": _bool(terms_query(terms, fields, weighted), clauses), "size": size, **_NO_SOURCE}
    return body if ids is not None else _ranked(body)  # a feature body returns all of ``ids``: no cut to break


def cites_query(citations: Sequence[str]) -> Body:
    """Judgments whose ``cited_provisions`` hold one of ``citations`` (canonical, ``IPC s. 304B``) or a sub-section
    of one (``IPC s. 304B(1)``)."""
    should: list[Body] = [{"terms": {"cited_provisions": list(citations)}}]
    should += [{"prefix": {"cited_provisions": f"{citation}("}} for citation in citations]
    return {"bool": {"should": should, "minimum_should_match": 1}}


def provisions_body(provisions: Sequence[str], terms: Terms, size: int, filters: Sequence[Body] = ()) -> Body:
    """Judgments citing any of ``provisions`` (or a sub-section of one), those with more of the query's terms first
    (a candidate source: the judgments that apply the same statute)."""
    query = {"bool": {"filter": [cites_query(provisions), *filters],
                      "should": terms_query(terms)["bool"]["should"] if terms else []}}
    return _ranked({"query": query, "size": size, **_NO_SOURCE})


TITLE_FIELDS = ("title", "title.name")  # the title's words, and its party names as lawyers write them


def title_body(text: str, size: int, filters: Sequence[Body] = ()) -> Body:
    """Judgments whose titles match a typed query's words best (a candidate source: a query naming a case). The
    text is the value of a ``multi_match`` over the title's words and its ``name`` subfield (``ratio_name``: ``vs``
    or ``versus``, ``U.P.`` or ``Uttar Pradesh``, ``& Ors.`` or not, read alike; an index made before the
    subfield existed simply matches on the words)."""
    query = {"multi_match": {"query": text, "fields": list(TITLE_FIELDS), "type": "most_fields"}}
    return _ranked({"query": _bool(query, filters), "size": size, **_NO_SOURCE})


def own_citations_body(citations: Sequence[str], size: int, filters: Sequence[Body] = ()) -> Body:
    """Judgments that carry one of ``citations`` (canonical reporter citations) as their own (a candidate source:
    a query naming ``AIR 1962 SC 605`` asks for the judgment reported there)."""
    return _ranked({"query": {"bool": {"filter": [{"terms": {"citations": list(citations)}}, *filters]}},
                    "size": size, **_NO_SOURCE})


def provision_df_body(provisions: Sequence[str]) -> Body:
    """How many judgments of the corpus cite each of ``provisions`` (for IDF-weighting shared provisions)."""
    return {"size": 0, "query": {"terms": {"cited_provisions": list(provisions)}}, **_NO_SOURCE,
            "aggs": {"df": {"terms": {"field": "cited_provisions", "include": list(provisions),
                                      "size": max(len(provisions), 1)}}}}


def _judgment_filter(ids: Sequence[str]) -> Body:
    return {"terms": {"judgment_id": list(ids)}}


# Per candidate judgment, per role, the best chunk's score: one pass over the candidates' chunks instead of one
# collapsed search per role group (the groups' maxima are taken from these in Python). Chunks without a role
# count under "_none", so the best over every role is the best chunk of the judgment.
NO_ROLE = "_none"


def _best_per_role(size: int) -> Body:
    return {"per_judgment": {"terms": {"field": "judgment_id", "size": max(size, 1)},
                             "aggs": {"per_role": {"terms": {"field": "role", "size": 64, "missing": NO_ROLE},
                                                   "aggs": {"best": {"max": {"script": "_score"}}}}}}}


def chunk_roles_body(terms: Terms, ids: Sequence[str]) -> Body:
    """Each candidate judgment's best chunk score for ``terms`` in each role (aggregations, no hits)."""
    return {"query": _bool(terms_query(terms), [_judgment_filter(ids)]), "size": 0, "track_total_hits": False,
            "aggs": _best_per_role(len(ids))}


def chunk_similarity_roles_body(vector: Sequence[float], ids: Sequence[str]) -> Body:
    """Each candidate judgment's most similar chunk to the query vector in each role (aggregations, no hits)."""
    query = {"script_score": {"query": {"bool": {"filter": [_judgment_filter(ids)]}}, "script": _knn_script(vector)}}
    return {"query": query, "size": 0, "track_total_hits": False, "aggs": _best_per_role(len(ids))}


def best_per_role(response: Body) -> dict[str, dict[str, float]]:
    """Judgment id -> role -> best chunk score, from a :func:`chunk_roles_body` or
    :func:`chunk_similarity_roles_body` answer."""
    return {bucket["key"]: {role["key"]: _as_hit_score(role["best"]["value"]) for role in bucket["per_role"]["buckets"]}
            for bucket in response["aggregations"]["per_judgment"]["buckets"]}


def _as_hit_score(value: float) -> float:
    """A max aggregation's double as a hit's ``_score`` reads: Lucene's float32, in its shortest decimal form
    (so the features equal those of one collapsed search per role, to the last bit)."""
    return float(str(np.float32(value)))


def _knn_script(vector: Sequence[float]) -> Body:
    return {"source": "knn_score", "lang": "knn",
            "params": {"field": "vector", "query_value": list(vector), "space_type": "cosinesimil"}}


def judgment_similarity_body(vector: Sequence[float], ids: Sequence[str]) -> Body:
    """Exact vector similarity of the query to each candidate judgment's vector (not an approximate k-NN)."""
    query = {"script_score": {"query": {"ids": {"values": list(ids)}}, "script": _knn_script(vector)}}
    return {"query": query, "size": len(ids), **_NO_SOURCE}


def chunk_similarity_body(vector: Sequence[float], ids: Sequence[str], roles: Sequence[str] = ()) -> Body:
    """Each candidate judgment's most similar chunk to the query vector, among its chunks of ``roles``."""
    filters = [_judgment_filter(ids), *([{"terms": {"role": list(roles)}}] if roles else [])]
    query = {"script_score": {"query": {"bool": {"filter": filters}}, "script": _knn_script(vector)}}
    return {"query": query, "size": len(ids), "collapse": {"field": "judgment_id"}, **IDS_ONLY}


def metadata_body(ids: Sequence[str], values: Sequence[str], shared: Mapping[str, Sequence[str]],
                  fields: Mapping[str, str] | None = None) -> Body:
    """The candidates' ``values`` from doc values, and which of the query's own entities each one shares:
    ``shared`` maps a name to the query's values for it, each asked as a named clause on the field of that name
    (or the one ``fields`` maps it to: the query's analysed words on ``text``), so a hit's ``matched_queries``
    (``name:value``) list exactly the shared ones. Reading the fields whole instead (every citation of a thousand
    judgments) made a half-megabyte answer."""
    fields = fields or {}
    named = [{"term": {fields.get(name, name): {"value": value, "_name": f"{name}:{value}"}}}
             for name, wanted in shared.items() for value in dict.fromkeys(wanted)]
    query: Body = {"bool": {"filter": [{"ids": {"values": list(ids)}}]}}
    if named:
        query["bool"]["should"] = named
    return {"query": query, "size": len(ids), **IDS_ONLY, "docvalue_fields": ["judgment_id", *values]}
