"""Connecting to an OpenSearch cluster from explicit settings (the CLI reads them from the environment)."""

from __future__ import annotations

from dataclasses import dataclass

from opensearchpy import OpenSearch


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


def connect(settings: ConnectionSettings) -> OpenSearch:
    """An opensearch-py client for ``settings`` (no request is made here).

    A request that meets a connection error, a timeout or a 502/503/504 is sent again, to another node when
    there are several (the failed one is left out for a while), up to ``max_retries`` times: enough to get
    past one lost node of three. Longer outages are the caller's to retry (the indexer does, with backoff).
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
        http_compress=True,
    )


def plugin_names(client: OpenSearch) -> set[str]:
    """Names of the plugins every node of the cluster reports."""
    rows = client.cat.plugins(format="json")
    return {row["component"] for row in rows}


def module_names(client: OpenSearch) -> set[str]:
    """Names of the modules of the cluster's nodes (``reindex`` decides how an upgrade copies)."""
    nodes = client.nodes.info(metric="plugins")["nodes"]
    return {module["name"] for node in nodes.values() for module in node.get("modules", [])}
