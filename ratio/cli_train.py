"""``ratio train``: train Ratio's own reranker (a cross-encoder) or fine-tune its bi-encoder on mined pairs.

Both commands mine the same training groups from the index (``--prefix``) and, by default, from the training
half of the AILA 2019 precedent qrels: the odd half, where ``ratio eval run --half odd`` makes its choices.
The even half, which the evaluation reports, is never read into training. Citation-context and
self-supervised groups come from the judgments of every ``--corpus`` (default: the ``--prefix`` index). The
model is written under the user's data directory (``models/NAME``) with a model card, and is selected by path
like any other model.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from backends.encoders import DEFAULT_ENCODER
from backends.opensearch.indices import IndexLayout
from ratio import settings
from ratio.cli import Context, cli
from search.evaluate import EvalDataError, read_qrels, read_queries
from search.training import (
    PairSet,
    TrainOptions,
    TrainResult,
    mine_qrels_groups,
    mine_self_groups,
    split,
    train_embedder,
    train_reranker,
    training_queries,
    write_card,
)
from search.training.citations import mine_citation_groups

TRAINABLE = {"aila-precedents": "AILA 2019 precedent", "irled": "FIRE 2017 IRLeD"}
console = Console(stderr=True)


@cli.group("train")
def train_group() -> None:
    """Train Ratio's own reranker and bi-encoder on pairs mined from your judgments and training qrels."""


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[note]}"), TimeElapsedColumn(), TimeRemainingColumn(), console=console)


QrelsSource = tuple[str, list, dict, str]  # index prefix, training queries, their qrels, where they come from


def _training_qrels(data: Path, benchmarks: tuple[str, ...], queries: Path | None, qrels: Path | None,
                    prefix: str) -> list[QrelsSource]:
    """The queries and qrels that may be trained on, per index they are mined from, with where they come from.

    A benchmark is ``NAME`` or ``NAME=PREFIX`` (its judgments live in the PREFIX index; default ``--prefix``).
    Only the odd half of its judged queries is read: the half ``ratio eval run --half odd`` chooses on.
    """
    from ratio.cli_eval import BENCHMARKS

    if queries or qrels:
        if not (queries and qrels):
            raise click.UsageError("--queries and --qrels go together")
        return [(prefix, read_queries(queries), read_qrels(qrels),
                 f"your training queries {queries} with qrels {qrels} (all judged queries)")]
    found: list[QrelsSource] = []
    for spec in dict.fromkeys(benchmarks):
        name, _, where = spec.partition("=")
        if name == "none":
            continue
        if name not in TRAINABLE:
            raise click.BadParameter(f"{name!r}: choose from {', '.join(sorted(TRAINABLE))} or none",
                                     param_hint="--benchmark")
        queries_path, qrels_path, _ = BENCHMARKS[name]
        judged_qrels = read_qrels(data / qrels_path)
        chosen = training_queries(read_queries(data / queries_path), judged_qrels, half="odd")
        shown = ", ".join(q.qid for q in chosen[:12]) + (f", ... ({len(chosen)} in all)" if len(chosen) > 12 else "")
        found.append((where or prefix, chosen, judged_qrels,
                      f"{TRAINABLE[name]} qrels in the {where or prefix} index, training half only (odd positions "
                      f"of the judged queries: {shown}); the even half, which the evaluation reports, is never "
                      f"used"))
    return found


def _layout(client: Any, prefix: str, option: str) -> IndexLayout:
    """The index layout of ``prefix``, which must hold judgments on this cluster."""
    try:
        layout = IndexLayout(prefix)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=option) from exc
    if not client.indices.exists_alias(name=layout.alias("judgments")):
        raise click.ClickException(f"{option} {prefix}: no index {layout.alias('judgments')} on this cluster")
    return layout


def _share(total: int, parts: int, index: int) -> int:
    """``total`` split into ``parts`` near-equal whole shares; the ``index``-th of them."""
    return total // parts + (1 if index < total % parts else 0)


def mine(ctx: Context, data: Path, benchmarks: tuple[str, ...], queries: Path | None, qrels: Path | None, groups: int,
         negatives: int, validation: float, seed: int, citation_groups: int = 0,
         corpora: tuple[str, ...] = ()) -> tuple[PairSet, dict[str, str]]:
    """Mine qrels groups first (they are few and the best signal), then citation-context groups (up to
    ``citation_groups``), then self-supervised ones up to ``groups``; the last two evenly over ``corpora``."""
    client = ctx.client()
    try:
        sources_of_qrels = _training_qrels(data, benchmarks, queries, qrels, ctx.prefix)
    except EvalDataError as exc:
        raise click.ClickException(str(exc)) from exc
    prefixes = list(dict.fromkeys(corpora)) or [ctx.prefix]
    layouts = [(p, _layout(client, p, "--corpus")) for p in prefixes]
    cited: list = []
    self_groups: list = []
    qrels_groups: list = []
    with _progress() as progress:
        task = progress.add_task("mining qrels groups", total=sum(len(s[1]) for s in sources_of_qrels), note="")
        for prefix, found, judged, _ in sources_of_qrels:
            qrels_groups += mine_qrels_groups(client, _layout(client, prefix, "--benchmark").alias("chunks"), found,
                                              judged, negatives=negatives, progress=lambda n: progress.advance(task, n))
        wanted_citations = min(citation_groups, max(groups - len(qrels_groups), 0))
        task = progress.add_task("mining citation-context groups", total=wanted_citations, note="")
        for n, (_, layout) in enumerate(layouts):
            cited += mine_citation_groups(client, layout.alias("chunks"), layout.alias("judgments"),
                                          _share(wanted_citations, len(layouts), n), seed=seed, negatives=negatives,
                                          progress=lambda k: progress.advance(task, k))
        wanted = max(groups - len(qrels_groups) - len(cited), 0)
        task = progress.add_task("mining self-supervised groups", total=wanted, note="")
        for n, (_, layout) in enumerate(layouts):
            self_groups += mine_self_groups(client, layout.alias("chunks"), layout.alias("judgments"),
                                            _share(wanted, len(layouts), n), seed=seed, negatives=negatives,
                                            progress=lambda k: progress.advance(task, k))
    found = sum(len(s[1]) for s in sources_of_qrels)
    notes = [f"{len(qrels_groups)} qrels groups from {found} training queries; {len(cited)} citation-context "
             f"groups (of {wanted_citations} asked); {len(self_groups)} self-supervised groups (of {wanted} asked); "
             f"corpora: {', '.join(prefixes)}."]
    pairs = split(qrels_groups + cited + self_groups, validation, seed, notes)
    judgments = ", ".join(layout.alias("judgments") for _, layout in layouts)
    sources = {"qrels": "; ".join(s[3] for s in sources_of_qrels) or "no qrels",
               "citation-context": f"the words around citations between judgments of {judgments} (citations "
                                   f"removed), with the cited judgment's best-matching ratio/analysis chunk",
               "self-supervised": f"issue sentences (else facts) of judgments in {judgments} sampled with seed "
                                  f"{seed}, with their own best-matching ratio/analysis chunk",
               "hard negatives": f"BM25 over the same corpus's chunks, best chunk of each other judgment (never the "
                                 f"citing or a cited one), {negatives} per query"}
    return pairs, sources


def _options(func: Any) -> Any:
    decorators = [
        click.option("--backbone", default=DEFAULT_ENCODER, show_default=True,
                     help="Starting model: a folder or a known id (resolved to its packaged copy offline)."),
        click.option("--pairs", "groups", default=300, show_default=True,
                     help="Training groups to mine (one query, its positives, its hard negatives): qrels first, "
                          "then citation-context ones (--citation-groups), then self-supervised ones."),
        click.option("--citation-groups", default=100, show_default=True,
                     help="Citation-context groups: the words around a citation of a corpus judgment, with the "
                          "cited judgment's reasoning as the positive."),
        click.option("--corpus", "corpora", multiple=True,
                     help="Index prefix to mine citation-context and self-supervised groups from (repeatable; "
                          "default: --prefix). Qrels groups always come from --prefix."),
        click.option("--negatives", default=4, show_default=True, help="BM25 hard negatives per query."),
        click.option("--epochs", default=1, show_default=True, help="Passes over the training examples."),
        click.option("--steps", type=int, help="Optimiser steps instead of epochs."),
        click.option("--batch-size", default=16, show_default=True),
        click.option("--max-length", default=256, show_default=True, help="Tokens per input (pair or text)."),
        click.option("--learning-rate", default=3e-5, show_default=True),
        click.option("--validation", default=0.1, show_default=True, help="Share of queries held out."),
        click.option("--seed", default=13, show_default=True),
        click.option("--benchmark", "benchmarks", multiple=True, default=("aila-precedents",), show_default=True,
                     metavar="NAME[=PREFIX]",
                     help="Training qrels: the odd (tuning) half of this benchmark's judged queries "
                          "(aila-precedents, irled or none), mined from the PREFIX index (default --prefix); "
                          "repeatable."),
        click.option("--queries", type=click.Path(exists=True, path_type=Path),
                     help="Your own training queries instead (never ones you evaluate on)."),
        click.option("--qrels", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="Qrels for --queries."),
        click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=Path("../shared/data"),
                     show_default=True, help="Folder holding the benchmark datasets."),
        click.option("--name", help="Model folder name under the data directory's models/."),
        click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Model folder instead."),
        click.option("--threads", type=int, envvar="RATIO_TRAIN_THREADS", help="torch CPU threads."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


def _scorer(gguf: Path, backend: str, device: str | None, batch_size: int, threads: int | None) -> Any:
    """The attribution scorer: llama.cpp (one prompt at a time, fastest on a CPU) or torch (batched, any device)."""
    if backend == "llama":
        from search.training.attribution import AnswerLikelihood

        return AnswerLikelihood(gguf, threads=threads)
    try:
        from search.training.attribution_torch import TorchAnswerLikelihood

        return TorchAnswerLikelihood(gguf, device=device, batch_size=batch_size, threads=threads)
    except ImportError as exc:
        raise click.ClickException(f"--attribution-backend torch needs the train extra ({exc.name} is missing): "
                                   f"pip install 'ratio[train]'") from exc
    except (RuntimeError, ValueError) as exc:
        raise click.ClickException(f"--attribution-backend torch could not load {gguf.name} on "
                                   f"{device or 'the default device'}: {exc}") from exc


def _attribution(pairs: PairSet, questions: int, llm_model: Path | None, threads: int | None,
                 sources: dict[str, str], backend: str = "llama", device: str | None = None,
                 batch_size: int = 8) -> list[tuple[str, str, float]]:
    """Leave-one-out attribution scores of the local LLM for the first ``questions`` self-supervised groups."""
    from backends.llm import SMALL_LLM, LLMError, resolve_gguf
    from search.training.attribution import attribution_targets

    try:
        gguf = llm_model or resolve_gguf(SMALL_LLM, settings.home_dir() / "models")
    except LLMError as exc:
        raise click.ClickException(f"attribution needs the local LLM: {exc}") from exc
    chosen = [g for g in pairs.train if g.kind == "self"][:questions]
    if not chosen:
        raise click.ClickException("no self-supervised training groups to ask the LLM about")
    model = _scorer(gguf, backend, device, batch_size, threads)
    with _progress() as progress:
        task = progress.add_task("attribution (LLM leave-one-out)", total=len(chosen), note="")
        targets, found = attribution_targets(model, chosen, progress=lambda n: progress.advance(task, n))
    used = sum(1 for a in found if a.answer and max(a.scaled) > 0)
    where = "llama.cpp" if backend == "llama" else f"torch on {model.device}, batches of {batch_size}"
    sources["attribution"] = (f"{len(chosen)} issue questions, each answered by {gguf.name} ({where}) from its "
                              f"positive and "
                              f"hard-negative passages (cut to 100 words); each passage scored by leave-one-out on "
                              f"the answer's log-likelihood, min-max scaled per question; {used} questions gave "
                              f"a signal, {len(targets)} scored passages")
    if not targets:
        raise click.ClickException("the LLM's answers depended on no passage: no attribution targets")
    return targets


def _run(ctx: Context, kind: str, default_name: str, kwargs: dict[str, Any]) -> None:
    if kwargs["threads"]:
        import torch

        torch.set_num_threads(kwargs["threads"])
    out = kwargs["out"] or settings.home_dir() / "models" / (kwargs["name"] or default_name)
    if out.exists() and any(out.iterdir()):
        raise click.ClickException(f"{out} exists and is not empty: pass another --name or --out")
    started = time.perf_counter()
    pairs, sources = mine(ctx, kwargs["data"], kwargs["benchmarks"], kwargs["queries"], kwargs["qrels"],
                          kwargs["groups"], kwargs["negatives"], kwargs["validation"], kwargs["seed"],
                          kwargs["citation_groups"], kwargs["corpora"])
    mined = time.perf_counter() - started
    if not pairs.train:
        raise click.ClickException("no training groups could be mined: is the index empty?")
    click.echo(f"mined {len(pairs.train)} training and {len(pairs.validation)} validation groups in {mined:.0f} s",
               err=True)
    options = TrainOptions(backbone=kwargs["backbone"], epochs=kwargs["epochs"], steps=kwargs["steps"],
                           batch_size=kwargs["batch_size"], max_length=kwargs["max_length"],
                           learning_rate=kwargs["learning_rate"], seed=kwargs["seed"])
    targets = None
    if kwargs.get("signal") == "attribution":
        targets = _attribution(pairs, kwargs["questions"], kwargs["llm_model"], kwargs["threads"], sources,
                               kwargs["attribution_backend"], kwargs["device"], kwargs["attribution_batch_size"])
    with _progress() as progress:
        task = progress.add_task(f"training the {kind}", total=None, note="")

        def report(step: int, total: int, loss: float) -> None:
            progress.update(task, completed=step, total=total, note=f"loss {loss:.4f}")

        if kind == "reranker":
            result = train_reranker(pairs, out, options, progress=report, targets=targets)
        else:
            result = train_embedder(pairs, out, options, progress=report)
    card = write_card(result, pairs, sources)
    _summary(result, time.perf_counter() - started)
    click.echo(f"model: {out}\nmodel card: {card}")


def _summary(result: TrainResult, total: float) -> None:
    table = Table("validation", "MRR", "nDCG@10", "P@1", "groups",
                  title=f"{result.kind}: {result.steps} steps, {result.seconds:.0f} s training, {total:.0f} s in all")
    rows = [("before", result.before), ("after", result.after)]
    if result.baseline:
        rows.insert(0, ("bi-encoder cosine (baseline)", result.baseline))
    for name, stage in (("bi-encoder cosine", "baseline"), ("before", "before"), ("after", "after")):
        rows += [(f"{name}, {kind} only", metrics) for kind, metrics in sorted(result.by_kind.get(stage, {}).items())]
    for name, metrics in rows:
        table.add_row(name, *(f"{metrics.get(m, float('nan')):.4f}" for m in ("MRR", "nDCG@10", "P@1")),
                      str(metrics.get("groups", 0)))
    Console().print(table)


@train_group.command("reranker")
@click.option("--signal", type=click.Choice(["pairs", "attribution"]), default="pairs", show_default=True,
              help="pairs: BCE on binary pairs (qrels and self-supervised, BM25 hard negatives); attribution: MSE "
                   "on the local LLM's leave-one-out passage influence.")
@click.option("--questions", default=8, show_default=True, help="Questions the LLM answers (attribution only).")
@click.option("--attribution-backend", type=click.Choice(["llama", "torch"]), default="llama", show_default=True,
              help="llama: llama.cpp, one prompt at a time (fastest on a CPU); torch: the same GGUF on a torch "
                   "device, each question's prompts in batches (how it scales on a GPU; needs the train extra).")
@click.option("--device", help="torch device for --attribution-backend torch (default: cuda if present, else cpu).")
@click.option("--attribution-batch-size", default=8, show_default=True,
              help="Prompts per forward pass with --attribution-backend torch.")
@click.option("--llm-model", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="GGUF for attribution (default: the packaged Qwen2.5-Coder-0.5B).")
@_options
@click.pass_obj
def reranker_command(ctx: Context, **kwargs: Any) -> None:
    """Train a cross-encoder reranker; use it with --reranker PATH, RATIO_RERANKER or Client(reranker=PATH)."""
    default = "ratio-reranker-attribution" if kwargs["signal"] == "attribution" else "ratio-reranker"
    _run(ctx, "reranker", default, kwargs)


@train_group.command("embedder")
@_options
@click.pass_obj
def embedder_command(ctx: Context, **kwargs: Any) -> None:
    """Fine-tune the bi-encoder (MultipleNegativesRankingLoss); use it with --encoder PATH or RATIO_ENCODER.

    Vectors already in an index come from the old encoder: search with the new one only on an index built
    (embedded) with it.
    """
    _run(ctx, "embedder", "ratio-embedder", kwargs)
