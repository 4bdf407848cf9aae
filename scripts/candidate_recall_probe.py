"""Issue 27, item 5: would whole-query BM25 as one more candidate source find relevant judgments the ranker's
candidates miss?

Whole-text BM25 finds more of AILA's relevant judgments within its first 1,000 than the ranker does (R@1000 0.83
against 0.68 on the reported half), and the ranker can only order what its candidate sources bring. This probe reads
tuning and mined queries only (never a reported one): for each corpus's labelled tuning queries and a seeded sample
of 120 of its mined facts and document queries (the build's own queries, :func:`training_queries`), the share of the
relevant judgments among the ranker's candidates, and among them with whole-query BM25's top 250 or 500 added (the
``reduction`` group's ``bm25_full`` terms, every query term weighted by its count), with the candidate count before
and after and the time of that request.

    .venv/bin/python scripts/candidate_recall_probe.py
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

SAMPLE = 120
SOURCES = ("aila-precedents-tuning", "irled-tuning", "mined-facts", "mined-document")


def main() -> None:
    from lab.training.ranker_build import training_queries
    from lab.training.ranker_data import Guard
    from ratio.cli.common import Context
    from ratio.cli.train_ranker import _corpus, guarded_texts
    from search.ranking import bodies
    from search.ranking.group import hits
    from search.ranking.groups import ReductionGroup
    from search.ranking.query import profile
    from search.ranking.rank import Ranker

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--corpus", action="append", default=None,
                        help="PREFIX=BENCHMARK (repeatable; default the two benchmarks' corpora)")
    args = parser.parse_args()
    ctx = Context(None, None, None, True, "ratio")
    client = ctx.client()
    guard = Guard(guarded_texts(args.data)[0])
    rng = random.Random(0)
    for spec in args.corpus or ("ratio=aila-precedents", "fast-irled=irled"):
        corpus = _corpus(ctx, spec, args.data)
        part = training_queries(client, corpus, guard, mined_per_style=1000, seed=13)
        features = Ranker(client, corpus.aliases, None, graph=part.graph).features
        by_source: dict[str, list] = {}
        for query in part.queries:
            by_source.setdefault(query.source, []).append(query)
        for source, queries in by_source.items():
            if source not in SOURCES:
                continue
            if len(queries) > SAMPLE:
                queries = rng.sample(queries, SAMPLE)
            sums = dict.fromkeys(("candidates", "with 250", "with 500", "BM25 500 alone", "count", "count with 500",
                                  "request s"), 0.0)
            n = 0
            for query in queries:
                excluded = set(query.exclude)
                relevant = set(query.relevant) - excluded
                if not relevant:
                    continue
                found = profile(client, corpus.aliases["judgments"], query.text)
                ids = set(features.candidates(found, exclude=query.exclude).ids)
                started = time.perf_counter()
                answer = client.search(index=corpus.aliases["judgments"],
                                       body=bodies.terms_body(ReductionGroup.full(found), 500))
                sums["request s"] += time.perf_counter() - started
                full = [d for d in hits(answer) if d not in excluded]
                sums["candidates"] += len(relevant & ids) / len(relevant)
                sums["with 250"] += len(relevant & (ids | set(full[:250]))) / len(relevant)
                sums["with 500"] += len(relevant & (ids | set(full))) / len(relevant)
                sums["BM25 500 alone"] += len(relevant & set(full)) / len(relevant)
                sums["count"] += len(ids)
                sums["count with 500"] += len(ids | set(full))
                n += 1
            print(spec, source, n, {k: round(v / max(n, 1), 4) for k, v in sums.items()}, flush=True)


if __name__ == "__main__":
    main()
