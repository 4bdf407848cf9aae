"""Index creation from the JSON definitions, idempotency, and alias swaps that keep every document."""

from __future__ import annotations

import pytest
from opensearchpy import OpenSearch

import mappings
from backends.opensearch import IndexLayout, create_indices, upgrade_index
from backends.opensearch.client import module_names
from backends.opensearch.indices import (
    REQUIRED_MODULES,
    IndexOperationError,
    current_index,
    data_nodes,
    describe,
    fit_to_cluster,
)


def test_create_builds_versioned_indices_behind_aliases(client: OpenSearch, layout: IndexLayout) -> None:
    options = mappings.IndexOptions(dimension=384)
    report = create_indices(client, layout, options)
    modules = module_names(client)
    available = [k for k in mappings.INDEX_KINDS if REQUIRED_MODULES.get(k) in (None, *modules)]
    assert {kind: row["index"] for kind, row in report.items()} == {
        kind: f"{layout.prefix}-{kind}-v1" if kind in available else None for kind in mappings.INDEX_KINDS}
    assert {kind: row["alias"] for kind, row in report.items()} == layout.aliases()
    for kind in set(mappings.INDEX_KINDS) - set(available):
        assert REQUIRED_MODULES[kind] in report[kind]["skipped"], "a skipped kind says which module it lacks"
    for kind in available:
        index = report[kind]["index"]
        live = client.indices.get(index=index)[index]
        expected = mappings.index_body(kind, options)["mappings"]
        assert set(live["mappings"]["properties"]) == set(expected["properties"])
        if "vector" not in expected["properties"]:  # saved searches: percolator queries, no vector
            assert live["mappings"]["properties"]["query"]["type"] == "percolator"
            continue
        assert live["mappings"]["properties"]["vector"]["dimension"] == 384
        assert live["mappings"]["properties"]["vector"]["method"]["engine"] == "lucene"
        assert live["settings"]["index"]["knn"] == "true"
        assert "ratio_text_search" in live["settings"]["index"]["analysis"]["analyzer"]
    again = create_indices(client, layout, options)
    assert not any(row["created"] for row in again.values()), "a second create must change nothing"


def test_a_layout_names_the_alias_of_every_kind() -> None:
    layout = IndexLayout("acme")
    assert layout.aliases() == {"judgments": "acme-judgments", "chunks": "acme-chunks",
                                "provisions": "acme-provisions", "saved_searches": "acme-saved_searches"}
    assert tuple(layout.aliases()) == mappings.INDEX_KINDS
    assert layout.aliases(("chunks",)) == {"chunks": "acme-chunks"}


def test_strict_mapping_rejects_unknown_fields(client: OpenSearch, layout: IndexLayout) -> None:
    create_indices(client, layout, mappings.IndexOptions(), kinds=("provisions",))
    with pytest.raises(Exception, match="strict_dynamic_mapping_exception"):
        client.index(index=layout.alias("provisions"), body={"provision_id": "x", "surprise": 1})


def _fill(client: OpenSearch, alias: str, count: int) -> None:
    body = []
    for i in range(count):
        body += [{"index": {"_index": alias, "_id": f"j{i}"}},
                 {"judgment_id": f"j{i}", "title": f"Appellant {i} v State", "court": "Supreme Court of India",
                  "year": 1950 + i % 60, "vector": [((i * 7 + d) % 11) / 10 + 0.05 for d in range(8)]}]
    assert not client.bulk(body=body, refresh=True)["errors"]


def test_upgrade_switches_alias_without_losing_documents(client: OpenSearch, layout: IndexLayout) -> None:
    options = mappings.IndexOptions(dimension=8)
    create_indices(client, layout, options, kinds=("judgments",))
    alias = layout.alias("judgments")
    _fill(client, alias, 1234)
    result = upgrade_index(client, layout, "judgments", options.__class__(dimension=8, hnsw_m=24))
    assert result["from"].endswith("-v1") and result["to"].endswith("-v2") and result["documents"] == 1234
    assert current_index(client, layout, "judgments") == f"{alias}-v2"
    assert client.count(index=alias)["count"] == 1234
    assert client.indices.exists(index=f"{alias}-v1"), "the old version is kept unless asked"
    live = client.indices.get_mapping(index=f"{alias}-v2")[f"{alias}-v2"]["mappings"]["properties"]["vector"]
    assert live["method"]["parameters"]["m"] == 24
    hit = client.search(index=alias, body={"query": {"term": {"judgment_id": "j77"}}})["hits"]["hits"]
    assert hit and hit[0]["_index"] == f"{alias}-v2"
    upgrade_index(client, layout, "judgments", options, delete_old=True)
    assert not client.indices.exists(index=f"{alias}-v2")
    assert describe(client, layout)["judgments"]["documents"] == 1234


def test_upgrade_refuses_a_missing_alias_or_a_leftover_target(client: OpenSearch, layout: IndexLayout) -> None:
    with pytest.raises(IndexOperationError, match="does not exist"):
        upgrade_index(client, layout, "chunks", mappings.IndexOptions())
    create_indices(client, layout, mappings.IndexOptions(), kinds=("chunks",))
    client.indices.create(index=layout.versioned("chunks", 2))
    with pytest.raises(IndexOperationError, match="already exists"):
        upgrade_index(client, layout, "chunks", mappings.IndexOptions())
    assert current_index(client, layout, "chunks") == layout.versioned("chunks", 1)


def test_a_create_index_block_is_explained(client: OpenSearch, layout: IndexLayout) -> None:
    """OpenSearch blocks index creation when disks pass the high watermark; set the same block and check the
    error says what happened and how to lift it (the block is cleared again whatever happens)."""
    block = {"persistent": {"cluster.blocks.create_index": True}}
    client.cluster.put_settings(body=block)
    try:
        with pytest.raises(IndexOperationError, match=r"index creation is blocked .* Free disk space"):
            create_indices(client, layout, mappings.IndexOptions(dimension=8), kinds=("provisions",))
    finally:
        client.cluster.put_settings(body={"persistent": {"cluster.blocks.create_index": None}})
    assert create_indices(client, layout, mappings.IndexOptions(dimension=8), kinds=("provisions",))[
        "provisions"]["created"]


def test_shards_and_replicas_fit_the_cluster(client: OpenSearch, layout: IndexLayout) -> None:
    """One primary per data node and a replica once there are two (the session's node is usually alone: one
    shard, no replica, so its indices are green); what the caller gives is kept. Three nodes:
    tests/failover/test_cluster.py."""
    nodes = sum("d" in row["node.role"] for row in client.cat.nodes(format="json", h="node.role"))
    assert data_nodes(client) == nodes >= 1
    fitted = fit_to_cluster(client, mappings.IndexOptions(dimension=384))
    assert (fitted.shards, fitted.replicas) == (nodes, min(1, nodes - 1))
    given = fit_to_cluster(client, mappings.IndexOptions(dimension=384), shards=2, replicas=0)
    assert (given.shards, given.replicas) == (2, 0)
    report = create_indices(client, layout, given, kinds=("provisions",))
    assert (report["provisions"]["shards"], report["provisions"]["replicas"]) == (2, 0)
    index = report["provisions"]["index"]
    settings = client.indices.get_settings(index=index)[index]["settings"]["index"]
    assert (settings["number_of_shards"], settings["number_of_replicas"]) == ("2", "0")
