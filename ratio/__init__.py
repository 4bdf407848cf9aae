"""Ratio: search over court judgments, backed by OpenSearch.

``from ratio import Client`` is the programmatic entry point (``RemoteClient`` the same over the REST API);
importing it loads no model and makes no request. Both return the API's shapes (:mod:`ratio.results`) and raise
the errors of :mod:`ratio.errors` (``ratio.QueryError``, ``ratio.NotFoundError``, ...), all ``ratio.RatioError``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["AuthError", "Client", "IndexNotFoundError", "JudgmentRecord", "LLMUnavailableError", "NotFoundError",
           "QueryError", "RatioError", "RemoteClient", "RemoteError", "SearchOptions", "SortOrder", "StoredJudgment",
           "UnavailableError", "__version__"]

if TYPE_CHECKING:
    from ratio.client import Client, JudgmentRecord
    from ratio.errors import (
        AuthError,
        IndexNotFoundError,
        LLMUnavailableError,
        NotFoundError,
        QueryError,
        RatioError,
        RemoteError,
        UnavailableError,
    )
    from ratio.remote import RemoteClient
    from search.query.options import SearchOptions, SortOrder
    from search.retrieval.records import StoredJudgment

_ERRORS = frozenset({"AuthError", "IndexNotFoundError", "LLMUnavailableError", "NotFoundError", "QueryError",
                     "RatioError", "RemoteError", "UnavailableError"})


def __getattr__(name: str) -> Any:
    # Lazy: the CLI imports ratio.* and must not pay for torch or opensearch-py until it needs them.
    if name in ("Client", "JudgmentRecord"):
        from ratio import client

        return getattr(client, name)
    if name == "RemoteClient":
        from ratio.remote import RemoteClient

        return RemoteClient
    if name in _ERRORS:
        from ratio import errors

        return getattr(errors, name)
    if name in ("SearchOptions", "SortOrder"):
        from search.query import options

        return getattr(options, name)
    if name == "StoredJudgment":
        from search.retrieval.records import StoredJudgment

        return StoredJudgment
    raise AttributeError(name)
