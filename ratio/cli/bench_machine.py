"""``ratio bench workers``, ``ratio bench embed`` and ``ratio bench cues``: what one machine's cores and GPU are
worth to the write path, OpenSearch left out (docs/capacity.md, docs/benchmarks.md)."""

from __future__ import annotations

import json
from pathlib import Path

import click

__all__ = ["bench_cues", "bench_embed", "bench_workers"]


def _counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise click.BadParameter(f"{text!r}: worker counts are positive integers, comma-separated",
                                 param_hint="--workers")
    return counts


@click.command("workers")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--workers", default="1,2,4", show_default=True, help="Worker counts to try, comma-separated.")
@click.option("--limit", default=120, show_default=True, type=click.IntRange(1), help="Judgments per worker.")
def bench_workers(folder: Path, workers: str, limit: int) -> None:
    """The default pipeline's processing rate (read, metadata, sentences, static vectors, roles, chunks,
    summary; no bulk writes) with N worker processes on this machine, one thread each, for each N: one JSON
    line per N (judgments/s in all and per worker, CPU ms per judgment)."""
    from lab.bench.workers import measure_workers
    from ratio.encoders import models_dir

    counts = _counts(workers)
    try:
        results = measure_workers(folder, counts, limit, models_dir())
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    for result in results:
        click.echo(json.dumps(result.to_dict()))


@click.command("embed")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--sentences", default=60_000, show_default=True, type=click.IntRange(1),
              help="Sentences to embed (from the judgments of FOLDER, in name order).")
@click.option("--cpu-sentences", default=2000, show_default=True, type=click.IntRange(1),
              help="Of those, the ones the CPU runs embed.")
@click.option("--model", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="A sentence-transformers folder (default: the packaged all-MiniLM-L6-v2).")
def bench_embed(folder: Path, sentences: int, cpu_sentences: int, model: Path | None) -> None:
    """Sentences per second of a transformer encoder over FOLDER's judgments split by Ratio's splitter: on the
    GPU (float16 and float32, two batch sizes, and float16's least cosine to float32) when there is one, and on
    one CPU thread and all of them. Prints JSON."""
    from backends.encoders import DEFAULT_ENCODER, packaged_model_path
    from lab.bench.embed import measure_embedding

    path = model or packaged_model_path(DEFAULT_ENCODER)
    if path is None:
        raise click.ClickException(f"{DEFAULT_ENCODER} is not packaged here; name a folder with --model")
    try:
        click.echo(json.dumps(measure_embedding(folder, sentences, Path(path), cpu_sentences), indent=2))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc


@click.command("cues")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--limit", type=click.IntRange(1), help="Stop after this many judgments.")
def bench_cues(paths: tuple[Path, ...], limit: int | None) -> None:
    """The role cues by RE2 against the same cues by re, on every sentence of the judgments under PATHS: how many
    judgments were ASCII (RE2's), which differ in any cue column (none should), and the cue milliseconds a
    judgment each way. Prints JSON; exits 1 when any judgment differs."""
    from lab.bench.cues import compare_cues

    result = compare_cues(paths, limit)
    if not result.judgments:
        raise click.ClickException(f"no judgment could be read under {', '.join(map(str, paths))}")
    click.echo(json.dumps(result.to_dict(), indent=2))
    if result.differing:
        raise SystemExit(1)
