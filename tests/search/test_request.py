"""SearchRequest.from_query: parse, normalise options like fielded filters, merge, validate."""

from __future__ import annotations

from datetime import date

import pytest

from search.query.errors import BadRangeError, BadValueError, EmptyQueryError, QueryError
from search.query.request import RoleMode, SearchRequest
from search.query.syntax import DateRange, Term, YearRange
from search.retrieval.fusion import FusionMethod


def test_defaults() -> None:
    request = SearchRequest.from_query("murder")
    assert request.query == Term("murder")
    assert (request.role_mode, request.fusion, request.weights) == (RoleMode.BOOST, FusionMethod.MINMAX, (0.9, 0.1))
    assert (request.size, request.page, request.candidates, request.rerank_top) == (10, 1, 100, 50)
    assert request.semantic_text == "murder"


def test_fielded_filters_merge_with_options() -> None:
    request = SearchRequest.from_query(
        'court:A year:2001..2010 statute:"s. 302 IPC" bail', courts=["B"], years="2005..", judges=["Ray"],
        statutes=["Article 21"], cites=["(2017) 10 SCC 1"], date_from="01-01-2003", date_to=date(2004, 6, 1))
    f = request.filters
    assert f.courts == ("A", "B") and f.judges == ("Ray",)
    assert f.years == YearRange(2005, 2010)
    assert f.statutes == ("IPC s. 302", "Constitution art. 21")
    assert f.cites == ("(2017) 10 SCC 1",)
    assert f.dates == DateRange(date(2003, 1, 1), date(2004, 6, 1))


def test_named_role_in_text_means_filter_unless_mode_given() -> None:
    assert SearchRequest.from_query("role:ratio bail").role_mode is RoleMode.FILTER
    assert SearchRequest.from_query("role:ratio bail", role_mode="boost").role_mode is RoleMode.BOOST
    request = SearchRequest.from_query("bail", roles=["reasoning"])
    assert (request.role_mode, request.preferred_roles) == (RoleMode.BOOST, ("ratio", "analysis"))


def test_intent_supplies_preferred_roles_when_none_named() -> None:
    request = SearchRequest.from_query("ratio on dying declarations")
    assert request.intent.name == "reasoning" and request.preferred_roles == ("ratio", "analysis")
    assert SearchRequest.from_query("ratio on x", classify=False).preferred_roles == ()


def test_filter_only_search() -> None:
    request = SearchRequest.from_query("", cites=["AIR 1973 SC 1461"])
    assert request.query is None and request.semantic_text == "" and request.intent is None
    assert SearchRequest.from_query('cites:"AIR 1973 SC 1461"').filters.cites == ("AIR 1973 SC 1461",)


@pytest.mark.parametrize(("text", "options", "error", "says"), [
    ("", {}, EmptyQueryError, "empty"),
    ("bail", {"role_mode": "filter"}, BadValueError, "add role:ratio"),
    ("bail", {"role_mode": "strict"}, BadValueError, "off, boost, filter"),
    ("bail", {"fusion": "borda"}, BadValueError, "minmax, rrf"),
    ("bail", {"size": 0}, BadValueError, "size must be between 1 and 100"),
    ("bail", {"size": 101}, BadValueError, "size"),
    ("bail", {"page": 0}, BadValueError, "counts from 1"),
    ("bail", {"page": 11}, BadValueError, "raise candidates or use search_after"),
    ("bail", {"candidates": 20_000}, BadValueError, "candidates"),
    ("bail", {"search_after": [1.0, "c1"], "page": 2}, BadValueError, "not both"),
    ("bail", {"search_after": [1.0]}, BadValueError, "score and chunk id"),
    ("bail", {"search_after": ["c1", 1.0]}, BadValueError, "score and chunk id"),
    ("bail", {"weights": (0.5, 0.6)}, BadValueError, "summing to 1"),
    ("bail", {"rank_constant": 0}, BadValueError, "rank_constant"),
    ("bail", {"rerank_top": 0}, BadValueError, "rerank_top"),
    ("bail", {"role_boost": 0}, BadValueError, "role_boost"),
    ("bail", {"roles": ["obiter"]}, BadValueError, "unknown role"),
    ("bail", {"years": "2010..2001"}, BadRangeError, "runs backwards"),
    ("bail year:2001..2003", {"years": "2005.."}, BadRangeError, "do not overlap"),
    ("bail", {"date_from": "2010", "date_to": "2001"}, BadRangeError, "swap"),
    ("bail", {"statutes": ["the law"]}, BadValueError, "s. 302 IPC"),
])
def test_bad_requests_say_what_to_fix(text, options, error, says) -> None:
    with pytest.raises(error, match=None) as caught:
        SearchRequest.from_query(text, **options)
    assert says in str(caught.value) and isinstance(caught.value, QueryError)


def test_request_is_frozen() -> None:
    request = SearchRequest.from_query("bail")
    with pytest.raises(AttributeError):
        request.size = 5  # type: ignore[misc]


def test_expansions_are_validated_and_imply_provisions() -> None:
    request = SearchRequest.from_query("dowry death", expand="issues, Provisions")
    assert request.expand == ("issues", "provisions") and request.provisions == 5
    assert SearchRequest.from_query("dowry death", expand=["issues"], provisions=3).provisions == 3
    assert SearchRequest.from_query("dowry death").expand == ()
    with pytest.raises(BadValueError, match="expand takes issues, provisions, not 'synonyms'"):
        SearchRequest.from_query("dowry death", expand="synonyms")
    with pytest.raises(BadValueError, match="a filter-only search has nothing to expand"):
        SearchRequest.from_query('cites:"(2017) 10 SCC 1"', expand="issues")
    with pytest.raises(BadValueError, match="provisions must be between 0 and 50"):
        SearchRequest.from_query("dowry death", provisions=51)
    with pytest.raises(BadValueError, match="explain_top cannot be negative"):
        SearchRequest.from_query("dowry death", explain_top=-1)
