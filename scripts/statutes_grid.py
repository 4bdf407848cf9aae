"""The grid that chose the provisions stage's weights (search/ranking/statutes.py), on AILA's odd half only.

    python scripts/statutes_grid.py --prefix ratio26 --data ../shared/data

ranks each odd-half statute query's judgments once (the default search, as ``ratio eval run`` does), reads the
query's own provisions, the former stage (query text 0.3, statute passages 0.7) and the provisions the top
judgments cite through the corpus mapping, and scores every weight combination and depth by MAP. It never reads
the even half (the reported queries). Prints the best 15 rows.
"""

from __future__ import annotations

import argparse
import itertools
import math
from collections import defaultdict
from pathlib import Path

import numpy as np

from backends.opensearch import IndexLayout
from lab.evaluate.data import judged, read_qrels, read_queries
from lab.evaluate.systems import Runner
from ratio.encoders import search_encoders
from search.execute import Searcher
from search.provisions.retrieve import find_provisions
from search.query.request import SearchRequest
from search.ranking.statutes import AMBIGUOUS, rank_provisions


def _minmax(scores: dict[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    return {k: (v - low) / (high - low) if high > low else 1.0 for k, v in scores.items()}


def _ap(ranked: list[str], relevant: set[str]) -> float:
    hits, total = 0, 0.0
    for i, doc in enumerate(ranked):
        if doc in relevant:
            hits += 1
            total += hits / (i + 1)
    return total / len(relevant) if relevant else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prefix", default="ratio")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    args = parser.parse_args()
    from opensearchpy import OpenSearch

    client = OpenSearch("http://127.0.0.1:9200", timeout=300)
    aliases = IndexLayout(args.prefix).aliases()
    qrels = read_qrels(args.data / "aila-2019/relevance_judgments_statutes.txt")
    queries = judged(read_queries(args.data / "aila-2019/Query_doc.txt"), qrels)[0][0::2]  # the odd half only
    model, _ = search_encoders(client, aliases, None)
    searcher = Searcher(client, aliases, model)
    runner = Runner(searcher, max_words=1000)
    links: dict[str, list[tuple[str, float]]] = defaultdict(list)  # citation -> (provision, link weight)
    for hit in client.search(index=aliases["provisions"], body={"size": 10_000, "_source": ["citation", "mapping"]})[
            "hits"]["hits"]:
        source, mapping = hit["_source"], hit["_source"].get("mapping") or {}
        if source.get("citation"):
            links[source["citation"]].append((hit["_id"], 1.0))
        elif mapping.get("status") == "ambiguous" and mapping.get("citation"):
            links[mapping["citation"]].append((hit["_id"], AMBIGUOUS * float(mapping.get("confidence") or 0)))
    counts = {b["key"].split("(")[0]: b["doc_count"] for b in client.search(index=aliases["judgments"], body={
        "size": 0, "aggs": {"p": {"terms": {"field": "cited_provisions", "size": 10_000}}}})["aggregations"]["p"][
        "buckets"]}
    prior = _minmax({p: w * math.log1p(counts.get(c, 0)) for c, ps in links.items() for p, w in ps})
    prepared = []
    for query in queries:
        judgments = runner._rank_default("default", query.text)[:100]
        plain = SearchRequest.from_query(query.text, facets=False, highlight=False).semantic_text
        own = {h.provision_id: h.score for h in find_provisions(client, aliases["provisions"], model, [plain],
                                                                 size=200, candidates=200,
                                                                 floor=searcher.provisions_floor)}
        former = dict(rank_provisions(client, aliases, model, plain, judgments, depth=200,
                                      weights={"direct": 0.3, "passages": 0.7, "citations": 0.0},
                                      floor=searcher.provisions_floor))
        docs = client.mget(index=aliases["judgments"], body={"ids": judgments}, _source=["cited_provisions"])["docs"]
        cited = [{c.split("(")[0] for c in (d["_source"].get("cited_provisions") or [])} if d.get("found") else set()
                 for d in docs]
        relevant = {doc for doc, grade in qrels[query.qid].items() if grade > 0}
        prepared.append((_minmax(own), _minmax(former), cited, relevant))
    rows = []
    for w_own, w_cited, w_prior, w_former, depth, decay in itertools.product(
            [0, 0.2, 0.4], [0, 0.3, 0.6, 1], [0, 0.2, 0.4, 0.8], [0, 0.3, 0.6, 1], [10, 20, 50, 100], ["log", "flat"]):
        if not w_own + w_cited + w_prior + w_former:
            continue
        aps = []
        for own, former, cited, relevant in prepared:
            votes: dict[str, float] = defaultdict(float)
            for rank, citations in enumerate(cited[:depth]):
                weight = 1 / math.log2(rank + 2) if decay == "log" else 1.0
                for citation in citations:
                    for provision, link in links.get(citation, ()):
                        votes[provision] += weight * link
            votes_n = _minmax(dict(votes))
            found = {*own, *former, *votes_n, *prior}
            score = {p: w_own * own.get(p, 0) + w_cited * votes_n.get(p, 0) + w_prior * prior.get(p, 0)
                     + w_former * former.get(p, 0) for p in found}
            aps.append(_ap(sorted(score, key=lambda p: (-score[p], p)), relevant))
        rows.append((float(np.mean(aps)), w_own, w_cited, w_prior, w_former, depth, decay))
    print("MAP own cited prior former depth decay")
    for row in sorted(rows, reverse=True)[:15]:
        print(f"{row[0]:.4f}", *row[1:])


if __name__ == "__main__":
    main()
