"""Ratio's indices: versioned physical indices behind stable aliases, and the hybrid search pipelines.

Readers and writers only ever use the alias (``ratio-chunks``); the physical index carries a version
(``ratio-chunks-v3``). A mapping change is rolled out by :func:`upgrade_index`: create the next
version from the current definitions, copy every document, check the counts, then move the alias in
one atomic ``_aliases`` call. The old version is kept unless the caller asks to delete it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from typing import Any

from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import AuthorizationException, NotFoundError

import analyzers
import mappings
from backends.opensearch.client import module_names, plugin_names

NEURAL_PLUGIN = "opensearch-neural-search"
# Index kinds whose mappings need a module that not every cluster loads. Without it the kind is skipped (and
# reported so) rather than failing the others: saved searches are an extra, judgments and chunks are not.
REQUIRED_MODULES: dict[str, str] = {"saved_searches": "percolator"}


class IndexOperationError(RuntimeError):
    """An index operation could not be completed safely (nothing was switched)."""


@dataclass(frozen=True)
class IndexLayout:
    """How Ratio's logical indices map to names on the cluster."""

    prefix: str = "ratio"

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9][a-z0-9_.-]{0,80}", self.prefix):
            raise ValueError(f"index prefix {self.prefix!r} must be lower case letters, digits, '-', '_' or '.'")

    def alias(self, kind: str) -> str:
        return f"{self.prefix}-{kind}"

    def aliases(self, kinds: tuple[str, ...] = mappings.INDEX_KINDS) -> dict[str, str]:
        """``{kind: alias}`` for ``kinds`` (every index kind by default): the mapping the writer, the searcher
        and the alert layer take, built here once so no caller spells the alias rule again."""
        return {kind: self.alias(kind) for kind in kinds}

    def versioned(self, kind: str, version: int) -> str:
        return f"{self.alias(kind)}-v{version}"

    def version_of(self, kind: str, index: str) -> int:
        match = re.fullmatch(re.escape(self.alias(kind)) + r"-v(\d+)", index)
        if not match:
            raise ValueError(f"{index!r} is not a version of {self.alias(kind)!r}")
        return int(match.group(1))


def data_nodes(client: OpenSearch) -> int:
    """How many nodes of the cluster hold data (from cluster health: the least privilege that says so)."""
    return int(client.cluster.health()["number_of_data_nodes"])


def fit_to_cluster(client: OpenSearch, options: mappings.IndexOptions, *, shards: int | None = None,
                   replicas: int | None = None) -> mappings.IndexOptions:
    """``options`` with primary shards and replicas that suit the cluster, unless given.

    One primary per data node spreads writes and searches over all of them; one replica as soon as there is
    a second data node keeps every shard searchable and writable when a node is lost (a single node keeps
    none, or its indices would stay yellow). Past a few tens of GB per shard, choose ``shards`` yourself.
    """
    if shards is None or replicas is None:
        count = max(data_nodes(client), 1)
        shards = count if shards is None else shards
        replicas = min(1, count - 1) if replicas is None else replicas
    return replace(options, shards=shards, replicas=replicas)


def index_definition(kind: str, options: mappings.IndexOptions, language: str = "en") -> dict[str, Any]:
    """The full create-index body: mappings data plus the analysis settings for ``language``."""
    body = mappings.index_body(kind, options)
    body["settings"]["index"]["analysis"] = analyzers.analysis_settings(language)
    body["mappings"]["_meta"]["language"] = language
    return body


def current_index(client: OpenSearch, layout: IndexLayout, kind: str) -> str | None:
    """The physical index the alias of ``kind`` points to, or None if the alias does not exist."""
    try:
        found = client.indices.get_alias(name=layout.alias(kind))
    except NotFoundError:
        return None
    names = sorted(found, key=lambda name: layout.version_of(kind, name))
    return names[-1] if names else None


def create_indices(
    client: OpenSearch,
    layout: IndexLayout,
    options: mappings.IndexOptions,
    *,
    language: str = "en",
    kinds: tuple[str, ...] = mappings.INDEX_KINDS,
) -> dict[str, dict[str, Any]]:
    """Create version 1 of each missing index and point its alias at it; existing aliases are left alone.

    A kind whose module the cluster lacks (:data:`REQUIRED_MODULES`) is not created: its row has
    ``index: None`` and ``skipped`` says why.
    """
    report: dict[str, dict[str, Any]] = {}
    modules: set[str] | None = None
    for kind in kinds:
        existing = current_index(client, layout, kind)
        if existing:
            report[kind] = {"alias": layout.alias(kind), "index": existing, "created": False}
            continue
        needed = REQUIRED_MODULES.get(kind)
        if needed:
            modules = module_names(client) if modules is None else modules
            if needed not in modules:
                report[kind] = {"alias": layout.alias(kind), "index": None, "created": False,
                                "skipped": f"the cluster has no {needed} module (restart the local node after "
                                           "'ratio opensearch install' to add it)"}
                continue
        name = layout.versioned(kind, 1)
        try:
            client.indices.create(index=name, body=index_definition(kind, options, language))
        except AuthorizationException as exc:
            if "index_create_block_exception" in str(exc):
                raise IndexOperationError(
                    f"the cluster refuses to create {name}: index creation is blocked "
                    "(cluster.blocks.create_index), which OpenSearch sets itself when every node's disk is past "
                    "the high watermark (90% used by default, counting space the filesystem reserves; under 1 GB "
                    "free on a node Ratio starts). Free disk "
                    "space; the block lifts on its own, or clear it with PUT _cluster/settings "
                    '{"persistent": {"cluster.blocks.create_index": null}}') from exc
            raise
        client.indices.put_alias(index=name, name=layout.alias(kind))
        report[kind] = {"alias": layout.alias(kind), "index": name, "created": True,
                        "shards": options.shards, "replicas": options.replicas}
    return report


def install_pipelines(
    client: OpenSearch,
    options: mappings.PipelineOptions | None = None,
    *,
    prefix: str = "",
) -> dict[str, bool]:
    """PUT the hybrid search pipelines; returns ``{name: installed}`` (False without neural-search)."""
    if NEURAL_PLUGIN not in plugin_names(client):
        return {prefix + name: False for name in mappings.PIPELINES}
    for name in mappings.PIPELINES:
        client.transport.perform_request(
            "PUT", f"/_search/pipeline/{prefix}{name}", body=mappings.pipeline_body(name, options)
        )
    return {prefix + name: True for name in mappings.PIPELINES}


def _copy_documents(client: OpenSearch, source: str, target: str) -> None:
    if "reindex" in module_names(client):
        client.reindex(body={"source": {"index": source}, "dest": {"index": target}},
                       wait_for_completion=True, refresh=True, request_timeout=3600)
    else:  # the local node has no reindex module: scroll and bulk from here
        helpers.reindex(client, source, target, chunk_size=500, scroll="10m",
                        bulk_kwargs={"request_timeout": 300, "max_retries": 5})
    client.indices.refresh(index=target)


def upgrade_index(
    client: OpenSearch,
    layout: IndexLayout,
    kind: str,
    options: mappings.IndexOptions,
    *,
    language: str = "en",
    delete_old: bool = False,
) -> dict[str, Any]:
    """Build the next version of ``kind`` with the current definitions and switch the alias to it.

    Writes to the alias during the copy are not captured: run it between indexing batches.
    """
    source = current_index(client, layout, kind)
    if source is None:
        raise IndexOperationError(f"alias {layout.alias(kind)!r} does not exist; create the indices first")
    version = layout.version_of(kind, source) + 1
    target = layout.versioned(kind, version)
    if client.indices.exists(index=target):
        raise IndexOperationError(f"{target!r} already exists (a previous upgrade stopped half-way?); delete it first")
    client.indices.create(index=target, body=index_definition(kind, options, language))
    client.indices.refresh(index=source)
    _copy_documents(client, source, target)
    before = client.count(index=source)["count"]
    after = client.count(index=target)["count"]
    if before != after:
        raise IndexOperationError(f"copy of {source} into {target} has {after} documents, expected {before}; "
                          f"alias not switched, {target} left for inspection")
    client.indices.update_aliases(body={"actions": [
        {"remove": {"index": source, "alias": layout.alias(kind)}},
        {"add": {"index": target, "alias": layout.alias(kind)}},
    ]})
    if delete_old:
        client.indices.delete(index=source)
    return {"alias": layout.alias(kind), "from": source, "to": target, "documents": after,
            "old_deleted": delete_old}


def update_analysis(client: OpenSearch, layout: IndexLayout,
                    kinds: tuple[str, ...] = mappings.INDEX_KINDS) -> dict[str, str | None]:
    """Put the current analysis settings (``analyzers/``, in each index's own language) on the indices behind the
    aliases, in place: close the index, update its ``index.analysis``, open it again. Returns each kind's index
    (None: no such alias).

    Only for a change that leaves the tokens of stored text as they were, such as the linear char filters of
    issue 29 (the same tokens and offsets on every judgment tried; docs/hardening.md): the terms already indexed
    then still match. Any other analysis change needs :func:`upgrade_index`, which analyses every document again.
    Searches of an index fail while it is closed, a second or two.
    """
    report: dict[str, str | None] = {}
    for kind in kinds:
        index = current_index(client, layout, kind)
        report[kind] = index
        if index is None:
            continue
        meta = client.indices.get_mapping(index=index)[index]["mappings"].get("_meta", {})
        analysis = analyzers.analysis_settings(meta.get("language") or "en")
        client.indices.close(index=index)
        try:
            client.indices.put_settings(index=index, body={"index": {"analysis": analysis}})
        finally:
            client.indices.open(index=index)
            client.cluster.health(index=index, wait_for_status="yellow")
    return report


def index_meta(client: OpenSearch, alias: str) -> dict[str, Any]:
    """The ``_meta`` of the index behind ``alias`` (what Ratio recorded there: its encoder, language, the tuned
    facts encoders); empty when the index is missing or records nothing."""
    try:
        found = client.indices.get_mapping(index=alias)
    except NotFoundError:
        return {}
    for body in found.values():
        meta = body["mappings"].get("_meta")
        if meta:
            return dict(meta)
    return {}


def index_encoder(client: OpenSearch, alias: str) -> str | None:
    """The encoder id an index's vectors come from (its ``_meta.encoder``); None when the index is missing
    or does not say."""
    encoder = index_meta(client, alias).get("encoder")
    return str(encoder) if encoder else None


def describe(client: OpenSearch, layout: IndexLayout) -> dict[str, dict[str, Any]]:
    """Alias → physical index, document count and vector settings, for every Ratio index kind."""
    info: dict[str, dict[str, Any]] = {}
    for kind in mappings.INDEX_KINDS:
        index = current_index(client, layout, kind)
        if index is None:
            info[kind] = {"alias": layout.alias(kind), "index": None}
            continue
        meta = client.indices.get_mapping(index=index)[index]["mappings"]
        vector = meta["properties"].get("vector")  # saved searches have none
        info[kind] = {
            "alias": layout.alias(kind),
            "index": index,
            "documents": client.count(index=index)["count"],
            "dimension": vector["dimension"] if vector else None,
            "engine": vector["method"]["engine"] if vector else None,
            "quantisation": _quantisation(vector),
            "language": meta.get("_meta", {}).get("language"),
            "encoder": meta.get("_meta", {}).get("encoder"),
        }
    return info


def _quantisation(vector: dict[str, Any] | None) -> str | None:
    """The :data:`mappings.QUANTISATIONS` name of a vector field's mapping (None for an index without vectors)."""
    if not vector:
        return None
    encoder = vector.get("method", {}).get("parameters", {}).get("encoder") or {}
    return encoder.get("name") or "none"



def add_new_fields(client: OpenSearch, index: str, kind: str, names: tuple[str, ...]) -> None:
    """Put the top-level fields ``names`` of the current definition of ``kind`` on ``index`` (an alias or index).

    Adding a field (or a property to an object field) is the one mapping change OpenSearch makes in place, so an
    index created before the field existed (the provisions' ``mapping`` and ``chapter``) takes it without
    ``ratio indices upgrade``. Fields with a ``${...}`` setting (vectors) are not for this.
    """
    properties = mappings.index_body(kind)["mappings"]["properties"]
    found = client.indices.get_mapping(index=index)
    have = next(iter(found.values()))["mappings"].get("properties", {}) if found else {}
    changed = {name: properties[name] for name in names if have.get(name) != properties[name]}
    if changed:  # a field already there is merged: only what it lacks (an object's new property) is added
        client.indices.put_mapping(index=index, body={"properties": changed})


def deleted_documents(client: OpenSearch, index: str) -> int:
    """The deleted documents behind ``index`` still held in its primaries' segments (counted by BM25)."""
    return int(client.indices.stats(index=index, metric="docs")["_all"]["primaries"]["docs"].get("deleted", 0))


def _leases_retain(client: OpenSearch, index: str) -> bool:
    """Whether a retention lease still holds back an operation at or below some shard copy's ``max_seq_no``:
    soft-deleted documents under a lease are kept by every merge (for peer recovery)."""
    stats = client.indices.stats(index=index, level="shards")["indices"]
    for name in stats:
        for copies in stats[name].get("shards", {}).values():
            for copy in copies:
                top = int(copy.get("seq_no", {}).get("max_seq_no", -1))
                leases = copy.get("retention_leases", {}).get("leases", [])
                if any(int(lease["retaining_seq_no"]) <= top for lease in leases):
                    return True
    return False


def expunge_deletes(client: OpenSearch, index: str, *, wait: float = 120.0, interval: float = 1.0) -> int:
    """Merge away the deleted documents behind ``index``; returns how many were there.

    Why: BM25's statistics (document count, average length, document frequencies) count a deleted document until
    a merge drops it, and when that happens depends on the merges' timing. ``ratio index`` leaves deleted versions
    behind (each judgment whose cited-by count changed is updated), so the same corpus indexed twice scores a long
    query slightly differently until they are merged, and a candidate at the 1,000th place can come or go: the
    ranker's training set built on it would differ (docs/ranking.md). A deleted document is soft-deleted and kept
    by every merge while a peer-recovery retention lease covers its operation; the lease moves past the last
    operation at the node's next lease sync (about 30 s after the last write). So: flush, wait until no lease
    covers an operation any more (polling the shard statistics, at most ``wait`` seconds, then an
    :class:`IndexOperationError` saying so), and merge, with ``expunge_deletes_allowed`` at 0, exactly the segments
    holding a deleted document. Nothing to do (no wait) when there is none."""
    deleted = deleted_documents(client, index)
    if not deleted:
        return 0
    client.indices.flush(index=index)
    deadline = time.monotonic() + wait
    while _leases_retain(client, index):
        if time.monotonic() >= deadline:
            raise IndexOperationError(f"{index}: a retention lease still holds its deleted documents after "
                                      f"{wait:.0f} s; nothing was merged")
        time.sleep(interval)
    client.indices.put_settings(index=index, body={"index": {"merge.policy.expunge_deletes_allowed": 0}})
    client.indices.forcemerge(index=index, only_expunge_deletes=True, params={"request_timeout": 3600})
    client.indices.refresh(index=index)
    return deleted
