"""Fuse ranked lists (BM25 hits, k-NN hits) into one, the way OpenSearch 2.19's search pipelines do.

Client-side fusion exists for clusters without neural-search and to check the server: both paths must rank
the same inputs the same way, so this module follows the neural-search 2.19 processors deliberately:

``MINMAX`` (``normalization-processor``: ``min_max`` then ``arithmetic_mean`` with weights)
    Per list, ``(s - min) / (max - min)``. Two special cases copied from the server: when a list's scores
    are all equal (one result, or ties across the whole list) every document gets ``1.0``; a document whose
    normalised score would be exactly ``0`` (the list's minimum) gets ``0.001``, so it still counts as
    present. A document absent from a list scores ``0`` for that list and its weight still counts, so the
    combined score is ``sum(w_i * n_i) / sum(w_i)`` over *all* lists (the server initialises missing
    sub-query scores to 0.0 since 2.11; older releases skipped them, which over-rewarded single-list hits).
``RRF`` (``score-ranker-processor`` with ``rrf``)
    ``sum(1 / (rank_constant + rank))`` over the lists a document appears in, ranks from 1.

Like the server, the fused list is cut to the length of the longest input list. Ties are broken by the
document id (ascending), so the order is deterministic; the server breaks ties by shard and Lucene doc id,
which we cannot see, and computes in float32: exact ties and near-ties (differences below ~1e-7) can
therefore order differently across the two paths. Scores within a list are taken as given; a list's order
defines ranks for RRF, so pass lists in descending score order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import mappings
from search.query.options import FusionMethod  # an option's value; re-exported for the fusion's callers

__all__ = ["DEFAULT_RANK_CONSTANT", "DEFAULT_WEIGHTS", "FusedHit", "FusionMethod", "fuse", "min_max"]

# The installed pipelines' defaults (mappings.HYBRID_WEIGHTS says why BM25 0.9 / k-NN 0.1), read rather than
# repeated, so client-side fusion fuses as the server does without a comment tying two spellings together.
DEFAULT_WEIGHTS: tuple[float, float] = mappings.HYBRID_WEIGHTS
DEFAULT_RANK_CONSTANT: int = mappings.RRF_RANK_CONSTANT
MIN_SCORE = 0.001  # neural-search MinMax: a normalised 0 becomes this
SINGLE_RESULT_SCORE = 1.0  # neural-search MinMax: max == min


@dataclass(frozen=True)
class FusedHit:
    """One fused document: its id, fused score, and per-list contributions (None where absent)."""

    id: str
    score: float
    parts: tuple[float | None, ...]


def min_max(scores: Sequence[float]) -> list[float]:
    """Min-max normalise one list's scores with the server's special cases (see the module docstring)."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high == low:
        return [SINGLE_RESULT_SCORE] * len(scores)
    normalised = [(s - low) / (high - low) for s in scores]
    return [MIN_SCORE if n == 0.0 else n for n in normalised]


def _validate(lists: Sequence[Sequence[tuple[str, float]]], weights: Sequence[float], rank_constant: int) -> None:
    if len(weights) != len(lists):
        raise ValueError(f"{len(lists)} result lists need {len(lists)} weights, got {len(weights)}")
    if any(w < 0 for w in weights) or abs(sum(weights) - 1.0) > 1e-6:
        raise ValueError(f"weights must be non-negative and sum to 1, got {tuple(weights)}")
    if rank_constant < 1:
        raise ValueError(f"rank_constant must be at least 1, got {rank_constant}")
    for number, hits in enumerate(lists):
        ids = [doc_id for doc_id, _ in hits]
        if len(set(ids)) != len(ids):
            raise ValueError(f"result list {number} repeats a document id; de-duplicate it first")


def fuse(
    lists: Sequence[Sequence[tuple[str, float]]],
    method: FusionMethod = FusionMethod.MINMAX,
    weights: Sequence[float] | None = None,
    rank_constant: int = DEFAULT_RANK_CONSTANT,
    limit: int | None = None,
) -> list[FusedHit]:
    """Fuse ``(id, score)`` lists, each in descending score order, into one ranked list.

    ``weights`` (MINMAX only) follow the list order, BM25 first, like the pipeline's; default
    :data:`DEFAULT_WEIGHTS` (the pipeline's) for two lists, equal otherwise. ``limit`` defaults to the longest
    list's length, as on the server.
    """
    if weights is None:
        weights = DEFAULT_WEIGHTS if len(lists) == 2 else tuple(1.0 / len(lists) for _ in lists) if lists else ()
    _validate(lists, weights, rank_constant)
    parts: dict[str, list[float | None]] = {}
    for number, hits in enumerate(lists):
        if method is FusionMethod.MINMAX:
            values = min_max([score for _, score in hits])
        else:
            values = [1.0 / (rank_constant + rank) for rank in range(1, len(hits) + 1)]
        for (doc_id, _), value in zip(hits, values, strict=True):
            parts.setdefault(doc_id, [None] * len(lists))[number] = value
    fused = []
    for doc_id, contributions in parts.items():
        present = [0.0 if c is None else c for c in contributions]
        if method is FusionMethod.MINMAX:
            score = sum(w * c for w, c in zip(weights, present, strict=True)) / sum(weights)
        else:
            score = sum(present)
        fused.append(FusedHit(doc_id, score, tuple(contributions)))
    fused.sort(key=lambda hit: (-hit.score, hit.id))
    cut = max((len(hits) for hits in lists), default=0) if limit is None else limit
    return fused[:cut]
