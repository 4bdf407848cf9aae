"""Mine query-passage training groups from what the user already has: training qrels and the indexed judgments.

A :class:`TrainingGroup` is one query with its positive passages and BM25 hard negatives. Two sources:

- **qrels**: benchmark queries whose relevance judgments may be trained on. The evaluation harness chooses on
  the odd half of the judged queries and reports on the even half (``docs/evaluation.md``), so
  :func:`training_queries` returns the odd half only; the reported half never reaches a model. The positives
  are each relevant judgment's chunks that best match the query (BM25 restricted to that judgment).
- **self-supervised**: a judgment's issue sentences (or, lacking them, its facts) as the query, and its own
  ratio/analysis chunk that best matches them as the positive. Chunks that quote the query verbatim are
  passed over, so the model cannot win by string matching.

Hard negatives are the best BM25 chunks for the same query text in other judgments (one per judgment, never a
judgment judged relevant to the query). Everything is ordered and seeded, so the same index and seed give the
same groups, and :func:`split` holds out whole groups for validation.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import OpenSearch, helpers

from lab.evaluate.data import Qrels, Query, judged
from legal.roles import load_role_set

__all__ = ["PairSet", "Passage", "TrainingGroup", "mine_qrels_groups", "mine_self_groups", "split",
           "training_queries"]

Body = dict[str, Any]
_SENTENCE = re.compile(r"(?<=[.?!])\s+")


def reasoning_roles() -> tuple[str, ...]:
    """The roles of the court's own reasoning (the role table's ``reasoning`` group): where the law is stated."""
    return load_role_set().group("reasoning")


def _skipped_roles() -> list[str]:
    """Header matter and role-less sentences (the ``other`` group): they say nothing about the law and would
    teach the model to match party names."""
    return list(load_role_set().group("other"))


@dataclass(frozen=True)
class Passage:
    """A chunk as a training passage: where it comes from, and its text."""

    chunk_id: str
    judgment_id: str
    role: str
    text: str


@dataclass(frozen=True)
class TrainingGroup:
    """One query, its positive passages and its hard negatives; ``source`` says where the query came from."""

    query: str
    source: str
    positives: tuple[Passage, ...]
    negatives: tuple[Passage, ...]

    @property
    def kind(self) -> str:
        """``qrels`` or ``self``: the part of ``source`` before the colon."""
        return self.source.split(":", 1)[0]


@dataclass(frozen=True)
class PairSet:
    """Training and validation groups, split by group so no query is on both sides."""

    train: list[TrainingGroup]
    validation: list[TrainingGroup]
    seed: int
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Groups and pairs per side and source, for the model card."""
        counts: dict[str, int] = {}
        for side, groups in (("train", self.train), ("validation", self.validation)):
            for group in groups:
                counts[f"{side} groups ({group.kind})"] = counts.get(f"{side} groups ({group.kind})", 0) + 1
            counts[f"{side} positives"] = sum(len(g.positives) for g in groups)
            counts[f"{side} negatives"] = sum(len(g.negatives) for g in groups)
        return counts


def training_queries(queries: Sequence[Query], qrels: Qrels, half: str = "odd") -> list[Query]:
    """The judged queries at odd (or even) positions, exactly as ``ratio eval run --half`` picks them.

    Only the half that reports nothing (``odd``, where choices are made) should be trained on.
    """
    if half not in ("odd", "even"):
        raise ValueError(f"half must be 'odd' or 'even', not {half!r}")
    kept, _ = judged(queries, qrels)
    return kept[0 if half == "odd" else 1::2]


def _cut(text: str, words: int) -> str:
    return " ".join(text.split()[:words])


def _passage(hit: dict[str, Any]) -> Passage:
    source = hit["_source"]
    return Passage(str(source.get("chunk_id", hit["_id"])), str(source["judgment_id"]), str(source.get("role", "")),
                   str(source["text"]))


def best_chunks_body(query: str, judgment_id: str, size: int, roles: Sequence[str] = ()) -> Body:
    """BM25 for ``query`` restricted to one judgment's chunks (optionally to some roles), header matter skipped."""
    filters: list[Body] = [{"term": {"judgment_id": judgment_id}}]
    if roles:
        filters.append({"terms": {"role": list(roles)}})
    return {"size": size, "_source": ["chunk_id", "judgment_id", "role", "text"],
            "query": {"bool": {"must": [{"match": {"text": query}}], "filter": filters,
                               "must_not": [{"terms": {"role": _skipped_roles()}}]}}}


def negatives_body(query: str, excluded: Sequence[str], size: int) -> Body:
    """BM25 for ``query`` over other judgments' chunks, the best chunk of each judgment (collapsed)."""
    return {"size": size, "_source": ["chunk_id", "judgment_id", "role", "text"],
            "collapse": {"field": "judgment_id"},
            "query": {"bool": {"must": [{"match": {"text": query}}],
                               "must_not": [{"terms": {"judgment_id": sorted(excluded)}},
                                            {"terms": {"role": _skipped_roles()}}]}}}


def search_passages(client: OpenSearch, index: str, body: Body) -> list[Passage]:
    return [_passage(hit) for hit in client.search(index=index, body=body)["hits"]["hits"]]


def mine_qrels_groups(client: OpenSearch, chunks: str, queries: Sequence[Query], qrels: Qrels, *,
                      negatives: int = 4, positives: int = 1, query_words: int = 1000,
                      progress: Callable[[int], None] | None = None) -> list[TrainingGroup]:
    """One group per (training query, relevant judgment found in the index).

    Pass only :func:`training_queries`: this function trusts its caller on the split. Relevant judgments
    that are not indexed are skipped; negatives never come from any judgment judged relevant to the query.
    """
    groups: list[TrainingGroup] = []
    for query in queries:
        relevant = sorted(doc for doc, rel in qrels.get(query.qid, {}).items() if rel > 0)
        text = _cut(query.text, query_words)
        hard = tuple(search_passages(client, chunks, negatives_body(text, relevant, negatives))) if relevant else ()
        for judgment_id in relevant:
            found = search_passages(client, chunks, best_chunks_body(text, judgment_id, positives))
            if found and hard:
                groups.append(TrainingGroup(text, f"qrels:{query.qid}:{judgment_id}", tuple(found), hard))
        if progress:
            progress(1)
    return groups


def judgment_ids(client: OpenSearch, judgments: str) -> list[str]:
    """Every indexed judgment id, sorted, so sampling from them is reproducible."""
    hits = helpers.scan(client, index=judgments, query={"_source": False, "query": {"match_all": {}}})
    return sorted(hit["_id"] for hit in hits)


def _self_query(summary: dict[str, Any] | None, words: int) -> str:
    """The judgment's issue sentences if the indexer found any, else its facts, cut to ``words``."""
    summary = summary or {}
    issues = [s for s in summary.get("legal_issues") or [] if isinstance(s, str) and s.strip()]
    text = " ".join(issues) if issues else str(summary.get("facts") or "")
    return _cut(text, words)


def quotes_query(passage: Passage, query: str) -> bool:
    """Whether the passage contains one of the query's sentences verbatim (a positive that teaches nothing)."""
    flat = " ".join(passage.text.split())
    return any(len(sentence) >= 40 and sentence in flat for sentence in _SENTENCE.split(query))


def mine_self_groups(client: OpenSearch, chunks: str, judgments: str, count: int, *, seed: int = 13,
                     negatives: int = 4, query_words: int = 80, exclude: Sequence[str] = (),
                     progress: Callable[[int], None] | None = None) -> list[TrainingGroup]:
    """Up to ``count`` self-supervised groups from judgments sampled with ``seed``.

    ``exclude`` names judgments never to use as a query's source (for example those relevant to reported
    evaluation queries, so their text is not learnt as a query). Judgments without issues or facts, or
    without a usable ratio/analysis chunk, are skipped and the next sampled judgment is tried.
    """
    ids = [i for i in judgment_ids(client, judgments) if i not in set(exclude)]
    random.Random(seed).shuffle(ids)
    groups: list[TrainingGroup] = []
    for start in range(0, len(ids), 50):
        if len(groups) >= count:
            break
        batch = ids[start:start + 50]
        docs = client.mget(index=judgments, body={"ids": batch}, _source_includes=["summary"])["docs"]
        for doc in docs:
            if len(groups) >= count:
                break
            query = _self_query((doc.get("_source") or {}).get("summary"), query_words)
            if len(query.split()) < 8:
                continue
            candidates = search_passages(client, chunks, best_chunks_body(query, doc["_id"], 4, reasoning_roles()))
            positive = next((p for p in candidates if not quotes_query(p, query)), None)
            if positive is None:
                continue
            hard = search_passages(client, chunks, negatives_body(query, [doc["_id"]], negatives))
            if hard:
                groups.append(TrainingGroup(query, f"self:{doc['_id']}", (positive,), tuple(hard)))
                if progress:
                    progress(1)
    return groups


def split(groups: Sequence[TrainingGroup], validation_share: float = 0.1, seed: int = 13,
          notes: Sequence[str] = ()) -> PairSet:
    """Hold out ``validation_share`` of the queries (seeded), with all their groups, for validation.

    Groups sharing a query text (one qrels query with several relevant judgments) stay on one side, so the
    validation figures are about queries the model has not seen. At least one query is held out when there
    are two or more.
    """
    if not 0 <= validation_share < 1:
        raise ValueError("validation_share must be in [0, 1)")
    by_query: dict[str, list[TrainingGroup]] = {}
    for group in groups:
        by_query.setdefault(group.query, []).append(group)
    keys = list(by_query)
    random.Random(seed).shuffle(keys)
    held = round(len(keys) * validation_share)
    if validation_share and len(keys) >= 2:
        held = max(held, 1)
    validation = [g for key in keys[:held] for g in by_query[key]]
    train = [g for key in keys[held:] for g in by_query[key]]
    return PairSet(train=train, validation=validation, seed=seed, notes=list(notes))
