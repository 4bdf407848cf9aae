"""k-NN with role filters and hybrid fusion through the search pipelines, on real judgments.

Chunks are runs of consecutive sentences with the same gold role from the Law-AI judgments, embedded
by the real all-MiniLM-L6-v2 (packaged copy, verified by sha256).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from opensearchpy import OpenSearch

import mappings
from backends.encoders import Encoder, load_encoder
from backends.opensearch import IndexLayout, create_indices, install_pipelines
from backends.opensearch.client import plugin_names
from backends.opensearch.indices import NEURAL_PLUGIN

JUDGMENTS = ("2008_I_54", "2011_I_16", "1953_L_1", "2000_V_80")
ROLE = {"Facts": "facts", "Argument": "argument", "Statute": "statute", "Precedent": "precedent",
        "Ratio of the decision": "ratio", "Ruling by Lower Court": "ruling_lower_court",
        "Ruling by Present Court": "ruling_present_court"}
QUERY = "the accused was convicted of murder under section 302 and sentenced to life imprisonment"


def role_chunks(path: Path) -> list[dict]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if "\t" in line]
    chunks = []
    for ordinal, (label, group) in enumerate(itertools.groupby(rows, key=lambda row: row[1].strip())):
        text = ". ".join(sentence for sentence, _ in group)
        chunks.append({"chunk_id": f"{path.stem}:{ordinal}", "judgment_id": path.stem, "role": ROLE[label],
                       "ordinal": ordinal, "text": text, "court": "Supreme Court of India"})
    return chunks


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return load_encoder()


@pytest.fixture(scope="module")
def corpus(shared_data: Path, encoder: Encoder) -> list[dict]:
    chunks = [c for name in JUDGMENTS
              for c in role_chunks(shared_data / "law-ai-rhetorical-roles" / "text" / f"{name}.txt")]
    vectors = encoder.encode([c["text"] for c in chunks], batch_size=32, normalize_embeddings=True)
    for chunk, vector in zip(chunks, vectors, strict=True):
        chunk["vector"] = vector.tolist()
    return chunks


@pytest.fixture
def chunks_index(client: OpenSearch, layout: IndexLayout, corpus: list[dict]) -> str:
    create_indices(client, layout, mappings.IndexOptions(dimension=len(corpus[0]["vector"])), kinds=("chunks",))
    alias = layout.alias("chunks")
    body = []
    for chunk in corpus:
        body += [{"index": {"_index": alias, "_id": chunk["chunk_id"]}}, chunk]
    result = client.bulk(body=body, refresh=True)
    assert not result["errors"]
    return alias


def query_vector(encoder: Encoder) -> list[float]:
    return np.asarray(encoder.encode([QUERY], normalize_embeddings=True))[0].tolist()


def knn(vector: list[float], k: int, role: str | None = None) -> dict:
    clause: dict = {"vector": vector, "k": k}
    if role:
        clause["filter"] = {"term": {"role": role}}
    return {"size": k, "_source": ["role", "judgment_id"], "query": {"knn": {"vector": clause}}}


def test_knn_role_filter_runs_inside_the_search(client: OpenSearch, chunks_index: str, corpus, encoder) -> None:
    vector = query_vector(encoder)
    facts = sum(1 for c in corpus if c["role"] == "facts")
    assert facts >= 10, "the test corpus should hold enough facts chunks"
    hits = client.search(index=chunks_index, body=knn(vector, 10, role="facts"))["hits"]["hits"]
    assert len(hits) == 10, "an in-search filter returns k hits; a post-filter would return fewer"
    assert {h["_source"]["role"] for h in hits} == {"facts"}
    unfiltered = client.search(index=chunks_index, body=knn(vector, 10))["hits"]["hits"]
    assert len({h["_source"]["role"] for h in unfiltered}) > 1
    # The criminal appeals are the ones about murder convictions: they must lead the facts.
    assert hits[0]["_source"]["judgment_id"] in {"2008_I_54", "2011_I_16"}


@pytest.mark.parametrize("pipeline", mappings.PIPELINES)
def test_hybrid_query_through_search_pipeline(client: OpenSearch, chunks_index: str, layout: IndexLayout,
                                              encoder, pipeline: str) -> None:
    if NEURAL_PLUGIN not in plugin_names(client):
        pytest.skip(f"the cluster has no {NEURAL_PLUGIN} plugin: hybrid fusion runs client-side there")
    prefix = f"{layout.prefix}-"
    installed = install_pipelines(client, prefix=prefix)
    assert installed == {prefix + name: True for name in mappings.PIPELINES}
    role_filter = {"term": {"role": "facts"}}
    body = {
        "size": 10,
        "_source": ["role", "judgment_id"],
        "query": {"hybrid": {"queries": [
            {"bool": {"must": [{"match": {"text": QUERY}}], "filter": [role_filter]}},
            {"knn": {"vector": {"vector": query_vector(encoder), "k": 20, "filter": role_filter}}},
        ]}},
    }
    try:
        response = client.search(index=chunks_index, body=body, params={"search_pipeline": prefix + pipeline})
    finally:
        client.transport.perform_request("DELETE", f"/_search/pipeline/{prefix}{pipeline}")
    hits = response["hits"]["hits"]
    assert len(hits) == 10
    assert {h["_source"]["role"] for h in hits} == {"facts"}
    scores = [h["_score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    if pipeline == "ratio-hybrid-minmax":
        assert 0.0 <= scores[-1] <= scores[0] <= 1.0  # min-max normalised, weights sum to 1
    else:
        assert scores[0] <= 2 / 61 + 1e-9  # RRF: at most 1/(60+1) from each of the two sub-queries
    assert hits[0]["_source"]["judgment_id"] in {"2008_I_54", "2011_I_16"}
