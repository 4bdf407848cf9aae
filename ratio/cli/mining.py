"""The training material of ``ratio train reranker`` and ``ratio train embedder``: groups mined from the index and
the training half of the qrels, and (for ``--signal attribution``) the local LLM's passage attributions.

Qrels come only from the odd half of a benchmark's judged queries, where ``ratio eval run --half odd`` makes its
choices; the even half, which the evaluation reports, is never read here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from backends.opensearch.indices import IndexLayout
from lab.evaluate import EvalDataError, read_qrels, read_queries
from lab.training import PairSet, mine_qrels_groups, mine_self_groups, split, training_queries
from lab.training.citations import mine_citation_groups
from ratio import settings
from ratio.cli.common import BENCHMARKS, Context

TRAINABLE = {"aila-precedents": "AILA 2019 precedent", "irled": "FIRE 2017 IRLeD"}
console = Console(stderr=True)


def progress_bars() -> Progress:
    """Progress bars on stderr for the mining and training steps, each with a note column."""
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[note]}"), TimeElapsedColumn(), TimeRemainingColumn(), console=console)


QrelsSource = tuple[str, list, dict, str]  # index prefix, training queries, their qrels, where they come from


def training_qrels(data: Path, benchmarks: tuple[str, ...], queries: Path | None, qrels: Path | None,
                   prefix: str) -> list[QrelsSource]:
    """The queries and qrels that may be trained on, per index they are mined from, with where they come from.

    A benchmark is ``NAME`` or ``NAME=PREFIX`` (its judgments live in the PREFIX index; default ``--prefix``).
    Only the odd half of its judged queries is read: the half ``ratio eval run --half odd`` chooses on.
    """
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
        sources_of_qrels = training_qrels(data, benchmarks, queries, qrels, ctx.prefix)
    except EvalDataError as exc:
        raise click.ClickException(str(exc)) from exc
    prefixes = list(dict.fromkeys(corpora)) or [ctx.prefix]
    layouts = [(p, _layout(client, p, "--corpus")) for p in prefixes]
    cited: list = []
    self_groups: list = []
    qrels_groups: list = []
    with progress_bars() as progress:
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


def _scorer(gguf: Path, backend: str, device: str | None, batch_size: int, threads: int | None) -> Any:
    """The attribution scorer: llama.cpp (one prompt at a time, fastest on a CPU) or torch (batched, any device)."""
    if backend == "llama":
        from lab.training.attribution import AnswerLikelihood

        return AnswerLikelihood(gguf, threads=threads)
    try:
        from lab.training.attribution_torch import TorchAnswerLikelihood

        return TorchAnswerLikelihood(gguf, device=device, batch_size=batch_size, threads=threads)
    except ImportError as exc:
        raise click.ClickException(f"--attribution-backend torch needs the train extra ({exc.name} is missing): "
                                   f"pip install 'ratio[train]'") from exc
    except (RuntimeError, ValueError) as exc:
        raise click.ClickException(f"--attribution-backend torch could not load {gguf.name} on "
                                   f"{device or 'the default device'}: {exc}") from exc


def attribution(pairs: PairSet, questions: int, llm_model: Path | None, threads: int | None,
                sources: dict[str, str], backend: str = "llama", device: str | None = None,
                batch_size: int = 8) -> list[tuple[str, str, float]]:
    """Leave-one-out attribution scores of the local LLM for the first ``questions`` self-supervised groups."""
    from backends.llm import SMALL_LLM, LLMError, resolve_gguf
    from lab.training.attribution import attribution_targets

    try:
        gguf = llm_model or resolve_gguf(SMALL_LLM, settings.home_dir() / "models")
    except LLMError as exc:
        raise click.ClickException(f"attribution needs the local LLM: {exc}") from exc
    chosen = [g for g in pairs.train if g.kind == "self"][:questions]
    if not chosen:
        raise click.ClickException("no self-supervised training groups to ask the LLM about")
    model = _scorer(gguf, backend, device, batch_size, threads)
    with progress_bars() as progress:
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

