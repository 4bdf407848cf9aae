"""Issue 27, item 5: does the ranker gain from each feature standardised within its query (a z-score over the
query's candidates) beside the raw values?

LambdaMART splits on one threshold per feature for every query, while a BM25 score or a cosine means something
else for a 30-word fact pattern than for a 5,000-word judgment; the ``*_norm`` features divide by the best
candidate's, a within-query z-score says how far a candidate stands out from the rest. This probe needs no new
features from the node: it appends, to the saved training set, every non-constant feature's z-score over its
query's candidates (NaN, a missing value, stays missing), and cross-validates the shipped configuration with and
without them on the selection's folds (the labelled tuning queries and the held-out mined fact patterns), judged by
the standing rule (+0.005 MAP on both). The reported queries are not scored.

    ratio train ranker --corpus ratio=aila-precedents --corpus fast-irled=irled --mined 1000 --out OUT
    .venv/bin/python scripts/query_norm_probe.py $RATIO_HOME/training/ranker/dataset.npz
"""

from __future__ import annotations

import multiprocessing
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np
from probe_common import SEED, derived


def log(*parts: object) -> None:
    print(time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


def extend_features() -> None:
    """Give the training module the z-scored columns as features of a group of their own (``zscore``); run in this
    process and, as the pool's initializer, in every worker (a spawned worker imports the module afresh)."""
    import lab.training.ranker as ranker

    base = tuple(f for f in ranker.FEATURES if not f.endswith("_zq"))
    ranker.FEATURES = (*base, *(f"{f}_zq" for f in base))
    ranker.FEATURE_GROUPS = {**{f: g for f, g in ranker.FEATURE_GROUPS.items() if not f.endswith("_zq")},
                             **{f"{f}_zq": "zscore" for f in base}}


def zscored(values: np.ndarray) -> np.ndarray:
    """``values`` with each column's z-score over the rows (the query's candidates) appended; a constant column's
    z-score is 0, a missing value stays missing."""
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # a column missing for every candidate: all NaN
        mean, std = np.nanmean(values, axis=0), np.nanstd(values, axis=0)
        z = np.where(std > 0, (values - mean) / np.where(std > 0, std, 1), 0.0)
    z[np.isnan(values)] = np.nan
    return np.hstack([values, z.astype(np.float32)])


def main() -> None:
    from lab.training.ranker import cross_validate
    from lab.training.selection import SHIPPED, VALIDATE, labelled
    from search.ranking.features import GROUPS

    args, dataset, train, params = derived(__doc__, SHIPPED)
    log("dataset", len(dataset.qids), "queries")
    extended = replace(train, values=[zscored(v) for v in train.values])
    scored = replace(dataset, values=[zscored(v) for v in dataset.values])
    extend_features()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(args.workers, mp_context=context, initializer=extend_features) as pool:
        for name, drop in (("raw and z-scored", ()), ("z-scored only", GROUPS)):  # GROUPS: the raw features
            scores = cross_validate(extended, params, folds=5, labelled=labelled, validate=VALIDATE, scored=scored,
                                    drop_groups=drop, seed=SEED, executor=pool)
            table = {k: (v["MAP"], v["queries"]) for k, v in sorted(scores.items())}
            print(f"{name}:", table, flush=True)


if __name__ == "__main__":
    main()
