"""What the issue-27 probes share: the saved training set named on the command line, and the training set and
LightGBM parameters a configuration derives from it (the selection's own ``derive``, on the selection's seed)."""

from __future__ import annotations

import argparse
from pathlib import Path

from lab.training.ranker import Dataset, RankerParams
from lab.training.selection import Configuration, derive

SEED = 13  # the selection's folds and the shipped model's seed


def derived(doc: str, configuration: Configuration) -> tuple[argparse.Namespace, Dataset, Dataset, RankerParams]:
    """The arguments (``dataset``, ``--workers``), the saved set as built, and ``configuration``'s training set
    and parameters from it."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    dataset = Dataset.load(args.dataset)
    train, params = derive(dataset, RankerParams(seed=SEED), configuration)
    return args, dataset, train, params
