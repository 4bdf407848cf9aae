"""``ratio eval``: score named search configurations on a benchmark's queries and qrels, and report.

Benchmarks are names for a queries file and a qrels file under a data folder (``--data``, default
``../shared/data``); ``--queries`` and ``--qrels`` replace either, so another qrels file for the same
queries needs no code. Queries without relevance judgments are skipped and counted.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from backends.encoders import DEFAULT_ENCODER, ModelError, load_encoder
from lab.evaluate import Evaluation, evaluate, judged, ranked_run, read_qrels, read_queries, write_report
from lab.evaluate.provision_qa import METHODS
from lab.evaluate.splits import split_queries
from lab.evaluate.systems import CONFIGS, CachedReranker, LabelledRanker, LabelledReranker, Runner, filter_safety
from ratio.cli.common import BENCHMARKS, Context, configured_llm
from ratio.cli.eval_tools import mapping_report_command, rankings_command, statutes_grid_command
from ratio.cli.extras import requires
from ratio.cli.options import (
    data_option,
    either,
    encoder_option,
    hidden_alias,
    llm_options,
    max_words_option,
    query_file_options,
    rerank_weight_option,
    reranker_option,
    role_head_option,
)
from ratio.encoders import search_encoders, tuned_encoder
from search.execute import Searcher
from search.query.options import DEFAULT_LLM_RERANK, MAX_LLM_RERANK
from search.ranking.model import RankerModel, RankerModelError
from search.retrieval.rerank import BiEncoderRescorer, CrossEncoderReranker

out_option = click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
                          help="Report folder.")


def _label(spec: str, option: str) -> tuple[str, str]:
    label, sep, rest = spec.partition("=")
    if not sep or not label or not rest or ":" in label:
        raise ValueError(f"{option} {spec!r}: expected LABEL=FOLDER")
    return label, rest


def labelled_rerankers(specs: tuple[str, ...], encoder: Any) -> list[LabelledReranker]:
    """``LABEL=SPEC[@WEIGHT]`` options as rerankers; each distinct SPEC is loaded once and caches its scores."""
    loaded: dict[str, CachedReranker] = {}
    found = []
    for spec in specs:
        label, sep, rest = spec.partition("=")
        if not sep or not label or not rest or ":" in label:
            raise ValueError(f"--labelled-reranker {spec!r}: expected LABEL=SPEC[@WEIGHT]")
        source, _, weight_text = rest.partition("@")
        try:
            weight = float(weight_text) if weight_text else 1.0
        except ValueError:
            raise ValueError(f"--labelled-reranker {spec!r}: the weight {weight_text!r} is not a number") from None
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"--labelled-reranker {spec!r}: the weight must be between 0 and 1")
        if source not in loaded:
            if source == "bi-encoder":
                model: Any = BiEncoderRescorer(encoder)
            elif source.startswith("bi-encoder:"):
                model = BiEncoderRescorer(load_encoder(source.split(":", 1)[1]))
            else:
                if not Path(source).is_dir():
                    raise ValueError(f"--labelled-reranker {spec!r}: {source} is not a model folder")
                model = CrossEncoderReranker(source)
            loaded[source] = CachedReranker(model)
        found.append(LabelledReranker(label, loaded[source], weight, source))
    return found


@click.group("eval")
def eval_group() -> None:
    """Retrieval quality on benchmarks with relevance judgments."""


@eval_group.command("configs")
def configs_command() -> None:
    """List the named configurations."""
    for config in CONFIGS.values():
        needs = ", ".join(n for n, on in (("LLM", config.llm), ("reranker", config.reranker)) if on)
        click.echo(f"{config.name:24} {config.task:10} {config.description}{f' (needs {needs})' if needs else ''}")


@eval_group.command("run")
@click.argument("benchmark", type=click.Choice(sorted([*BENCHMARKS, "typed"])))
@data_option()
@query_file_options("Queries instead.", "Qrels instead.", suffix="_path")
@click.option("--config", "configs", multiple=True, help="Configuration (repeatable; default: all that can run).")
@click.option("--baseline", help="Configuration the others are tested against (default: the first).")
@click.option("--limit", type=int, help="Only the first N judged queries.")
@click.option("--half", type=click.Choice(["odd", "even"]),
              help="Only the judged queries at odd (1st, 3rd, ...) or even positions: choose on one half, report "
                   "on the other, so nothing reported was tuned on.")
@click.option("--split", type=click.Choice(["tuning", "reported"]),
              help="Only the tuning or the reported queries of the benchmark's split file "
                   "(lab/evaluate/splits/; the halves by position where a benchmark has none).")
@max_words_option(help="Cut each query to N words.")
@click.option("--candidates", default=1000, show_default=True, help="Chunks fetched per sub-query.")
@out_option
@click.option("--run", "runs", multiple=True, metavar="LABEL=FILE",
              help="Rankings made elsewhere (JSON: qid -> judgment ids, best first; 'ratio eval rankings' makes them, "
                   "in any checkout that has it) scored as configuration run:LABEL (repeatable): a 'before' row.")
@click.option("--ranker-model", "ranker_models", multiple=True, metavar="LABEL=FOLDER",
              help="A learned ranker model for configuration ranker:LABEL (repeatable): ablations and candidates "
                   "scored on the default's features.")
@reranker_option(help="CrossEncoder for hybrid_rerank (default: bi-encoder).")
@rerank_weight_option(help="The reranker's share in hybrid_rerank (1: its score replaces the fused one).")
@click.option("--labelled-reranker", "labelled", multiple=True, metavar="LABEL=SPEC[@WEIGHT]",
              help="A reranker for configuration hybrid_rerank:LABEL (repeatable). SPEC is a CrossEncoder folder, "
                   "'bi-encoder' (the --encoder) or 'bi-encoder:FOLDER'; WEIGHT is its blend share (default 1). "
                   "One SPEC under several labels is scored once.")
@click.option("--llm-rerank-top", type=click.IntRange(1, MAX_LLM_RERANK), default=DEFAULT_LLM_RERANK,
              show_default=True, help="The judgments default_llm_rerank grades per query.")
@click.option("--llm-rerank-weight", type=click.FloatRange(0.0, 1.0), default=None,
              help="The grade's share in default_llm_rerank (default: the product's, chosen on the tuning half).")
@encoder_option()
@llm_options
@click.pass_obj
@requires("ir_measures", "scipy.stats", "matplotlib")  # scoring, the paired tests and the plot, after the searches
def run_command(ctx: Context, benchmark: str, data: Path, queries_path: Path | None, qrels_path: Path | None,
                configs: tuple[str, ...], baseline: str | None, limit: int | None, half: str | None,
                split: str | None, max_words: int, candidates: int, out: Path, runs: tuple[str, ...],
                ranker_models: tuple[str, ...],
                reranker: str | None, rerank_weight: float, labelled: tuple[str, ...], llm_rerank_top: int,
                llm_rerank_weight: float | None, encoder: str | None,
                llm_kind: str | None, llm_model: str | None, llm_url: str | None) -> None:
    """Run CONFIGs on BENCHMARK, score them (MAP, P@10, Bpref, MRR, nDCG@10, R@100, R@1000), test each
    against the baseline, and write report.md, report.json and per_query_ap.png into --out.

    BENCHMARK 'typed' is the typed-query benchmark (names, provisions, topic words; --queries: its folder,
    default the packaged one drawn from the AILA 2019 corpus), scored per kind: success@1, success@10 and MRR@10
    for known items, MAP and nDCG@10 for the rest, one report per kind under --out."""
    saved = _saved_runs(runs)
    if benchmark == "typed":
        _run_typed(ctx, queries_path, configs, baseline, limit, half, split, candidates, out, ranker_models,
                   encoder, saved)
        return
    default_queries, default_qrels, task = BENCHMARKS[benchmark]
    queries_path = queries_path or data / default_queries
    qrels_path = qrels_path or data / default_qrels
    all_qrels = read_qrels(qrels_path)
    queries, skipped = judged(read_queries(queries_path), all_qrels)
    if half and split:
        raise click.UsageError("use --half or --split, not both")
    if split:
        chosen_ids = split_queries(benchmark, split)
        if chosen_ids is None:
            half = "odd" if split == "tuning" else "even"
        else:
            queries = [q for q in queries if q.qid in chosen_ids]
    if half:
        queries = queries[0 if half == "odd" else 1::2]
    queries = queries[:limit]
    # Score only the queries run: the metrics count every judged query in the qrels, a missing one as 0.
    qrels = {q.qid: all_qrels[q.qid] for q in queries}
    aliases = ctx.aliases()
    model, rescoring = search_encoders(ctx.client(), aliases, encoder)
    llm = configured_llm(llm_kind, llm_model, llm_url)
    scorer = CrossEncoderReranker(reranker) if reranker else BiEncoderRescorer(rescoring)
    searcher = Searcher(ctx.client(), aliases, model, reranker=scorer, llm=llm, rerank_weight=rerank_weight,
                        tuned=tuned_encoder(ctx.client(), aliases))
    try:
        rerankers = labelled_rerankers(labelled, rescoring)
    except (ValueError, OSError, ModelError) as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        rankers = [LabelledRanker(label, RankerModel.load(folder), folder)
                   for label, folder in (_label(spec, "--ranker-model") for spec in ranker_models)]
    except (ValueError, RankerModelError) as exc:
        raise click.ClickException(str(exc)) from exc
    runner = Runner(searcher, max_words=max_words, candidates=candidates, rerankers=rerankers, rankers=rankers,
                    saved=saved, task=task, llm_rerank_top=llm_rerank_top, llm_rerank_weight=llm_rerank_weight)
    listed = [c.name for c in CONFIGS.values() if c.task == task and (llm or not c.llm)]
    box = ["default"] if task == "provisions" else []  # the provisions box (the judgments' default is listed)
    names = list(dict.fromkeys(configs)) or box + listed + [f"ranker:{r.label}" for r in rankers]
    if baseline and baseline not in names:  # run it too (as the typed path does), rather than fail at the end
        names = [baseline, *names]
    try:
        chosen = [runner.check(name) for name in names]
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    if any(c.task not in (task, "any") for c in chosen):
        raise click.ClickException(f"{benchmark} ranks {task}; these configurations rank something else: "
                                   f"{', '.join(c.name for c in chosen if c.task not in (task, 'any'))}")
    results: list[tuple[str, dict, Evaluation]] = []
    for config in chosen:
        started = time.perf_counter()
        rankings = {}
        for query in queries:
            rankings[query.qid] = runner.rank(config.name, query.text, query.qid)
        seconds = time.perf_counter() - started
        evaluation = evaluate(ranked_run(rankings), qrels)
        options = {"description": config.description, "seconds": round(seconds, 1), "max_words": max_words,
                   "candidates": candidates, "llm": llm.name if (llm and config.llm) else None}
        if config.name == "default_llm_rerank":
            options |= {"llm_rerank_top": llm_rerank_top, "llm_rerank_weight": searcher.llm_rerank_weight
                        if llm_rerank_weight is None else llm_rerank_weight}
        if config.name == "hybrid_rerank":
            options |= {"reranker": reranker or "bi-encoder", "rerank_weight": rerank_weight}
        results.append((config.name, options, evaluation))
        click.echo(f"{config.name:24} MAP {evaluation.mean['MAP']:.4f}  P@10 {evaluation.mean['P@10']:.4f}  "
                   f"R@100 {evaluation.mean['R@100']:.4f}  ({seconds:.0f} s)", err=True)
    notes = [f"{len(queries)} judged queries; {len(skipped)} skipped without relevance judgments: "
             f"{', '.join(skipped) or 'none'}.",
             {None: "No parameter was tuned on these queries: the configurations use the search layer's defaults.",
              "odd": "Selection half: a default chosen from this table is reported on the even half, never here.",
              "even": "Reporting half: defaults were chosen on the odd half; nothing was tuned on these."}[half]
             if not split or half else
             {"tuning": "Tuning split: choices are made on these queries; never report them as results.",
              "reported": "Reported split: scored once per final configuration; nothing was trained, tuned or "
                          "selected on these."}[split]]
    if runner.llm_reranks:
        stages = runner.llm_reranks
        kept = [s for s in stages if not s.applied]
        notes.append(f"LLM rerank: {len(stages)} queries, {sum(len(s.grades) for s in stages)} judgments graded, "
                     f"{sum(s.seconds for s in stages) / len(stages):.1f} s a query (answers cached: a repeat costs "
                     f"nothing); the ranker's order kept for {len(kept)}"
                     f"{f' (first: {kept[0].note})' if kept else ''}.")
    if runner.llm_failures:
        notes.append(f"The LLM failed {len(runner.llm_failures)} times; those queries ran without that expansion "
                     f"(first: {runner.llm_failures[0][:200]}).")
    if task == "judgments":
        safety = filter_safety(searcher, queries, qrels, max_words=max_words)
        notes.append(f"Filter safety (role mode 'filter' with the intent's roles): of {safety['relevant']} relevant "
                     f"judgments over {safety['queries']} queries, {safety['unreachable']} ({safety['share']:.1%}) "
                     f"have no chunk in those roles, so filter mode can never return them; {safety['lexical']} "
                     f"({safety['lexical_share']:.1%}) have no chunk in those roles matching the query's words, "
                     f"so only k-NN can reach them ({safety['no_match']} match the query's words in no "
                     f"chunk).")
    info = {"benchmark": benchmark, "half": half or "all", "queries": str(queries_path), "qrels": str(qrels_path),
            "task": task, "index prefix": ctx.prefix,
            "command": "ratio " + " ".join(shlex.quote(a) for a in sys.argv[1:])}
    files = write_report(out, f"{benchmark}: {len(queries)} queries", info, results, baseline or chosen[0].name,
                         notes)
    table = Table("configuration", *results[0][2].measures, title=f"{benchmark} ({len(queries)} queries)")
    for name, _, evaluation in results:
        table.add_row(name, *(f"{evaluation.mean[m]:.4f}" for m in evaluation.measures))
    Console().print(table)
    for note in notes:
        click.echo(note)
    click.echo(f"report: {files.markdown}")


def _saved_runs(specs: tuple[str, ...]) -> dict[str, dict[str, list[str]]]:
    """``--run LABEL=FILE`` options read: label -> qid -> ranked ids."""
    import json

    saved = {}
    for spec in specs:
        try:
            label, path = _label(spec, "--run")
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (ValueError, OSError) as exc:
            raise click.ClickException(str(exc)) from exc
        if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
            raise click.ClickException(f"--run {spec!r}: expected a JSON object of qid -> list of ids")
        saved[label] = {str(k): [str(d) for d in v] for k, v in data.items()}
    return saved


def _run_typed(ctx: Context, folder: Path | None, configs: tuple[str, ...], baseline: str | None, limit: int | None,
               half: str | None, split: str | None, candidates: int, out: Path, ranker_models: tuple[str, ...],
               encoder: str | None, saved: dict[str, dict[str, list[str]]]) -> None:
    from ratio.cli.eval_typed import command_line, run_typed

    if half:
        raise click.UsageError("the typed benchmark has a split: use --split tuning or --split reported")
    aliases = ctx.aliases()
    model, _ = search_encoders(ctx.client(), aliases, encoder)
    try:
        rankers = [LabelledRanker(label, RankerModel.load(path), path)
                   for label, path in (_label(spec, "--ranker-model") for spec in ranker_models)]
    except (ValueError, RankerModelError) as exc:
        raise click.ClickException(str(exc)) from exc
    runner = Runner(Searcher(ctx.client(), aliases, model, tuned=tuned_encoder(ctx.client(), aliases)),
                    candidates=candidates, rankers=rankers, saved=saved)
    names = list(dict.fromkeys(configs)) or ["fulltext_bm25", "title_bm25", "default"]
    try:
        for name in names:
            runner.check(name)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    info = {"benchmark": "typed", "split": split or "all", "index prefix": ctx.prefix, "command": command_line()}
    run_typed(runner, folder, names, baseline, split, limit, out, info)


@eval_group.command("build-typed")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for queries.jsonl and qrels.txt (lab/evaluate/typed/aila-2019 is the packaged one).")
@click.option("--count", "counts", multiple=True, metavar="KIND=N",
              help="Queries of one kind (repeatable; default: 200 title, short, party and citation, 100 provision "
                   "and topic).")
@click.option("--seed", default=13, show_default=True)
@click.pass_obj
def build_typed_command(ctx: Context, out: Path, counts: tuple[str, ...], seed: int) -> None:
    """Draw the typed-query benchmark from the --prefix corpus (titles, short forms, first parties, own
    citations, provisions, topic words) with a fixed seed, split into tuning and reported halves per kind."""
    from collections import Counter

    from lab.evaluate.typed import BENCHMARK_COUNTS, build, write
    from lab.training.typed import KINDS

    chosen = dict(BENCHMARK_COUNTS)
    for spec in counts:
        kind, _, number = spec.partition("=")
        if kind not in KINDS or not number.isdigit():
            raise click.BadParameter(f"{spec!r}: expected KIND=N with KIND one of {', '.join(KINDS)}",
                                     param_hint="--count")
        chosen[kind] = int(number)
    benchmark = build(ctx.client(), ctx.aliases()["judgments"], chosen, seed)
    write(benchmark, out)
    made = Counter(q.kind for q in benchmark.queries)
    click.echo(f"{out}: {len(benchmark.queries)} queries ({', '.join(f'{k} {n}' for k, n in made.items())})")


@eval_group.command("roles")
@data_option(help="Folder holding the labelled datasets.")
@role_head_option()
@hidden_alias("--head", "head", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--encoder", help="Sentence encoder whose shipped head is scored (default: the head's encoder, else "
                                f"{DEFAULT_ENCODER}).")
@out_option
def roles_command(data: Path, role_head: Path | None, head: Path | None, encoder: str | None, out: Path) -> None:
    """Agreement of the role labeller with gold roles: OpenNyAI dev (13 roles) and all of Law-AI (7 roles,
    mapped from the canonical set); writes roles.md and roles.json into --out."""
    import json
    from dataclasses import asdict

    from backends.encoders import encoder_for
    from indexer.roles.embeddings import EmbeddingCache
    from indexer.roles.labeller import RoleLabeller
    from indexer.roles.model import HeadArtifact
    from lab.roles.data import load_law_ai, load_opennyai
    from lab.roles.evaluate import evaluate_on_law_ai, evaluate_opennyai
    from ratio import settings
    from ratio.encoders import models_dir

    head = either(role_head, head, "--role-head", "--head")
    encoder_id = encoder or (HeadArtifact.load(head).encoder_id if head else DEFAULT_ENCODER)
    labeller = RoleLabeller.load(encoder_for(encoder_id, models_dir()), head, encoder_id=encoder_id)
    cache = EmbeddingCache(settings.cache_dir() / "roles", labeller.artifact.encoder_id)
    runs = {"OpenNyAI dev": lambda: evaluate_opennyai(labeller, load_opennyai(data / "opennyai-rhetorical-roles"
                                                                              / "dev.json"), cache),
            "Law-AI, all 50 judgments (zero-shot: the shipped head never saw Law-AI)": lambda: evaluate_on_law_ai(
                labeller, load_law_ai(data / "law-ai-rhetorical-roles"), cache)}
    out.mkdir(parents=True, exist_ok=True)
    sections, results = ["# Role labeller against gold roles", ""], {}
    for name, run in runs.items():
        started = time.perf_counter()
        scores = run()
        results[name] = {**asdict(scores), "seconds": round(time.perf_counter() - started, 1)}
        sections += [f"## {name}", "", scores.markdown(), ""]
        click.echo(f"{name}: micro-F1 {scores.micro_f1:.4f}, macro-F1 {scores.macro_f1:.4f} "
                   f"({scores.sentences} sentences)")
    (out / "roles.md").write_text("\n".join(sections), encoding="utf-8")
    (out / "roles.json").write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
    click.echo(f"report: {out / 'roles.md'}")


@eval_group.command("provision-qa")
@data_option()
@query_file_options("Queries instead.", "Statute qrels instead.", suffix="_path")
@click.option("--method", "methods", multiple=True, type=click.Choice(METHODS),
              help="Selection method (repeatable; default all three).")
@click.option("--limit", type=int, help="Only the first N judged queries.")
@out_option
@reranker_option(help="CrossEncoder for the top 10 (default: bi-encoder).")
@encoder_option()
@llm_options
@click.pass_obj
@requires("ir_measures")
def provision_qa_command(ctx: Context, data: Path, queries_path: Path | None, qrels_path: Path | None,
                         methods: tuple[str, ...], limit: int | None, out: Path, reranker: str | None,
                         encoder: str | None, llm_kind: str | None, llm_model: str | None, llm_url: str | None) -> None:
    """Set precision, recall and F1 of the provisions the answer mode would use, with and without the
    LLM's remembered (parametric) provisions, and seconds per question; writes provision_qa.md/.json."""
    import json

    from lab.evaluate.provision_qa import markdown, run_method

    queries_path = queries_path or data / BENCHMARKS["aila-statutes"][0]
    qrels_path = qrels_path or data / BENCHMARKS["aila-statutes"][1]
    all_qrels = read_qrels(qrels_path)
    queries, skipped = judged(read_queries(queries_path), all_qrels)
    queries = queries[:limit]
    qrels = {q.qid: all_qrels[q.qid] for q in queries}
    methods = methods or METHODS
    llm = configured_llm(llm_kind, llm_model, llm_url)
    if llm is None and any(m != "retrieval_top3" for m in methods):
        raise click.ClickException("parametric and question need an LLM: pass --llm local or --llm http")
    aliases = ctx.aliases()
    _, rescoring = search_encoders(ctx.client(), aliases, encoder)
    scorer = CrossEncoderReranker(reranker) if reranker else BiEncoderRescorer(rescoring)
    client, index = ctx.client(), ctx.layout.alias("provisions")
    results = []
    for method in methods:
        result = run_method(method, queries, qrels, llm=llm, client=client, index=index, reranker=scorer)
        results.append(result)
        s = result.summary()
        click.echo(f"{method:15} P {s['SetP']:.4f}  R {s['SetR']:.4f}  F1 {s['SetF']:.4f}  "
                   f"{s['seconds_per_question']['mean']} s/question", err=True)
    info = {"queries": f"{len(queries)} judged ({len(skipped)} skipped without judgments), {queries_path}",
            "qrels": str(qrels_path), "index prefix": ctx.prefix, "LLM": llm.name if llm else "none",
            "reranker": reranker or "bi-encoder rescoring (no cross-encoder is packaged)",
            "command": "ratio " + " ".join(shlex.quote(a) for a in sys.argv[1:])}
    out.mkdir(parents=True, exist_ok=True)
    (out / "provision_qa.md").write_text(markdown(results, info), encoding="utf-8")
    payload = {"info": info, "methods": [{**r.summary(), "per_query": r.evaluation.per_query,
                                          "selected": r.selected, "seconds": [round(x, 2) for x in r.seconds],
                                          "notes": r.notes} for r in results]}
    (out / "provision_qa.json").write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    click.echo(f"report: {out / 'provision_qa.md'}")


# ratio eval rankings / statutes-grid / mapping-report (ratio.cli.eval_tools)
eval_group.add_command(rankings_command)
eval_group.add_command(statutes_grid_command)
eval_group.add_command(mapping_report_command)
