"""Nested cross-validation of the ranker: every choice made again inside each fold, never on the queries it scores.

A plain K-fold run over every judged query (``ratio train ranker --split all --cv K``, docs/eval/ranker-cv-all)
trains each fold with the shipped configuration, and the selection table chose that configuration on the tuning
queries: AILA's tuning queries are half of its judged ones, so those choices had seen some of the queries such a
run scores. Here each outer fold's training set (the other folds' labelled queries, and every mined query not
drawn from a judgment whose query the fold scores, :func:`lab.training.ranker.fold_sets`) runs the selection
grid itself (:func:`lab.training.selection.select` with ``inner`` folds of its own queries), the table's rule
(:func:`lab.training.selection.decide`) picks the configuration, and that configuration, trained on the whole
outer training set, scores the fold. The shipped configuration is scored on the same outer folds beside it, query
by query, so the two are compared pairwise: the difference is what choosing on the tuning queries was worth (or
cost) on queries it had not seen.

Cost: the grid's fits once per outer fold (``folds × inner × variants`` fits, each about 30 s on the shipped
dataset's size), so ``--cv-choice`` restricts the grid judged inside; the choices left out stay at their shipped
values in every fold, and the report says which were judged.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from backends.processes import exit_with_parent
from lab.evaluate.metrics import Comparison, Evaluation, compare
from lab.training.ranker import Dataset, RankerParams, fold_sets, held_out, summarise
from lab.training.selection import (
    CHOICES,
    MARGIN,
    SHIPPED,
    VALIDATE,
    Configuration,
    decide,
    derive,
    labelled,
    select,
)

__all__ = ["Fold", "Nested", "markdown", "nested"]


@dataclass(frozen=True)
class Fold:
    """One outer fold: the configuration its own training queries chose, and its held-out means for that
    configuration and for the shipped one."""

    configuration: Configuration
    held_out: dict[str, dict[str, float]]
    shipped: dict[str, dict[str, float]]


@dataclass(frozen=True)
class Nested:
    """A nested run: each fold, the pooled held-out means of the chosen configurations and of the shipped one, and
    every held-out query's (AP, nDCG@10) under both, by ``source`` then ``qid``."""

    folds: int
    inner: int
    seed: int
    choices: tuple[str, ...]
    per_fold: tuple[Fold, ...]
    held_out: dict[str, dict[str, float]]
    shipped: dict[str, dict[str, float]]
    per_query: dict[str, dict[str, dict[str, tuple[float, float]]]]  # source -> qid -> measure -> (nested, shipped)
    unscored: dict[str, int] = field(default_factory=dict)  # labelled queries with no relevant candidate (scored 0)
    command: str = ""

    def comparison(self, source: str, measure: str = "MAP", zeros: int = 0) -> Comparison:
        """The paired comparison of the chosen configurations against the shipped one over ``source``'s held-out
        queries (``zeros`` more queries scored 0 by both, as a benchmark counts those without a relevant
        candidate)."""
        rows = self.per_query[source]
        padded = {**{q: v[measure] for q, v in rows.items()}, **{f"unscored-{i}": (0.0, 0.0) for i in range(zeros)}}
        chosen = Evaluation((measure,), {q: {measure: v[0]} for q, v in padded.items()}, {})
        shipped = Evaluation((measure,), {q: {measure: v[1]} for q, v in padded.items()}, {})
        return compare(shipped, chosen, measure)

    def to_json(self) -> dict[str, Any]:
        return {"folds": self.folds, "inner": self.inner, "seed": self.seed, "choices": list(self.choices),
                "command": self.command, "margin": MARGIN, "unscored": self.unscored,
                "per_fold": [{"chosen": f.configuration.values(), "departs_from": _departures(f.configuration),
                              "held_out": f.held_out, "shipped": f.shipped} for f in self.per_fold],
                "held_out": self.held_out, "shipped": self.shipped,
                "comparisons": {s: _comparison_json(self.comparison(s, zeros=self.unscored.get(s, 0)))
                                for s in sorted(self.per_query) if labelled(s)},
                "per_query": {s: {q: {m: list(v) for m, v in row.items()} for q, row in rows.items()}
                              for s, rows in self.per_query.items()}}


def _departures(configuration: Configuration) -> list[str]:
    return [f"{c.name}: {c.label(getattr(configuration, c.field))}" for c in CHOICES
            if getattr(configuration, c.field) != c.shipped]


def _comparison_json(comparison: Comparison) -> dict[str, float]:
    return {"queries": comparison.queries, "shipped": round(comparison.baseline_mean, 4),
            "nested": round(comparison.other_mean, 4), "difference": round(comparison.difference, 4),
            "t_test_p": round(comparison.t_test_p, 4), "permutation_p": round(comparison.permutation_p, 4)}


def nested(dataset: Dataset, params: RankerParams | None = None, *, folds: int = 5, inner: int = 3, seed: int = 13,
           choices: Sequence[str] | None = None, validate: Sequence[str] = VALIDATE, cap: int | None = None,
           workers: int = 1, command: str = "", progress: Callable[[int, Configuration], None] | None = None) -> Nested:
    """Nested cross-validation of ``dataset`` as built (see the module docstring): ``folds`` outer folds, each
    choosing among ``choices`` (names; None: the whole grid) by an ``inner``-fold selection of its own training
    queries; ``workers`` processes fit side by side."""
    params = params or RankerParams(seed=seed)
    validate = tuple(sorted(set(validate)))
    trains, helds = fold_sets(dataset, folds=folds, labelled=labelled, validate=validate, cap=cap, seed=seed)
    per_fold: list[Fold] = []
    chosen_rows: list[tuple[str, str, dict[str, float]]] = []
    shipped_rows: list[tuple[str, str, dict[str, float]]] = []
    context = multiprocessing.get_context("spawn")
    for index, (outer, held) in enumerate(zip(trains, helds, strict=True)):
        inside = select(outer, params, folds=inner, seed=seed, choices=choices, workers=workers,
                        validate=validate, cap=cap)
        configuration = decide(inside)
        if progress:
            progress(index, configuration)
        runs = [configuration] if configuration == SHIPPED else [configuration, SHIPPED]
        jobs = [(*derive(outer, params, c), c.dropped) for c in runs]
        with ProcessPoolExecutor(max(1, min(workers, len(jobs))), mp_context=context,
                                 initializer=exit_with_parent, initargs=(os.getpid(),)) as pool:
            scores = list(pool.map(held_out, [j[0] for j in jobs], [held] * len(jobs), [j[1] for j in jobs],
                                   [j[2] for j in jobs]))
        mine = [(q, s, r) for q, s, r in zip(held.qids, held.sources, scores[0], strict=True)]
        theirs = [(q, s, r) for q, s, r in zip(held.qids, held.sources, scores[-1], strict=True)]
        chosen_rows += mine
        shipped_rows += theirs
        per_fold.append(Fold(configuration, summarise(mine, labelled), summarise(theirs, labelled)))
    per_query: dict[str, dict[str, dict[str, tuple[float, float]]]] = {}
    for (qid, source, mine_row), (_, _, their_row) in zip(chosen_rows, shipped_rows, strict=True):
        per_query.setdefault(source, {})[qid] = {m: (mine_row[m], their_row[m]) for m in ("MAP", "nDCG@10")}
    judged = [c.name for c in CHOICES if choices is None or c.name in choices]
    return Nested(folds, inner, seed, tuple(judged), tuple(per_fold), summarise(chosen_rows, labelled),
                  summarise(shipped_rows, labelled), per_query,
                  {s: n for s, n in sorted(dataset.skipped.items()) if labelled(s) and n}, command)


def markdown(run: Nested) -> str:
    """The report: each fold's choice and scores, the pooled scores of both, the paired comparison per source."""
    lines = [f"# Nested cross-validation: {run.folds} outer folds, the choices made inside each", ""]
    if run.command:
        lines += ["```", run.command, "```", ""]
    left = [c.name for c in CHOICES if c.name not in run.choices]
    lines += [f"Each outer fold's training queries chose among {', '.join(run.choices)} by a {run.inner}-fold "
              f"selection of their own (seed {run.seed}; the rule: an alternative replaces the shipped value when it "
              f"gains at least {MARGIN} held-out MAP on both the labelled and the mined validation queries)"
              + (f"; {', '.join(left)} stayed at the shipped values" if left else "")
              + ". The shipped configuration is scored on the same folds beside it.", ""]
    sources = sorted(s for s in run.held_out if s not in ("all", "validation"))
    header = ["fold", "chosen (departures from the shipped configuration)", "MAP all", "MAP all, shipped"]
    header += [f"MAP {s}" for s in sources]
    lines += ["| " + " | ".join(header) + " |", "|---:|---|" + "---:|" * (len(header) - 2)]
    for index, fold in enumerate(run.per_fold):
        cells = [str(index + 1), ", ".join(_departures(fold.configuration)) or "the shipped configuration",
                 _number(fold.held_out.get("all", {}).get("MAP")), _number(fold.shipped.get("all", {}).get("MAP"))]
        cells += [_number(fold.held_out.get(s, {}).get("MAP")) for s in sources]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "| pooled over the folds | " + " | ".join(f"MAP {s} | nDCG@10 {s}" for s in sources) + " |",
              "|---|" + "---:|---:|" * len(sources)]
    for name, held in (("nested (chosen inside)", run.held_out), ("shipped configuration", run.shipped)):
        lines.append(f"| {name} | " + " | ".join(f"{_number(held.get(s, {}).get('MAP'))} | "
                                                 f"{_number(held.get(s, {}).get('nDCG@10'))}" for s in sources) + " |")
    lines += ["", "Paired, over each labelled source's judged queries (those without a relevant candidate counted "
              "as 0 by both, as the benchmarks count them):", "",
              "| source | queries | MAP shipped | MAP nested | difference | t-test p | randomisation p |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for source in sorted(run.per_query):
        if labelled(source):
            c = run.comparison(source, zeros=run.unscored.get(source, 0))
            lines.append(f"| {source} | {c.queries} | {c.baseline_mean:.4f} | {c.other_mean:.4f} | "
                         f"{c.difference:+.4f} | {c.t_test_p:.3f} | {c.permutation_p:.3f} |")
    return "\n".join(lines) + "\n"


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"
