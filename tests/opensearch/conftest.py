"""The bundled sample judgments indexed once per session on the real node, for the search tests."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from opensearchpy import OpenSearch

import mappings
from backends.encoders import load_encoder
from backends.opensearch import IndexLayout, create_indices, install_pipelines
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019"


@pytest.fixture(scope="session")
def encoder():
    return load_encoder()


@pytest.fixture(scope="session")
def aliases(client: OpenSearch, encoder, tmp_path_factory) -> dict[str, str]:
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=384))
    install_pipelines(client)
    aliases = {kind: layout.alias(kind) for kind in mappings.INDEX_KINDS}
    labeller = RoleLabeller.load(encoder, cache_dir=tmp_path_factory.mktemp("embeddings"))
    report = IndexWriter(client, aliases, Pipeline(labeller)).run(load([str(SAMPLES)]))
    assert report.failed == [] and report.judgments_indexed == 18
    yield aliases
    client.indices.delete(index=f"{layout.prefix}-*")
