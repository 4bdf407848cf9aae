"""Query syntax: what a lawyer types -> tree and filters; hostile input stays plain text or fails clearly."""

from __future__ import annotations

from datetime import date

import pytest

from search.query.errors import (
    BadRangeError,
    BadValueError,
    EmptyQueryError,
    FilterPlacementError,
    QueryError,
    QuerySyntaxError,
    QueryTooLongError,
    UnbalancedParenthesisError,
    UnbalancedQuoteError,
    UnknownFieldError,
)
from search.query.syntax import (
    MAX_DEPTH,
    MAX_TERMS,
    AnyOf,
    Clauses,
    DateRange,
    Phrase,
    Term,
    YearRange,
    leaves,
    parse_query,
    positive_text,
)

T = Term


@pytest.mark.parametrize(("text", "tree"), [
    ("murder", T("murder")),
    ("murder dowry", Clauses(should=(T("murder"), T("dowry")))),
    ('"dying declaration"', Phrase("dying declaration")),
    ('"dying declaration" murder', Clauses(must=(Phrase("dying declaration"),), should=(T("murder"),))),
    ("murder AND dowry", Clauses(must=(T("murder"), T("dowry")))),
    ("a AND b c", Clauses(must=(T("a"), T("b")), should=(T("c"),))),
    ("murder OR homicide", AnyOf((T("murder"), T("homicide")))),
    ("murder OR homicide dowry", Clauses(should=(AnyOf((T("murder"), T("homicide"))), T("dowry")))),
    ("murder -suicide", Clauses(should=(T("murder"),), must_not=(T("suicide"),))),
    ("murder NOT suicide", Clauses(should=(T("murder"),), must_not=(T("suicide"),))),
    ("+murder dowry", Clauses(must=(T("murder"),), should=(T("dowry"),))),
    ('bail -"anticipatory bail"', Clauses(should=(T("bail"),), must_not=(Phrase("anticipatory bail"),))),
    ("(murder OR homicide) AND dowry", Clauses(must=(AnyOf((T("murder"), T("homicide"))), T("dowry")))),
    ("a (b (c OR d))", Clauses(should=(T("a"), Clauses(should=(T("b"), AnyOf((T("c"), T("d"))))),))),
    ("not guilty", Clauses(should=(T("not"), T("guilty")))),  # lower-case operators are words
    ("s. 302(1)(b)", Clauses(should=(T("s."), T("302(1)(b)")))),  # parentheses inside a word stay
    ("(s. 302(1))", Clauses(should=(T("s."), T("302(1)")))),
    ("cross-examination", T("cross-examination")),  # a hyphen inside a word is no operator
    ("हत्या दहेज", Clauses(should=(T("हत्या"), T("दहेज")))),
    ("§ 302", Clauses(should=(T("§"), T("302")))),
])
def test_text_part(text, tree) -> None:
    assert parse_query(text).query == tree


@pytest.mark.parametrize(("text", "field", "value"), [
    ('court:"Supreme Court of India" x', "courts", ("Supreme Court of India",)),
    ("court:A court:B x", "courts", ("A", "B")),
    ("judge:Chandrachud judge:Bhagwati x", "judges", ("Chandrachud", "Bhagwati")),
    ("year:2001..2010 x", "years", YearRange(2001, 2010)),
    ("year:2001 x", "years", YearRange(2001, 2001)),
    ("year:..2010 x", "years", YearRange(None, 2010)),
    ("year:2001.. x", "years", YearRange(2001, None)),
    ("year:2001-2010 x", "years", YearRange(2001, 2010)),
    ("year:2001..2010 year:2005.. x", "years", YearRange(2005, 2010)),
    ("from:2001 to:2010-02 x", "dates", DateRange(date(2001, 1, 1), date(2010, 2, 28))),
    ("from:30-06-2001 x", "dates", DateRange(date(2001, 6, 30), None)),
    ("to:2004-02-29 x", "dates", DateRange(None, date(2004, 2, 29))),
    ('cites:"(2017) 10 SCC 1" x', "cites", ("(2017) 10 SCC 1",)),
    ('cites:"AIR 1973 SC 1461" x', "cites", ("AIR 1973 SC 1461",)),
    ('cites:"Kesavananda Bharati v. State of Kerala" x', "cites", ("Kesavananda Bharati v. State of Kerala",)),
    ('statute:"s. 302 IPC" x', "statutes", ("IPC s. 302",)),
    ('statute:"IPC 302" x', "statutes", ("IPC s. 302",)),
    ('statute:"section 438 of the Code of Criminal Procedure" x', "statutes", ("CrPC s. 438",)),
    ('statute:"art. 21" x', "statutes", ("Constitution art. 21",)),
    ('statute:"ss. 302 and 34 IPC" x', "statutes", ("IPC s. 302", "IPC s. 34")),
    # the stored canonical forms read back as themselves (facet and explore links write them)
    ('statute:"Constitution art. 21" x', "statutes", ("Constitution art. 21",)),
    ('statute:"IPC s. 302" x', "statutes", ("IPC s. 302",)),
    ('statute:"Gujarat University Act, 1949 s. 33" x', "statutes", ("Gujarat University Act, 1949 s. 33",)),
])
def test_filters(text, field, value) -> None:
    parsed = parse_query(text)
    assert getattr(parsed.filters, field) == value
    assert parsed.query == T("x")


@pytest.mark.parametrize(("text", "roles"), [
    ("role:ratio x", ("ratio",)),
    ("role:reasoning x", ("ratio", "analysis")),  # a coarse group
    ("role:precedent x", ("precedent_relied", "precedent_not_relied")),
    ("role:facts x", ("facts",)),  # both a role and a group: the role
    ("role:ratio,statute x", ("ratio", "statute")),
    ("ROLE:Ratio role:ratio x", ("ratio",)),
])
def test_roles(text, roles) -> None:
    assert parse_query(text).roles == roles


def test_filter_only_query_has_no_text_part() -> None:
    parsed = parse_query('cites:"(2017) 10 SCC 1"')
    assert parsed.query is None and parsed.filters.cites == ("(2017) 10 SCC 1",)


def test_positive_text_leaves_out_exclusions() -> None:
    assert positive_text(parse_query('"dying declaration" murder -suicide court:X').query) == \
        "dying declaration murder"


@pytest.mark.parametrize("hostile", [
    '{"query": {"match_all": {}}}',
    "a\\b\\ c\\",
    '"c:\\x" OR y',
    "<script>alert(1)</script>",
    "DROP TABLE judgments; --",
    "x\x00y\u200bz\x1b[31m",
])
def test_hostile_input_is_only_words_and_phrases(hostile) -> None:
    parsed = parse_query(hostile)
    assert leaves(parsed.query)
    assert all(isinstance(node, (Term, Phrase)) for node in leaves(parsed.query))


def test_query_dsl_and_lucene_syntax_are_not_interpreted() -> None:
    with pytest.raises(UnknownFieldError, match="put them in quotes"):
        parse_query("_exists_:text")
    assert parse_query('"_exists_:text"').query == Phrase("_exists_:text")


def test_backslash_is_no_escape() -> None:
    with pytest.raises(UnbalancedQuoteError):
        parse_query('a\\"b')


def test_control_characters_become_spaces() -> None:
    assert parse_query("x\x00y").query == Clauses(should=(T("x"), T("y")))


def test_long_but_legal_query_parses() -> None:
    text = " ".join(["murder"] * MAX_TERMS)
    assert len(parse_query(text).query.should) == MAX_TERMS


@pytest.mark.parametrize(("text", "error", "says", "position"), [
    ("", EmptyQueryError, "empty", None),
    ("   \t\n", EmptyQueryError, "empty", None),
    ("*:*", EmptyQueryError, "nothing to search for", None),
    ("-murder", EmptyQueryError, "only excludes", None),
    ("role:ratio", EmptyQueryError, "add words", None),
    ("x" * 10_001, QueryTooLongError, "shorten it to 10000", None),
    ("a " * (MAX_TERMS + 1), QueryTooLongError, f"more than {MAX_TERMS} words", 2 * MAX_TERMS + 1),
    ("(" * 10_000, QueryTooLongError, f"nest more than {MAX_DEPTH} deep", MAX_DEPTH),
    ("(" * (MAX_DEPTH + 1) + "a" + ")" * (MAX_DEPTH + 1), QueryTooLongError, "flatten", MAX_DEPTH),
    ('murder "dying declaration', UnbalancedQuoteError, 'add the closing "', 7),
    ('court:"Supreme Court', UnbalancedQuoteError, "never closes", 6),
    ("(murder OR homicide", UnbalancedParenthesisError, "add a ')'", 0),
    ("murder)", UnbalancedParenthesisError, "no matching '('", 6),
    ("()", QuerySyntaxError, "hold nothing", 0),
    ("AND murder", QuerySyntaxError, "before it", 0),
    ("murder AND", QuerySyntaxError, "after it", 7),
    ("murder AND AND dowry", QuerySyntaxError, "after it", 7),
    ("OR murder", QuerySyntaxError, "before it", 0),
    ("murder OR", QuerySyntaxError, "after it", 7),
    ("murder NOT", QuerySyntaxError, "right after it", 7),
    ("a OR -b", QuerySyntaxError, "(a OR b) -c", 0),
    ("foo:bar murder", UnknownFieldError, "put them in quotes", 0),
    ("x title:y", UnknownFieldError, "court:, judge:", 2),
    ("court: murder", BadValueError, "right after the colon", 0),
    ("(court:X murder)", FilterPlacementError, "top level", 1),
    ("court:X OR murder", FilterPlacementError, "court:A court:B", 0),
    ("murder OR court:X", FilterPlacementError, "top level", 10),
    ("-court:X murder", FilterPlacementError, "remove the '-'", 0),
    ("year:2010..2001 x", BadRangeError, "write year:2001..2010", 0),
    ("year:soon x", BadRangeError, "year:2001..2010", 0),
    ("year:.. x", BadRangeError, "year:2001", 0),
    ("year:1066 x", BadRangeError, "from 1800 to 2100", 0),
    ("year:2001..2005 year:2008.. x", BadRangeError, "do not overlap", None),
    ("from:2001-13-01 x", BadRangeError, "2001-06-30", 0),
    ("from:2010 to:2001 x", BadRangeError, "swap", None),
    ("role:obiter x", BadValueError, "ratio", 0),
    ('cites:"my favourite case" x', BadValueError, "(2017) 10 SCC 1", 0),
    ('statute:"the law" x', BadValueError, "s. 302 IPC", 0),
])
def test_errors_say_what_to_fix(text, error, says, position) -> None:
    with pytest.raises(error) as caught:
        parse_query(text)
    assert says in str(caught.value)
    assert caught.value.position == position
    if position is not None:
        assert f"at character {position + 1}" in str(caught.value)
    assert isinstance(caught.value, QueryError) and isinstance(caught.value, ValueError)


def test_plain_text_neutralises_syntax_in_pasted_prose() -> None:
    from search.query.syntax import as_plain_text, parse_query

    pasted = 'The accused (A-1) said "I did not kill her. Section 302: NOT applicable AND -wrong court:x'
    plain = as_plain_text(pasted)
    assert plain == "The accused A-1 said I did not kill her. Section 302 not applicable and wrong court x"
    parsed = parse_query(plain)
    assert parsed.filters.empty and parsed.query is not None
    assert as_plain_text("one two three four", max_words=2) == "one two"


def test_plain_text_cut_to_the_limit_always_parses() -> None:
    """Format characters split words in the parser; the cut must count words as the parser will."""
    from search.query.syntax import MAX_TERMS, as_plain_text, parse_query

    glued = " ".join(["alpha\u200bbeta"] * MAX_TERMS)  # a zero-width space inside each word
    plain = as_plain_text(glued, max_words=MAX_TERMS)
    assert len(plain.split()) == MAX_TERMS
    assert parse_query(plain).query is not None
