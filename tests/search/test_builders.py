"""Generated OpenSearch bodies, compared with golden JSON files in ``golden/``.

To regenerate after a deliberate change, run ``RATIO_UPDATE_GOLDEN=1 .venv/bin/pytest tests/search/test_builders.py``
and review the diff of ``tests/search/golden/`` before committing it. The variable is read here only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from search.query.errors import QueryError
from search.query.request import SearchRequest
from search.query.syntax import parse_query
from search.retrieval.builders import (
    bm25_body,
    highlight_body,
    hybrid_body,
    judgment_summary_body,
    knn_body,
    role_filter_count_body,
    text_query,
)

GOLDEN = Path(__file__).with_name("golden")
VECTOR = [0.1, -0.2, 0.3]
FILTERS = ('court:"Supreme Court of India" judge:Chandrachud year:2001..2010 from:2003-06 '
           'statute:"s. 302 IPC" cites:"(2017) 10 SCC 1"')


def _golden(name: str, body: dict) -> None:
    path = GOLDEN / f"{name}.json"
    if os.environ.get("RATIO_UPDATE_GOLDEN") == "1":
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert path.exists(), f"{path.name} is missing: run with RATIO_UPDATE_GOLDEN=1 to write it, then review it"
    assert body == json.loads(path.read_text(encoding="utf-8"))


CASES = {
    "hybrid_off": lambda: hybrid_body(SearchRequest.from_query("murder dowry", role_mode="off", facets=False), VECTOR),
    "hybrid_off_filters": lambda: hybrid_body(
        SearchRequest.from_query(f"murder dowry {FILTERS}", role_mode="off", facets=False), VECTOR),
    "hybrid_boost_intent": lambda: hybrid_body(
        SearchRequest.from_query('ratio "dying declaration" -suicide', facets=False), VECTOR),
    "hybrid_boost_filters": lambda: hybrid_body(
        SearchRequest.from_query(f"bail {FILTERS}", roles=["ratio"], facets=False), VECTOR),
    "hybrid_filter": lambda: hybrid_body(
        SearchRequest.from_query("role:reasoning (murder OR homicide) AND dowry", facets=False), VECTOR),
    "hybrid_filter_filters": lambda: hybrid_body(
        SearchRequest.from_query(f"role:ratio dowry death {FILTERS}", facets=False), VECTOR),
    "hybrid_facets": lambda: hybrid_body(SearchRequest.from_query("murder", role_mode="off"), VECTOR),
    "hybrid_whole_window": lambda: hybrid_body(
        SearchRequest.from_query("murder", role_mode="off", facets=False), VECTOR, whole_window=True),
    "bm25_search_after": lambda: bm25_body(
        SearchRequest.from_query("murder", role_mode="off", facets=False, search_after=[0.5, "J1:3"])),
    "client_bm25_filter": lambda: bm25_body(
        SearchRequest.from_query(f"role:ratio dowry {FILTERS}", facets=False, fusion="rrf")),
    "client_knn_filter": lambda: knn_body(
        SearchRequest.from_query(f"role:ratio dowry {FILTERS}", facets=False, fusion="rrf"), VECTOR),
    "role_filter_count": lambda: role_filter_count_body(
        SearchRequest.from_query("role:ratio,statute court:X dowry death")),
    "bm25_filter_only": lambda: bm25_body(SearchRequest.from_query('cites:"AIR 1973 SC 1461"', facets=False)),
    "judgment_summary": lambda: judgment_summary_body(
        SearchRequest.from_query(f'"dying declaration" murder {FILTERS}', page=2)),
    "highlight": lambda: highlight_body(
        SearchRequest.from_query('"dying declaration" murder -suicide'), ["C1:3", "C7:0"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_bodies(name) -> None:
    _golden(name, CASES[name]())


def test_filters_are_identical_inside_both_parts() -> None:
    body = hybrid_body(SearchRequest.from_query(f"role:ratio dowry {FILTERS}"), VECTOR)
    bm25, knn = body["query"]["hybrid"]["queries"]
    assert bm25["bool"]["filter"] == knn["knn"]["vector"]["filter"]["bool"]["filter"]
    assert {"terms": {"role": ["ratio"]}} in bm25["bool"]["filter"]
    assert list(body["query"]) == ["hybrid"]  # hybrid stays top-level


def test_boost_excludes_nothing_and_off_adds_nothing() -> None:
    boost = hybrid_body(SearchRequest.from_query("bail", roles=["ratio"]), VECTOR)["query"]["hybrid"]["queries"]
    assert boost[0]["bool"]["should"] == [{"terms": {"role": ["ratio"], "boost": 2.0}}]
    assert "filter" not in boost[0]["bool"] and "filter" not in boost[1]["knn"]["vector"]
    off = hybrid_body(SearchRequest.from_query("bail", roles=["ratio"], role_mode="off"), VECTOR)
    assert "role" not in json.dumps(off["query"])


def _keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_user_text_is_only_ever_a_value() -> None:
    hostile = '{"query": {"match_all": {}}} \\ OR *:* AND "_source" (script OR "query_string")'
    body = bm25_body(SearchRequest.from_query(hostile, role_mode="off", facets=False))
    allowed = {"bool", "must", "should", "must_not", "minimum_should_match", "match", "match_phrase", "text",
               "text.exact", "query"}
    assert _keys(body["query"]) <= allowed


@pytest.mark.parametrize(("query", "expected"), [
    ("murder dowry", {"match": {"text": {"query": "murder dowry"}}}),
    ("murder OR homicide", {"match": {"text": {"query": "murder homicide"}}}),
    ('"dying declaration"', {"match_phrase": {"text.exact": {"query": "dying declaration"}}}),
    ("a AND b", {"bool": {"must": [{"match": {"text": {"query": "a"}}}, {"match": {"text": {"query": "b"}}}]}}),
    ("a -b", {"bool": {"should": [{"match": {"text": {"query": "a"}}}], "minimum_should_match": 1,
                       "must_not": [{"match": {"text": {"query": "b"}}}]}}),
    ('a "x y" b', {"bool": {"must": [{"match_phrase": {"text.exact": {"query": "x y"}}}],
                            "should": [{"match": {"text": {"query": "a b"}}}]}}),
])
def test_text_query_table(query, expected) -> None:
    assert text_query(parse_query(query).query) == expected


def test_knn_needs_text_and_count_needs_filter_mode() -> None:
    with pytest.raises(QueryError, match="no text to embed"):
        knn_body(SearchRequest.from_query('cites:"AIR 1973 SC 1461"'), VECTOR)
    with pytest.raises(ValueError, match="filter"):
        role_filter_count_body(SearchRequest.from_query("bail"))


def test_long_text_over_many_fields_stays_under_the_clause_limit() -> None:
    words = [f"word{i}" for i in range(600)]
    request = SearchRequest.from_query(" ".join(words), role_mode="off", facets=False)
    summary = judgment_summary_body(request)["query"]["bool"]["must"][0]["multi_match"]
    assert len(summary["query"].split()) * len(summary["fields"]) <= 1024
    assert summary["query"].split()[:3] == ["word0", "word1", "word2"]
    single = bm25_body(request)["query"]["bool"]["must"][0]["match"]["text"]["query"]
    assert len(single.split()) == 600  # one field: all words kept, as typed
