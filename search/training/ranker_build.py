"""The learned ranker's training data end to end: tuning queries and mined queries per corpus, then features.

One corpus is one index prefix (its judgments, chunks and citation graph). Its training queries are the
tuning split of the benchmark whose judgments it holds (never the reported split: only the tuning ids are
read) and queries mined from its own citation graph (:mod:`search.training.ranker_data`). Mined queries are
guarded against every benchmark query that is not a tuning query, so no reported query comes back in disguise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from opensearchpy import OpenSearch

from backends.encoders import Encoder
from search.citation_graph import load_graph
from search.ranking.rank import Ranker
from search.training.ranker import Dataset, collect
from search.training.ranker_data import Guard, TrainingQuery, mine_queries

__all__ = ["CorpusSpec", "build_dataset", "labelled_queries"]


@dataclass(frozen=True)
class CorpusSpec:
    """An index prefix, its aliases, the encoder its vectors were built with, and its labelled tuning queries."""

    prefix: str
    aliases: Mapping[str, str]
    encoder: Encoder
    tuning: tuple[TrainingQuery, ...] = ()


def labelled_queries(queries: Iterable, qrels: Mapping[str, Mapping[str, int]], keep: frozenset[str],
                     corpus: str, source: str) -> tuple[TrainingQuery, ...]:
    """The benchmark queries whose ids are in ``keep`` (a tuning split), with their relevant judgments."""
    return tuple(TrainingQuery(q.qid, q.text, frozenset(d for d, r in qrels.get(q.qid, {}).items() if r > 0),
                               corpus, source)
                 for q in queries if q.qid in keep)


def _vectors(encoder: Encoder) -> Callable[[str], Sequence[float]]:
    def embed(text: str) -> Sequence[float]:
        return np.asarray(encoder.encode([text], normalize_embeddings=True))[0].tolist()
    return embed


def build_dataset(client: OpenSearch, corpora: Sequence[CorpusSpec], *, mined_per_style: int,
                  guarded: Sequence[str], seed: int = 13,
                  progress: Callable[[TrainingQuery], None] | None = None) -> Dataset:
    """Features and labels of every corpus's tuning queries and ``mined_per_style`` mined queries per style
    (document, facts), computed by the serving code path."""
    guard = Guard(guarded)
    dataset = Dataset()
    for corpus in corpora:
        graph = load_graph(client, corpus.aliases["judgments"], by_parties=False)  # as Features.graph
        mined = mine_queries(client, dict(corpus.aliases), graph, corpus.prefix, count=mined_per_style, seed=seed,
                             guard=guard) if mined_per_style > 0 else []
        ranker = Ranker(client, corpus.aliases, None, graph=graph)  # features only: no model needed
        part = collect([*corpus.tuning, *mined], {corpus.prefix: ranker}, vectors=_vectors(corpus.encoder),
                       progress=progress)
        dataset.extend(part)
    return dataset

