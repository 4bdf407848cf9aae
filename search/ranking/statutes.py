"""Statutes for a query from the precedents the ranker found: precedents point to the provisions they apply.

A provision's text rarely shares words with a fact pattern ("the husband demanded a scooter" against "Dowry
death.- (1) Where the death of a woman is caused by any burns..."), but the judgments that decided similar facts
quote the provisions they applied, in their statute-role chunks. So the provisions are ranked twice: by the
query itself (BM25 + k-NN over provisions, :func:`search.provisions.find_provisions`) and by the statute
passages of the ranker's top judgments (each passage a BM25 query over provisions, weighted by its judgment's
rank), and the two min-max-normalised lists are mixed with ``weight`` (chosen on AILA's tuning half). With a
``floor`` the query's own provisions are those matching its words or at least that similar to it in meaning
(:func:`search.provisions.find_provisions`); the precedents' provisions are those the ranked judgments quote.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from opensearchpy import OpenSearch

from backends.encoders import Encoder
from legal.roles import load_role_set
from search.provisions import find_provisions, provision_bm25_body

__all__ = ["PRECEDENTS", "WEIGHT", "rank_provisions", "statute_passages"]

PRECEDENTS = 10  # top judgments whose statute passages vote (5, 10, 20 tried on AILA odd: 10 best)
WEIGHT = 0.7  # the precedents' share of a provision's score (0.3 to 1.0 tried: 0.7 best, MAP 0.148 vs 0.106)
_PASSAGE_WORDS = 300


def statute_passages(client: OpenSearch, chunks: str, judgment_ids: Sequence[str]) -> dict[str, str]:
    """Per judgment, the text of its statute-role chunks (cut to a query's length)."""
    if not judgment_ids:
        return {}
    roles = list(load_role_set().group("statute"))
    body = {"size": 20 * len(judgment_ids), "_source": ["judgment_id", "text"], "track_total_hits": False,
            "query": {"bool": {"filter": [{"terms": {"judgment_id": list(judgment_ids)}},
                                          {"terms": {"role": roles}}]}}}
    texts: dict[str, list[str]] = {}
    for hit in client.search(index=chunks, body=body)["hits"]["hits"]:
        texts.setdefault(hit["_source"]["judgment_id"], []).append(hit["_source"]["text"])
    return {j: " ".join(" ".join(t).split()[:_PASSAGE_WORDS]) for j, t in texts.items()}


def _minmax(scores: Mapping[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    return {k: (v - low) / (high - low) if high > low else 1.0 for k, v in scores.items()}


def rank_provisions(client: OpenSearch, aliases: Mapping[str, str], encoder: Encoder, text: str,
                    judgments: Sequence[str], *, depth: int = 100, precedents: int = PRECEDENTS,
                    weight: float = WEIGHT, floor: float | None = None) -> list[tuple[str, float]]:
    """Provision ids best first for ``text``, given the judgments ranked for it (best first); ``floor``: the
    meaning floor of the query's own provisions (None: none)."""
    direct = {h.provision_id: h.score for h in find_provisions(client, aliases["provisions"], encoder, [text],
                                                                 size=depth, candidates=depth, floor=floor)}
    votes: dict[str, float] = {}
    passages = statute_passages(client, aliases["chunks"], list(judgments[:precedents]))
    order = [j for j in judgments[:precedents] if passages.get(j)]
    if order:
        lines: list[dict] = []
        for judgment in order:
            lines += [{"index": aliases["provisions"]}, provision_bm25_body(passages[judgment], depth)]
        for rank, response in enumerate(client.msearch(body=lines)["responses"]):
            hits = response.get("hits", {}).get("hits", [])
            top = max((float(h["_score"] or 0.0) for h in hits), default=0.0) or 1.0
            for hit in hits:
                votes[hit["_id"]] = votes.get(hit["_id"], 0.0) + float(hit["_score"] or 0.0) / top / math.log2(rank + 2)
    direct, votes = _minmax(direct), _minmax(votes)
    mixed = {p: (1 - weight) * direct.get(p, 0.0) + weight * votes.get(p, 0.0) for p in {*direct, *votes}}
    return sorted(mixed.items(), key=lambda item: (-item[1], item[0]))[:depth]
