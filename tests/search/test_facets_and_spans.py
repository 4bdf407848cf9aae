"""Where typed filters stand in the query (for chips that remove them) and the facet bodies' year axis."""

from __future__ import annotations

import pytest

from search.pages.facets import judgment_body, role_body, year_bounds
from search.query.errors import QueryError
from search.query.request import SearchRequest
from search.query.syntax import filter_spans, without_span

TEXT = 'murder court:"Supreme Court of India" "court:x" year:1990..2000 -dowry role:ratio judge:Ray'


def test_filter_spans_find_each_typed_filter_and_only_those() -> None:
    spans = filter_spans(TEXT)
    assert [(s.name, s.value) for s in spans] == [("court", "Supreme Court of India"), ("year", "1990..2000"),
                                                  ("role", "ratio"), ("judge", "Ray")]
    assert [TEXT[s.start:s.end] for s in spans] == ['court:"Supreme Court of India"', "year:1990..2000",
                                                   "role:ratio", "judge:Ray"]
    assert filter_spans('"court:x" murder') == []  # inside a phrase it is words
    assert [s.name for s in filter_spans("a provision:302 b")] == ["statute"]  # the field's canonical name


def test_without_span_cuts_exactly_one_filter() -> None:
    for span in filter_spans(TEXT):
        rest = without_span(TEXT, span.start, span.end)
        assert TEXT[span.start:span.end] not in rest and "  " not in rest
        assert [s.name for s in filter_spans(rest)] == [s.name for s in filter_spans(TEXT) if s != span]
    assert without_span("year:2001 murder", 0, 9) == "murder"


def test_filter_spans_raise_where_the_tokenizer_does() -> None:
    with pytest.raises(QueryError):
        filter_spans('court:"never closed')


def test_the_year_axis_stretches_to_the_filters_bounds() -> None:
    assert year_bounds(None) == {}
    assert year_bounds(SearchRequest.from_query("murder")) == {}
    assert year_bounds(SearchRequest.from_query("murder year:1990..2000")) == {"min": 1990, "max": 2000}
    assert year_bounds(SearchRequest.from_query("murder year:1990..", date_to="1995-06-01")) == {"min": 1990,
                                                                                               "max": 1995}
    assert year_bounds(SearchRequest.from_query("murder from:2001")) == {"min": 2001}
    histogram = judgment_body(SearchRequest.from_query("murder year:1990..2000"))["aggs"]["year"]["histogram"]
    assert histogram == {"field": "year", "interval": 1, "min_doc_count": 0,
                         "extended_bounds": {"min": 1990, "max": 2000}}


def test_the_counts_use_the_searchs_lexical_query() -> None:
    from search.retrieval.matching import count_body

    request = SearchRequest.from_query('murder -dowry "common intention" court:"Supreme Court of India"')
    assert judgment_body(request)["query"] == count_body(request)["query"]
    assert judgment_body(None)["query"] == {"match_all": {}}
    assert role_body(None)["aggs"]["role"]["aggs"]["judgments"]["cardinality"]["field"] == "judgment_id"
