"""``ratio bench scale``: the default search measured at growing corpus sizes (issue 30).

Each step grows a scale corpus under its own prefix from a real indexed one (:mod:`lab.bench.corpus_scale`: copies of
the
processed judgments and chunks, the citation graph rewired with its degrees kept), then measures the default
search on it (:mod:`lab.bench.scale`) and the start-up and memory of ``ratio serve`` on it. Every step is
planned before anything is written, so a step that does not fit on the node's disk is refused first; the scale
indices are dropped at the end, in a ``finally`` so an interrupted run cleans up too, unless ``--keep``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ratio.cli.common import BENCHMARKS, Context, emit
from ratio.cli.options import data_option, encoder_option, json_option, max_words_option

if TYPE_CHECKING:
    from opensearchpy import OpenSearch
    from rich.table import Table

    from lab.bench.scale import ServerFigures

__all__ = ["bench_scale"]


def _steps(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        steps = tuple(int(part.replace("_", "")) for part in value.split(",") if part.strip())
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a list of judgment counts such as 3000,30000") from None
    if not steps or any(step < 1 for step in steps) or list(steps) != sorted(set(steps)):
        raise click.BadParameter(f"{value!r}: give growing judgment counts, such as 3000,30000,100000")
    return steps


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _data_path(client: OpenSearch, given: Path | None) -> Path:
    """The node's data folder, whose disk the plan sizes: ``--data-path``, else the path the node reports."""
    if given is not None:
        return given
    nodes = client.nodes.stats(metric="fs")["nodes"].values()
    for node in nodes:
        for data in node.get("fs", {}).get("data", []):
            if Path(data.get("path", "")).exists():
                return Path(data["path"])
    raise click.ClickException("the node's data folder is not on this machine: give --data-path (a folder on the "
                               "node's data disk) so the plan can size the scale corpus")


def _snapshot(client: OpenSearch, judgments: str, folder: Path) -> dict[str, float]:
    """Seconds to build and save the corpus's citation graph snapshot and to store its cited-by counts, as ``ratio
    index`` does after a run (:func:`search.graph.cache.save_graph_state`), so the server maps it at start and
    sorts by the stored counts as it would in production."""
    from search.graph.cache import save_graph_state

    saved = save_graph_state(client, judgments, folder)
    return {"snapshot_s": float(saved["graph_snapshot_seconds"]), "counts_s": float(saved["cited_by_counts_seconds"]),
            "counts_written": int(saved["cited_by_counts_written"])}


def _server(ctx: Context, prefix: str, query: str, graphs: Path) -> ServerFigures:
    """``ratio serve`` on ``prefix`` (no key, no rate limit, no LLM, this run's graph snapshots) started, timed and
    measured."""
    from lab.bench.scale import server_figures

    conn = ctx.settings()
    port = _free_port()
    argv = [sys.executable, "-m", "ratio.cli", "--url", conn.url, "--prefix", prefix, "serve", "--port", str(port),
            "--rate-limit", "off"]
    env = {k: v for k, v in os.environ.items()
           if k not in ("RATIO_SERVE_CONFIG", "RATIO_API_KEY", "RATIO_API_KEY_FILE")}
    env.update(RATIO_LLM="none", RATIO_GRAPHS=str(graphs))
    if conn.user:
        env["OPENSEARCH_USER"] = conn.user
    if conn.password:
        env["OPENSEARCH_PASSWORD"] = conn.password
    return server_figures(argv, f"http://127.0.0.1:{port}", query, env=env)


def _pair(modes: dict, mode: str) -> str:
    lat = modes.get(mode)
    return f"{lat['p50_ms']:.0f} / {lat['p95_ms']:.0f}" if lat else "-"


def _table(rows: list[dict], source: str) -> Table:
    from rich.table import Table

    table = Table("judgments", "chunks", "KB / judgment", "build s", "typed p50/p95", "pasted p50/p95",
                  "document p50/p95", "BM25 page p50/p95 typed", "ranker / BM25 typed, pasted",
                  "profile / candidates / features / score / page ms", "graph snapshot + counts s",
                  "start-up s", "RSS MB", "load before → after",
                  title=f"the default search at scale (grown from {source}; latency in ms)")
    for row in rows:
        lat, stages, server = row["latency"], row["stages_ms"], row.get("server")
        ratios = row["ranker_per_bm25_page"]
        table.add_row(
            f"{row['judgments']:,}", f"{row['chunks']:,}", f"{row['bytes_per_judgment'] / 1024:.1f}",
            f"{row['build_s']:.1f}", _pair(lat.get("typed", {}), "ranker"), _pair(lat.get("pasted", {}), "ranker"),
            _pair(lat.get("document", {}), "document"), _pair(lat.get("typed", {}), "bm25_page"),
            f"{ratios.get('typed') or '-'}, {ratios.get('pasted') or '-'}",
            " / ".join(f"{stages[s]:.0f}" if s in stages else "-"
                       for s in ("profile", "candidates", "features", "score", "page")),
            f"{row['snapshot_s']:.1f} + {row.get('counts_s', 0):.1f}", f"{server['startup_s']:.1f}" if server else "-",
            f"{server['rss_mb']:.0f}" if server else "-",
            f"{row['load_before']:.1f} → {row['load_after']:.1f}")
    return table


@click.command("scale")
@click.option("--steps", required=True, callback=_steps,
              help="Corpus sizes in judgments, growing, comma-separated (e.g. 3000,30000,100000).")
@click.option("--source", help="The prefix of the real indexed corpus to grow from (default: the group's --prefix).")
@click.option("--prefix", "scale_prefix", default="scale", show_default=True,
              help="The scale corpus's own index prefix (its indices are dropped at the end).")
@click.option("--seed", default=0, show_default=True, help="Seed of the copies' variations and the rewiring.")
@click.option("--queries", "count", default=20, show_default=True, type=click.IntRange(min=1),
              help="Queries of each kind per step: typed, pasted fact patterns, whole judgments.")
@click.option("--typed-folder", type=click.Path(file_okay=False, path_type=Path),
              help="The typed-query benchmark's folder (default: the packaged one drawn from AILA 2019).")
@data_option(help="Folder holding the datasets (the pasted fact patterns are AILA 2019's Query_doc.txt).")
@max_words_option(help="Cut each pasted fact pattern to its first N words, as 'ratio bench search' does.")
@click.option("--data-path", type=click.Path(file_okay=False, path_type=Path),
              help="A folder on the node's data disk, whose free space the plan checks (default: the node's path).")
@click.option("--server/--no-server", default=True, show_default=True,
              help="Measure 'ratio serve' on each step: seconds until it answers a search, its resident memory.")
@click.option("--keep", is_flag=True, help="Keep the scale indices afterwards (default: drop them).")
@click.option("--shards", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Primary shards of the scale indices (a query's shards are searched in parallel).")
@encoder_option()
@json_option()
@click.pass_obj
def bench_scale(ctx: Context, steps: tuple[int, ...], source: str | None, scale_prefix: str, seed: int, count: int,
                typed_folder: Path | None, data: Path, max_words: int, data_path: Path | None, server: bool,
                keep: bool, shards: int, encoder: str | None, as_json: bool) -> None:
    """The default search at growing corpus sizes: latency (typed queries, pasted fact patterns, whole judgments,
    BM25 alone on the same queries), the ranker's stages, size per judgment, server start-up and memory.

    Each of --steps grows a scale corpus under --prefix from --source (copies of its processed judgments, the
    citation graph rewired), measures it and prints a row. Everything is planned before anything is written; the
    scale indices are dropped at the end, however the run ends, unless --keep.
    """
    from backends.opensearch import IndexLayout
    from lab.bench.corpus_scale import ScalePrefixError, drop_scale_corpus, grow_scale_corpus, plan_scale
    from lab.bench.scale import document_requests, measure_step
    from ratio.cli.bench import read_queries, typed_texts
    from ratio.encoders import search_encoders
    from search.execute import Searcher
    from search.graph.cache import GraphCache
    from search.graph.citation_graph import load_graph
    from search.query.request import SearchRequest
    from search.query.syntax import as_plain_text

    source = source or ctx.prefix
    if scale_prefix == source:
        raise click.BadParameter("the scale corpus needs a prefix of its own, not the source's", param_hint="--prefix")
    try:
        source_aliases, aliases = IndexLayout(source).aliases(), IndexLayout(scale_prefix).aliases()
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    client = ctx.client()
    if not client.indices.exists(index=source_aliases["judgments"]):
        raise click.ClickException(f"no indexed corpus under --source {source!r} ({source_aliases['judgments']})")
    pasted_file = data / BENCHMARKS["aila-precedents"][0]
    if not pasted_file.is_file():
        raise click.ClickException(f"no pasted fact patterns at {pasted_file}: give --data (the datasets folder)")
    folder = _data_path(client, data_path)
    try:
        plans = [plan_scale(client, source_prefix=source, prefix=scale_prefix, judgments=step, data_path=folder)
                 for step in steps]
    except ScalePrefixError as exc:
        raise click.BadParameter(str(exc), param_hint="--prefix") from exc
    refused = [plan for plan in plans if not plan.fits]
    if refused:
        raise click.ClickException("not run, nothing written: " + "; ".join(
            f"{plan.judgments:,} judgments need {plan.needed_bytes / 1e9:.1f} GB, {plan.free_bytes / 1e9:.1f} GB "
            f"free ({plan.reason})" for plan in refused))
    typed = [SearchRequest.from_query(text, facets=False) for text in typed_texts(typed_folder, count)]
    pasted = [SearchRequest.from_query(as_plain_text(text, max_words), facets=False)
              for text in read_queries(pasted_file)[:count]]
    source_edges = load_graph(client, source_aliases["judgments"], by_parties=False).cites
    model, _ = search_encoders(client, source_aliases, encoder)
    rows: list[dict] = []
    graphs = Path(tempfile.mkdtemp(prefix="ratio-scale-graphs-"))  # this run's graph snapshots, removed with it
    try:
        for step in steps:
            click.echo(f"growing {scale_prefix} to {step:,} judgments ...", err=True)
            growth = grow_scale_corpus(client, source_prefix=source, prefix=scale_prefix, judgments=step,
                                       source_edges=source_edges, seed=seed, shards=shards)
            if growth.stopped:
                raise click.ClickException(f"the scale corpus stopped growing at {growth.judgments:,} judgments: "
                                           f"{growth.stopped}")
            client.indices.refresh(index=f"{aliases['judgments']},{aliases['chunks']}")
            click.echo(f"measuring {growth.judgments:,} judgments / {growth.chunks:,} chunks ...", err=True)
            graph_state = _snapshot(client, aliases["judgments"], graphs)
            # a fresh searcher per step, mapping this step's snapshot as the server does
            searcher = Searcher(client, aliases, model, graphs=GraphCache(client, aliases["judgments"], graphs))
            documents = document_requests(client, aliases["judgments"], count)
            figures = measure_step(searcher, typed=typed, pasted=pasted, documents=documents)
            row = {"step": step, "build_s": round(growth.seconds, 1), "edges": growth.edges,
                   **graph_state, "failed": len(growth.failed), **figures.as_dict()}
            if server:
                row["server"] = asdict(_server(ctx, scale_prefix, typed[0].text if typed else pasted[0].text, graphs))
            rows.append(row)
            click.echo(json.dumps(row), err=True)  # each step's row as it ends: a long run interrupted keeps them
    finally:
        shutil.rmtree(graphs, ignore_errors=True)
        if not keep:
            dropped = drop_scale_corpus(client, scale_prefix)
            click.echo(f"dropped {len(dropped)} scale indices under {scale_prefix!r}", err=True)
    emit({"source": source, "prefix": scale_prefix, "seed": seed, "shards": shards, "queries": count, "kept": keep,
          "steps": rows},
         as_json, _table(rows, source))
