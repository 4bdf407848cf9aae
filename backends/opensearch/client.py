"""Connecting to an OpenSearch cluster from explicit settings (the CLI reads them from the environment)."""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson
from opensearchpy import JSONSerializer, OpenSearch, Transport
from opensearchpy.exceptions import SerializationError, TransportError

from backends.opensearch.deadline import current_deadline

# Shard failures that say "a node left while this request ran" (killed, or closing its shards and transport in
# a graceful stop), not "this request is wrong": the shard's other copies are still there, and asking again
# reaches them. A search's query phase moves to another copy by itself; its fetch phase must go back to the
# copy that ran the query, so a node lost between the two phases leaves a partial answer (HTTP 200 with failed
# shards) or, when every shard failed that way, a search_phase_execution_exception (500 or 503).
NODE_LOSS_FAILURES = frozenset({
    "node_disconnected_exception", "node_not_connected_exception", "node_closed_exception",
    "connect_transport_exception", "send_request_transport_exception", "transport_exception",
    "search_context_missing_exception", "no_shard_available_action_exception", "shard_not_found_exception",
    "index_shard_closed_exception", "illegal_index_shard_state_exception", "already_closed_exception",
})
# Seconds before each new attempt of such a search: a departing node leaves the cluster state within a second
# or two, after which the query phase no longer picks its copies.
NODE_LOSS_WAITS = (0.5, 1.0, 2.0)
_SHARD_READS = re.compile(r"/_(?:search|msearch|count)$")  # not _search/scroll: a lost scroll cannot be resumed


@dataclass(frozen=True)
class ConnectionSettings:
    """Where the cluster is and how to authenticate. The password never appears in ``repr``.

    ``url`` may name several nodes of one cluster, separated by commas (``http://a:9200,http://b:9200``):
    the client then sends each request to the next live one and moves on to another when a node does not
    answer, so losing one node loses no request.
    """

    url: str
    user: str | None = None
    password: str | None = None
    verify_certs: bool = True
    ca_certs: str | None = None
    timeout: float = 60.0

    def __repr__(self) -> str:
        auth = f", user={self.user!r}, password=***" if self.user else ""
        return f"ConnectionSettings(url={self.url!r}{auth}, verify_certs={self.verify_certs})"

    @property
    def hosts(self) -> list[str]:
        """Each node URL in ``url``."""
        hosts = [part.strip() for part in self.url.split(",") if part.strip()]
        if not hosts:
            raise ValueError("an OpenSearch URL is empty")
        return hosts

    @property
    def compress(self) -> bool:
        """Whether requests and answers are gzipped: over a network it saves time (a ranked search reads about a
        megabyte of JSON), on this machine's loopback it only costs CPU on both ends (about 10 ms a search)."""
        return not all((urlsplit(host if "//" in host else f"http://{host}").hostname or "") in _LOOPBACK
                       for host in self.hosts)


_LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def lost_shards(answer: Any) -> bool:
    """Whether a search, msearch or count answer lacks shards only because a node left during the request (an
    msearch item may also have failed whole for that reason: every shard of its search lost that way)."""
    answers = answer.get("responses") if isinstance(answer, dict) and "responses" in answer else [answer]
    lost = False
    for item in answers:
        if isinstance(item, dict) and "error" in item:
            if not node_lost(item["error"]):
                return False
            lost = True
            continue
        shards = item.get("_shards") if isinstance(item, dict) else None
        if not shards or not shards.get("failed"):
            continue
        failures = shards.get("failures") or []
        if not failures or not all(node_lost(failure.get("reason")) for failure in failures):
            return False
        lost = True
    return lost


def lost_shards_error(exc: TransportError) -> bool:
    """Whether a failed search failed only because a node left during it."""
    return node_lost(exc.info.get("error") if isinstance(exc.info, dict) else None)


def node_lost(error: Any) -> bool:
    """Whether an OpenSearch error says only that a node left while the request ran (asking again reaches the
    shards' other copies): its type says so, or every failed shard it lists failed that way, or, when it lists
    none, its cause did. The last is how a collapsed search's expand phase wraps a fetch phase that met a
    departed node: ``failed_shards`` empty at both levels, ``node_not_connected_exception`` two causes down."""
    if not isinstance(error, dict):
        return False
    if error.get("type") in NODE_LOSS_FAILURES:
        return True
    failures = error.get("failed_shards") or []
    if failures:
        return all(isinstance(failure, dict) and node_lost(failure.get("reason")) for failure in failures)
    return node_lost(error.get("caused_by"))


class FastJSONSerializer(JSONSerializer):
    """opensearch-py's JSON serializer, decoding answers with orjson: a ranked search reads about a megabyte of
    hits (a thousand candidates' scores per feature request), which the standard library took 75 ms to parse."""

    def loads(self, s: Any) -> Any:
        try:
            return orjson.loads(s)
        except orjson.JSONDecodeError as exc:
            raise SerializationError(s, exc) from exc


class NodeLossTransport(Transport):
    """opensearch-py's transport, which also asks a search again (after each of :data:`NODE_LOSS_WAITS`) when
    its answer lacks shards only because a node left mid-request (:func:`lost_shards`), or when it failed for
    that reason alone (:func:`lost_shards_error`): an msearch item included, whatever the error's nesting.
    Under :func:`backends.opensearch.deadline.opensearch_deadline` it keeps the work's deadline: searches
    cancelled by the node when it passes, no request begun or answered after it."""

    def perform_request(self, method: str, url: str, params: Mapping[str, Any] | None = None, body: Any = None,
                        timeout: float | None = None, ignore: Collection[int] = (),
                        headers: Mapping[str, str] | None = None) -> Any:
        reads_shards = bool(_SHARD_READS.search(url.split("?")[0]))
        deadline = current_deadline()  # the work's deadline, if it has one (backends.opensearch.deadline)
        attempt = 0
        while True:
            if deadline is not None:
                params, headers = deadline.apply(url, params, headers)
            try:
                answer = super().perform_request(method, url, params=dict(params) if params else params, body=body,
                                                 timeout=timeout, ignore=ignore, headers=headers)
            except TransportError as exc:
                if deadline is not None:
                    deadline.check(f"a request to {url.split('?')[0]} answered")  # cancelled by the node
                if not (reads_shards and attempt < len(NODE_LOSS_WAITS) and lost_shards_error(exc)):
                    raise
            else:
                if deadline is not None:
                    deadline.check(f"a request to {url.split('?')[0]} answered")
                if not (reads_shards and attempt < len(NODE_LOSS_WAITS) and lost_shards(answer)):
                    return answer
            attempt += 1
            time.sleep(NODE_LOSS_WAITS[attempt - 1])


def connect(settings: ConnectionSettings) -> OpenSearch:
    """An opensearch-py client for ``settings`` (no request is made here).

    A request that meets a connection error, a timeout or a 502/503/504 is sent again, to another node when
    there are several (the failed one is left out for a while), up to ``max_retries`` times: enough to get
    past one lost node of three; so is a search whose answer lost shards to a departing node
    (:class:`NodeLossTransport`). Longer outages are the caller's to retry (the indexer does, with backoff).
    """
    auth = (settings.user, settings.password or "") if settings.user else None
    return OpenSearch(
        hosts=settings.hosts,
        http_auth=auth,
        verify_certs=settings.verify_certs,
        ssl_show_warn=settings.verify_certs,
        ca_certs=settings.ca_certs,
        timeout=settings.timeout,
        retry_on_timeout=True,
        retry_on_status=(502, 503, 504),
        max_retries=3,
        http_compress=settings.compress,
        transport_class=NodeLossTransport,
        serializer=FastJSONSerializer(),
    )


def plugin_names(client: OpenSearch) -> set[str]:
    """Names of the plugins every node of the cluster reports."""
    rows = client.cat.plugins(format="json")
    return {row["component"] for row in rows}


def module_names(client: OpenSearch) -> set[str]:
    """Names of the modules of the cluster's nodes (``reindex`` decides how an upgrade copies)."""
    nodes = client.nodes.info(metric="plugins")["nodes"]
    return {module["name"] for node in nodes.values() for module in node.get("modules", [])}
