"""Saved searches and alerts: a search is saved as a percolator query, and new judgments are matched to it.

A saved search keeps the query as typed and its options, and stores the BM25 part of the search it would
run (:func:`search.retrieval.builders.bm25_query`: the same text query, filters and role filter as ``ratio search``)
as a percolator query. Only the lexical part: a percolator matches a query against a document it is given,
and a k-NN clause has nothing to match there. So a saved search fires when a judgment has a chunk matching
its words and filters, which is what "tell me about new judgments on X" means.

Why chunks and not judgments: a chunk carries the role of its sentences besides the judgment's filter
fields, so ``role:ratio`` in a saved search restricts to the reasoning, as it does in a search. :func:`check`
fetches the chunks of the given judgments and percolates them many documents per request; the slots that
matched tell which judgments each saved search caught.

Role modes: a saved search is yes or no, so ranking has no meaning. Naming roles (``role:`` in the query
or ``roles=``) restricts to them unless ``role_mode`` says otherwise; ``boost`` and ``off`` restrict nothing.

Names are unique: saving a name that exists raises :class:`DuplicateSearchError` unless ``replace=True``
(a silently replaced alert would change what someone is told about).

Nothing here reads settings: the caller passes the client, the aliases (``saved_searches``, ``chunks``,
``judgments``) and any webhook timeouts.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConflictError, NotFoundError

import mappings
from backends.opensearch.indices import IndexLayout, create_indices, current_index
from backends.webhooks import UnsafeWebhookError, WebhookPolicy, check_url, mask_url, post_json
from search.query.errors import BadValueError
from search.query.options import FilterOptions, RoleMode
from search.query.request import SearchRequest
from search.retrieval.builders import bm25_query

__all__ = [
    "Alert", "AlertsUnavailableError", "Delivery", "DuplicateSearchError", "FilterOptions", "MatchedJudgment",
    "SavedSearch",
    "SavedSearchError", "UnknownSearchError", "alert_payload", "check", "compile_search",
    "delete_search", "ensure_index", "judgments_since", "list_searches", "notify", "save_search",
]

KIND = "saved_searches"
NAME = re.compile(r"[\w][\w .:@-]{0,99}")
PAGE = 500  # saved searches or chunks per page
PERCOLATE_BATCH = 100  # chunks percolated per request
NO_FILTERS = FilterOptions()  # a saved search restricted by its query text alone
_OWN_FIELDS = ["name", "query_text", "options", "webhook", "created_at"]


class SavedSearchError(ValueError):
    """A saved-search operation that cannot be done as asked; the message says why."""


class DuplicateSearchError(SavedSearchError):
    """A saved search of that name exists (save again with ``replace=True``)."""


class UnknownSearchError(SavedSearchError):
    """No saved search has that name."""


class AlertsUnavailableError(RuntimeError):
    """The cluster has no saved-search index (and, without the percolator module, cannot have one)."""


@dataclass(frozen=True)
class SavedSearch:
    """A saved search: its unique name, the query as typed, options, webhook and when it was saved."""

    name: str
    query: str
    options: FilterOptions = field(default_factory=FilterOptions)
    webhook: str | None = None
    created_at: str = ""


@dataclass(frozen=True)
class MatchedJudgment:
    """A judgment a saved search caught, with the roles of the chunks that matched."""

    judgment_id: str
    title: str | None
    court: str | None
    decision_date: str | None
    roles: tuple[str, ...]


@dataclass(frozen=True)
class Alert:
    """A saved search and the judgments, among those checked, that it matched."""

    search: SavedSearch
    judgments: tuple[MatchedJudgment, ...]


@dataclass(frozen=True)
class Delivery:
    """What happened when an alert was POSTed to its saved search's webhook."""

    name: str
    webhook: str
    ok: bool
    status: int | None
    attempts: int
    error: str | None = None


# ---------------------------------------------------------------- compile and validate

def compile_search(query: str, options: FilterOptions = NO_FILTERS) -> dict[str, Any]:
    """The percolator query of a saved search: the BM25 part of the search it stands for (pure).

    Raises a :class:`search.query.errors.QueryError` with a message a user can act on for bad syntax or options.
    """
    mode = options.role_mode or (RoleMode.FILTER if options.roles else None)
    request = SearchRequest.from_options(query, options, role_mode=mode, classify=False)
    return bm25_query(request, with_roles=request.role_mode is RoleMode.FILTER)


def _check_name(name: str) -> str:
    name = " ".join(name.split())
    if not NAME.fullmatch(name):
        raise BadValueError(f"a saved search's name is 1-100 letters, digits, spaces or . : @ - _ and starts "
                            f"with a letter or digit, not {name!r}")
    return name


def _check_webhook(url: str | None, policy: WebhookPolicy) -> str | None:
    if url is None or not url.strip():
        return None
    try:
        return check_url(url, policy)
    except UnsafeWebhookError as exc:
        raise BadValueError(f"webhook refused: {exc}") from None


# ---------------------------------------------------------------- the index

def ensure_index(client: OpenSearch, layout: IndexLayout) -> str:
    """Create the saved-search index if missing (same analysis language as the chunks); returns its alias."""
    language = "en"
    chunks = current_index(client, layout, "chunks")
    if chunks:
        meta = client.indices.get_mapping(index=chunks)[chunks]["mappings"].get("_meta", {})
        language = meta.get("language") or language
    row = create_indices(client, layout, mappings.IndexOptions(), language=language, kinds=(KIND,))[KIND]
    if row["index"] is None:
        raise AlertsUnavailableError(f"saved searches need the percolator index: {row['skipped']}")
    return row["alias"]


def _alias(aliases: Mapping[str, str]) -> str:
    return aliases[KIND]


def _has_saved(client: OpenSearch, aliases: Mapping[str, str]) -> bool:
    try:
        return client.count(index=_alias(aliases))["count"] > 0
    except NotFoundError:
        return False


def _from_source(source: Mapping[str, Any]) -> SavedSearch:
    return SavedSearch(name=source["name"], query=source.get("query_text", ""),
                       options=FilterOptions.from_dict(source.get("options") or {}),
                       webhook=source.get("webhook"), created_at=source.get("created_at", ""))


# ---------------------------------------------------------------- save, list, delete

def save_search(client: OpenSearch, aliases: Mapping[str, str], name: str, query: str, *,
                options: FilterOptions = NO_FILTERS, webhook: str | None = None, replace: bool = False,
                now: dt.datetime | None = None, policy: WebhookPolicy | None = None) -> SavedSearch:
    """Validate and store a saved search; visible to :func:`check` when this returns.

    Raises ``QueryError`` (bad query, option, name, or a webhook that is not http(s), carries credentials or
    reaches an address ``policy`` refuses: by default anything but public hosts),
    :class:`DuplicateSearchError` (the name is taken and ``replace`` is False) or
    :class:`AlertsUnavailableError` (no saved-search index).
    """
    name = _check_name(name)
    saved = SavedSearch(name=name, query=query, options=options,
                        webhook=_check_webhook(webhook, policy or WebhookPolicy()),
                        created_at=(now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds"))
    doc = {"name": name, "query": compile_search(query, options), "query_text": query,
           "options": asdict(options), "webhook": saved.webhook, "created_at": saved.created_at}
    try:
        # refresh=True: a saved search is one small write made by a person, seen by the next list or check at
        # once; "wait_for" would hold every save (and delete) until the index's next refresh, up to 1 s.
        client.index(index=_alias(aliases), id=name, body=doc, op_type="index" if replace else "create",
                     refresh=True)
    except ConflictError:
        raise DuplicateSearchError(f"a saved search named {name!r} exists: delete it, choose another name, "
                                   "or replace it") from None
    except NotFoundError as exc:
        raise AlertsUnavailableError(f"{_alias(aliases)} does not exist: create it with 'ratio indices create' "
                                     "(the cluster needs the percolator module)") from exc
    return saved


def _pages(client: OpenSearch, index: str, body: dict[str, Any], sort: str) -> Iterator[dict[str, Any]]:
    """Every hit of ``body``, in ``sort`` order, a page at a time (search_after: no 10,000 window)."""
    after: list[Any] | None = None
    while True:
        page = {**body, "size": PAGE, "sort": [{sort: "asc"}]}
        if after is not None:
            page["search_after"] = after
        hits = client.search(index=index, body=page)["hits"]["hits"]
        yield from hits
        if len(hits) < PAGE:
            return
        after = hits[-1]["sort"]


def list_searches(client: OpenSearch, aliases: Mapping[str, str]) -> list[SavedSearch]:
    """Every saved search, by name, for showing (credentials in a webhook URL masked); empty when there is no
    saved-search index."""
    body = {"query": {"match_all": {}}, "_source": _OWN_FIELDS}
    try:
        found = [_from_source(hit["_source"]) for hit in _pages(client, _alias(aliases), body, "name")]
        return [replace(s, webhook=mask_url(s.webhook)) if s.webhook else s for s in found]
    except NotFoundError:
        return []


def delete_search(client: OpenSearch, aliases: Mapping[str, str], name: str) -> None:
    """Delete the saved search ``name``; :class:`UnknownSearchError` when there is none."""
    try:
        client.delete(index=_alias(aliases), id=" ".join(name.split()), refresh=True)
    except NotFoundError:
        raise UnknownSearchError(f"no saved search is named {name!r}") from None


# ---------------------------------------------------------------- check

def judgments_since(client: OpenSearch, aliases: Mapping[str, str], since: dt.datetime) -> list[str]:
    """Ids of the judgments (re)indexed at or after ``since`` (a naive time is taken as UTC)."""
    since = since.replace(tzinfo=dt.UTC) if since.tzinfo is None else since.astimezone(dt.UTC)  # offsets > 18 h
    body = {"query": {"range": {"indexed_at": {"gte": since.isoformat()}}}, "_source": False}
    return [hit["_id"] for hit in _pages(client, aliases["judgments"], body, "judgment_id")]


def _chunks(client: OpenSearch, alias: str, judgment_ids: Sequence[str]) -> Iterator[dict[str, Any]]:
    fields = list(mappings.document_fields(KIND))  # exactly what the percolator index maps
    for start in range(0, len(judgment_ids), PAGE):
        body = {"query": {"terms": {"judgment_id": list(judgment_ids[start:start + PAGE])}},
                "_source": {"includes": fields}}
        for hit in _pages(client, alias, body, "chunk_id"):
            yield hit["_source"]


def _percolate(client: OpenSearch, alias: str, docs: list[dict[str, Any]],
               found: dict[str, tuple[SavedSearch, dict[str, set[str]]]]) -> None:
    body = {"query": {"percolate": {"field": "query", "documents": docs}}, "_source": _OWN_FIELDS}
    for hit in _pages(client, alias, body, "name"):
        _, judgments = found.setdefault(hit["_id"], (_from_source(hit["_source"]), {}))
        for slot in hit.get("fields", {}).get("_percolator_document_slot", []):
            doc = docs[slot]
            judgments.setdefault(doc["judgment_id"], set()).add(doc.get("role") or "")


def check(client: OpenSearch, aliases: Mapping[str, str], judgment_ids: Sequence[str]) -> list[Alert]:
    """The saved searches that the judgments ``judgment_ids`` match, each with those judgments.

    Costs one count request when nothing is saved. Judgments are listed in the order given; alerts by name.
    """
    ids = list(dict.fromkeys(judgment_ids))
    if not ids or not _has_saved(client, aliases):
        return []
    found: dict[str, tuple[SavedSearch, dict[str, set[str]]]] = {}
    shown: dict[str, dict[str, Any]] = {}
    batch: list[dict[str, Any]] = []
    for chunk in _chunks(client, aliases["chunks"], ids):
        shown.setdefault(chunk["judgment_id"], chunk)
        batch.append(chunk)
        if len(batch) >= PERCOLATE_BATCH:
            _percolate(client, _alias(aliases), batch, found)
            batch = []
    if batch:
        _percolate(client, _alias(aliases), batch, found)
    alerts = []
    for name in sorted(found):
        search, judgments = found[name]
        matched = tuple(
            MatchedJudgment(jid, shown[jid].get("title"), shown[jid].get("court"), shown[jid].get("decision_date"),
                            tuple(sorted(r for r in judgments[jid] if r)))
            for jid in ids if jid in judgments)
        if matched:
            alerts.append(Alert(search, matched))
    return alerts


# ---------------------------------------------------------------- notify

def alert_payload(alert: Alert, now: dt.datetime | None = None) -> dict[str, Any]:
    """The JSON body POSTed to a webhook (documented in docs/alerts.md; change both together)."""
    search = asdict(alert.search)
    search.pop("webhook")
    return {
        "event": "ratio.saved_search.matched",
        "saved_search": search,
        "count": len(alert.judgments),
        "judgments": [asdict(j) for j in alert.judgments],
        "sent_at": (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds"),
    }


def notify(alerts: Sequence[Alert], *, timeout: float = 10.0, attempts: int = 3,
           backoff: float = 0.5, policy: WebhookPolicy | None = None) -> list[Delivery]:
    """POST each alert to its saved search's webhook (those without one are skipped).

    Never raises for a failed delivery: each is retried (see :mod:`backends.webhooks`) and then reported in
    its :class:`Delivery` (URL masked, no response body), and the other alerts still go out. ``policy`` (by
    default public hosts only, unsigned) is checked again at send time, against the address connected to.
    """
    deliveries = []
    for alert in alerts:
        url = alert.search.webhook
        if not url:
            continue
        result = post_json(url, alert_payload(alert), policy=policy, timeout=timeout, attempts=attempts,
                           backoff=backoff)
        deliveries.append(Delivery(alert.search.name, mask_url(url), result.ok, result.status, result.attempts,
                                   result.error))
    return deliveries
