"""``ratio index PATH...``: the write path, from judgment and statute files to chunk documents."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

import mappings
from backends.encoders import DEFAULT_ENCODER, INDEX_ENCODER, ModelError, encoder_dimension
from indexer.budget import DEFAULT_JUDGMENT_SECONDS
from ratio import settings
from ratio.cli.common import Context, configured_llm
from ratio.cli.distributed import index_on_ray, print_workers, ray_options
from ratio.cli.extras import require
from ratio.cli.options import encoder_option, json_option, llm_options, role_head_option
from ratio.settings import LLMSettings


def _labeller(encoder_name: str, head: Path | None):
    """The encoder and the role head trained on its vectors (ratio.ingest.open_labeller)."""
    from ratio.ingest import open_labeller  # the write path's models (torch): imported by a run, not by --help

    try:
        return open_labeller(encoder_name, head)
    except ModelError as exc:
        raise click.ClickException(str(exc)) from exc


@click.command("index")
@click.argument("paths", nargs=-1, required=True)
@click.option("--source", help="Source label stored on every judgment (default: from the file format).")
@click.option("--id-prefix", help="Prefix for judgment ids, to keep two corpora apart ('aila' gives aila:C1).")
@encoder_option(help="Encoder for sentence, chunk and provision vectors, with the role head trained on it: "
                     f"{INDEX_ENCODER} (static, fast; the default for new indices) or {DEFAULT_ENCODER} (the "
                     "transformer; slow on a CPU). Default: the encoder the existing indices were built with. "
                     "Searches encode queries with the index's encoder.")
@role_head_option()
@click.option("--window", type=click.IntRange(min=1), default=15, show_default=True,
              help="Most sentences in one chunk.")
@click.option("--overlap", type=click.IntRange(min=0), default=3, show_default=True,
              help="Sentences shared by consecutive windows (fewer than --window).")
@click.option("--batch-size", type=click.IntRange(min=1), default=16, show_default=True, help="Judgments per batch.")
@click.option("--max-file-mb", type=click.IntRange(min=1), default=50, show_default=True,
              help="Files larger than this are refused.")
@click.option("--strict", is_flag=True, help="Exit with status 1 when any item failed (without it: only when "
                                            "every item failed).")
@click.option("--replace", is_flag=True,
              help="Let a judgment replace the stored one of the same id although it comes from another file "
                   "(without it, that judgment fails with a reason naming the stored one's file).")
@click.option("--retry-seconds", type=click.FloatRange(min=0), envvar="RATIO_RETRY_SECONDS", default=60.0,
              show_default=True, help="How long an unreachable cluster is asked again (with backoff) before the run "
                                      "stops with its report; re-running resumes.")
@click.option("--judgment-seconds", type=click.FloatRange(min=0, min_open=True), envvar="RATIO_JUDGMENT_SECONDS",
              default=DEFAULT_JUDGMENT_SECONDS, show_default=True,
              help="Time budget of one judgment, checked after each step of loading and processing: a judgment "
                   "over it fails alone ('took more than N s in <step>') and the batch goes on.")
@click.option("--refine-summaries", is_flag=True,
              help="Rewrite each summary's facts and legal issues with the LLM (--llm), kept only where the "
                   "judgment supports them; seconds per judgment on a CPU.")
@llm_options
@ray_options
@json_option(help="Print the report as JSON.")
@click.pass_obj
def index(ctx: Context, paths: tuple[str, ...], source: str | None, id_prefix: str | None, encoder: str | None,
          role_head: Path | None, window: int, overlap: int, batch_size: int, max_file_mb: int, strict: bool,
          replace: bool, retry_seconds: float, judgment_seconds: float, refine_summaries: bool, llm_kind: str | None,
          llm_model: str | None, llm_url: str | None, ray_address: str | None, ray_workers: int, num_cpus: float,
          num_gpus: float, block_size: int, as_json: bool) -> None:
    """Index judgments and statutes from files, directories or globs (.txt, .txt.gz, .json, .jsonl, .pdf, .html).

    Re-running on unchanged input changes nothing and embeds nothing; a changed file replaces its own
    judgment. Files that cannot be read, and ids that another file already holds (in this run or in the
    index), are reported with the reason; the rest of the batch is indexed. When the cluster stops answering for
    --retry-seconds, the run ends with its report (exit status 1) and re-running resumes it. With --ray the
    same pipeline runs as a Ray Data job and the report adds each worker's throughput.
    """
    from opensearchpy.exceptions import OpenSearchException
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from backends.opensearch import create_indices, install_pipelines
    from backends.opensearch.indices import fit_to_cluster, index_encoder
    from indexer.loaders import LoadOptions, iter_files, load
    from indexer.pipeline import ChunkOptions, Pipeline
    from indexer.writer import BulkSettings, IndexWriter
    from ratio.cli.alerts import report_index_alerts
    from ratio.ingest import PipelineRecipe

    if ray_address is not None:
        require("ray", what="--ray")  # before the models load and the indices are prepared
    if overlap >= window:
        raise click.BadParameter(f"the overlap ({overlap}) must be smaller than the window ({window})",
                                 param_hint="--overlap")
    try:
        chunk_options = ChunkOptions(window=window, overlap=overlap)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    try:
        load_options = LoadOptions(max_bytes=max_file_mb * 1024 * 1024, id_prefix=id_prefix, source=source,
                                   judgment_seconds=judgment_seconds)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--id-prefix") from exc
    llm = configured_llm(llm_kind, llm_model, llm_url) if refine_summaries else None
    if refine_summaries and llm is None:
        raise click.UsageError("--refine-summaries needs an LLM: add --llm local (or --llm http with --llm-url)")
    client = ctx.client()
    layout = ctx.layout
    try:
        existing = index_encoder(client, layout.alias("chunks"))
    except OpenSearchException as exc:
        raise click.ClickException(f"cannot reach OpenSearch at {ctx.settings().url}: {exc}") from exc
    encoder = encoder or existing or INDEX_ENCODER
    if existing is not None and existing != encoder:
        raise click.ClickException(
            f"the indices under prefix {ctx.prefix!r} hold vectors of {existing}; index with --encoder {existing}, "
            f"or into another --prefix (searches encode queries with the index's encoder)")
    dimension = encoder_dimension(encoder)
    labeller = _labeller(encoder, role_head)
    if dimension is None:
        dimension = int(labeller.embed(["dimension probe"]).shape[1])
    try:
        options = fit_to_cluster(client, mappings.IndexOptions(dimension=dimension, encoder=encoder,
                                                               engine=settings.Environment.read().knn_engine))
        create_indices(client, layout, options)
        install_pipelines(client)
    except OpenSearchException as exc:
        raise click.ClickException(f"cannot prepare the indices on {ctx.settings().url}: {exc}") from exc
    aliases = ctx.aliases()
    total = sum(1 for _ in iter_files(paths))
    err = Console(stderr=True)
    progress = Progress(TextColumn("[bold]indexing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("{task.fields[rate]}"), console=err, disable=as_json or not err.is_terminal)
    started = time.monotonic()
    with progress:
        task = progress.add_task("index", total=total or None, rate="")

        def advance(what: str, count: int) -> None:
            progress.advance(task, count)
            done = progress.tasks[0].completed
            progress.update(task, rate=f"{done / max(time.monotonic() - started, 1e-6):.1f} docs/s")

        bulk = BulkSettings(retry_seconds=retry_seconds)
        if ray_address is None:
            writer = IndexWriter(client, aliases, Pipeline(labeller, chunk_options, llm, judgment_seconds),
                                 batch_size=batch_size, bulk=bulk, progress=advance, replace=replace)
            report, on_ray = writer.run(load(paths, load_options)), None
        else:
            recipe = PipelineRecipe(encoder, str(role_head) if role_head else None, chunk_options,
                                    LLMSettings.read(kind=llm_kind, model=llm_model, url=llm_url) if llm else None,
                                    judgment_seconds)
            on_ray = index_on_ray(paths, address=ray_address, recipe=recipe, connection=ctx.settings(),
                                  aliases=aliases, load_options=load_options, bulk=bulk, batch_size=batch_size,
                                  workers=ray_workers, num_cpus=num_cpus, num_gpus=num_gpus,
                                  block_size=block_size, progress=advance, replace=replace)
            report = on_ray.report
    data = on_ray.as_dict() if on_ray is not None else report.as_dict()
    mapped = _map_provisions(client, aliases, report)
    if mapped is not None:
        data["provisions_mapping"] = mapped
    data.update(_write_graph_snapshot(client, aliases, report) or {})
    if as_json:
        if not report.stopped:
            report_index_alerts(client, aliases, report.indexed_ids, data)
        click.echo(json.dumps(data, indent=2))
    else:
        table = Table("", "", title="index report")
        for key in ("judgments_indexed", "judgments_unchanged", "chunks_indexed", "chunks_deleted",
                    "provisions_indexed", "provisions_unchanged", "sentences"):
            table.add_row(key.replace("_", " "), str(data[key]))
        table.add_row("failed", str(len(report.failed)))
        if report.retries:
            table.add_row("retries", str(report.retries))
        seconds = max(report.seconds, 1e-9)
        table.add_row("seconds", f"{report.seconds:.1f}")
        table.add_row("judgments/s", f"{report.judgments_indexed / seconds:.2f}")
        table.add_row("chunks/s", f"{report.chunks_indexed / seconds:.1f}")
        table.add_row("time split", ", ".join(f"{k} {v:.1f}s" for k, v in data["times"].items()))
        if mapped is not None:
            table.add_row("provisions mapped", ", ".join(f"{n} {status}" for status, n in mapped.items()))
        Console().print(table)
        if on_ray is not None:
            print_workers(on_ray)
        for found in report.leftovers:
            click.echo(f"bulk settings: {found}", err=True)
        for item, warning in report.warnings:
            click.echo(f"warning {item}: {warning}", err=True)
        for item, reason in report.failed:
            click.echo(f"FAILED {item}: {reason}", err=True)
        if report.stopped:
            click.echo(f"STOPPED: {report.stopped}", err=True)
        else:
            report_index_alerts(client, aliases, report.indexed_ids, None)
    if report.stopped or (report.failed and (strict or nothing_done(report))):
        sys.exit(1)


def _map_provisions(client, aliases: dict[str, str], report) -> dict[str, int] | None:
    """Map the provisions to their Act and section from the judgments quoting them (:mod:`indexer.provision_map`)
    after a run that wrote judgments or provisions, or when a provision has never been mapped; None when there
    was nothing to do (or the run stopped: the cluster is gone)."""
    if report.stopped:
        return None
    provisions = aliases["provisions"]
    if not (report.judgments_indexed or report.provisions_indexed) and not client.count(
            index=provisions, body={"query": {"bool": {"must_not": [{"exists": {"field": "mapping.status"}}]}}},
    )["count"]:
        return None
    if not client.count(index=provisions)["count"]:
        return None
    from indexer.provision_map import map_provisions, write_mappings

    found = map_provisions(client, aliases)
    write_mappings(client, provisions, found)
    return found.counts()


def _write_graph_snapshot(client, aliases: dict[str, str], report) -> dict[str, float | int] | None:
    """Build the corpus's citation graph and save its snapshot (:mod:`search.graph.snapshot`) after a run that
    wrote judgments, so that a server's next start maps it instead of scrolling every judgment (at a million
    judgments the scroll and build take minutes, the mapping under a second; docs/capacity.md), then store
    the judgments' changed cited-by counts (:mod:`search.graph.store`: the cited-by sort reads them). The
    seconds each took and the counts written; None when nothing was written or the run stopped."""
    if report.stopped or not (report.judgments_indexed or report.chunks_deleted):
        return None
    from ratio.settings import graphs_dir
    from search.graph.cache import save_graph_state

    return save_graph_state(client, aliases["judgments"], graphs_dir())


def nothing_done(report) -> bool:
    """Whether every item failed: nothing indexed and nothing found unchanged."""
    return not (report.judgments_indexed or report.judgments_unchanged or report.provisions_indexed
                or report.provisions_unchanged)
