"""The fast pipeline (static sentence vectors, the head trained on them) on the real node, and the search
side finding the index's encoder by itself."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

import mappings
from backends.encoders import DEFAULT_ENCODER, STATIC_ENCODER
from backends.opensearch import IndexLayout, create_indices, install_pipelines
from backends.opensearch.indices import index_encoder
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter
from ratio.cli import cli

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019"


@pytest.fixture(scope="module")
def fast_index(client: OpenSearch, static_encoder):
    layout = IndexLayout(f"ratio-test-fast-{uuid.uuid4().hex[:8]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=256, encoder=STATIC_ENCODER))
    install_pipelines(client)
    aliases = layout.aliases()
    labeller = RoleLabeller.load(static_encoder, encoder_id=STATIC_ENCODER)
    report = IndexWriter(client, aliases, Pipeline(labeller), batch_size=5).run(load([str(SAMPLES)]))
    yield layout, aliases, report
    client.indices.delete(index=f"{layout.prefix}-*")


def test_fast_pipeline_indexes_the_samples(client: OpenSearch, fast_index) -> None:
    _, aliases, report = fast_index
    assert report.failed == [] and report.judgments_indexed == 18 and report.provisions_indexed == 18
    assert report.sentences > 1000 and report.chunks_indexed == client.count(index=aliases["chunks"])["count"]
    assert index_encoder(client, aliases["chunks"]) == STATIC_ENCODER
    hits = client.search(index=aliases["chunks"], body={"size": 500, "_source": ["vector", "role", "judgment_id"]})
    vectors = np.array([hit["_source"]["vector"] for hit in hits["hits"]["hits"]])
    assert vectors.shape[1] == 256 and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    judgments = client.search(index=aliases["judgments"], body={"size": 18, "_source": ["role_counts"]})
    counts = [hit["_source"]["role_counts"] for hit in judgments["hits"]["hits"]]
    # every judgment reasons and rules; all but one sample open with a header (C1's text starts in the body)
    assert all(c.get("analysis", 0) + c.get("ratio", 0) > 0 and c.get("ruling_present_court", 0) > 0 for c in counts)
    assert sum(c.get("preamble", 0) > 0 for c in counts) >= 15, counts
    # periodic refresh was off during the load and is back afterwards
    settings = client.indices.get_settings(index=aliases["chunks"], params={"flat_settings": "true"})
    assert all(body["settings"].get("index.refresh_interval") != "-1" for body in settings.values())


def test_rerun_changes_nothing(client: OpenSearch, fast_index, static_encoder) -> None:
    _, aliases, _ = fast_index
    labeller = RoleLabeller.load(static_encoder, encoder_id=STATIC_ENCODER)
    again = IndexWriter(client, aliases, Pipeline(labeller)).run(load([str(SAMPLES)]))
    assert again.judgments_indexed == 0 and again.judgments_unchanged == 18 and again.failed == []


def test_search_reads_the_index_encoder(opensearch_settings, fast_index) -> None:
    from ratio.client import Client

    layout, _, _ = fast_index
    client = Client(opensearch_settings.url, prefix=layout.prefix, llm=None)
    assert client.encoder.encode(["probe"]).shape == (1, 256)
    result = client.search("public servant entrusted with property dishonestly misappropriated it")
    assert result.hits
    runner = CliRunner()
    found = runner.invoke(cli, ["--url", opensearch_settings.url, "--prefix", layout.prefix, "search",
                                "criminal breach of trust by a public servant", "--json"], catch_exceptions=False)
    assert found.exit_code == 0, found.output
    assert json.loads(found.stdout)["hits"]
    clash = runner.invoke(cli, ["--url", opensearch_settings.url, "--prefix", layout.prefix, "index",
                                str(SAMPLES / "judgments" / "C1.txt"), "--encoder", DEFAULT_ENCODER])
    assert clash.exit_code != 0 and STATIC_ENCODER in clash.output


def test_bench_index_prints_both_pipelines(opensearch_settings, client: OpenSearch) -> None:
    result = CliRunner().invoke(cli, ["--url", opensearch_settings.url, "bench", "index", str(SAMPLES),
                                      "--limit", "3", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    by_name = {run["name"]: run for run in data["pipelines"]}
    assert set(by_name) == {"fast", "minilm"}
    assert by_name["fast"]["encoder"] == STATIC_ENCODER and by_name["minilm"]["encoder"] == DEFAULT_ENCODER
    assert data["judgments_per_s"] == by_name["fast"]["judgments_per_s"] > 0
    for run in by_name.values():
        assert run["judgments"] == 3 and run["failed"] == 0 and run["sentences"] > 0
        assert set(run["times"]) == {"parse", "embed", "roles", "chunk", "bulk"} and run["peak_rss_mb"] > 100
    assert by_name["fast"]["sentences"] == by_name["minilm"]["sentences"]
    for run in by_name.values():  # the throwaway indices are gone
        assert not client.indices.exists(index=f"{run['prefix']}-*", allow_no_indices=False)
