"""Facet counts, counted one way for the search page, the facets route and Explore.

The counting rule (docs/web.md, "Counting"): a judgment counts when its whole text matches the query's words (every
word of a typed query, any word of a pasted text) and every constraint (filters, quoted phrases, required and
excluded words): the judgments of a search's ``total`` (:func:`search.retrieval.matching.lexical_query`, the rule's one
home). So the aggregations run over the judgments index, one document per
judgment: a bucket's ``doc_count`` is a number of judgments, exact, and Explore's headline equals Search's total
for the same query and filters, whichever path (the learned ranker or the chunk fusion) ranked the hits. Counting
the ranked window's chunks instead (what a hybrid response's aggregations see) would count the k-NN half's
neighbours, a fixed-size sample, and a judgment once per matching passage.

Roles are the exception: a role belongs to a passage, not a judgment. The role counts are of judgments with a
passage of that role matching the words within the filters (the chunks index, distinct ``judgment_id``), so a
judgment counts under each role it has a matching passage in; a role filter narrows which passages are searched
and shown, not which judgments count. When every word is required (a typed query), a passage holds only some of
them, so the role counts are of the judgments counted above (every word in the whole text) with a passage of the
role matching any of the words: the counted judgments' ids come back with the first request (up to
:data:`ROLE_SET_LIMIT`; past it the roles count every judgment with such a passage, as for a pasted text) and
restrict the second.

Cited provisions are labelled: a bucket whose citation the provisions index holds (the citation, or the section
of a cited sub-section) carries the provision's ``title``, ``provision_id`` and page ``link``
(:mod:`search.provisions.links`, one request for all the buckets). Explore also counts the judgments citing each
Act (``acts``) and each section, sub-sections folded into their section (``sections``: ``IPC s. 304B(1)`` counts
under ``IPC s. 304B``), each judgment once per Act and once per section, by a script over ``cited_provisions``.

Judges are one bucket per judge however the index writes the name (``Dr. Arijit Pasayat``, ``arijit pasayat``):
:mod:`search.pages.judge_facet` folds the values and counts a judge of several values again, exactly.

The year histogram is continuous: empty years are buckets of 0 (``min_doc_count: 0``), and a year or date filter
stretches the axis to its bounds (``extended_bounds``), so a gap in the record shows as a gap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from opensearchpy import OpenSearch

from search.pages.judge_facet import JUDGE_POOL, judge_buckets
from search.provisions.links import corpus_refs, label_buckets
from search.query.rejection import EngineError
from search.query.request import SearchRequest
from search.query.syntax import YEAR_MAX, YEAR_MIN
from search.retrieval.builders import bm25_query
from search.retrieval.matching import lexical_query

__all__ = ["FACET_SIZE", "Counts", "count", "facets", "judges", "judgment_body", "labelled_provisions",
           "provision_parts", "role_body", "year_bounds"]

Body = dict[str, Any]
FACET_SIZE = 15
SEARCH_FACETS = ("court", "year", "role", "cited_provisions", "judges")
ACT_SIZE = 20  # Acts Explore lists
SECTION_SIZE = 60  # sections Explore reads to list the most cited of each Act
# the distinct Acts, and the distinct sections (a sub-section folded into its section), a judgment's canonical
# citations name (``<Act> s. <section>``, ``<Act> art. <article>``: legal.citations.parse_provision)
_PROVISION_PARTS = """
Set out = new HashSet();
for (def cited : doc['cited_provisions']) {
  int unit = cited.indexOf(' s. ');
  if (unit < 0) { unit = cited.indexOf(' art. '); }
  if (unit <= 0) { continue; }
  if (params.part == 'act') { out.add(cited.substring(0, unit)); continue; }
  int sub = cited.indexOf('(', unit);
  out.add(sub > 0 ? cited.substring(0, sub) : cited);
}
return new ArrayList(out);
"""
ROLE_SET_LIMIT = 10_000  # counted judgments whose ids restrict the role counts (a terms query; the cap is 65,536)


def year_bounds(request: SearchRequest | None) -> dict[str, int]:
    """The years a request's year and date filters allow, as histogram ``extended_bounds`` (either side may be
    missing: the data's first or last year then closes the axis)."""
    if request is None:
        return {}
    low, high = [], []
    if request.filters.years:
        low.append(request.filters.years.start)
        high.append(request.filters.years.end)
    if request.filters.dates:
        dates = request.filters.dates
        low.append(dates.start.year if dates.start else None)
        high.append(dates.end.year if dates.end else None)
    start = max((y for y in low if y is not None), default=None)
    end = min((y for y in high if y is not None), default=None)
    bounds = {k: v for k, v in (("min", start), ("max", end)) if v is not None and YEAR_MIN <= v <= YEAR_MAX}
    return {} if "min" in bounds and "max" in bounds and bounds["min"] > bounds["max"] else bounds


def provision_parts(part: str, size: int) -> Body:
    """Judgments per cited Act (``part`` ``act``) or per cited section, sub-sections folded (``section``)."""
    return {"terms": {"size": size, "script": {"source": _PROVISION_PARTS, "lang": "painless",
                                               "params": {"part": part}}}}


def judgment_body(request: SearchRequest | None, size: int = FACET_SIZE, co_citations: bool = False,
                  by_act: bool = False) -> Body:
    """Judgments matching the request (all of them without one) per court, year, cited provision and judgment,
    and judge (with ``by_act``, per cited Act and section too); ``hits.total`` is the exact number of judgments
    matching."""

    def terms(name: str, n: int = size) -> Body:
        return {"terms": {"field": name, "size": n}}

    histogram: Body = {"field": "year", "interval": 1, "min_doc_count": 0}
    bounds = year_bounds(request)
    if bounds:
        histogram["extended_bounds"] = bounds
    aggs: Body = {"court": terms("court"), "year": {"histogram": histogram},
                  "cited_provisions": terms("cited_provisions"), "cited_judgments": terms("cited_judgments"),
                  "judges": terms("judges", JUDGE_POOL)}  # all: search.pages.judge_facet folds variants
    if co_citations:
        aggs["co_citations"] = {**terms("cited_provisions", 10), "aggs": {"with": terms("cited_provisions", 6)}}
    if by_act:
        aggs["acts"] = provision_parts("act", ACT_SIZE)
        aggs["sections"] = provision_parts("section", SECTION_SIZE)
    return {"size": 0, "track_total_hits": True,
            "query": lexical_query(request) if request is not None else {"match_all": {}}, "aggs": aggs}


def role_body(request: SearchRequest | None, size: int = 20, within: list[str] | None = None) -> Body:
    """Judgments with a passage of each role matching the words within the filters (and among ``within``, the
    judgments counted, when given); ``hits.total`` is the number of such passages. A role filter does not narrow
    it: every role keeps its count, so a page can offer the others beside the one selected (roles are
    alternatives)."""
    query = bm25_query(request, with_roles=False) if request is not None else {"match_all": {}}
    if within is not None:
        query = {"bool": {"must": [query], "filter": [{"terms": {"judgment_id": within}}]}}
    return {"size": 0, "track_total_hits": True, "query": query,
            "aggs": {"role": {"terms": {"field": "role", "size": size, "order": {"judgments": "desc"}},
                              "aggs": {"judgments": {"cardinality": {"field": "judgment_id",
                                                                     "precision_threshold": 40000}}}}}}


@dataclass(frozen=True)
class Counts:
    """What :func:`count` found: judgments matching, passages matching, and the raw aggregations."""

    total: int
    passages: int
    aggregations: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, judgments: dict[str, Any], passages: dict[str, Any]) -> Counts:
        return cls(int(judgments["hits"]["total"]["value"]), int(passages["hits"]["total"]["value"]),
                   {**judgments.get("aggregations", {}), **passages.get("aggregations", {})})

    def buckets(self, name: str) -> list[dict[str, Any]]:
        """``[{"key", "judgments"}]`` of one facet (years as integers, roles by distinct judgments)."""
        rows = []
        for bucket in self.aggregations.get(name, {}).get("buckets", []):
            key = int(bucket["key"]) if name == "year" else bucket["key"]
            judgments = bucket["judgments"]["value"] if "judgments" in bucket else bucket["doc_count"]
            rows.append({"key": key, "judgments": int(judgments)})
        return rows


def _answers(client: OpenSearch, lines: list[Body]) -> list[dict[str, Any]]:
    responses = client.msearch(body=lines)["responses"]
    for response in responses:
        if "error" in response:
            raise EngineError(f"the facet counts failed: {response['error']}", response)
    return responses


def count(client: OpenSearch, aliases: dict[str, str], request: SearchRequest | None, size: int = FACET_SIZE,
          co_citations: bool = False, by_act: bool = False) -> Counts:
    """The judgments index for the judgment facets and the total, the chunks index for the roles: in one
    ``_msearch``, or, when every word is required, one after the other (the roles among the judgments counted)."""
    judgments = judgment_body(request, size, co_citations, by_act)
    if request is None or request.query is None or not request.every_word:
        return Counts.of(*_answers(client, [{"index": aliases["judgments"]}, judgments,
                                             {"index": aliases["chunks"]}, role_body(request)]))
    judgments["aggs"]["counted"] = {"terms": {"field": "judgment_id", "size": ROLE_SET_LIMIT}}
    (found,) = _answers(client, [{"index": aliases["judgments"]}, judgments])
    counted = found["aggregations"].pop("counted")
    within = None if counted["sum_other_doc_count"] else [b["key"] for b in counted["buckets"]]
    (roles,) = _answers(client, [{"index": aliases["chunks"]}, role_body(request, within=within)])
    return Counts.of(found, roles)


def facets(client: OpenSearch, aliases: dict[str, str], request: SearchRequest,
           size: int = FACET_SIZE) -> dict[str, list[dict[str, Any]]]:
    """The search page's facets (court, year, role, cited provisions, judges) by the counting rule, the cited
    provisions labelled with the corpus's provisions (:func:`labelled_provisions`)."""
    counted = count(client, aliases, request, size)
    found = {name: counted.buckets(name) for name in SEARCH_FACETS}
    found["cited_provisions"] = labelled_provisions(client, aliases, found["cited_provisions"])
    found["judges"] = judges(client, aliases, request, counted, size)
    return found


def judges(client: OpenSearch, aliases: dict[str, str], request: SearchRequest | None, counted: Counts,
           size: int = FACET_SIZE) -> list[dict[str, Any]]:
    """The judges facet of ``counted``, one bucket per judge however the index writes the name, counted exactly
    (:func:`search.pages.judge_facet.judge_buckets`)."""
    query = lexical_query(request) if request is not None else {"match_all": {}}
    return judge_buckets(client, aliases["judgments"], query, counted.buckets("judges"), size)


def labelled_provisions(client: OpenSearch, aliases: dict[str, str],
                        buckets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cited-provision buckets with the title, id and page of the provision each names, where the corpus holds
    it (one request for all)."""
    return label_buckets(buckets, corpus_refs(client, aliases, [str(b["key"]) for b in buckets]))
