"""Reranking the top fused chunks in Python, before they roll up to judgments.

Any sentence-transformers ``CrossEncoder`` can rerank (:class:`CrossEncoderReranker`). None is packaged
for this machine, so the default is :class:`BiEncoderRescorer`: the query and each passage embedded by the
bi-encoder and compared by cosine, which reads the whole passage text rather than the mean of its sentence
vectors stored in the index. Only the top ``n`` chunks are rescored; the rest keep their fused order below
them, so reranking never drops a hit.

A reranker's score can replace the fused score (``weight`` 1) or be blended with it: both min-max scaled over
the rescored chunks, then ``weight * reranker + (1 - weight) * fused``. Blending keeps what BM25 and k-NN
agree on when the reranker was trained on queries unlike the user's (``docs/training.md`` measures this).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

Chunk = tuple[str, float, dict[str, Any]]


class Reranker(Protocol):
    """Scores passages for a query; higher is more relevant."""

    def score(self, query: str, passages: Sequence[str]) -> list[float]: ...


class CrossEncoderReranker:
    """A sentence-transformers ``CrossEncoder`` (a model object, a local path or a hub id)."""

    def __init__(self, model: Any, batch_size: int = 16) -> None:
        if isinstance(model, str):
            from sentence_transformers import CrossEncoder

            model = CrossEncoder(model, device="cpu")
        self.model = model
        self.batch_size = batch_size

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        pairs = [(query, passage) for passage in passages]
        scores = self.model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False)
        return [float(s) for s in np.asarray(scores).reshape(len(passages), -1)[:, -1]]


class BiEncoderRescorer:
    """Cosine similarity of bi-encoder embeddings of the query and of each full passage."""

    def __init__(self, encoder: Any, batch_size: int = 32) -> None:
        self.encoder = encoder
        self.batch_size = batch_size

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        vectors = np.asarray(self.encoder.encode([query, *passages], batch_size=self.batch_size,
                                                 normalize_embeddings=True))
        return [float(x) for x in vectors[1:] @ vectors[0]]


def _scaled(values: Sequence[float]) -> np.ndarray:
    """Min-max scaled to [0, 1]; all equal scale to 1, so a constant score neither helps nor hurts."""
    array = np.asarray(values, dtype=float)
    span = float(array.max() - array.min()) if len(array) else 0.0
    return (array - array.min()) / span if span > 0 else np.ones_like(array)


def blend(reranker_scores: Sequence[float], fused_scores: Sequence[float], weight: float) -> list[float]:
    """``weight`` of the reranker's scores and the rest of the fused ones, each min-max scaled; ``weight`` 1
    returns the reranker's scores unchanged."""
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"the rerank weight must be between 0 and 1, not {weight}")
    if weight == 1.0:
        return [float(s) for s in reranker_scores]
    mixed = weight * _scaled(reranker_scores) + (1.0 - weight) * _scaled(fused_scores)
    return [float(s) for s in mixed]


def rerank(query: str, chunks: Sequence[Chunk], reranker: Reranker, top_n: int = 50,
           weight: float = 1.0) -> tuple[list[Chunk], float]:
    """Rescore the first ``top_n`` chunks with ``reranker``; returns the new order and the milliseconds spent.

    Reranked chunks carry the reranker's score (``weight`` 1) or its blend with the fused score
    (:func:`blend`); the chunks below ``top_n`` follow in their fused order. Ties keep the fused order (the
    sort is stable).
    """
    if top_n < 1:
        raise ValueError("top_n must be at least 1")
    started = time.perf_counter()
    head, tail = list(chunks[:top_n]), list(chunks[top_n:])
    scores = reranker.score(query, [source["text"] for _, _, source in head])
    if head:
        scores = blend(scores, [score for _, score, _ in head], weight)
    order = sorted(range(len(head)), key=lambda i: -scores[i])
    reranked = [(head[i][0], scores[i], head[i][2]) for i in order]
    return reranked + tail, (time.perf_counter() - started) * 1000
