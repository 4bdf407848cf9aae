"""Reranking the top fused chunks in Python, before they roll up to judgments.

Any sentence-transformers ``CrossEncoder`` can rerank (:class:`CrossEncoderReranker`). None is packaged
for this machine, so the default is :class:`BiEncoderRescorer`: the query and each passage embedded by the
bi-encoder and compared by cosine, which reads the whole passage text rather than the mean of its sentence
vectors stored in the index. Only the top ``n`` chunks are rescored; the rest keep their fused order below
them, so reranking never drops a hit.
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


def rerank(query: str, chunks: Sequence[Chunk], reranker: Reranker, top_n: int = 50) -> tuple[list[Chunk], float]:
    """Rescore the first ``top_n`` chunks with ``reranker``; returns the new order and the milliseconds spent.

    Reranked chunks carry the reranker's score; the chunks below ``top_n`` follow in their fused order.
    Ties keep the fused order (the sort is stable).
    """
    if top_n < 1:
        raise ValueError("top_n must be at least 1")
    started = time.perf_counter()
    head, tail = list(chunks[:top_n]), list(chunks[top_n:])
    scores = reranker.score(query, [source["text"] for _, _, source in head])
    order = sorted(range(len(head)), key=lambda i: -scores[i])
    reranked = [(head[i][0], scores[i], head[i][2]) for i in order]
    return reranked + tail, (time.perf_counter() - started) * 1000
