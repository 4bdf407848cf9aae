"""What the search box makes of what was typed: the kind of a query, and a pasted text read as plain words."""

from __future__ import annotations

import pytest

from search.query.errors import QueryError, UnbalancedQuoteError
from search.query.request import SearchRequest
from search.query.syntax import Phrase, leaves
from search.query.understand import QueryKind, kind_rules, read_query, understand


@pytest.mark.parametrize(("text", "kind", "parties"), [
    ("Sewa Singh v State of Punjab", QueryKind.NAME, ("Sewa Singh", "State of Punjab")),
    ("Sewa Singh vs. State of Punjab", QueryKind.NAME, ("Sewa Singh", "State of Punjab")),
    ("Sewa Singh versus State of Punjab", QueryKind.NAME, ("Sewa Singh", "State of Punjab")),
    ("K.M. Nanavati vs State of Maharashtra", QueryKind.NAME, ("K.M. Nanavati", "State of Maharashtra")),
    ("Virsa Singh", QueryKind.NAME, ("Virsa Singh",)),
    ("Kesavananda Bharati", QueryKind.NAME, ("Kesavananda Bharati",)),
    ("Dowry Death", QueryKind.TOPIC, ()),  # capitalised legal words are a topic, not a party
    ("dowry death cruelty by husband", QueryKind.TOPIC, ()),
    ('"dying declaration" AND murder', QueryKind.TOPIC, ()),
])
def test_names_and_topics(text: str, kind: QueryKind, parties: tuple[str, ...]) -> None:
    found = understand(text)
    assert found.kind is kind
    assert found.parties == parties
    assert found.every_word


@pytest.mark.parametrize(("text", "kind", "named"), [
    ("AIR 1962 SC 605", QueryKind.CITATION, "AIR 1962 SC 605"),
    ("(1984) 4 SCC 116", QueryKind.CITATION, "(1984) 4 SCC 116"),
    ("1953 SCR 809", QueryKind.CITATION, "[1953] SCR 809"),
    ("s. 304B IPC", QueryKind.PROVISION, "IPC s. 304B"),
    ("section 438 CrPC", QueryKind.PROVISION, "CrPC s. 438"),
    ("Article 21", QueryKind.PROVISION, "Constitution art. 21"),
])
def test_citations_and_provisions(text: str, kind: QueryKind, named: str) -> None:
    found = understand(text)
    assert found.kind is kind
    assert named in (found.citations if kind is QueryKind.CITATION else found.provisions)


FACTS = ('The appellant married the deceased in 1998. Within two years she died of burns at her matrimonial home; '
         'her father said the husband had demanded a scooter and "harassed her for it. The trial court convicted '
         'him under section 304B and the High Court: confirmed it -- the question is whether the presumption holds.')


def test_a_pasted_fact_pattern_with_a_stray_quote_is_read_as_plain_words() -> None:
    assert len(FACTS.split()) > kind_rules().pasted_words
    reading = read_query(FACTS)
    parsed, found = reading.parsed, reading.understanding
    assert found.kind is QueryKind.PASTED and found.plain and not found.every_word and reading.note is None
    assert not any(isinstance(leaf, Phrase) for leaf in leaves(parsed.query))  # the quote is text, not a phrase
    request = SearchRequest.from_query(FACTS)
    assert request.kind is QueryKind.PASTED and request.text == FACTS


def test_a_typed_query_with_a_stray_quote_still_says_what_to_fix() -> None:
    with pytest.raises(UnbalancedQuoteError):
        read_query('"dying declaration murder')


@pytest.mark.parametrize(("text", "kind", "mark"), [
    ("Mohd. Imran Khan v State (Govt. of", QueryKind.NAME, "bracket"),  # a title copied short
    ('State of Punjab v. "Gurmit Singh', QueryKind.NAME, "quote"),
    ("Sewa Singh) v State of Punjab", QueryKind.NAME, "bracket"),
    ('"Virsa Singh', QueryKind.NAME, "quote"),  # a party alone
    ("AIR 1962 SC 605 (", QueryKind.CITATION, "bracket"),
    ("section 304B IPC (", QueryKind.PROVISION, "bracket"),
])
def test_a_name_with_an_unbalanced_quote_or_bracket_is_searched_as_words(text: str, kind: QueryKind,
                                                                         mark: str) -> None:
    reading = read_query(text)
    assert reading.understanding.kind is kind and not reading.understanding.plain
    assert not any(ch in leaf.text for leaf in leaves(reading.parsed.query) for ch in '"()')
    assert reading.note and reading.note.startswith(f"read as {reading.understanding.label}")
    assert f"the unbalanced {mark} at character" in reading.note
    request = SearchRequest.from_query(text)  # the note reaches the page, the API and the CLI
    assert request.kind is kind and request.query_note == reading.note and request.text == text


@pytest.mark.parametrize("text", ["(murder OR homicide", 'court:"Supreme Court', 'murder "dying declaration',
                                  "Sewa Singh v State (AND"])
def test_a_query_that_uses_operators_or_reads_as_words_keeps_its_syntax_error(text: str) -> None:
    with pytest.raises(QueryError):
        read_query(text)


def test_a_long_boolean_query_is_searched_as_written() -> None:
    words = " ".join(f"word{i}" for i in range(kind_rules().pasted_words))
    reading = read_query(f'"dying declaration" AND murder {words} court:"Supreme Court of India"')
    parsed, found = reading.parsed, reading.understanding
    assert found.kind is QueryKind.TOPIC and not found.plain
    assert parsed.filters.courts == ("Supreme Court of India",)
    assert any(isinstance(leaf, Phrase) for leaf in leaves(parsed.query))


def test_a_filter_only_request_has_no_kind() -> None:
    request = SearchRequest.from_query("", statutes=["IPC s. 304B"])
    assert request.kind is None and request.every_word
