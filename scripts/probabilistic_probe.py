"""The probabilistic group's probe (issue 27, item 5), kept at this commit only: held-out MAP of the shipped
configuration with the group, without it, and with one of its features alone (the others zeroed: a constant column
is never split on), on the selection's folds (search.training.selection: same derive, folds and seed).

    ratio indices upgrade --kind judgments                 # and with --prefix fast-irled: the text subfields
    ratio train ranker --corpus ratio=aila-precedents --corpus fast-irled=irled --mined 250 \
        --save-dataset D/dataset.npz --out D/model
    .venv/bin/python scripts/probabilistic_probe.py D/dataset.npz
"""

from __future__ import annotations

import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from search.ranking.groups import FEATURES, ProbabilisticGroup
from search.training.ranker import Dataset, RankerParams, cross_validate
from search.training.selection import SHIPPED, VALIDATE, derive, labelled


def main(path: Path) -> None:
    variants = [("with the group", SHIPPED, None), ("without it", replace(SHIPPED, drop_groups=("probabilistic",)),
                                                    None)]
    variants += [(f"{f} alone", SHIPPED, f) for f in ProbabilisticGroup.features]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        for name, configuration, alone in variants:
            dataset = Dataset.load(path)
            for feature in ProbabilisticGroup.features if alone else ():
                if feature != alone:
                    for values in dataset.values:
                        values[:, FEATURES.index(feature)] = 0.0
            train, params = derive(dataset, RankerParams(seed=13), configuration)
            scores = cross_validate(train, params, folds=5, labelled=labelled, validate=tuple(sorted(VALIDATE)),
                                    scored=dataset, drop_groups=configuration.drop_groups, seed=13, executor=pool)
            print(name, {k: round(v.get("MAP", 0.0), 4) for k, v in sorted(scores.items())}, flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
