"""The tuned group's selection row at more LightGBM seeds (issue 27): is its gain more than a seed's?

``ratio train ranker --cv 5 --cv-choice tuned`` judges the group at seed 13, where the shipped configuration alone
moves about 0.010 from seed to seed. This runs the same 5-fold cross-validation (folds seeded 13, as the selection's)
of the shipped configuration with every group at other LightGBM seeds, and, with ``--without``, the row without
the tuned group too (its columns are bit for bit the 2026-12d training set's, so that row equals the probe's
``shipped`` row at the same seed: docs/evaluation.md). Means over folds only, as the selection table has them.

    .venv/bin/python scripts/tuned_group_seeds.py $RATIO_HOME/training/ranker/dataset.npz --seed 14 --seed 15
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from lab.training.ranker import Dataset, RankerParams, cross_validate
from lab.training.selection import SHIPPED, VALIDATE, derive, labelled

FOLD_SEED = 13


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--seed", type=int, action="append", required=True, help="a LightGBM seed (repeatable)")
    parser.add_argument("--without", action="store_true", help="also the row without the tuned group")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    dataset = Dataset.load(args.dataset)
    results = {}
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for seed in args.seed:
            for drop in ((), ("tuned",)) if args.without else ((),):
                started = time.perf_counter()
                train, params = derive(dataset, RankerParams(seed=seed), SHIPPED)
                scores = cross_validate(train, params, folds=5, labelled=labelled, validate=VALIDATE, scored=dataset,
                                        drop_groups=drop, seed=FOLD_SEED, executor=pool)
                row = "without tuned" if drop else "all groups"
                results[f"{seed} {row}"] = {k: round(v["MAP"], 4) for k, v in sorted(scores.items())}
                print(seed, row, f"{time.perf_counter() - started:.0f} s", json.dumps(results[f"{seed} {row}"]),
                      flush=True)


if __name__ == "__main__":
    main()
