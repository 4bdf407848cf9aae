"""Selecting the learned ranker's training choices: K-fold cross-validation of every alternative, as one table.

The shipped model makes thirteen choices that saved features can judge again: the tree size, how often each
labelled tuning query is repeated, the mined queries, the typed mined queries, the feature groups (each group of
:data:`search.ranking.groups.DECLARED`, so a new group is judged without a change here), the anonymised facts
queries (without, added, instead of the plain ones), whose citation graph the mined queries come from (every
corpus's, or each corpus's alone: :func:`resolved` reads the corpora from the training set), how often each
mined fact pattern is repeated (none of them, once, three times), whether fact patterns get a model trained on
them alone (for a search that would route them to it), and LightGBM's own settings: the leaf size, the learning
rate, the objective and whether the early-stopped model is trained again on every query (:func:`params_for`).
:data:`SHIPPED` holds the values chosen (the one home: ``RankerParams.leaves`` agrees with it, the CLI's
``--tuning-repeat`` reads it, the plain training applies its ``anonymised`` through :func:`trains_on` and its
copies through :func:`repeated`, the model card points at the table);
:data:`CHOICES` declares each choice's alternatives. :func:`select` cross-validates the shipped configuration once
and every alternative (the shipped configuration with that one choice changed) on the same folds of the labelled
tuning queries and of the mined ``facts`` queries (AILA has 11 labelled fact patterns with a relevant candidate:
too few to choose on; a mined facts query is built as AILA's were), held out by source judgment
(:mod:`lab.training.folds`, :func:`lab.training.ranker.cross_validate`); :func:`write_selection` writes
``selection.md`` and ``selection.json``, the table that justifies each choice. The candidate depth is not among the
choices: saved features hold one depth's candidates.

Speed: the full grid is 11 variants, one per feature group and one per corpus (22 with nine groups and two corpora);
the grid was timed at 15 variants, 75 fits: one fit on features of the shipped dataset's size
(2,423 query groups with the copies, 1.39 million candidate rows, 42 features; synthetic values) took about 12 s
plus 0.11 s a tree on this 2-core machine, so about 45 s at the shipped 276 trees and 40 of patience:
about 55 minutes for those in one process (the mined validation queries are only predicted:
a fold trains on a few fewer queries). A fit is single-threaded and deterministic (``num_threads`` 1),
so the fits are spread over ``workers`` processes (2 by default: about half that); spawned, so no OpenMP state
is inherited from a parent that already trained. The scores are the same as in one process (a test checks it).
The variants are submitted side by side (threads that only wait), so the pool stays busy across variants rather
than idling at each variant's last fold. Early stopping keeps the shipped patience: a smaller one would save at
most a tenth of each fit and judge other models than the training makes.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from backends.processes import exit_with_parent
from lab.training.anonymise import ANON_SOURCE
from lab.training.folds import Folds, assign, corpus_of
from lab.training.ranker import Dataset, RankerParams, cross_validate
from lab.training.typed import KINDS
from search.ranking.features import GROUPS

__all__ = ["CHOICES", "FACTS", "MARGIN", "SHIPPED", "TABLE", "TYPED_SOURCES", "VALIDATE", "Choice",
           "Configuration", "Selection", "Variant", "card_entry", "decide", "derive", "labelled", "repeated",
           "resolved", "select", "trains_on", "write_selection"]

TABLE = "docs/eval/ranker-selection/selection.md"  # where the shipped choices' table lives in the repository
LIGHTGBM_TABLE = "docs/eval/ranker-selection-lightgbm/selection.md"  # LightGBM's own settings, judged apart
REFIT_TABLE = "docs/eval/ranker-selection-refit/selection.md"  # the refit on every query, judged apart
TUNED_TABLE = "docs/eval/ranker-selection-tuned/selection.md"  # the tuned facts encoder's group, judged apart
TUNED_GROUP = "tuned"  # left out unless a configuration asks for it (Configuration.tuned)
TYPED_SOURCES = frozenset(f"mined-{kind}" for kind in KINDS)
FACTS = "mined-facts"  # a corpus judgment's facts, citations stripped: AILA's construction exactly
FACT_SOURCES = frozenset({FACTS, ANON_SOURCE})  # the mined fact patterns, plain and anonymised
FACT_BENCHMARKS = frozenset({"aila-precedents"})  # benchmarks whose queries are pasted fact patterns
VALIDATE = (FACTS,)  # the mined sources scored held out by default (by source judgment, lab.training.folds)


def labelled(source: str) -> bool:
    """A labelled (tuning) query's source; every mined source starts with ``mined``."""
    return not source.startswith("mined")


@dataclass(frozen=True)
class Configuration:
    """What a ranker is trained with, as far as saved features can vary it."""

    leaves: int = 15
    tuning_repeat: int = 5
    mined: bool = True
    typed: bool = True
    drop_groups: tuple[str, ...] = ()
    anonymised: str = "without"  # the anonymised facts queries: "without", "added" (beside the plain), "instead"
    mined_from: str = "all"  # whose mined queries: every corpus's, or one corpus's (its index prefix) only
    facts_repeat: int = 1  # copies of each mined facts query (and of its anonymised twin) in training; 0: none
    facts_only: bool = False  # a model of fact patterns' own: trained on them alone (fact_pattern)
    min_data: int = 20  # LightGBM's min_data_in_leaf: the fewest candidates a leaf may hold
    learning_rate: float = 0.05  # shrinkage; a slower rate gets proportionally more rounds (params_for)
    objective: str = "lambdarank"  # LightGBM's ranking objective: "lambdarank" or "rank_xendcg"
    refit: float = 0.0  # 0: the early-stopped model; else trained again on every query for that many × its rounds
    tuned: bool = False  # the tuned facts encoder's group (search.ranking.tuned), which only indices it filled have

    @property
    def dropped(self) -> tuple[str, ...]:
        """The feature groups the model leaves out: ``drop_groups``, and the tuned group unless ``tuned``."""
        return (*self.drop_groups, *(() if self.tuned or TUNED_GROUP in self.drop_groups else (TUNED_GROUP,)))

    def values(self) -> dict[str, Any]:
        """The values as the card records them (the groups kept, not the ones dropped)."""
        return {"leaves": self.leaves, "tuning_repeat": self.tuning_repeat, "mined": self.mined, "typed": self.typed,
                "groups": [g for g in GROUPS if g not in self.dropped], "anonymised": self.anonymised,
                "mined_from": self.mined_from, "facts_repeat": self.facts_repeat, "facts_only": self.facts_only,
                "min_data": self.min_data, "learning_rate": self.learning_rate, "objective": self.objective,
                "refit": self.refit}


SHIPPED = Configuration()  # the choices the shipped model makes; the table in TABLE justifies each


@dataclass(frozen=True)
class Choice:
    """One choice: the :class:`Configuration` field it sets and the values it was weighed against."""

    name: str  # as --cv-choice takes it
    field: str
    question: str
    alternatives: tuple[Any, ...]
    table: str = TABLE  # the committed table that judged it (the card points there; a test decides from it)

    @property
    def shipped(self) -> Any:
        return getattr(SHIPPED, self.field)

    def label(self, value: Any) -> str:
        if self.field == "drop_groups":
            return "all groups" if not value else "without " + ", ".join(value)
        if self.field in ("tuning_repeat", "facts_repeat"):
            return f"×{value}"
        if self.field == "facts_only":
            return "fact patterns only" if value else "every query"
        if self.field == "refit":
            return f"on every query, ×{value:g} the rounds" if value else "early-stopped"
        if isinstance(value, bool):
            return "with" if value else "without"
        return str(value)


CHOICES = (
    Choice("leaves", "leaves", "leaves per tree", (7, 31)),
    Choice("tuning-repeat", "tuning_repeat", "copies of each labelled tuning query in training", (1, 10)),
    Choice("mined", "mined", "the mined queries in training (without: labelled queries only)", (False,)),
    Choice("typed", "typed", "the typed mined queries in training (without: --typed 0)", (False,)),
    Choice("groups", "drop_groups", "feature groups (each dropped in turn: --drop-group)",
           tuple((g,) for g in GROUPS if g != TUNED_GROUP)),
    Choice("anonymised", "anonymised", f"the anonymised facts queries ({ANON_SOURCE}) in training: added beside the "
           f"plain ones, or instead of them ({FACTS} then scored only)", ("added", "instead")),
    Choice("mined-from", "mined_from", "whose mined queries are in training: every corpus's, or one corpus's alone "
           "(each corpus of the training set in turn; another corpus's graph may teach fact patterns better)", ()),
    Choice("facts-repeat", "facts_repeat", f"copies of each mined facts query in training ({FACTS}, and "
           f"{ANON_SOURCE} when trained on; ×0: none, scored only): weigh pasted fact patterns more, or not at all",
           (0, 3)),
    Choice("min-data", "min_data", "the fewest candidates a tree's leaf may hold (LightGBM min_data_in_leaf): "
           "smaller fits finer, larger smooths", (5, 100), LIGHTGBM_TABLE),
    Choice("learning-rate", "learning_rate", "the learning rate (shrinkage), with the rounds scaled to reach as far: "
           "×2 the rounds at half the rate; early stopping on the validation queries as always", (0.025, 0.1),
           LIGHTGBM_TABLE),
    Choice("objective", "objective", "LightGBM's ranking objective: LambdaRank's pairwise gradients, or XE-NDCG's "
           "listwise cross-entropy (rank_xendcg)", ("rank_xendcg",), LIGHTGBM_TABLE),
    Choice("refit", "refit", "the model as early stopping left it (a seeded fifth of the training queries never "
           "trained on, only watched), or trained again on every query for the rounds it stopped at (×1) or a "
           "quarter more (×1.25: a fifth more queries)", (1.0, 1.25), REFIT_TABLE),
    Choice("tuned", "tuned", "the tuned facts encoder's features (the tuned group, --tuned: the query's cosines with "
           "the candidate's facts under the encoder tuned on the corpus's citation pairs), judged on a training set "
           "whose corpora hold its vectors", (True,), TUNED_TABLE),
    Choice("facts-model", "facts_only", "one model for every query, or one trained on fact patterns alone (the mined "
           f"ones and {', '.join(sorted(FACT_BENCHMARKS))}' tuning queries), as a search routing pasted fact patterns "
           "to a model of their own would use it: read its fact-pattern rows only", (True,)),
)


def resolved(choice: Choice, dataset: Dataset) -> Choice:
    """``choice`` with the alternatives that depend on the training set (``mined-from``: each corpus whose mined
    queries it holds, when there are several; ``facts-model``: none when it holds no fact patterns to train on)."""
    if choice.field == "facts_only":
        return choice if any(fact_pattern(s) for s in dataset.sources) else replace(choice, alternatives=())
    if choice.field != "mined_from":
        return choice
    corpora = sorted({corpus_of(q) for q, s in zip(dataset.qids, dataset.sources, strict=True)
                      if not labelled(s) and ":" in q})
    return replace(choice, alternatives=tuple(corpora) if len(corpora) > 1 else ())


def fact_pattern(source: str) -> bool:
    """Whether ``source``'s queries are pasted fact patterns: the mined ones (plain and anonymised) and the labelled
    queries of a :data:`FACT_BENCHMARKS` benchmark (``aila-precedents-tuning``, ``aila-precedents-all``)."""
    return source in FACT_SOURCES or (labelled(source) and source.rsplit("-", 1)[0] in FACT_BENCHMARKS)


def trains_on(configuration: Configuration, source: str, qid: str = "") -> bool:
    """Whether ``configuration`` trains on the query ``qid`` of ``source`` (the one rule: the selection's variants
    and the plain training alike; a mined query's id starts with its corpus, ``mined_from`` reads it)."""
    if not (configuration.mined or labelled(source)) or (not configuration.typed and source in TYPED_SOURCES):
        return False
    if configuration.mined_from != "all" and not labelled(source) and corpus_of(qid) != configuration.mined_from:
        return False
    if configuration.facts_repeat == 0 and source in FACT_SOURCES:
        return False
    if configuration.facts_only and not fact_pattern(source):
        return False
    if source == ANON_SOURCE:
        return configuration.anonymised != "without"
    return source != FACTS or configuration.anonymised != "instead"


def derive(dataset: Dataset, params: RankerParams, configuration: Configuration) -> tuple[Dataset, RankerParams]:
    """The training set and parameters of ``configuration`` from the dataset as built (tuning queries not yet
    repeated) and the base parameters; the groups to drop are ``configuration.dropped``."""
    if any("#" in q for q in dataset.qids):
        raise ValueError("the dataset's tuning queries are repeated already: the selection repeats them itself")

    out = dataset.subset(lambda i: trains_on(configuration, dataset.sources[i], dataset.qids[i]))
    return repeated(out, configuration), params_for(params, configuration)


def params_for(params: RankerParams, configuration: Configuration) -> RankerParams:
    """``params`` with the LightGBM settings ``configuration`` chooses (tree size, leaf size, rate, objective,
    refit); a rate below the base's gets the rounds to reach as far (half the rate, twice the rounds; early
    stopping still ends a fit where its validation queries stop gaining). The one home of that mapping: the
    selection's variants and the shipped training alike."""
    rounds = max(params.trees, round(params.trees * params.learning_rate / configuration.learning_rate))
    return replace(params, leaves=configuration.leaves, min_data_in_leaf=configuration.min_data,
                   learning_rate=configuration.learning_rate, objective=configuration.objective, trees=rounds,
                   refit=configuration.refit)


def repeated(dataset: Dataset, configuration: Configuration) -> Dataset:
    """``dataset`` with the copies ``configuration`` asks for: each labelled tuning query ``tuning_repeat`` times
    and each mined facts query ``facts_repeat`` times (the selection's variants and the plain training alike)."""
    out = dataset
    if configuration.facts_repeat > 1:
        out = out.upweighted(lambda i: out.sources[i] in FACT_SOURCES, configuration.facts_repeat)
    if configuration.tuning_repeat > 1:
        out = out.upweighted(lambda i: labelled(out.sources[i]), configuration.tuning_repeat)
    return out


@dataclass(frozen=True)
class Variant:
    """One configuration's cross-validation: its training queries per source (copies counted) and the held-out
    MAP and nDCG@10 per scored source, over ``all`` labelled queries and over the mined ``validation`` queries
    (:func:`lab.training.ranker.cross_validate`)."""

    configuration: Configuration
    training: dict[str, int]
    held_out: dict[str, dict[str, float]]


@dataclass(frozen=True)
class Selection:
    """Every variant of a run, with what it was run on and how."""

    folds: int
    seed: int
    params: RankerParams
    queries: dict[str, int]  # the dataset's queries per source, as built
    shipped: Variant
    choices: tuple[tuple[Choice, tuple[Variant, ...]], ...]  # each choice with its alternatives, in order
    command: str = ""
    notes: tuple[str, ...] = field(default=())
    # labelled queries without a relevant judgment among their candidates: not in the dataset, so not scored; a
    # benchmark scores them 0, so the table gives each source's MAP with them counted as 0 too
    unscored: dict[str, int] = field(default_factory=dict)
    validate: tuple[str, ...] = ()  # the mined sources scored held out beside the labelled queries
    judgments: int = 0  # the source judgments their held-out queries came from (each held out once)

    def rows(self) -> list[tuple[Choice, Any, Variant]]:
        """Each choice's shipped row (one shared cross-validation) and its alternatives, as the table lists them."""
        return [(c, value, variant) for c, variants in self.choices
                for value, variant in ((c.shipped, self.shipped), *zip(c.alternatives, variants, strict=True))]

    def sources(self) -> list[str]:
        """The held-out rows beside ``all`` and ``validation``: each source, and each validated source per corpus."""
        return sorted(s for s in self.shipped.held_out if s not in ("all", "validation"))

    def delta(self, variant: Variant, row: str = "all") -> float:
        """``variant``'s held-out MAP over ``row`` less the shipped configuration's."""
        return round(variant.held_out.get(row, {}).get("MAP", 0.0)
                     - self.shipped.held_out.get(row, {}).get("MAP", 0.0), 4)

    def to_json(self) -> dict[str, Any]:
        validated = "validation" in self.shipped.held_out
        return {"folds": self.folds, "seed": self.seed, "command": self.command, "params": asdict(self.params),
                "queries": self.queries, "unscored": self.unscored, "validate": list(self.validate),
                "validation_judgments": self.judgments, "shipped": _variant_json(self.shipped),
                "notes": list(self.notes),
                "choices": [{"name": c.name, "question": c.question, "shipped": c.label(c.shipped),
                             "rows": [{"value": c.label(value), "chosen": variant is self.shipped,
                                       "delta_map": self.delta(variant),
                                       **({"delta_map_validation": self.delta(variant, "validation")}
                                          if validated else {}),
                                       **_variant_json(variant)}
                                      for value, variant in ((c.shipped, self.shipped),
                                                             *zip(c.alternatives, variants, strict=True))]}
                            for c, variants in self.choices]}


def _variant_json(variant: Variant) -> dict[str, Any]:
    return {"configuration": variant.configuration.values(), "training": variant.training,
            "held_out": variant.held_out}


SHIPPED_ONLY = Choice("shipped", "leaves", "the shipped configuration alone (no choice judged)", ())


NOTES = (
    "Each alternative is the shipped configuration with that one choice changed; the shipped configuration is "
    "cross-validated once and its row repeats under each choice.",
    "MAP and nDCG@10 rank each query's saved candidates and count all of its relevant judgments (one outside the "
    "candidates is missed, as in the benchmarks' scoring), the mean over the held-out queries; within a fold, a "
    "seeded fifth of the training queries is held back for early stopping, as in the shipped training.",
    "The candidate depth (1,000 per query) is not re-judged here: saved features hold one depth's candidates, so "
    "another depth needs its features computed again (docs/evaluation.md gives that comparison).",
)


def _notes(plan: Folds, cap: int | None) -> tuple[str, ...]:
    """The notes of a run: what was held out, and how (the folds' rule depends on the validated sources)."""
    if not plan.judgments:
        folds = ("Every variant is judged on the same folds of the same labelled tuning queries; a fold's queries "
                 "(and their copies) are never in its training, the mined queries are in training in every fold "
                 "and never scored.")
    else:
        capped = f" (at most {cap} judgments per corpus, seeded)" if cap is not None else ""
        folds = (f"Every variant is judged on the same folds of the same labelled tuning queries and of the "
                 f"{', '.join(sorted(plan.validate))} queries of {len(plan.judgments):,} source judgments{capped}, "
                 "whatever it trains on (a variant without a source is still scored on it); a fold's labelled "
                 "queries (and their copies) are never in its training, and in the fold that scores judgment J's "
                 "query no query drawn from J (document, facts, anonymised facts, typed) is in training; the other "
                 "mined queries are in training in every fold. 'all' is over the labelled queries, 'validation' (named "
                 "by its source when there is one) over the mined ones.")
    notes = [NOTES[0], folds, *NOTES[1:]]
    if plan.judgments and plan.unattributed:
        notes.append(f"{plan.unattributed:,} typed queries of this dataset do not name the judgment they were drawn "
                     "from (built before typed query ids named it): they stay in training in every fold, so one "
                     "drawn from a held-out judgment may be trained on; build the dataset again to fold them too.")
    return tuple(notes)


def select(dataset: Dataset, params: RankerParams | None = None, *, folds: int = 5, seed: int = 13,
           choices: Sequence[str] | None = None, workers: int = 1, command: str = "",
           validate: Sequence[str] = VALIDATE, cap: int | None = None,
           progress: Callable[[Variant], None] | None = None) -> Selection:
    """Cross-validate the shipped configuration and each alternative of ``choices`` (names; None: all) on
    ``dataset`` as built (tuning queries not repeated), ``workers`` processes fitting folds side by side. Every
    variant is scored on the labelled queries and on the ``validate`` sources' mined queries of ``dataset`` (at
    most ``cap`` source judgments per corpus), on the same folds, whatever the variant trains on."""
    params = params or RankerParams(seed=seed)
    known = {c.name: c for c in CHOICES}
    unknown = sorted(set(choices or ()) - set(known))
    if unknown:
        raise ValueError(f"no choice {', '.join(unknown)}: choose from {', '.join(known)}")
    picked = [resolved(c, dataset) for c in CHOICES if choices is None or c.name in choices]
    configurations = [SHIPPED, *(replace(SHIPPED, **{c.field: v}) for c in picked for v in c.alternatives)]
    validate = tuple(sorted(set(validate)))

    def run(configuration: Configuration, executor: Executor | None) -> Variant:
        train, variant_params = derive(dataset, params, configuration)
        scores = cross_validate(train, variant_params, folds=folds, labelled=labelled, validate=validate,
                                scored=dataset, cap=cap, drop_groups=configuration.dropped, seed=seed,
                                executor=executor)
        training = {s: train.sources.count(s) for s in sorted(set(train.sources))}
        variant = Variant(configuration, training, scores)
        if progress:
            progress(variant)
        return variant

    if workers > 1:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=context, initializer=exit_with_parent,
                                 initargs=(os.getpid(),)) as pool, \
                ThreadPoolExecutor(len(configurations)) as threads:
            try:
                variants = list(threads.map(lambda c: run(c, pool), configurations))
            except BaseException:  # a failed fit or Ctrl-C: the fits not started are dropped, not waited for
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    else:
        variants = [run(c, None) for c in configurations]
    shipped, rest = variants[0], iter(variants[1:])
    grouped = tuple((c, tuple(next(rest) for _ in c.alternatives)) for c in picked)
    plan = assign(dataset.qids, dataset.sources, folds=folds, seed=seed, labelled=labelled, validate=validate,
                  cap=cap)
    return Selection(folds, seed, params, {s: dataset.sources.count(s) for s in sorted(set(dataset.sources))},
                     shipped, grouped, command, _notes(plan, cap),
                     {s: n for s, n in sorted(dataset.skipped.items()) if labelled(s) and n},
                     validate, len(plan.judgments))


MARGIN = 0.005  # the held-out MAP an alternative must gain on every scored row to replace a shipped value


def decide(selection: Selection, margin: float = MARGIN) -> Configuration:
    """The configuration a selection table chooses, by the rule the shipped choices follow: an alternative replaces
    the shipped value only when it raises held-out MAP by at least ``margin`` over the labelled queries (``all``)
    and over the mined validation queries when they were scored (a gain on one at a loss on the other is not
    taken: AILA's fact patterns are too few to choose on alone); of several, the largest summed gain; each choice
    decided on its own. Nested cross-validation (:mod:`lab.training.nested`) applies it inside each fold."""
    rows = ["all"] + (["validation"] if "validation" in selection.shipped.held_out else [])
    chosen = SHIPPED
    for choice, variants in selection.choices:
        best, gain = None, 0.0
        for value, variant in zip(choice.alternatives, variants, strict=True):
            deltas = [selection.delta(variant, row) for row in rows]
            if min(deltas) >= margin and sum(deltas) > gain:
                best, gain = value, sum(deltas)
        if best is not None:
            chosen = replace(chosen, **{choice.field: best})
    return chosen


def markdown(selection: Selection) -> str:
    """The table as Markdown: one row per value of each choice, the chosen one in bold; the mined validation
    queries' columns beside the labelled ones' (named by their source when there is one)."""
    held = selection.shipped.held_out
    validated = sorted(s for s in selection.validate if s in held)
    single = validated[0] if len(validated) == 1 else None
    sources = [s for s in selection.sources() if s != single]
    labelled_queries = {s: n for s, n in selection.queries.items() if labelled(s)}
    mined = {s: n for s, n in selection.queries.items() if not labelled(s)}
    kinds = "every judged query" if any(s.endswith("-all") for s in labelled_queries) else "the tuning queries"
    lines = [f"# Ranker selection: {selection.folds}-fold cross-validation over {kinds}", ""]
    if selection.command:
        lines += ["```", selection.command, "```", ""]
    scored = (f"; {sum(mined.values())} mined queries ({_counts(mined)}), those of {', '.join(validated)} from "
              f"{selection.judgments:,} source judgments scored held out too, by source judgment" if validated else
              f"; {sum(mined.values())} mined queries ({_counts(mined)}) in training in every fold")
    lines += [f"{selection.folds} folds (seed {selection.seed}) over {sum(labelled_queries.values())} labelled "
              f"tuning queries ({_counts(labelled_queries)}){scored}. "
              f"Parameters otherwise: {_params(selection.params)}. Held-out MAP and nDCG@10; Δ MAP is against "
              "the chosen value's MAP over all held-out labelled queries"
              + (f" (Δ MAP {single or 'validation'}: over the held-out mined queries)." if validated else "."), ""]
    name = single or "validation"
    header = ["choice", "value", "training queries", "Δ MAP", "MAP all", "nDCG@10 all"]
    header += [f"Δ MAP {name}", f"MAP {name}", f"nDCG@10 {name}"] if validated else []
    header += [f"{m} {s}" for s in sources for m in ("MAP", "nDCG@10")]
    lines += ["| " + " | ".join(header) + " |", "|---|---|" + "---:|" * (len(header) - 2)]
    rows = selection.rows() or [(SHIPPED_ONLY, "shipped", selection.shipped)]
    for choice, value, variant in rows:
        chosen = variant is selection.shipped
        label = f"**{choice.label(value)}** (chosen)" if chosen else choice.label(value)
        all_, validation = variant.held_out.get("all", {}), variant.held_out.get("validation", {})
        cells = [choice.name, label, str(sum(variant.training.values())),
                 "" if chosen else f"{selection.delta(variant):+.4f}",
                 _number(all_.get("MAP")), _number(all_.get("nDCG@10"))]
        if validated:
            cells += ["" if chosen else f"{selection.delta(variant, 'validation'):+.4f}",
                      _number(validation.get("MAP")), _number(validation.get("nDCG@10"))]
        cells += [_number(variant.held_out.get(s, {}).get(m)) for s in sources for m in ("MAP", "nDCG@10")]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Held-out queries per source: " + _counts(
        {s: int(held[s]["queries"]) for s in selection.sources()}) + ".", ""]
    for source, count in selection.unscored.items():
        part = held.get(source, {})
        if part:
            scored_count = int(part["queries"])
            lines += [f"{source}: {count} more labelled queries have no relevant judgment among their candidates "
                      f"and are not in the table; counted as 0, the chosen configuration's MAP over all "
                      f"{scored_count + count} is {part['MAP'] * scored_count / (scored_count + count):.4f}.", ""]
    lines += [f"- {note}" for note in selection.notes]
    return "\n".join(lines) + "\n"


def write_selection(selection: Selection, folder: Path) -> tuple[Path, Path]:
    """``selection.md`` and ``selection.json`` in ``folder`` (made if missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    table, data = folder / "selection.md", folder / "selection.json"
    table.write_text(markdown(selection), encoding="utf-8")
    data.write_text(json.dumps(selection.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return table, data


def card_entry(configuration: Configuration) -> dict[str, Any]:
    """The model card's pointers to the tables its choices came from (``tables``: each committed table and the
    choices it judged; ``table``: the one ``--cv`` writes every choice into), the chosen values, and the choices
    this model departs from (an ablation's card says so)."""
    departs = [c.name for c in CHOICES if getattr(configuration, c.field) != c.shipped]
    tables: dict[str, list[str]] = {}
    for choice in CHOICES:
        tables.setdefault(choice.table, []).append(choice.name)
    return {"table": TABLE, "tables": tables, "chosen": SHIPPED.values(), "departs_from": departs}


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def _counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{s} {n:,}" for s, n in counts.items()) or "none"


def _params(params: RankerParams) -> str:
    chosen = ("leaves", "min_data_in_leaf", "learning_rate", "objective", "refit")  # a configuration's (params_for)
    return ", ".join(f"{k} {v}" for k, v in asdict(params).items() if k not in chosen)
