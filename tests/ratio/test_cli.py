"""The ``ratio`` CLI against the session's real cluster, through click's CliRunner."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner
from opensearchpy import OpenSearch

from backends.encoders import INDEX_ENCODER
from backends.opensearch import ConnectionSettings, IndexLayout
from ratio.cli import cli


def run(settings: ConnectionSettings, *args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["--url", settings.url, *args], env=env, catch_exceptions=False)


def test_indices_create_list_and_status(opensearch_settings, client: OpenSearch, layout: IndexLayout) -> None:
    result = run(opensearch_settings, "--prefix", layout.prefix, "indices", "create", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    # saved searches need the percolator module: created where the node has it, else skipped with the reason
    assert all(row["created"] or "percolator" in row.get("skipped", "") for row in report["indices"].values())
    assert all(report["indices"][kind]["created"] for kind in ("judgments", "chunks", "provisions"))
    listed = json.loads(run(opensearch_settings, "--prefix", layout.prefix, "indices", "list", "--json").output)
    assert listed["chunks"] == {"alias": f"{layout.prefix}-chunks", "index": f"{layout.prefix}-chunks-v1",
                                "documents": 0, "dimension": 256, "engine": "lucene", "quantisation": "none",
                                "language": "en",
                                "encoder": INDEX_ENCODER}  # the static encoder: what ratio index uses by default
    status = run(opensearch_settings, "--prefix", layout.prefix, "status", "--json")
    assert status.exit_code == 0
    data = json.loads(status.output)
    assert data["health"] in ("green", "yellow") and data["version"]
    assert "opensearch-knn" in data["plugins"]
    table = run(opensearch_settings, "--prefix", layout.prefix, "status")
    assert "plugins" in table.output and f"{layout.prefix}-judgments-v1" in table.output


def test_upgrade_from_the_cli(opensearch_settings, layout: IndexLayout) -> None:
    run(opensearch_settings, "--prefix", layout.prefix, "indices", "create")
    result = run(opensearch_settings, "--prefix", layout.prefix, "indices", "upgrade", "provisions")
    assert result.exit_code == 0, result.output
    assert f"{layout.prefix}-provisions-v1 -> {layout.prefix}-provisions-v2 (0 documents)" in result.output


def test_quantised_vectors_are_an_index_option(opensearch_settings, client: OpenSearch, layout: IndexLayout) -> None:
    """``--quantisation sq`` puts lucene's scalar quantiser in the chunks' HNSW method; k-NN still finds the
    vector it was given (the quantiser is lossy, but a vector is its own nearest neighbour)."""
    result = run(opensearch_settings, "--prefix", layout.prefix, "indices", "create", "--quantisation", "sq", "--json")
    assert result.exit_code == 0, result.output
    listed = json.loads(run(opensearch_settings, "--prefix", layout.prefix, "indices", "list", "--json").output)
    assert {kind: row["quantisation"] for kind, row in listed.items() if kind in ("judgments", "chunks")} == {
        "judgments": "sq", "chunks": "sq"}
    index = listed["chunks"]["index"]
    mapping = client.indices.get_mapping(index=index)[index]["mappings"]["properties"]["vector"]
    assert mapping["method"]["parameters"]["encoder"]["name"] == "sq"
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(20, 256))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for i, vector in enumerate(vectors):
        client.index(index=index, id=f"q{i}", body={"vector": vector.tolist()})
    client.indices.refresh(index=index)
    hits = client.search(index=index, body={"size": 1, "query": {"knn": {"vector": {"vector": vectors[11].tolist(),
                                                                               "k": 5}}}})["hits"]["hits"]
    assert hits[0]["_id"] == "q11"
    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", layout.prefix, "indices",
                                      "create", "--quantisation", "sq", "--engine", "faiss"])
    assert result.exit_code == 1 and "lucene engine's scalar quantiser" in result.output


def test_bad_options_fail_with_a_message(opensearch_settings, layout: IndexLayout) -> None:
    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", layout.prefix, "indices",
                                      "create", "--encoder", "nobody/unknown-model"])
    assert result.exit_code == 1 and "pass --dimension" in result.output
    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "--prefix", "Bad Prefix", "indices", "list"])
    assert result.exit_code == 2 and "must be lower case" in result.output


def test_no_cluster_says_how_to_get_one(tmp_path) -> None:
    env = {"OPENSEARCH_URL": "", "RATIO_HOME": str(tmp_path)}
    result = CliRunner().invoke(cli, ["status"], env=env)
    assert result.exit_code == 1
    assert "ratio opensearch start" in result.output and "OPENSEARCH_URL" in result.output
