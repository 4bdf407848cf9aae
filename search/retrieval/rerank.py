"""Reranking the top fused chunks in Python, before they roll up to judgments.

Any sentence-transformers ``CrossEncoder`` can rerank (:class:`CrossEncoderReranker`). None is packaged
for this machine, so the default is :class:`BiEncoderRescorer`: the query and each passage embedded by the
bi-encoder and compared by cosine, which reads the whole passage text rather than the mean of its sentence
vectors stored in the index. Only the top ``n`` chunks are rescored; the rest keep their fused order below
them, so reranking never drops a hit.

A cross-encoder reads a query and a passage together in a few hundred tokens, so a long query (a fact
pattern, a whole judgment) would be read only from its start. It reads instead, for each passage, the window
of the query that shares the most terms with that passage (:func:`focus`); training builds its pairs the
same way (``lab.training.train.reranker_examples``).

A reranker's score can replace the fused score (``weight`` 1) or be blended with it: both min-max scaled over
the rescored chunks, then ``weight * reranker + (1 - weight) * fused``. Blending keeps what BM25 and k-NN
agree on when the reranker was trained on queries unlike the user's (``docs/training.md`` measures this).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from search.retrieval.records import ChunkHit

# The reranker's share of a reranked score in search (not in :func:`rerank`, whose default replaces). Chosen on
# IRLeD's tuning half (docs/eval/irled-odd-rerankers): of 1, 0.5 and 0.2, 0.2 ranked best for each of the five
# rerankers tried, and replacing ranked worst; reported on the other halves in docs/training.md.
DEFAULT_RERANK_WEIGHT = 0.2
QUERY_WORDS = 96  # query words a cross-encoder pair holds; with a passage, about 256 word pieces
_TERM = re.compile(r"[a-z0-9]{4,}")


def _terms(text: str) -> set[str]:
    """Distinct lower-cased words of four or more characters: the cheap stand-in for content words."""
    return set(_TERM.findall(text.lower()))


def focus_many(query: str, passages: Sequence[str], words: int = QUERY_WORDS) -> list[str]:
    """For each passage, the ``words``-word window of ``query`` sharing the most distinct terms with it (the
    first such window on ties); a query of ``words`` words or fewer is returned whole.

    Windows overlap by half, so a passage's topic is never split across two windows only. The windows and
    their terms are computed once per query, however many passages there are.
    """
    tokens = query.split()
    if len(tokens) <= words:
        return [query] * len(passages)
    step = max(words // 2, 1)
    starts = list(range(0, len(tokens) - words + 1, step))
    if starts[-1] != len(tokens) - words:
        starts.append(len(tokens) - words)
    windows = [(" ".join(tokens[s:s + words]), s) for s in starts]
    terms = [_terms(text) for text, _ in windows]
    chosen = []
    for passage in passages:
        wanted = _terms(passage)
        best = max(range(len(windows)), key=lambda i: (len(terms[i] & wanted), -windows[i][1]))
        chosen.append(windows[best][0])
    return chosen


def focus(query: str, passage: str, words: int = QUERY_WORDS) -> str:
    """:func:`focus_many` for one passage."""
    return focus_many(query, [passage], words)[0]


class Reranker(Protocol):
    """Scores passages for a query; higher is more relevant."""

    def score(self, query: str, passages: Sequence[str]) -> list[float]: ...


class CrossEncoderReranker:
    """A sentence-transformers ``CrossEncoder`` (a model object, a local path or a hub id); a query longer than
    ``query_words`` is read through :func:`focus` (``None``: whole, cut only by the model's token limit)."""

    def __init__(self, model: Any, batch_size: int = 16, query_words: int | None = QUERY_WORDS) -> None:
        if isinstance(model, str):
            from sentence_transformers import CrossEncoder

            model = CrossEncoder(model, device="cpu")
        self.model = model
        self.batch_size = batch_size
        self.query_words = query_words

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        queries = focus_many(query, passages, self.query_words) if self.query_words else [query] * len(passages)
        pairs = list(zip(queries, passages, strict=True))
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


def rerank(query: str, chunks: Sequence[ChunkHit], reranker: Reranker, top_n: int = 50,
           weight: float = 1.0) -> tuple[list[ChunkHit], float]:
    """Rescore the first ``top_n`` chunks with ``reranker``; returns the new order and the milliseconds spent.

    Reranked chunks carry the reranker's score (``weight`` 1) or its blend with the fused score
    (:func:`blend`); the chunks below ``top_n`` follow in their fused order. Ties keep the fused order (the
    sort is stable).
    """
    if top_n < 1:
        raise ValueError("top_n must be at least 1")
    started = time.perf_counter()
    head, tail = list(chunks[:top_n]), list(chunks[top_n:])
    scores = reranker.score(query, [chunk.source["text"] for chunk in head])
    if head:
        scores = blend(scores, [chunk.score for chunk in head], weight)
    order = sorted(range(len(head)), key=lambda i: -scores[i])
    reranked = [head[i].rescored(scores[i]) for i in order]
    return reranked + tail, (time.perf_counter() - started) * 1000
