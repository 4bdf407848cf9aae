"""Indexing throughput of one or more pipelines over the same judgments, each in a fresh process.

Each pipeline (an encoder and its role head) indexes the same first ``limit`` judgments into its own
throwaway index prefix, with a fresh embedding cache, so no run is served from another's cache or finds its
judgments already indexed. Each run happens in a spawned process of its own, so its peak resident memory
is its own (models, batches and buffers; the OpenSearch node is not counted) and nothing loaded by one run
warms up the next. The indices are deleted afterwards.
"""

from __future__ import annotations

import itertools
import resource
import shutil
import tempfile
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from backends.opensearch import ConnectionSettings


@dataclass(frozen=True)
class BenchSpec:
    """One pipeline run: what to read, which encoder (and head), where to write."""

    name: str
    encoder: str
    paths: tuple[str, ...]
    limit: int | None
    connection: ConnectionSettings
    prefix: str
    models_dir: Path | None
    cache: bool  # use a (fresh) embedding cache, as ``ratio index`` does for this encoder
    batch_size: int = 16
    role_head: str | None = None
    threads: int = 2


@dataclass(frozen=True)
class BenchResult:
    """What one pipeline did and how fast."""

    name: str
    encoder: str
    judgments: int
    sentences: int
    chunks: int
    failed: int
    seconds: float
    judgments_per_s: float
    sentences_per_s: float
    times: dict[str, float]
    peak_rss_mb: float
    load_seconds: float = 0.0  # loading the encoder and head, before the clock starts
    prefix: str = ""  # the throwaway index prefix (deleted when the run ends)
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _judgments(paths: Sequence[str], limit: int | None):
    """The first ``limit`` judgments (and load errors) the loader yields, in its (sorted) file order;
    statutes are left out, so every pipeline reads exactly the same judgments."""
    from indexer.document import LoadError, Provision
    from indexer.loaders import load

    items = (item for item in load(paths) if not isinstance(item, Provision))
    if limit is None:
        return items
    counted = 0

    def keep(item: Any) -> bool:
        nonlocal counted
        if isinstance(item, LoadError):
            return counted < limit
        counted += 1
        return counted <= limit

    return itertools.takewhile(keep, items)


def run_one(spec: BenchSpec) -> BenchResult:
    """Index ``spec`` in this process and delete its indices afterwards (called in a fresh process)."""
    import torch

    import mappings
    from backends.encoders import encoder_dimension, load_encoder
    from backends.opensearch import IndexLayout, connect, create_indices
    from indexer.pipeline import Pipeline
    from indexer.roles.labeller import RoleLabeller
    from indexer.writer import IndexWriter

    torch.set_num_threads(spec.threads)
    started = time.perf_counter()
    cache_dir = Path(tempfile.mkdtemp(prefix="ratio-bench-cache-")) if spec.cache else None
    try:
        encoder = load_encoder(spec.encoder, models_dir=spec.models_dir)
        labeller = RoleLabeller.load(encoder, path=Path(spec.role_head) if spec.role_head else None,
                                     cache_dir=cache_dir, encoder_id=spec.encoder)
        dimension = encoder_dimension(spec.encoder) or int(labeller.embed(["dimension probe"]).shape[1])
        load_seconds = time.perf_counter() - started
        client = connect(spec.connection)
        layout = IndexLayout(spec.prefix)
        create_indices(client, layout, mappings.IndexOptions(dimension=dimension, encoder=spec.encoder))
        try:
            aliases = layout.aliases()
            writer = IndexWriter(client, aliases, Pipeline(labeller), batch_size=spec.batch_size)
            report = writer.run(_judgments(spec.paths, spec.limit))
        finally:
            client.indices.delete(index=f"{spec.prefix}-*", ignore_unavailable=True)
    finally:
        if cache_dir is not None:
            shutil.rmtree(cache_dir, ignore_errors=True)
    seconds = max(report.seconds, 1e-9)
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    return BenchResult(
        name=spec.name, encoder=spec.encoder, judgments=report.judgments_indexed, sentences=report.sentences,
        chunks=report.chunks_indexed, failed=len(report.failed), seconds=round(report.seconds, 2),
        judgments_per_s=round(report.judgments_indexed / seconds, 3),
        sentences_per_s=round(report.sentences / seconds, 1), times=report.times.as_dict(),
        peak_rss_mb=round(peak_kb / 1024, 1), load_seconds=round(load_seconds, 2), prefix=spec.prefix,
        extra={"failed": [list(item) for item in report.failed[:10]]},
    )


def bench_index(specs: Sequence[BenchSpec]) -> list[BenchResult]:
    """Run each spec in a fresh spawned process, one after the other (never two at once: they would
    share the cores and the node)."""
    results = []
    for spec in specs:
        with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
            results.append(pool.submit(run_one, spec).result())
    return results


def throwaway_prefix(base: str, name: str) -> str:
    """A unique index prefix for one run (lower case, as index names must be)."""
    return f"{base}-{name}-{uuid.uuid4().hex[:8]}".lower()
