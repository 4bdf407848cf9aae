"""The tuned facts vectors: where they live in the indices and how the ranker asks for them.

A MiniLM tuned on the corpus's citation pairs (the facts of a citing judgment against the facts of a judgment it
cites; ``ratio train facts-encoder``, :mod:`lab.training.facts_encoder`) reads what two fact patterns share
better than the general encoder does. It is tuned twice, in two halves of the citing judgments (cross-fitting: a
mined training query takes its features from the encoder that never saw its own judgment's pairs), and both
encoders' vectors are stored, each under its half's name: per facts chunk (``tuned_a`` on the chunks index), and per
judgment its facts text as a pair holds it (``tuned_text_a``) and the mean of its facts chunks (``tuned_mean_a``).
Searches use half ``a``; ``b`` serves training only. A judgment without facts chunks has none (its features are
missing), and so has every judgment of an index the encoder never filled: the ranker then reads NaN, as it does
for any absent evidence.

Vectors are read by exact script scoring on the candidates only (no k-NN graph is searched), so the fields are
plain ``knn_vector`` fields whose HNSW graph is never used; the indices' ``_meta.facts_encoders`` names the model
of each half.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["HALVES", "SERVING", "TunedQuery", "best_chunks", "chunk_field", "judgment_fields", "tuned_bodies"]

Body = dict[str, Any]
HALVES = ("a", "b")
SERVING = "a"  # the half whose encoder and vectors a search uses
MAX_TOKENS = 256  # what the encoder reads of a text: a query, a facts text, a facts chunk


@dataclass(frozen=True)
class TunedQuery:
    """A query's vector under one half's tuned encoder, and that half's name (which fields it is compared with)."""

    half: str
    vector: tuple[float, ...]


def chunk_field(half: str) -> str:
    return f"tuned_{half}"


def judgment_fields(half: str) -> tuple[str, str]:
    """(facts text field, mean facts chunk field) of a judgment."""
    return f"tuned_text_{half}", f"tuned_mean_{half}"


def _script(field: str, vector: Sequence[float]) -> Body:
    return {"source": "knn_score", "lang": "knn",
            "params": {"field": field, "query_value": list(vector), "space_type": "cosinesimil"}}


def _scored(field: str, vector: Sequence[float], filters: list[Body]) -> Body:
    return {"script_score": {"query": {"bool": {"filter": [*filters, {"exists": {"field": field}}]}},
                             "script": _script(field, vector)}}


def tuned_bodies(query: TunedQuery, ids: Sequence[str]) -> tuple[Body, Body, Body]:
    """Three exact similarity requests for the candidates ``ids``: their facts texts and their mean facts chunks
    (judgments index, hits), and their best facts chunk (chunks index, a max per judgment). Scores are the
    k-NN plugin's cosine score, ``(1 + cos) / 2``."""
    text_field, mean_field = judgment_fields(query.half)
    ids_filter = [{"ids": {"values": list(ids)}}]
    judged = {"size": len(ids), "_source": False, "stored_fields": "_none_", "docvalue_fields": ["judgment_id"],
              "track_total_hits": False}
    text = {"query": _scored(text_field, query.vector, ids_filter), **judged}
    mean = {"query": _scored(mean_field, query.vector, ids_filter), **judged}
    field = chunk_field(query.half)
    chunks = {"query": _scored(field, query.vector, [{"terms": {"judgment_id": list(ids)}}]), "size": 0,
              "track_total_hits": False,
              "aggs": {"per_judgment": {"terms": {"field": "judgment_id", "size": max(len(ids), 1)},
                                        "aggs": {"best": {"max": {"script": "_score"}}}}}}
    return text, mean, chunks


def best_chunks(response: Body) -> dict[str, float]:
    """Judgment id -> its best facts chunk's score, from the third of :func:`tuned_bodies`."""
    return {b["key"]: float(b["best"]["value"]) for b in response["aggregations"]["per_judgment"]["buckets"]}
