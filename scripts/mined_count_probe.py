"""Issue 27, item 5: does the ranker gain from more mined queries (every citing judgment of both corpora)?

The model shipped before 2026-12-04 mined 250 queries per long style (document, facts, facts-anon) per corpus.
This probe takes a training set built with more (``--mined 1000``: every citing judgment with a usable facts
section) and cross-validates the shipped configuration trained on the first N mined queries per style, for each N
asked (what ``--mined N`` would have mined: the same seeded order, so the first N are exactly those), all judged
on the same folds of the big set: its labelled queries and its held-out mined fact patterns (all of them, so more
than the shipped selection scores). The typed and labelled queries are the same in every row.

    ratio train ranker --corpus ratio=aila-precedents --corpus fast-irled=irled --mined 1000 \
        --save-dataset D/dataset.npz --out D/model
    .venv/bin/python scripts/mined_count_probe.py D/dataset.npz --count 250 --count 500 --count 1000
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

LONG = ("mined-document", "mined-facts", "mined-facts-anon")
CORPORA = ("ratio=aila-precedents", "fast-irled=irled")
SEED = 13


def log(*parts: object) -> None:
    print(time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


def mined_ids(data: Path, count: int) -> set[str]:
    """The long-style query ids ``--mined count`` mines (the build's own query order, guard and held keys)."""
    from lab.training.ranker_build import training_queries
    from lab.training.ranker_data import Guard
    from ratio.cli.common import Context
    from ratio.cli.train_ranker import _corpus, guarded_texts

    ctx = Context(None, None, None, True, "ratio")
    client = ctx.client()
    guard = Guard(guarded_texts(data)[0])
    return {q.qid for c in CORPORA
            for q in training_queries(client, _corpus(ctx, c, data), guard, mined_per_style=count,
                                      seed=SEED).queries if q.source in LONG}


def main() -> None:
    from lab.training.ranker import Dataset, RankerParams, cross_validate
    from lab.training.selection import SHIPPED, VALIDATE, derive, labelled

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--count", type=int, action="append", required=True,
                        help="mined queries per long style and corpus to train on (repeatable)")
    args = parser.parse_args()
    dataset = Dataset.load(args.dataset)
    log("dataset", len(dataset.qids), "queries;", {s: dataset.sources.count(s) for s in LONG})
    train, params = derive(dataset, RankerParams(seed=SEED), SHIPPED)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        for count in args.count:
            allowed = mined_ids(args.data, count)
            part = train.subset(lambda i, allowed=allowed: train.sources[i] not in LONG
                                or train.qids[i].split("#", 1)[0] in allowed)
            trained = {s: part.sources.count(s) for s in LONG}
            scores = cross_validate(part, params, folds=5, labelled=labelled, validate=VALIDATE, scored=dataset,
                                    seed=SEED, executor=pool)
            table = {k: (v["MAP"], v["queries"]) for k, v in sorted(scores.items())}
            print(f"--mined {count}: trained on {trained}", table, flush=True)


if __name__ == "__main__":
    main()
