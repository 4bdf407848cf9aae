"""``ratio bench knn`` on a small real source: real vectors first, synthetic ones labelled, recall against exact
search, the quantised variants' memory, and no benchmark index left behind."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import numpy as np
from click.testing import CliRunner
from opensearchpy import OpenSearch

import mappings
from backends.encoders import STATIC_ENCODER
from backends.opensearch import IndexLayout, create_indices, install_pipelines
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter
from lab.bench import knn as knn_bench
from ratio.cli import cli

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019" / "judgments"


def test_synthetic_vectors_stay_near_real_ones() -> None:
    rng = np.random.default_rng(1)
    real = rng.standard_normal((50, 16)).astype(np.float32)
    real /= np.linalg.norm(real, axis=1, keepdims=True)
    corpus = knn_bench.Corpus(real, [f"t{i}" for i in range(50)], 50).take(200)
    assert corpus.vectors.shape == (200, 16) and corpus.real == 50
    assert np.allclose(np.linalg.norm(corpus.vectors, axis=1), 1.0, atol=1e-5)
    nearest_real = (corpus.vectors[50:] @ real.T).max(axis=1)
    assert 0.8 < float(nearest_real.mean()) < 0.97  # around real ones, not copies of them


def test_bench_knn_measures_and_cleans_up(client: OpenSearch, opensearch_settings, static_encoder,
                                          tmp_path: Path) -> None:
    layout = IndexLayout(f"ratio-test-knn-{uuid.uuid4().hex[:8]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=256, encoder=STATIC_ENCODER))
    install_pipelines(client)
    aliases = layout.aliases()
    try:
        labeller = RoleLabeller.load(static_encoder, encoder_id=STATIC_ENCODER)
        files = [str(SAMPLES / f"C{i}.txt") for i in range(1, 4)]
        written = IndexWriter(client, aliases, Pipeline(labeller)).run(load(files))
        real = written.chunks_indexed
        assert 10 < real < 300
        queries = tmp_path / "queries.txt"
        queries.write_text("AILA_Q1||criminal breach of trust by a public servant\nmurder with common intention\n"
                           "dowry death within seven years of marriage\n", encoding="utf-8")
        args = ["--url", opensearch_settings.url, "--prefix", layout.prefix, "bench", "knn", str(queries),
                "--sizes", "300", "--quantisation-size", "300", "--index-prefix", f"{layout.prefix}-bench-", "--json"]
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        by_variant = {r["variant"]: r for r in data["results"]}
        assert set(by_variant) == {"fp32", "sq", "byte"} and data["queries"] == 3
        for r in by_variant.values():
            assert r["size"] == 300 and r["real"] == real and r["synthetic"] == 300 - real
            assert 0.0 <= r["recall_at_10"] <= 1.0 and r["knn_p50_ms"] > 0 and r["hybrid_p50_ms"] > 0
        assert by_variant["fp32"]["recall_at_10"] >= 0.9  # 300 vectors, k=100: HNSW is all but exact
        # a 7-bit or int8 vector is a quarter of a float32 one: what a search keeps hot shrinks
        assert by_variant["sq"]["memory_bytes_per_vector"] < 0.6 * by_variant["fp32"]["memory_bytes_per_vector"]
        assert by_variant["byte"]["memory_bytes_per_vector"] < 0.6 * by_variant["fp32"]["memory_bytes_per_vector"]
        assert not client.indices.exists(index=f"{layout.prefix}-bench-*", allow_no_indices=False)
    finally:
        client.indices.delete(index=f"{layout.prefix}-*")
