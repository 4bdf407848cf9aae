"""Score runs against qrels with ir-measures, and test whether one configuration beats another.

The measures are ir-measures' (trec_eval's, through pytrec_eval), never our own arithmetic, so the numbers
compare with published ones. Short names are used in reports: ``MAP`` (ir-measures ``AP``), ``P@10``,
``Bpref``, ``MRR`` (``RR``), ``nDCG@10``, ``R@100``, ``R@1000``; any other ir-measures name (``P@5``) is
accepted as it is spelt there.

Which queries count is decided here, not by the library: a query counts when the qrels hold at least one
relevant (rel > 0) judgment for it (the same rule as :func:`lab.evaluate.data.judged`). A counted query
missing from the run, or with no results, scores 0 on every measure; ir-measures would otherwise leave it
out (depending on version and provider) and a configuration that finds nothing for a hard query would
look better than one that finds little. Run queries without judgments are ignored.

trec_eval orders a query's results by score, breaking ties by document id *descending*, not by the order
given. To score the order a searcher returned, build the run with :func:`ranked_run`.

:func:`compare` runs two paired tests over the queries both evaluations have: the two-sided t-test
(``scipy.stats.ttest_rel``) and a randomisation test that swaps each query's pair of scores
(``scipy.stats.permutation_test``, ``permutation_type="samples"``: exact for up to 13 queries, otherwise
10,000 seeded resamples, so repeated runs give the same p). When every difference is equal the t-test is
undefined (zero variance); its p is then reported as 1.0, claiming nothing, rather than NaN.

ir-measures, scipy and numpy come with the ``eval`` extra and are imported when first needed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from lab.evaluate.data import Qrels, qid_sort_key

__all__ = [
    "DEFAULT_MEASURES",
    "MEASURES",
    "Comparison",
    "Evaluation",
    "Run",
    "compare",
    "evaluate",
    "ranked_run",
]

Run = dict[str, dict[str, float]]

# short name -> ir-measures name
MEASURES: Mapping[str, str] = {
    "MAP": "AP",
    "P@10": "P@10",
    "Bpref": "Bpref",
    "MRR": "RR",
    "nDCG@10": "nDCG@10",
    "R@100": "R@100",
    "R@1000": "R@1000",
}
DEFAULT_MEASURES: tuple[str, ...] = tuple(MEASURES)
DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 0
_EQUAL = 1e-12  # differences closer than this are one value (float noise from subtracting scores)


def _import(name: str) -> ModuleType:
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(f"evaluation needs the 'eval' extra: pip install 'ratio[eval]' (missing {name})") from exc


@dataclass(frozen=True)
class Evaluation:
    """Per-query values (``qid -> measure -> value``) and their means over the counted (judged) queries.

    ``missing`` lists the counted queries the run had no results for (scored 0). The dicts are not to be
    changed; they are plain dicts so that they serialise as they are.
    """

    measures: tuple[str, ...]
    per_query: dict[str, dict[str, float]]
    mean: dict[str, float]
    missing: tuple[str, ...] = ()

    @property
    def queries(self) -> int:
        return len(self.per_query)

    def values(self, measure: str) -> dict[str, float]:
        """``qid -> value`` for one measure."""
        if measure not in self.measures:
            raise ValueError(f"measure {measure!r} was not evaluated; evaluated: {', '.join(self.measures)}")
        return {qid: scores[measure] for qid, scores in self.per_query.items()}


@dataclass(frozen=True)
class Comparison:
    """``other`` against ``baseline`` on one measure, over the ``queries`` both have.

    ``difference`` is ``other_mean - baseline_mean``; the p-values are two-sided.
    """

    measure: str
    queries: int
    baseline_mean: float
    other_mean: float
    difference: float
    t_test_p: float
    permutation_p: float

    def significant(self, alpha: float = 0.05) -> bool:
        """Whether the paired t-test rejects equal means at level ``alpha``."""
        return self.t_test_p < alpha


def _parse_measures(measures: Sequence[str]) -> dict[str, Any]:
    if isinstance(measures, str):
        measures = (measures,)
    if not measures:
        raise ValueError("no measures to evaluate")
    if len(set(measures)) != len(measures):
        raise ValueError(f"measures repeat a name: {', '.join(measures)}")
    ir_measures = _import("ir_measures")
    parsed = {}
    for name in measures:
        try:
            parsed[name] = ir_measures.parse_measure(MEASURES.get(name, name))
        except (ValueError, NameError):  # what ir-measures raises for bad syntax and unknown names
            raise ValueError(f"unknown measure {name!r}; use one of {', '.join(MEASURES)} or an ir-measures "
                             "name such as 'P@5'") from None
    return parsed


def ranked_run(rankings: Mapping[str, Sequence[str]]) -> Run:
    """A run whose scores keep the given order: ``qid -> [docid, ...]`` (best first) to descending scores.

    The first of ``n`` documents scores ``n``, the last ``1``; a document repeated keeps its first rank.
    """
    run: Run = {}
    for qid, docids in rankings.items():
        scores: dict[str, float] = {}
        for rank, docid in enumerate(docids):
            scores.setdefault(docid, float(len(docids) - rank))
        run[qid] = scores
    return run


def evaluate(run: Mapping[str, Mapping[str, float]], qrels: Qrels,
             measures: Sequence[str] = DEFAULT_MEASURES) -> Evaluation:
    """Score ``run`` (``qid -> docid -> score``) against ``qrels`` on ``measures`` (short names).

    Only queries with a relevant judgment count; one the run lacks scores 0 (see the module docstring).
    Raises ``ValueError`` for an unknown measure or qrels without any relevant judgment.
    """
    parsed = _parse_measures(measures)
    counted = {qid: dict(docs) for qid, docs in qrels.items() if any(rel > 0 for rel in docs.values())}
    if not counted:
        raise ValueError("the qrels hold no relevant judgment, so no query can be scored")
    answered = {qid: {docid: float(score) for docid, score in docs.items()}
                for qid, docs in run.items() if qid in counted and docs}
    names = tuple(parsed)
    qids = sorted(counted, key=qid_sort_key)
    per_query = {qid: dict.fromkeys(names, 0.0) for qid in qids}
    if answered:
        name_of = {measure: name for name, measure in parsed.items()}
        ir_measures = _import("ir_measures")
        for metric in ir_measures.iter_calc(list(parsed.values()), counted, answered):
            if metric.query_id in answered:  # queries without results stay 0, whatever the provider says
                value = float(metric.value)
                per_query[metric.query_id][name_of[metric.measure]] = value if math.isfinite(value) else 0.0
    mean = {name: math.fsum(per_query[qid][name] for qid in qids) / len(qids) for name in names}
    missing = tuple(qid for qid in qids if qid not in answered)
    return Evaluation(names, per_query, mean, missing)


def _paired_p_values(baseline: list[float], other: list[float], resamples: int, seed: int) -> tuple[float, float]:
    """Two-sided p of the paired t-test and of the paired randomisation test, never NaN."""
    differences = [o - b for o, b in zip(other, baseline, strict=True)]
    if len(differences) < 2 or all(abs(d) <= _EQUAL for d in differences):
        return 1.0, 1.0  # one query, or the same scores everywhere: no evidence of a difference
    np = _import("numpy")
    stats = _import("scipy.stats")
    x, y = np.asarray(other, dtype=float), np.asarray(baseline, dtype=float)
    constant = max(differences) - min(differences) <= _EQUAL  # zero variance: the t statistic is undefined
    t_test_p = 1.0 if constant else float(stats.ttest_rel(x, y).pvalue)
    permutation = stats.permutation_test(
        (x, y), lambda a, b, axis: np.mean(a - b, axis=axis), permutation_type="samples", vectorized=True,
        n_resamples=resamples, alternative="two-sided", rng=np.random.default_rng(seed))
    permutation_p = float(permutation.pvalue)
    return (t_test_p if math.isfinite(t_test_p) else 1.0), (permutation_p if math.isfinite(permutation_p) else 1.0)


def compare(baseline: Evaluation, other: Evaluation, measure: str = "MAP", *,
            resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> Comparison:
    """Paired comparison of ``other`` with ``baseline`` on ``measure`` over the queries both evaluated.

    Raises ``ValueError`` when either evaluation lacks the measure or they share no query.
    """
    before, after = baseline.values(measure), other.values(measure)
    qids = [qid for qid in before if qid in after]
    if not qids:
        raise ValueError("the two evaluations share no query, so they cannot be compared")
    base = [before[qid] for qid in qids]
    new = [after[qid] for qid in qids]
    t_test_p, permutation_p = _paired_p_values(base, new, resamples, seed)
    base_mean = math.fsum(base) / len(qids)
    new_mean = math.fsum(new) / len(qids)
    return Comparison(measure, len(qids), base_mean, new_mean, new_mean - base_mean, t_test_p, permutation_p)
