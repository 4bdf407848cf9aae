"""A small corpus indexed for one test module by the default (static) pipeline, on the session's node."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from opensearchpy import OpenSearch

import mappings
from backends.encoders import STATIC_ENCODER
from backends.opensearch import IndexLayout, create_indices
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter


@contextmanager
def static_corpus(client: OpenSearch, static_encoder, folder: Path, judgments: int) -> Iterator[dict[str, str]]:
    """The judgment files in ``folder`` (there must be ``judgments`` of them, all indexed) under a fresh prefix;
    yields the aliases, and deletes every index of the prefix afterwards."""
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=256, encoder=STATIC_ENCODER))
    aliases = layout.aliases()
    try:
        labeller = RoleLabeller.load(static_encoder, encoder_id=STATIC_ENCODER)
        report = IndexWriter(client, aliases, Pipeline(labeller)).run(load([str(folder)]))
        assert report.failed == [] and report.judgments_indexed == judgments
        client.indices.refresh(index=f"{layout.prefix}-*")
        yield aliases
    finally:
        client.indices.delete(index=f"{layout.prefix}-*")
