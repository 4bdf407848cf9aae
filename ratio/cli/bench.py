"""``ratio bench search``: p50/p95 latency of BM25, k-NN, hybrid and hybrid + rerank in one run (and of the
LLM steps when an LLM is configured)."""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import asdict
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from backends.encoders import DEFAULT_ENCODER, INDEX_ENCODER, STATIC_ENCODER, is_static
from backends.llm import LLMError
from lab.bench.searches import LLM_MODES, MODES, Latency, measure, percentile
from ratio import settings
from ratio.cli.bench_graph import bench_graph
from ratio.cli.bench_machine import bench_cues, bench_embed, bench_workers
from ratio.cli.common import Context
from ratio.cli.options import (
    api_key_option,
    encoder_option,
    json_option,
    limit_option,
    llm_options,
    max_words_option,
    reranker_option,
    role_mode_option,
)
from ratio.encoders import models_dir, search_encoders, tuned_encoder
from ratio.llm import open_llm
from search.execute import Searcher
from search.query.request import RoleMode, SearchRequest
from search.query.syntax import as_plain_text
from search.retrieval.rerank import BiEncoderRescorer, CrossEncoderReranker

# The pipelines ``ratio bench index`` compares: the fast one (static sentence vectors) and the transformer one.
BENCH_PIPELINES = {"fast": STATIC_ENCODER, "minilm": DEFAULT_ENCODER}


def read_queries(path: Path) -> list[str]:
    """One query per line; AILA's ``AILA_Q1||text`` lines keep only the text."""
    queries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.split("||", 1)[1] if "||" in line else line
        if text.strip():
            queries.append(text.strip())
    return queries


@click.group()
def bench() -> None:
    """Measure Ratio on this machine."""


@bench.command("search")
@click.argument("queries", type=click.Path(exists=True, path_type=Path), required=False)
@click.option("--typed", is_flag=True,
              help="Typed queries: the typed-query benchmark's (QUERIES: its folder; default the packaged one drawn "
                   "from AILA 2019), searched as typed (names, provisions, topic words), every kind in turn.")
@limit_option()
@max_words_option(help="Cut each query to its first N words (AILA fact patterns run past the 1,000-word query "
                       "limit).")
@role_mode_option(choices=[m.value for m in RoleMode if m is not RoleMode.FILTER], default=RoleMode.BOOST.value,
                  help="Role handling (filter needs named roles, and these queries name none).")
@click.option("--rerank-top", default=50, show_default=True, help="Chunks rescored in hybrid_rerank.")
@click.option("--measure", "modes", multiple=True, type=click.Choice(MODES + LLM_MODES),
              help="Measure only these search paths (repeatable; default: every path, the LLM ones with --llm).")
@reranker_option()
@encoder_option()
@llm_options
@json_option()
@click.pass_obj
def bench_search(ctx: Context, queries: Path | None, typed: bool, limit: int | None, max_words: int, role_mode: str,
                 rerank_top: int, modes: tuple[str, ...], reranker: str | None, encoder: str | None,
                 llm_kind: str | None, llm_model: str | None, llm_url: str | None, as_json: bool) -> None:
    """Latency per search path over the queries in QUERIES (one per line, or AILA's Query_doc.txt).

    The queries are searched as plain words (their quotes and operators neutralised), as pasted prose is; with
    --typed, the typed-query benchmark's queries are searched as typed (the kinds interleaved, --limit of them).
    With --llm, the LLM steps are measured too, without the answer cache.
    """
    try:
        llm = open_llm(settings.LLMSettings.read(kind=llm_kind, model=llm_model, url=llm_url), cache=False)
    except (ValueError, LLMError) as exc:
        raise click.ClickException(str(exc)) from exc
    if typed:
        texts = typed_texts(queries, limit)
    elif queries is None:
        raise click.UsageError("give a QUERIES file, or --typed for the typed-query benchmark")
    else:
        texts = [as_plain_text(text, max_words) for text in read_queries(queries)[:limit]]
    client = ctx.client()
    aliases = ctx.aliases()
    model, rescoring = search_encoders(client, aliases, encoder)
    scorer = CrossEncoderReranker(reranker) if reranker else BiEncoderRescorer(rescoring)
    searcher = Searcher(client, aliases, model, reranker=scorer, llm=llm, tuned=tuned_encoder(client, aliases))
    requests = [SearchRequest.from_query(t, role_mode=role_mode, rerank_top=rerank_top, facets=False) for t in texts]
    results = measure(searcher, requests, modes or MODES + (LLM_MODES if llm else ()))
    chunks = client.count(index=aliases["chunks"])["count"]
    judgments = client.count(index=aliases["judgments"])["count"]
    if as_json:
        click.echo(json.dumps({"judgments": judgments, "chunks": chunks, "llm": llm.name if llm else None,
                               "latency": [asdict(r) for r in results]}, indent=2))
        return
    table = Table("mode", "queries", "p50 ms", "p95 ms", "mean ms",
                  title=f"search latency over {judgments} judgments / {chunks} chunks")
    for r in results:
        table.add_row(r.mode, str(r.queries), f"{r.p50_ms:.1f}", f"{r.p95_ms:.1f}", f"{r.mean_ms:.1f}")
    Console().print(table)


def typed_texts(folder: Path | None, limit: int | None) -> list[str]:
    """The typed benchmark's query texts, the kinds interleaved (a title, a short form, a party, ...), so that a
    --limit takes every kind alike."""
    from itertools import chain, zip_longest

    from lab.evaluate.typed import load
    from ratio.cli.eval_typed import typed_folder

    benchmark = load(typed_folder(folder))
    rounds = zip_longest(*(benchmark.part(kind=kind) for kind in benchmark.kinds))
    return [q.text for q in chain.from_iterable(rounds) if q is not None][:limit]


@bench.command("api")
@click.argument("queries", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--url", default="http://127.0.0.1:8000", show_default=True, help="A running 'ratio serve'.")
@api_key_option(help="The server's API key (X-API-Key header), if it requires one.")
@limit_option()
@max_words_option()
@json_option()
def bench_api(queries: Path, url: str, api_key: str | None, limit: int | None, max_words: int,
              as_json: bool) -> None:
    """Latency of the REST API as a client sees it, over HTTP, one request at a time: a search (page of 10,
    with facets and highlights), the search page's HTML, and the judgment of each query's top hit."""
    import requests

    session = requests.Session()
    if api_key:
        session.headers["X-API-Key"] = api_key
    texts = [as_plain_text(text, max_words) for text in read_queries(queries)[:limit]]
    if not texts:
        raise click.ClickException(f"no queries in {queries}")
    base = url.rstrip("/")

    def timed(path: str, **params: object) -> tuple[float, requests.Response]:
        started = time.perf_counter()
        response = session.get(f"{base}{path}", params=params, timeout=120)
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code == 429:
            raise click.ClickException("the server's rate limit stopped the benchmark: start it with "
                                       "'ratio serve --rate-limit off'")
        if not response.ok:
            raise click.ClickException(f"GET {path} answered {response.status_code}: {response.text[:300]}")
        return elapsed, response

    try:
        timed("/api/v1/search", q=texts[0])  # warm-up: loads the encoder on the server
    except requests.ConnectionError as exc:
        raise click.ClickException(f"no Ratio server at {base}: start one with 'ratio serve'") from exc
    times: dict[str, list[float]] = {"api_search": [], "page_search": [], "api_judgment": []}
    for text in texts:
        elapsed, response = timed("/api/v1/search", q=text)
        times["api_search"].append(elapsed)
        times["page_search"].append(timed("/", q=text)[0])
        hits = response.json()["hits"]
        if hits:
            times["api_judgment"].append(timed(f"/api/v1/judgments/{hits[0]['judgment_id']}")[0])
    results = [Latency(name, len(values), round(percentile(values, 0.5), 1), round(percentile(values, 0.95), 1),
                       round(statistics.fmean(values), 1)) for name, values in times.items() if values]
    health = session.get(f"{base}/api/v1/health", timeout=30).json()
    if as_json:
        click.echo(json.dumps({"url": base, "indices": health.get("indices"),
                               "latency": [asdict(r) for r in results]}, indent=2))
        return
    table = Table("request", "n", "p50 ms", "p95 ms", "mean ms", title=f"API latency at {base}")
    for r in results:
        table.add_row(r.mode, str(r.queries), f"{r.p50_ms:.1f}", f"{r.p95_ms:.1f}", f"{r.mean_ms:.1f}")
    Console().print(table)


@bench.command("index")
@click.argument("paths", nargs=-1, required=True)
@click.option("--limit", type=int, help="Index only the first N judgments (files in sorted order; statutes skipped).")
@click.option("--pipeline", "pipelines", multiple=True, type=click.Choice(sorted(BENCH_PIPELINES)),
              help="Pipelines to run, in order (repeatable; default: all, the default pipeline first).")
@click.option("--batch-size", default=16, show_default=True, help="Judgments per batch.")
@click.option("--threads", default=2, show_default=True, help="torch threads in each pipeline's process.")
@json_option(help="One JSON object; its judgments_per_s is the default pipeline's.")
@click.pass_obj
def bench_index_command(ctx: Context, paths: tuple[str, ...], limit: int | None, pipelines: tuple[str, ...],
                        batch_size: int, threads: int, as_json: bool) -> None:
    """Indexing throughput of the fast (static encoder) and the MiniLM pipeline over the same judgments.

    Each pipeline runs in a fresh process into a throwaway index prefix (deleted afterwards) with a fresh
    embedding cache, and reports judgments/s, sentences/s, the time per stage and its peak memory.
    """
    from lab.bench.indexing import BenchSpec, bench_index, throwaway_prefix

    chosen = pipelines or tuple(sorted(BENCH_PIPELINES, key=lambda name: BENCH_PIPELINES[name] != INDEX_ENCODER))
    connection = ctx.settings()
    specs = [BenchSpec(name=name, encoder=BENCH_PIPELINES[name], paths=paths, limit=limit, connection=connection,
                       prefix=throwaway_prefix("bench", name), models_dir=models_dir(),
                       cache=not is_static(BENCH_PIPELINES[name]), batch_size=batch_size, threads=threads)
             for name in chosen]
    results = bench_index(specs)
    default = next((r for r in results if r.encoder == INDEX_ENCODER), results[0])
    data = {"judgments_per_s": default.judgments_per_s, "default_pipeline": default.name,
            "sentences_per_s": default.sentences_per_s, "pipelines": [r.as_dict() for r in results]}
    if len(results) > 1:
        base = next((r for r in results if r.name != default.name), None)
        if base is not None and base.judgments_per_s > 0:
            data["speedup"] = round(default.judgments_per_s / base.judgments_per_s, 2)
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    table = Table("pipeline", "encoder", "judgments", "sentences", "seconds", "judgments/s", "sentences/s",
                  "parse / embed / roles / chunk / bulk s", "peak RSS MB",
                  title=f"indexing throughput ({', '.join(paths)}{f', first {limit}' if limit else ''})")
    for r in results:
        split = " / ".join(f"{r.times[k]:.1f}" for k in ("parse", "embed", "roles", "chunk", "bulk"))
        table.add_row(r.name, r.encoder, str(r.judgments), str(r.sentences), f"{r.seconds:.1f}",
                      f"{r.judgments_per_s:.2f}", f"{r.sentences_per_s:.0f}", split, f"{r.peak_rss_mb:.0f}")
    Console().print(table)
    if "speedup" in data:
        click.echo(f"{default.name} / other: {data['speedup']}x judgments/s")


@bench.command("hostile")
@click.option("--size", default=200_000, show_default=True, type=click.IntRange(min=1_000),
              help="Length in characters of the pathological runs (the 1 MB citation body is always 1 MB).")
@click.option("--index", "through_index", is_flag=True,
              help="Also index the hostile files with the fast pipeline into a throwaway prefix on the node "
                   "(deleted afterwards) and report what was indexed and what failed, with the reasons.")
@click.option("--analysis", "through_analysis", is_flag=True,
              help="Also time the node's analysis of the Unicode probes (combining marks, CJK runs, zero-width and "
                   "right-to-left text, 20,000 characters each) through ratio_text and ratio_text_search, on a "
                   "throwaway index.")
@json_option()
@click.pass_obj
def bench_hostile(ctx: Context, size: int, through_index: bool, through_analysis: bool, as_json: bool) -> None:
    """Seconds each hostile input takes through loading, the citation scan and sentence splitting.

    The inputs (lab/hostile.py) are the probes of a security review and more of their kind: a capitalised
    run without spaces, a 1 MB body of citation-like text, huge lines, deep nesting, NUL bytes and terminal
    escapes after the first 8 KB, mixed encodings, a gzip bomb. Every one must finish in seconds, with a
    judgment or a reason; a figure that grows faster than the input is a regression.
    """
    import os
    import tempfile

    from lab.hostile import hostile_inputs, measure

    inputs = hostile_inputs(size)
    cpu_started = time.process_time()
    with tempfile.TemporaryDirectory(prefix="ratio-hostile-") as folder:
        timings = measure(Path(folder), inputs)
        cpu = time.process_time() - cpu_started
        indexed = None
        if through_index:
            from lab.bench.indexing import BenchSpec, bench_index, throwaway_prefix

            spec = BenchSpec(name="hostile", encoder=INDEX_ENCODER, paths=(folder,), limit=None,
                             connection=ctx.settings(), prefix=throwaway_prefix("bench", "hostile"),
                             models_dir=models_dir(), cache=False, threads=1)  # as ratio index runs it
            indexed = bench_index([spec])[0]
    data = {
        "size": size, "cpu_seconds": round(cpu, 2), "load_average": round(os.getloadavg()[0], 1),
        "inputs": [{"name": t.name, "bytes": t.bytes, "load_s": round(t.load, 3), "citations_s": round(t.citations, 3),
                    "sentences_s": round(t.sentences, 3), "total_s": round(t.total, 3),
                    "longest_sentence": t.longest_sentence, "outcome": t.outcome} for t in timings],
    }
    if indexed is not None:
        data["index"] = {"judgments": indexed.judgments, "failed": indexed.extra.get("failed", []),
                         "seconds": indexed.seconds, "times": indexed.times}
    analysed = _hostile_analysis(ctx) if through_analysis else None
    if analysed is not None:
        data["analysis"] = [{"name": a.name, "chars": a.chars, "analyzer": a.analyzer, "seconds": round(a.seconds, 3),
                             "tokens": a.tokens} for a in analysed]
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    table = Table("input", "bytes", "load s", "citations s", "sentences s", "longest sentence", "outcome",
                  title=f"hostile inputs (runs of {size:,} characters; wall seconds, load average "
                        f"{data['load_average']})")
    for t in timings:
        table.add_row(t.name, f"{t.bytes:,}", f"{t.load:.2f}", f"{t.citations:.2f}", f"{t.sentences:.2f}",
                      f"{t.longest_sentence:,}", t.outcome)
    Console().print(table)
    click.echo(f"CPU seconds, all inputs: {cpu:.1f}")
    if indexed is not None:
        click.echo(f"indexed {indexed.judgments} judgments in {indexed.seconds:.1f} s "
                   f"({', '.join(f'{k} {v:.1f}s' for k, v in indexed.times.items())}); failed {indexed.failed}:")
        for item, reason in indexed.extra.get("failed", []):
            click.echo(f"  {Path(item).name}: {reason}")
    if analysed is not None:
        table = Table("probe", "characters", "analyzer", "seconds", "tokens", title="the node's analysis")
        for a in analysed:
            table.add_row(a.name, f"{a.chars:,}", a.analyzer, f"{a.seconds:.3f}", f"{a.tokens:,}")
        Console().print(table)


def _hostile_analysis(ctx: Context) -> list:
    """The Unicode probes through the node's analyzers on a throwaway index with Ratio's analysis settings (issue
    29: the old ``\\b`` char filters were quadratic in a run of combining marks)."""
    import analyzers
    from backends.opensearch import connect
    from lab.bench.indexing import throwaway_prefix
    from lab.hostile import analysis_seconds, unicode_texts

    client = connect(ctx.settings())
    index = f"{throwaway_prefix('bench', 'analysis')}-analysis"
    settings = {"analysis": analyzers.analysis_settings("en"), "number_of_replicas": 0,
                "analyze": {"max_token_count": 1_000_000}}
    client.indices.create(index=index, body={"settings": {"index": settings}})
    try:
        return analysis_seconds(client, index, unicode_texts())
    finally:
        client.indices.delete(index=index, ignore_unavailable=True)


bench.add_command(bench_graph)  # ratio bench graph (ratio.cli.bench_graph)
bench.add_command(bench_workers)  # ratio bench workers (ratio.cli.bench_machine)
bench.add_command(bench_embed)  # ratio bench embed (ratio.cli.bench_machine)
bench.add_command(bench_cues)  # ratio bench cues (ratio.cli.bench_machine)
