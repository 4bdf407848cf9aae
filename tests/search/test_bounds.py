"""What one query may send to the engine (:mod:`search.query.bounds`): pure checks of the estimate and the reduction.

The node's side (the estimate is never lower than the tokens the analyzers make, on hostile Unicode) is in
``tests/backends/opensearch/test_analysis_hostile.py``; the server's (200 with the note, or a typed 400) in
``tests/ratio/web/test_web_query_bounds.py``.
"""

from __future__ import annotations

import pytest

from search.query.bounds import MAX_POSITIONS, MAX_TYPED_POSITIONS, bound_query, positions
from search.query.errors import QueryTooLongError
from search.query.request import SearchRequest
from search.query.syntax import Clauses, Phrase, Term, leaves, parse_query, positive_text


@pytest.mark.parametrize(("text", "expected"), [
    ("murder dowry", 2),
    ("判" * 1030, 1030),  # one position per ideograph (the probe of issue 29)
    ("判决书판결はんけつ", 9),
    ("判" + "\u0301" * 20, 21),  # the CJK analyzer's bigrams count each mark on an ideograph
    ("w0-w1-w2-w3", 4),
    ("a" + "\u0301" * 6000, 1),
    ("x" * 600, 3),  # the tokenizer cuts a run at 255 characters
    ("IPC", 3),  # ipc | indian penal code: a graph three positions long
    ("NDPS Act", 7),
    ("😀♥©", 3),
    ("\u200b\u200c\u200d\u202e", 0),
])
def test_positions_count_what_the_analyzers_make(text: str, expected: int) -> None:
    assert positions(text) == expected


def test_an_ordinary_query_is_left_alone() -> None:
    for text in ("murder conviction circumstantial evidence", '"dying declaration" AND (dowry OR cruelty) -bail',
                 "Section 304B IPC", "Kesavananda Bharati v. State of Kerala"):
        node = parse_query(text).query
        assert bound_query(node) == (node, None)
        assert SearchRequest.from_query(text).query_note is None


def test_a_typed_query_keeps_its_first_positions_and_says_what_was_left_out() -> None:
    node = parse_query("murder " + "判" * 1030 + " dowry").query
    bounded, note = bound_query(node)
    assert isinstance(bounded, Clauses)
    kept = [leaf.text for leaf in leaves(bounded)]
    assert kept[0] == "murder" and kept[1] == "判" * (MAX_TYPED_POSITIONS - 1) and len(kept) == 2  # dowry comes after
    assert positions(positive_text(bounded)) == MAX_TYPED_POSITIONS
    assert note is not None and note.startswith("the query was shortened") and "1,032" in note


def test_a_pasted_text_gets_the_larger_limit() -> None:
    pasted = " ".join(f"w{i}" for i in range(100)) + " " + "判" * 1000
    request = SearchRequest.from_query(pasted)
    assert request.understanding is not None and request.understanding.plain
    assert positions(request.semantic_text) == MAX_POSITIONS and request.query_note
    typed = SearchRequest.from_query("判" * 1000)
    assert positions(typed.semantic_text) == MAX_TYPED_POSITIONS and typed.query_note


def test_phrases_and_exclusions_are_bounded_too_and_keep_their_kind() -> None:
    bounded, note = bound_query(parse_query('"' + "判" * 600 + '" murder').query)
    assert note and isinstance(bounded, Clauses) and isinstance(bounded.must[0], Phrase)
    assert bounded.should == ()  # murder comes after the phrase that filled the limit
    bounded, note = bound_query(parse_query("murder -" + "判" * 600).query)
    assert note and isinstance(bounded, Clauses) and bounded.should == (Term("murder"),)
    assert len(bounded.must_not[0].text) == MAX_TYPED_POSITIONS - 1


def test_a_long_token_keeps_its_head() -> None:
    bounded, note = bound_query(Term("判" + "\u0301" * 8000))
    assert note and isinstance(bounded, Term) and len(bounded.text) == MAX_TYPED_POSITIONS


def test_nothing_left_to_search_for_is_an_error_that_says_so() -> None:
    with pytest.raises(QueryTooLongError, match="shorten it"):
        bound_query(Clauses(should=(Term("murder"),), must_not=(Term("判" * 600),)), limit=0)
