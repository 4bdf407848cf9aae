"""Property-based fuzzing of the query parser (issue 16, item 7): any string either parses or raises a typed
:class:`~search.query.errors.QueryError` whose position, when it has one, points into the query; never another
exception, and never more than the deadline per input (the parser's limits are checked before recursion).

Two strategies: arbitrary Unicode text (control and format characters, surrogates excluded by Hypothesis's
own alphabet), and strings assembled from the syntax's own pieces (operators, quotes, parentheses, filters,
legal tokens), which reach the parser's deeper paths far more often than random text does.
"""

from __future__ import annotations

from datetime import timedelta

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from search.query.errors import QueryError, QuerySyntaxError
from search.query.syntax import MAX_CHARS, MAX_DEPTH, ParsedQuery, parse_query

# Generous for a loaded machine: a parser that went quadratic or recursed without bound would take seconds
# on the longest inputs below, which is what the deadline is there to catch.
FUZZ = settings(max_examples=300, deadline=timedelta(seconds=2), suppress_health_check=[HealthCheck.too_slow])

PIECES = st.sampled_from([
    "murder", "dowry", "302(1)(b)", "s. 302 IPC", "§", "Art. 21", "(2017) 10 SCC 1", "AND", "OR", "NOT", "and",
    "-", "+", '"', "(", ")", ":", "..", "court:", "judge:", "year:", "from:", "to:", "role:", "cites:", "statute:",
    'court:"Supreme Court of India"', "year:2001..2010", "year:2100..1800", "from:30-06-2001", "to:2001-13",
    "role:ratio", "role:nonsense", 'cites:"(2017) 10 SCC 1"', 'statute:"s. 302 IPC"', "unknown:field", "*:*",
    "&&", "\\", "\u200b", "\u202e", "\x00", "\n", "判决", "निर्णय", " ",
])
ASSEMBLED = st.lists(PIECES, max_size=60).map(" ".join) | st.lists(PIECES, max_size=60).map("".join)


def check(text: str) -> None:
    try:
        parsed = parse_query(text)
    except QueryError as exc:
        assert str(exc), "a query error always says what to change"
        if exc.position is not None:
            assert 0 <= exc.position <= len(text), (exc.position, len(text), str(exc))
            assert f"(at character {exc.position + 1})" in str(exc)
        if isinstance(exc, QuerySyntaxError):
            assert exc.position is not None, f"a syntax error says where it is: {exc}"
    else:
        assert isinstance(parsed, ParsedQuery)


@FUZZ
@given(st.text(max_size=400))
@example("(" * (MAX_DEPTH + 5) + "a" + ")" * (MAX_DEPTH + 5))
@example('"' * 999)
@example("a " * 1001)
@example("x" * (MAX_CHARS + 1))
def test_arbitrary_text_parses_or_fails_with_a_typed_error(text: str) -> None:
    check(text)


@FUZZ
@given(ASSEMBLED)
def test_syntax_pieces_parse_or_fail_with_a_typed_error(text: str) -> None:
    check(text)


@settings(FUZZ, max_examples=40)
@given(st.text(alphabet='()"-+ aAOR:N', min_size=MAX_CHARS - 200, max_size=MAX_CHARS))
def test_long_inputs_at_the_limit_are_bounded(text: str) -> None:
    check(text)
