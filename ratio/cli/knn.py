"""``ratio bench knn QUERIES``: k-NN and hybrid latency and recall@10 at several index sizes, and the
quantisation comparison (lab.bench.knn), in one run."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

import mappings
from backends.opensearch.indices import index_encoder
from ratio.cli.bench import read_queries
from ratio.cli.common import Context
from ratio.cli.options import json_option, limit_option
from ratio.encoders import open_encoder
from search.query.syntax import as_plain_text


def _sizes(value: str) -> list[int]:
    try:
        sizes = sorted({int(part.replace("_", "")) for part in value.split(",") if part.strip()})
    except ValueError as exc:
        raise click.BadParameter(f"sizes are whole numbers separated by commas, not {value!r}") from exc
    if not sizes or sizes[0] < 100:
        raise click.BadParameter("each size must be at least 100")
    return sizes


@click.command("knn")
@click.argument("queries", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--source", "sources", multiple=True,
              help="Chunk index to read real vectors from (repeatable; never written). Default: the prefix's chunks.")
@click.option("--sizes", default="10000,100000,1000000", show_default=True, help="Index sizes, in vectors.")
@click.option("--quantisation-size", default=100_000, show_default=True,
              help="The size at which fp32, lucene sq (7-bit) and byte vectors are compared.")
@click.option("--storage", "storages", multiple=True, type=click.Choice(["fp32", "sq", "sq-dynamic", "byte"]),
              help="What to compare at --quantisation-size (repeatable; default fp32, sq and byte).")
@click.option("--k", default=100, show_default=True, help="k-NN candidates (k), as Ratio's searches ask for.")
@limit_option()
@click.option("--max-build-minutes", default=20.0, show_default=True,
              help="Skip a size whose fp32 build, extrapolated from the largest one measured, would take longer "
                   "(the extrapolation is printed, labelled as not measured).")
@click.option("--repeat", default=3, show_default=True, type=click.IntRange(min=1),
              help="Timed passes over the queries (after one warm-up pass) for the latency percentiles.")
@click.option("--index-prefix", default="bench-knn-", show_default=True,
              help="Names of the throwaway benchmark indices (<prefix><size>-<storage>).")
@json_option()
@click.pass_obj
def bench_knn(ctx: Context, queries: Path, sources: tuple[str, ...], sizes: str, quantisation_size: int,
              storages: tuple[str, ...], k: int,
              limit: int | None, max_build_minutes: float, repeat: int, index_prefix: str, as_json: bool) -> None:
    """Build indices of each size (named --index-prefix, size, storage) from real chunk vectors (beyond their number,
    vectors sampled around real ones, labelled synthetic), measure p50/p95 of k-NN and hybrid queries and
    recall@10 against exact search, and delete them. QUERIES: one query per line (or AILA's Query_doc.txt),
    encoded with the source index's encoder."""
    from lab.bench import knn as knn_bench

    chosen = _sizes(sizes)
    client = ctx.client()
    sources = sources or (ctx.layout.alias("chunks"),)
    encoder_name = index_encoder(client, sources[0])
    if encoder_name is None:
        raise click.ClickException(f"{sources[0]} records no encoder (_meta.encoder): is it a Ratio chunks index?")
    texts = [as_plain_text(t, 300) for t in read_queries(queries)[:limit]]
    vectors = open_encoder(encoder_name).encode(texts)
    vectors = vectors / (vectors ** 2).sum(axis=1, keepdims=True) ** 0.5
    corpus = knn_bench.read_vectors(client, sources, limit=max(chosen))
    click.echo(f"{corpus.real} real vectors from {', '.join(sources)} ({encoder_name}); {len(texts)} queries",
               err=True)
    pipeline = mappings.HYBRID_PIPELINES["minmax"]
    results, skipped = [], []
    for size in chosen:
        if results:
            estimate = knn_bench.extrapolate_build(results, size)
            if estimate > max_build_minutes * 60:
                skipped.append({"size": size, "estimated_build_seconds": round(estimate), "measured": False})
                click.echo(f"size {size}: skipped, fp32 build estimated at {estimate / 60:.0f} min (not measured)",
                           err=True)
                continue
        variants = list(storages or ("fp32", "sq", "byte")) if size == quantisation_size else ["fp32"]
        for name in variants:
            click.echo(f"size {size} {name}: building", err=True)
            results.append(knn_bench.run_one(client, corpus.take(size), knn_bench.VARIANTS[name], vectors, texts,
                                             k=k, pipeline=pipeline, prefix=index_prefix,
                                             repeat=repeat))
    if as_json:
        click.echo(knn_bench.to_json(results, sources=list(sources), encoder=encoder_name, queries=len(texts), k=k,
                                     repeat=repeat,
                                     skipped=skipped))
        return
    table = Table("vectors", "real", "synthetic", "storage", "build s", "segments", "knn p50", "knn p95",
                  "hybrid p50", "hybrid p95", "recall@10", "memory B/vector", "disk B/vector",
                  title=f"k-NN at scale ({len(texts)} queries x {repeat}, k={k}, lucene HNSW m=16)")
    for r in results:
        table.add_row(str(r.size), str(r.real), str(r.synthetic), r.variant, f"{r.build_seconds:.0f}",
                      str(r.segments), f"{r.knn_p50_ms:.1f}", f"{r.knn_p95_ms:.1f}",
                      f"{r.hybrid_p50_ms:.1f}" if r.hybrid_p50_ms is not None else "-",
                      f"{r.hybrid_p95_ms:.1f}" if r.hybrid_p95_ms is not None else "-",
                      f"{r.recall_at_10:.3f}", f"{r.memory_bytes_per_vector:.0f}", f"{r.disk_bytes_per_vector:.0f}")
    Console().print(table)
    for s in skipped:
        click.echo(f"not measured: {s['size']} vectors, fp32 build estimated at {s['estimated_build_seconds']} s "
                   f"(n log n from the largest build); run: ratio bench knn {queries} --sizes {s['size']} "
                   f"--max-build-minutes {s['estimated_build_seconds'] // 60 + 30}")
