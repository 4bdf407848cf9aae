"""The sort option and the sorted search's pure bodies: validation, limits, and the sort keys both ways."""

from __future__ import annotations

import pytest

from search.query.errors import BadValueError
from search.query.options import MAX_CANDIDATES, SearchOptions, SortOrder
from search.query.request import SearchRequest
from search.retrieval.matching import lexical_query
from search.retrieval.sorting import SortPosition, meaning_body, sort_clauses, sorted_body, sorted_query


def test_sort_is_a_choice_with_a_message_naming_the_orders() -> None:
    assert SearchOptions(sort="cited_by").sort is SortOrder.CITED_BY
    with pytest.raises(BadValueError, match="sort must be one of relevance, newest, oldest, cited_by"):
        SearchOptions(sort="sideways")
    assert SearchRequest.from_options("murder", SearchOptions(sort="oldest")).sort is SortOrder.OLDEST


def test_sorted_pages_go_past_the_ranked_window_but_not_the_result_window() -> None:
    with pytest.raises(BadValueError, match="candidates"):
        SearchRequest.from_options("murder", SearchOptions(page=20, size=10, candidates=100))
    assert SearchOptions(sort="newest", page=20, size=10, candidates=100).page == 20
    with pytest.raises(BadValueError, match="cursor"):
        SearchOptions(sort="newest", page=MAX_CANDIDATES // 10 + 1, size=10)


def test_sort_keys_end_on_the_id_and_turn_round_for_paging_back() -> None:
    assert sort_clauses(SortOrder.NEWEST) == [{"decision_date": {"order": "desc", "missing": "_last"}},
                                              {"judgment_id": {"order": "asc"}}]
    assert sort_clauses(SortOrder.OLDEST, reverse=True) == [
        {"decision_date": {"order": "desc", "missing": "_first"}}, {"judgment_id": {"order": "desc"}}]
    cited = sort_clauses(SortOrder.CITED_BY, {"C1": 2})
    assert cited[0]["_script"]["order"] == "desc" and cited[0]["_script"]["script"]["params"] == {"counts": {"C1": 2}}
    assert [next(iter(c)) for c in cited] == ["_script", "decision_date", "judgment_id"]
    with pytest.raises(ValueError):
        sort_clauses(SortOrder.RELEVANCE)


def test_a_position_pages_by_search_after_in_its_point_in_time() -> None:
    request = SearchRequest.from_query("murder", sort="newest", classify=False)
    first = sorted_body(request, {"match_all": {}}, size=10, start=20)
    assert first["from"] == 20 and "pit" not in first and first["track_total_hits"] is True
    after = sorted_body(request, {"match_all": {}}, size=10, start=20,
                        position=SortPosition("PIT", (5, "C1"), backwards=True))
    assert "from" not in after and after["search_after"] == [5, "C1"] and after["pit"]["id"] == "PIT"
    assert after["sort"][0]["decision_date"]["order"] == "asc"


def test_the_sorted_set_is_the_words_or_the_meaning_under_the_constraints() -> None:
    request = SearchRequest.from_query('murder "common intention" court:"Supreme Court of India"', classify=False)
    assert sorted_query(request) == {"bool": {"must": [sorted_query(request)["bool"]["must"][0]],
                                              "filter": sorted_query(request)["bool"]["filter"]}}
    both = sorted_query(request, ["C7"])
    words, meaning = both["bool"]["should"]
    assert words == sorted_query(request) and both["bool"]["minimum_should_match"] == 1
    # meaning only: among the similar judgments, under the constraints, and with none of the words (a judgment with
    # some of a typed query's words but not every one is in neither arm)
    among = meaning["bool"]["filter"][0]["bool"]["filter"]
    assert among[0] == {"terms": {"judgment_id": ["C7"]}}
    assert len(among) == 1 + len(sorted_query(request)["bool"]["filter"])
    assert meaning["bool"]["must_not"] == [lexical_query(request, any_word=True)]
    pasted = SearchRequest.from_query(" ".join(["murder"] * 40), classify=False)
    assert not pasted.every_word  # a pasted text's words match it by any word: no judgment has some but not all
    assert sorted_query(pasted, ["C7"])["bool"]["should"][1] == {"terms": {"judgment_id": ["C7"]}}
    radial = meaning_body(request, [0.1] * 4, floor=0.42)
    assert radial["query"]["knn"]["vector"]["min_score"] == pytest.approx(0.71)
