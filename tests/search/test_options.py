"""Search options: one typed value for the CLI, the API, the client and saved searches, validated when made."""

from __future__ import annotations

import pytest

from search.query.errors import BadValueError
from search.query.options import ExpansionKind, FilterOptions, RoleMode, SearchOptions
from search.query.request import SearchRequest
from search.retrieval.fusion import FusionMethod


def test_choices_become_enums() -> None:
    options = SearchOptions(role_mode="filter", roles=["ratio"], fusion="rrf", expand="Issues, provisions")
    assert options.role_mode is RoleMode.FILTER and options.fusion is FusionMethod.RRF
    assert options.expand == (ExpansionKind.ISSUES, ExpansionKind.PROVISIONS)
    assert options.roles == ("ratio",) and FilterOptions(courts=["Supreme Court"]).courts == ("Supreme Court",)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"role_mode": "strict"}, "role_mode must be one of off, boost, filter, not 'strict'"),
    ({"fusion": "sum"}, "fusion must be one of minmax, rrf, not 'sum'"),
    ({"expand": ["issues", "facts"]}, "expand takes issues, provisions, not 'facts'"),
    ({"size": 0}, "size must be between 1 and 100"),
    # a lone string where a list belongs was read as one value here, as its characters by SearchRequest
    ({"courts": "Supreme Court"}, r"courts takes a list of values, not the string 'Supreme Court': write "
                                  r"courts=\['Supreme Court'\]"),
    ({"judges": [1]}, "judges takes strings, not 1"),
    ({"size": "10"}, "size must be a whole number, not '10'"),
    ({"explain": "yes"}, "explain must be true or false"),
    ({"date_from": 2001}, "date_from must be a date"),
])
def test_a_bad_option_says_what_is_allowed(kwargs: dict, message: str) -> None:
    with pytest.raises(BadValueError, match=message):
        SearchOptions(**kwargs)


def test_the_ranked_window_limits_pages_where_the_query_is_known() -> None:
    """Options do not know whether the query has words: a filter-only search is sorted (every match, newest first),
    so its pages go past the ranked window; a ranked one's stop there, refused by the request."""
    options = SearchOptions(page=3, size=50)
    with pytest.raises(BadValueError, match="page 3 of 50 needs 150 candidates"):
        SearchRequest.from_options("murder", options)
    filters_only = SearchRequest.from_options('statute:"s. 302 IPC"', options)
    assert filters_only.page == 3 and filters_only.sort == "newest" and filters_only.sort_note
    with pytest.raises(BadValueError, match="past the first 10000 judgments"):
        SearchOptions(page=101, size=100)


def test_a_saved_search_keeps_only_its_filters() -> None:
    with pytest.raises(BadValueError, match="role_mode must be one of off, boost, filter"):
        FilterOptions(role_mode="sometimes")
    stored = {"courts": ["X"], "roles": ["ratio"], "role_mode": "boost", "size": 99}
    assert FilterOptions.from_dict(stored) == FilterOptions(courts=("X",), roles=("ratio",), role_mode=RoleMode.BOOST)


def test_options_make_the_same_request_as_keywords() -> None:
    options = SearchOptions(courts=["Supreme Court of India"], role_mode="off", fusion="rrf", size=5, page=2,
                            rerank=True, explain=True, expand=["provisions"])
    by_options = SearchRequest.from_options("dowry death", options)
    by_keywords = SearchRequest.from_query("dowry death", courts=["Supreme Court of India"], role_mode="off",
                                           fusion="rrf", size=5, page=2, rerank=True, explain=True,
                                           expand="provisions")
    assert by_options == by_keywords and by_options.provisions == 5
    assert SearchRequest.from_options("dowry death", options, size=7).size == 7  # keywords win


def test_plain_reads_the_text_as_words() -> None:
    request = SearchRequest.from_options('court:"X" -dowry AND death', SearchOptions(plain=True))
    assert request.filters.empty and request.text == 'court:"X" -dowry AND death'  # as typed; read as words
    assert request.semantic_text == "court X dowry and death" and request.query_note is None
    assert SearchRequest.from_options('court:"X" death').filters.courts == ("X",)


def test_options_merge_keywords_and_refuse_unknown_names() -> None:
    from search.query.options import merge_options

    merged, extras = merge_options(SearchOptions(size=5), {"courts": ["X"], "cites": ["AIR 1985 SC 900"]},
                                   extras=("cites",))
    assert merged == SearchOptions(size=5, courts=("X",)) and extras == {"cites": ["AIR 1985 SC 900"]}
    with pytest.raises(BadValueError, match="unknown search option 'court': did you mean 'courts'"):
        merge_options(None, {"court": ["X"]})
    with pytest.raises(BadValueError, match="unknown search option 'cites'"):
        merge_options(None, {"cites": ["X"]})  # a client without request extras (RemoteClient)


def test_a_string_for_a_list_is_an_error_in_the_request_too() -> None:
    from search.query.request import SearchRequest

    with pytest.raises(BadValueError, match="courts takes a list"):
        SearchRequest.from_query("murder", courts="Supreme Court")  # was ('S', 'u', 'p', ...): 0 hits
    with pytest.raises(BadValueError, match="cites takes a list"):
        SearchRequest.from_query("murder", cites="AIR 1985 SC 900")
