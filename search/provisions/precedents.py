"""Statutes for a query from the precedents the ranker found: precedents point to the provisions they apply.

A provision's text rarely shares words with a fact pattern ("the husband demanded a scooter" against "Dowry
death.- (1) Where the death of a woman is caused by any burns..."), but the judgments that decided similar facts
cite and quote the provisions they applied. So a provision is scored three ways, each min-max normalised:

* **direct**: the query itself (BM25 + k-NN over provisions, :func:`search.provisions.retrieve.find_provisions`);
* **passages**: the statute-role passages of the ranker's top ``PRECEDENTS`` judgments, each a BM25 query over
  provisions, weighted by its judgment's rank;
* **citations**: the provisions the top ``CITING`` judgments *cite* (their ``cited_provisions``), each judgment
  weighted ``1 / log2(rank + 2)``, reaching a provision through its corpus mapping
  (:mod:`indexer.provision_map`): fully when mapped or given by its source, at half its vote share when the
  mapping is ambiguous (its leading citation, ``mapping.citation``).

and the three are mixed with ``WEIGHTS`` (chosen on AILA's tuning half only: docs/evaluation.md). With a ``floor``
the query's own provisions are those matching its words or at least that similar to it in meaning.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from opensearchpy import OpenSearch

from backends.encoders import Encoder
from legal.citations import section_of
from legal.roles import load_role_set
from search.provisions.retrieve import find_provisions, provision_bm25_body

__all__ = ["CITING", "PRECEDENTS", "WEIGHTS", "citation_votes", "minmax", "mix_parts", "rank_provisions",
           "statute_passages"]

PRECEDENTS = 10  # top judgments whose statute passages vote (5, 10, 20 tried on AILA odd: 10 best)
CITING = 50  # top judgments whose cited provisions vote (20, 50, 100 tried on AILA odd: 50 best)
WEIGHTS = {"direct": 0.3, "passages": 0.2, "citations": 1.0}  # AILA odd half (docs/evaluation.md)
AMBIGUOUS = 0.5  # how much an ambiguous mapping's leading citation counts, times its vote share
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


def minmax(scores: Mapping[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    return {k: (v - low) / (high - low) if high > low else 1.0 for k, v in scores.items()}


def citation_votes(client: OpenSearch, aliases: Mapping[str, str], judgments: Sequence[str],
                   citing: int = CITING) -> dict[str, float]:
    """Per provision id, the rank-weighted votes of the top ``citing`` judgments that cite it (see above)."""
    top = list(judgments[:citing])
    if not top:
        return {}
    docs = client.mget(index=aliases["judgments"], body={"ids": top}, _source=["cited_provisions"])["docs"]
    weight = {j: 1.0 / math.log2(rank + 2) for rank, j in enumerate(top)}
    cited: dict[str, float] = {}
    for doc in docs:
        if doc.get("found"):
            for citation in {section_of(c) for c in doc["_source"].get("cited_provisions") or ()}:
                cited[citation] = cited.get(citation, 0.0) + weight[doc["_id"]]
    if not cited:
        return {}
    body = {"size": 10_000, "_source": ["citation", "mapping.status", "mapping.citation", "mapping.confidence"],
            "query": {"bool": {"should": [{"terms": {"citation": sorted(cited)}},
                                          {"terms": {"mapping.citation": sorted(cited)}}]}}}
    votes: dict[str, float] = {}
    for hit in client.search(index=aliases["provisions"], body=body)["hits"]["hits"]:
        source, mapping = hit["_source"], hit["_source"].get("mapping") or {}
        if source.get("citation"):
            links = {source["citation"]: 1.0}
        elif mapping.get("status") == "ambiguous" and mapping.get("citation"):
            links = {mapping["citation"]: AMBIGUOUS * float(mapping.get("confidence") or 0.0)}
        else:
            continue
        score = sum(cited.get(citation, 0.0) * link for citation, link in links.items())
        if score > 0:
            votes[hit["_id"]] = score
    return votes


def passage_votes(client: OpenSearch, aliases: Mapping[str, str], judgments: Sequence[str], depth: int,
                  precedents: int = PRECEDENTS) -> dict[str, float]:
    """Per provision id, the rank-weighted BM25 matches of the top ``precedents`` judgments' statute passages."""
    votes: dict[str, float] = {}
    passages = statute_passages(client, aliases["chunks"], list(judgments[:precedents]))
    order = [j for j in judgments[:precedents] if passages.get(j)]
    if not order:
        return votes
    lines: list[dict] = []
    for judgment in order:
        lines += [{"index": aliases["provisions"]}, provision_bm25_body(passages[judgment], depth)]
    for rank, response in enumerate(client.msearch(body=lines)["responses"]):
        hits = response.get("hits", {}).get("hits", [])
        top = max((float(h["_score"] or 0.0) for h in hits), default=0.0) or 1.0
        for hit in hits:
            votes[hit["_id"]] = votes.get(hit["_id"], 0.0) + float(hit["_score"] or 0.0) / top / math.log2(rank + 2)
    return votes


def rank_provisions(client: OpenSearch, aliases: Mapping[str, str], encoder: Encoder, text: str,
                    judgments: Sequence[str], *, depth: int = 100, precedents: int = PRECEDENTS,
                    citing: int = CITING, weights: Mapping[str, float] | None = None,
                    floor: float | None = None) -> list[tuple[str, float]]:
    """Provision ids best first for ``text``, given the judgments ranked for it (best first); ``floor``: the
    meaning floor of the query's own provisions (None: none)."""
    weights = {**WEIGHTS, **(weights or {})}
    scorers = {"direct": lambda: {h.provision_id: h.score for h in find_provisions(
                   client, aliases["provisions"], encoder, [text], size=depth, candidates=depth, floor=floor)},
               "passages": lambda: passage_votes(client, aliases, judgments, depth, precedents),
               "citations": lambda: citation_votes(client, aliases, judgments, citing)}
    parts = {name: minmax(score()) for name, score in scorers.items() if weights[name]}  # weighted 0: not asked
    return mix_parts(parts, weights, depth)


def mix_parts(parts: Mapping[str, Mapping[str, float]], weights: Mapping[str, float],
              depth: int) -> list[tuple[str, float]]:
    """The ``depth`` best provisions of ``parts`` (each min-max normalised) mixed by ``weights``, best first, ties
    by id; a part weighted 0 counts for nothing. The one home of the mix, for the box and the grid that chose it
    (``ratio eval statutes-grid``)."""
    used = {name: scores for name, scores in parts.items() if weights.get(name)}
    found = {p for scores in used.values() for p in scores}
    mixed = {p: sum(weights[name] * scores.get(p, 0.0) for name, scores in used.items()) for p in found}
    return sorted(mixed.items(), key=lambda item: (-item[1], item[0]))[:depth]
