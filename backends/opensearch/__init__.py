"""OpenSearch: connecting to a cluster, managing the local node, creating Ratio's indices."""

from backends.opensearch.client import ConnectionSettings, connect
from backends.opensearch.indices import IndexLayout, create_indices, install_pipelines, upgrade_index
from backends.opensearch.node import LocalNode, NodeError

__all__ = [
    "ConnectionSettings",
    "IndexLayout",
    "LocalNode",
    "NodeError",
    "connect",
    "create_indices",
    "install_pipelines",
    "upgrade_index",
]
