"""The errors Ratio raises, one family for every face: ``ratio.Client``, ``ratio.RemoteClient``, the CLI, the API.

``except ratio.QueryError`` catches a malformed query or option from either client (the search layer's
:class:`search.query.errors.QueryError`, re-exported here), ``except ratio.NotFoundError`` an unknown judgment or a
missing index, ``except ratio.UnavailableError`` a cluster (or server) that did not answer, and
``except ratio.RatioError`` all of them. Each carries the ``code`` and HTTP ``status`` the REST API answers with,
so the API can turn any of them into ``{"error": {"code", "message"}}`` and the remote client can turn that back
into the same class. :func:`from_opensearch` is where OpenSearch's own exceptions become these, so
``opensearchpy`` errors never reach a caller of the clients.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from search.query.errors import BadValueError, ExpiredPositionError, QueryError, RatioError

__all__ = ["AuthError", "BadValueError", "ExpiredPositionError", "IndexNotFoundError", "LLMUnavailableError",
           "NotFoundError", "QueryError", "RatioError", "RemoteError", "UnavailableError", "from_opensearch",
           "from_response", "opensearch_errors"]


class NotFoundError(RatioError, LookupError):
    """No such item in the corpus (a judgment id, a provision id)."""

    code = "not_found"
    status = 404


class IndexNotFoundError(NotFoundError):
    """An index the request needs does not exist: a wrong ``--prefix``/``prefix=``, or indices never created."""

    code = "index_not_found"


class UnavailableError(RatioError, ConnectionError):
    """OpenSearch (or the Ratio server) did not answer, or not in time: worth trying again later. It is also a
    built-in ``ConnectionError``, as ``Client()`` raised before when no node was found."""

    code = "unavailable"
    status = 503


class LLMUnavailableError(UnavailableError):
    """Answering needs an LLM and none is configured (``Client(llm=...)``, ``RATIO_LLM``, ``ratio serve --llm``);
    the API answers 503 ``llm_unavailable``. Search works without one."""

    code = "llm_unavailable"


class AuthError(RatioError, PermissionError):
    """Credentials were missing or wrong (401), or do not allow the request (403)."""

    code = "unauthorized"
    status = 401


class RemoteError(RatioError):
    """The Ratio server answered with an error that is none of the above (a rate limit, a server fault)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message, code=code, status=status)

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}"


def _index_name(info: Any) -> str | None:
    """The missing index's name from an ``index_not_found_exception`` body, when it names one."""
    if isinstance(info, dict):
        error = info.get("error")
        if isinstance(error, dict):
            return error.get("index") or error.get("resource.id")
    return None


def from_opensearch(exc: Exception, url: str | None = None) -> RatioError | None:
    """The Ratio error for an exception of opensearch-py (None for one that is not: a bug, not the user's)."""
    from opensearchpy import exceptions as os_errors

    where = f" at {url}" if url else ""
    if isinstance(exc, os_errors.NotFoundError):
        if exc.error == "index_not_found_exception":
            index = _index_name(exc.info)
            named = f" {index!r}" if index else ""
            return IndexNotFoundError(f"OpenSearch{where} has no index{named}: check the index prefix (--prefix, "
                                      "RATIO_INDEX_PREFIX) or create the indices with 'ratio indices create'")
        return NotFoundError("no such item in the corpus")
    if isinstance(exc, os_errors.ConnectionError):  # ConnectionTimeout and SSLError too
        return UnavailableError(f"OpenSearch{where} did not answer ({type(exc).__name__}): start it with "
                                "'ratio opensearch start' or check OPENSEARCH_URL")
    if isinstance(exc, os_errors.AuthenticationException):
        return AuthError(f"OpenSearch{where} refused the credentials: check OPENSEARCH_USER and OPENSEARCH_PASSWORD")
    if isinstance(exc, os_errors.AuthorizationException):
        return AuthError(f"OpenSearch{where} does not allow this user the request", code="forbidden", status=403)
    if isinstance(exc, os_errors.TransportError) and exc.status_code == 429:
        return UnavailableError(f"OpenSearch{where} is overloaded (429): try again shortly", code="overloaded")
    if isinstance(exc, os_errors.TransportError) and exc.status_code == 400:  # the node refused the query itself
        from search.query.rejection import rejection

        return rejection(exc)
    return None


@contextmanager
def opensearch_errors(url: str | None = None) -> Iterator[None]:
    """Run a block that talks to OpenSearch, raising opensearch-py's errors as Ratio's (:func:`from_opensearch`)."""
    from opensearchpy.exceptions import OpenSearchException

    try:
        yield
    except OpenSearchException as exc:
        translated = from_opensearch(exc, url)
        if translated is None:
            raise
        raise translated from exc


_BY_STATUS: dict[int, type[RatioError]] = {400: QueryError, 422: QueryError, 401: AuthError, 403: AuthError,
                                            404: NotFoundError, 503: UnavailableError}


def from_response(status: int, code: str, message: str) -> RatioError:
    """The error an API answer stands for, as the local client would have raised it."""
    if code == IndexNotFoundError.code:
        return IndexNotFoundError(message)
    if code == LLMUnavailableError.code:
        return LLMUnavailableError(message)
    if code == ExpiredPositionError.code:  # a sorted search's cursor outlived its point in time
        return ExpiredPositionError(message)
    kind = _BY_STATUS.get(status)
    if kind is QueryError:
        error: RatioError = QueryError(message)
    elif kind is None:
        return RemoteError(status, code, message)
    else:
        error = kind(message)
    error.code, error.status = code, status
    return error
