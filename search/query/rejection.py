"""OpenSearch refusing a search as a bad request, said as a typed error: a 400 with a message, never a 500.

The queries Ratio sends are bounded before they leave (:mod:`search.query.bounds`), but the node has the last word: a
cluster whose ``indices.query.bool.max_clause_count`` is set below the default, an index whose
``max_result_window`` is smaller than a page asks, or a query the node cannot build is refused with status 400.
That is the query's doing, not a fault of the server, so :func:`rejection` turns it into a
:class:`~search.query.errors.QueryRejectedError` carrying OpenSearch's innermost reason; the searcher raises it, the API
and the pages answer it as every other :class:`~search.query.errors.QueryError`. Anything else (an unreachable node, a
server fault) is left as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opensearchpy.exceptions import ConnectionError, TransportError

from search.query.errors import QueryRejectedError

__all__ = ["EngineError", "rejection"]

# What the node says when a query has too many clauses: a refusal of the query whatever the status (Lucene's limit on
# the clauses of the whole query comes back as a 500).
_TOO_MANY = frozenset({"too_many_clauses", "too_many_nested_clauses"})


class EngineError(RuntimeError):
    """A request of a multi-search failed on the cluster (the other requests may have answered); the message
    carries OpenSearch's innermost reason, ``info`` the cluster's whole answer for that request."""

    def __init__(self, message: str, info: Mapping[str, Any] | None = None) -> None:
        super().__init__(message)
        self.info = info


def _chain(error: Any) -> list[Mapping[str, Any]]:
    """The failure and its causes, outermost first (a shard's reason before the ``caused_by`` of the whole)."""
    chain: list[Mapping[str, Any]] = []
    while isinstance(error, Mapping) and len(chain) < 32:
        chain.append(error)
        shard = next((f.get("reason") for f in error.get("failed_shards") or () if isinstance(f, Mapping)), None)
        error = shard if isinstance(shard, Mapping) else error.get("caused_by")
    return chain


def rejection(exc: Exception) -> QueryRejectedError | None:
    """The typed error for OpenSearch refusing a search as a bad request (status 400, or too many clauses whatever
    the status), from opensearch-py's ``TransportError`` or a multi-search's :class:`EngineError`; None for anything
    else (an unreachable node, a server fault: not the query's doing)."""
    if isinstance(exc, EngineError):
        info: Any = exc.info or {}
        status = info.get("status")
    elif isinstance(exc, TransportError) and not isinstance(exc, ConnectionError):
        info, status = exc.info, exc.status_code
    else:
        return None
    chain = _chain(info.get("error") if isinstance(info, Mapping) else None)
    types = {str(e.get("type")) for e in chain} | {str(r.get("type")) for e in chain for r in e.get("root_cause") or ()
                                                   if isinstance(r, Mapping)}
    if status != 400 and not types & _TOO_MANY:
        return None
    reason = f"{chain[-1].get('type')}: {chain[-1].get('reason')}" if chain else str(getattr(exc, "error", exc))
    return QueryRejectedError(f"the search engine refused this query ({reason[:300]}): shorten or simplify it")
