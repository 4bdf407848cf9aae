"""``ratio bench knn``: k-NN and hybrid latency and recall@10 against exact search, at 10k, 100k and 1M chunk
vectors, and what quantisation saves in memory per vector and costs in recall.

The vectors are real where they can be: chunk vectors read from existing chunk indices (never changed). Beyond
their number, each further vector is a real one plus Gaussian noise, renormalised (cosine to its parent about
0.9), and is labelled ``synthetic`` in its document and counted in the figures. Each benchmark index holds
the vector and the first words of its chunk's text (for the BM25 half of hybrid queries), is bulk-loaded with
refresh off and no replica, and is deleted when its figures are taken.

Recall@10 is the share of the exact top 10 (cosine over every vector of the index, computed here with numpy)
that the engine's top 10 holds, averaged over the queries. Memory per vector is what a search keeps hot, read
from the segment files: the HNSW graph (``.vex``) plus the vectors the graph is searched with (``.vec`` raw
float32 or bytes, or ``.veq`` for the lucene scalar quantiser, whose raw vectors stay on disk for re-scoring
and merging only). Latencies are wall-clock on the client, HTTP included.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from opensearchpy import OpenSearch, helpers

from lab.bench.searches import percentile

PREFIX = "bench-knn-"
TEXT_WORDS = 100
NOISE = 0.5  # norm of the noise added to a unit vector: cosine to the parent about 1/sqrt(1 + 0.25) = 0.89


@dataclass(frozen=True)
class Variant:
    """How the vectors are stored: ``fp32`` (float HNSW), ``sq`` (lucene's 7-bit scalar quantiser, done by the
    engine, with its default confidence interval), ``sq-dynamic`` (the same with ``confidence_interval: 0``:
    quantiles chosen per segment from the data) or ``byte`` (int8 vectors quantised here: ``round(127 * x)``,
    ``data_type: byte``)."""

    name: str

    def field(self, dimension: int) -> dict[str, Any]:
        params: dict[str, Any] = {"m": 16, "ef_construction": 100}
        if self.name == "sq":
            params["encoder"] = {"name": "sq"}
        elif self.name == "sq-dynamic":
            params["encoder"] = {"name": "sq", "parameters": {"confidence_interval": 0.0}}
        body: dict[str, Any] = {"type": "knn_vector", "dimension": dimension, "space_type": "cosinesimil",
                                "method": {"name": "hnsw", "engine": "lucene", "parameters": params}}
        if self.name == "byte":
            body["data_type"] = "byte"
        return body

    def encode(self, vector: np.ndarray) -> list[float] | list[int]:
        if self.name == "byte":
            return [int(x) for x in np.clip(np.rint(vector * 127), -128, 127)]
        return [round(float(x), 6) for x in vector]


VARIANTS = {name: Variant(name) for name in ("fp32", "sq", "sq-dynamic", "byte")}


@dataclass
class Corpus:
    """Unit vectors with their texts; ``real`` of them were read from the source indices."""

    vectors: np.ndarray
    texts: list[str]
    real: int

    def take(self, size: int, seed: int = 7) -> Corpus:
        """The first ``size`` vectors, real ones first, then synthetic ones sampled around real ones."""
        if size <= len(self.texts):
            return Corpus(self.vectors[:size], self.texts[:size], min(self.real, size))
        rng = np.random.default_rng(seed)
        parents = rng.integers(0, self.real, size - len(self.texts))
        noise = rng.standard_normal((len(parents), self.vectors.shape[1])).astype(np.float32)
        noise *= NOISE / np.linalg.norm(noise, axis=1, keepdims=True)
        extra = self.vectors[parents] + noise
        extra /= np.linalg.norm(extra, axis=1, keepdims=True)
        return Corpus(np.vstack([self.vectors, extra]).astype(np.float32),
                      self.texts + [self.texts[p] for p in parents], self.real)


def read_vectors(client: OpenSearch, indices: Sequence[str], limit: int | None = None) -> Corpus:
    """Chunk vectors and the first words of their texts from ``indices`` (read with a scroll, never written)."""
    vectors: list[list[float]] = []
    texts: list[str] = []
    for index in indices:
        for hit in helpers.scan(client, index=index, query={"_source": ["vector", "text"]}, size=2000,
                                scroll="5m", request_timeout=300):
            source = hit["_source"]
            if source.get("vector"):
                vectors.append(source["vector"])
                texts.append(" ".join(str(source.get("text", "")).split()[:TEXT_WORDS]))
            if limit and len(vectors) >= limit:
                break
    if not vectors:
        raise ValueError(f"no chunk vectors in {', '.join(indices)}")
    matrix = np.asarray(vectors, dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return Corpus(matrix, texts, len(texts))


@dataclass(frozen=True)
class SizeResult:
    """The figures of one index: its size, how it was built, its latency, recall and memory per vector."""

    size: int
    real: int
    synthetic: int
    variant: str
    build_seconds: float
    segments: int
    knn_p50_ms: float
    knn_p95_ms: float
    hybrid_p50_ms: float | None
    hybrid_p95_ms: float | None
    recall_at_10: float
    memory_bytes_per_vector: float
    disk_bytes_per_vector: float
    files: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def exact_top(vectors: np.ndarray, queries: np.ndarray, k: int = 10) -> list[set[int]]:
    """The ids (row numbers) of the ``k`` nearest vectors by cosine for each query, by brute force."""
    out = []
    for query in queries:
        scores = vectors @ query
        top = np.argpartition(-scores, k)[:k]
        out.append({int(i) for i in top})
    return out


def _actions(index: str, corpus: Corpus, variant: Variant) -> Iterator[dict[str, Any]]:
    for i, (vector, text) in enumerate(zip(corpus.vectors, corpus.texts, strict=True)):
        yield {"_index": index, "_id": str(i), "_source": {"vector": variant.encode(vector), "text": text,
                                                          "synthetic": i >= corpus.real}}


def build(client: OpenSearch, index: str, corpus: Corpus, variant: Variant) -> float:
    """Create ``index`` and bulk-load ``corpus`` (refresh off, no replica, one shard); seconds to searchable."""
    client.indices.create(index=index, body={
        "settings": {"index": {"knn": True, "number_of_shards": 1, "number_of_replicas": 0,
                               "refresh_interval": "-1"}},
        "mappings": {"dynamic": "strict", "properties": {
            "vector": variant.field(corpus.vectors.shape[1]), "text": {"type": "text"},
            "synthetic": {"type": "boolean"}}}})
    started = time.perf_counter()
    for ok, item in helpers.parallel_bulk(client, _actions(index, corpus, variant), thread_count=2,
                                          chunk_size=500, max_chunk_bytes=10 * 1024 * 1024,
                                          request_timeout=600, raise_on_error=True):
        if not ok:
            raise RuntimeError(f"bulk load of {index} failed: {item}")
    client.indices.put_settings(index=index, body={"index": {"refresh_interval": None}})
    client.indices.refresh(index=index, request_timeout=3600)
    return time.perf_counter() - started


def segment_files(client: OpenSearch, index: str) -> tuple[int, dict[str, int]]:
    """(segment count, bytes per segment-file extension) of ``index``."""
    stats = client.indices.stats(index=index, metric="segments", params={"include_segment_file_sizes": "true"})
    segments = stats["indices"][index]["primaries"]["segments"]
    files = {ext: int(v["size_in_bytes"]) for ext, v in segments.get("file_sizes", {}).items()}
    return int(segments["count"]), files


def hot_bytes(files: dict[str, int], variant: Variant) -> int:
    """What a k-NN search keeps in memory: the graph and the vectors it is searched with (see module doc)."""
    return files.get("vex", 0) + files.get("veq" if variant.name.startswith("sq") else "vec", 0)


def _timed(call: Callable[[], dict[str, Any]]) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    answer = call()
    return (time.perf_counter() - started) * 1000, answer


def measure(client: OpenSearch, index: str, corpus: Corpus, variant: Variant, queries: np.ndarray,
            query_texts: Sequence[str], *, k: int, pipeline: str | None, build_seconds: float,
            hybrid: bool = True, repeat: int = 3) -> SizeResult:
    """Latency (one warm-up pass, then ``repeat`` timed passes over the queries), recall@10 (the first timed
    pass; answers do not change between passes) and memory of a built index."""
    exact = exact_top(corpus.vectors, queries)

    def knn(vector: np.ndarray) -> dict[str, Any]:
        body = {"size": 10, "_source": False, "query": {"knn": {"vector": {"vector": variant.encode(vector),
                                                                           "k": k}}}}
        return client.search(index=index, body=body, request_timeout=120)

    def hybrid_search(vector: np.ndarray, text: str) -> dict[str, Any]:
        body = {"size": 10, "_source": False, "query": {"hybrid": {"queries": [
            {"match": {"text": text}}, {"knn": {"vector": {"vector": variant.encode(vector), "k": k}}}],
            "pagination_depth": k}}}
        return client.search(index=index, body=body, params={"search_pipeline": pipeline}, request_timeout=120)

    for vector in queries:  # warm-up: graphs and vectors into the page cache
        knn(vector)
    knn_ms, recalls = [], []
    for round_ in range(repeat):
        for vector, truth in zip(queries, exact, strict=True):
            elapsed, answer = _timed(lambda v=vector: knn(v))
            knn_ms.append(elapsed)
            if round_ == 0:
                found = {int(hit["_id"]) for hit in answer["hits"]["hits"]}
                recalls.append(len(found & truth) / len(truth))
    hybrid_ms: list[float] = []
    if hybrid and pipeline:
        for vector, text in zip(queries, query_texts, strict=True):
            hybrid_search(vector, text)
        for _ in range(repeat):
            for vector, text in zip(queries, query_texts, strict=True):
                hybrid_ms.append(_timed(lambda v=vector, t=text: hybrid_search(v, t))[0])
    segments, files = segment_files(client, index)
    n = len(corpus.texts)
    return SizeResult(
        size=n, real=corpus.real, synthetic=n - corpus.real, variant=variant.name,
        build_seconds=round(build_seconds, 1), segments=segments,
        knn_p50_ms=round(percentile(knn_ms, 0.5), 1), knn_p95_ms=round(percentile(knn_ms, 0.95), 1),
        hybrid_p50_ms=round(percentile(hybrid_ms, 0.5), 1) if hybrid_ms else None,
        hybrid_p95_ms=round(percentile(hybrid_ms, 0.95), 1) if hybrid_ms else None,
        recall_at_10=round(float(np.mean(recalls)), 4),
        memory_bytes_per_vector=round(hot_bytes(files, variant) / n, 1),
        disk_bytes_per_vector=round(sum(files.values()) / n, 1),
        files={ext: size for ext, size in files.items() if ext in ("vec", "vex", "veq", "vem", "vemf", "vemq")},
    )


def run_one(client: OpenSearch, corpus: Corpus, variant: Variant, queries: np.ndarray, query_texts: Sequence[str],
            *, k: int, pipeline: str | None, prefix: str = PREFIX, keep: bool = False,
            hybrid: bool = True, repeat: int = 3) -> SizeResult:
    """Build, measure and (unless ``keep``) delete one benchmark index, ``<prefix><size>-<variant>``."""
    index = f"{prefix}{len(corpus.texts)}-{variant.name}"
    client.indices.delete(index=index, ignore_unavailable=True)
    try:
        seconds = build(client, index, corpus, variant)
        return measure(client, index, corpus, variant, queries, query_texts, k=k, pipeline=pipeline,
                       build_seconds=seconds, hybrid=hybrid, repeat=repeat)
    finally:
        if not keep:
            client.indices.delete(index=index, ignore_unavailable=True)


def extrapolate_build(measured: Sequence[SizeResult], size: int) -> float:
    """Seconds to build ``size`` vectors, extrapolated from the largest measured fp32 build as n·log n (HNSW
    insertion cost grows about with log n): an estimate, never a measurement."""
    base = max((r for r in measured if r.variant == "fp32"), key=lambda r: r.size)
    return base.build_seconds * (size * np.log(size)) / (base.size * np.log(base.size))


def to_json(results: Sequence[SizeResult], **extra: Any) -> str:
    return json.dumps({**extra, "results": [r.as_dict() for r in results]}, indent=2)
