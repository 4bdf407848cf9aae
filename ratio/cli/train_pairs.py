"""``ratio train reranker`` and ``ratio train embedder``: train Ratio's own reranker (a cross-encoder) or
fine-tune its bi-encoder on mined pairs (:mod:`ratio.cli.mining`).

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
from rich.table import Table

from backends.encoders import DEFAULT_ENCODER
from lab.training import TrainOptions, TrainResult, train_embedder, train_reranker, write_card
from ratio import settings
from ratio.cli.common import Context
from ratio.cli.mining import attribution, mine, progress_bars
from ratio.cli.options import apply, data_option, query_file_options

pair_training_options = apply(
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
    query_file_options("Your own training queries instead (never ones you evaluate on).", "Qrels for --queries."),
    data_option(),
    click.option("--name", help="Model folder name under the data directory's models/."),
    click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Model folder instead."),
    click.option("--threads", type=int, envvar="RATIO_TRAIN_THREADS", help="torch CPU threads."),
)


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
        targets = attribution(pairs, kwargs["questions"], kwargs["llm_model"], kwargs["threads"], sources,
                              kwargs["attribution_backend"], kwargs["device"], kwargs["attribution_batch_size"])
    with progress_bars() as progress:
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


@click.command("reranker")
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
@pair_training_options
@click.pass_obj
def reranker_command(ctx: Context, **kwargs: Any) -> None:
    """Train a cross-encoder reranker; use it with --reranker PATH, RATIO_RERANKER or Client(reranker=PATH)."""
    default = "ratio-reranker-attribution" if kwargs["signal"] == "attribution" else "ratio-reranker"
    _run(ctx, "reranker", default, kwargs)


@click.command("embedder")
@pair_training_options
@click.pass_obj
def embedder_command(ctx: Context, **kwargs: Any) -> None:
    """Fine-tune the bi-encoder (MultipleNegativesRankingLoss); use it with --encoder PATH or RATIO_ENCODER.

    Vectors already in an index come from the old encoder: search with the new one only on an index built
    (embedded) with it.
    """
    _run(ctx, "embedder", "ratio-embedder", kwargs)
