"""The exception family for requests that cannot be run.

Every member is a ``ValueError`` (bad input, not a bug) whose message says what to change, in words a
lawyer can act on, and names the character position where the problem starts. The CLI turns any
:class:`QueryError` into a ``click.ClickException`` and the API into a 400 with ``str(error)``: that is why
messages are whole sentences and never carry a traceback or raw DSL.
"""

from __future__ import annotations

__all__ = [
    "BadRangeError",
    "BadValueError",
    "EmptyQueryError",
    "ExpiredPositionError",
    "FilterPlacementError",
    "QueryError",
    "QueryRejectedError",
    "QuerySyntaxError",
    "QueryTooLongError",
    "RatioError",
    "UnbalancedParenthesisError",
    "UnbalancedQuoteError",
    "UnknownFieldError",
]


class RatioError(Exception):
    """The root of every error Ratio raises on purpose: ``except ratio.RatioError`` catches them all.

    It lives here, in the lowest layer that raises one, because :class:`QueryError` (the search layer's) must be
    a member and the search layer cannot import :mod:`ratio`; :mod:`ratio.errors` re-exports it with the rest of
    the family. ``code`` and ``status`` are what the REST API answers for it (``{"error": {"code", "message"}}``
    with that HTTP status), so a local client and a remote one raise and report the same thing.
    """

    code: str = "error"
    status: int = 500

    def __init__(self, message: str = "", *, code: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class QueryError(RatioError, ValueError):
    """The request cannot be run; the message says what to change.

    ``position`` is the 0-based index into the query text where the problem starts, or None when the
    problem is not tied to one place (an option, the query as a whole). Messages count from 1, as people do.
    """

    code = "bad_query"
    status = 400

    def __init__(self, message: str, position: int | None = None) -> None:
        if position is not None:
            message = f"{message} (at character {position + 1})"
        super().__init__(message)
        self.position = position


class EmptyQueryError(QueryError):
    """Nothing to search for: no words, no phrases and no filters."""


class QueryTooLongError(QueryError):
    """The query is over a limit: characters, terms or nesting depth."""


class QueryRejectedError(QueryError):
    """OpenSearch refused the search as a bad request (too many clauses, a query it cannot run): the query's doing,
    so a 400 that says to shorten or simplify it, never a 500 (:func:`search.query.bounds.rejection`)."""

    code = "query_rejected"


class QuerySyntaxError(QueryError):
    """The query's structure is broken (operators, quotes, parentheses, filter placement)."""


class UnbalancedQuoteError(QuerySyntaxError):
    """A double quote opens a phrase that never closes."""


class UnbalancedParenthesisError(QuerySyntaxError):
    """A parenthesis has no partner."""


class FilterPlacementError(QuerySyntaxError):
    """A fielded filter sits where it cannot apply (inside OR, NOT or parentheses)."""


class UnknownFieldError(QueryError):
    """``name:value`` where ``name`` is not a field Ratio filters on."""


class BadRangeError(QueryError):
    """A year or date range that cannot be read, or whose ends are the wrong way round."""


class BadValueError(QueryError):
    """A filter or option value that is not allowed (an unknown role, a size out of bounds, ...)."""


class ExpiredPositionError(BadValueError):
    """A sorted search's page position whose point in time has expired, or that no point in time of this corpus
    backs (:mod:`search.retrieval.sorting`): not a mistake in the query, so its own code and status, asking to start
    again."""

    code = "cursor_expired"
    status = 410
