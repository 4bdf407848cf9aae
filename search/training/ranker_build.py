"""The learned ranker's training data end to end: tuning queries and mined queries per corpus, then features.

One corpus is one index prefix (its judgments, chunks and citation graph). Its training queries are the
tuning split of the benchmark whose judgments it holds (never the reported split: only the tuning ids are
read), long queries mined from its own citation graph (:mod:`search.training.ranker_data`) and typed queries
mined from its metadata (:mod:`search.training.typed`: titles, short forms, parties, own citations, provisions,
topic words), so one model serves a pasted judgment and a typed case name alike. Mined queries are guarded
against every benchmark query that is not a tuning query, so no reported query comes back in disguise, and never
come from a judgment (or provision) a typed benchmark was drawn from (``held``), in either of its halves.
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
from search.training.typed import read_records, typed_queries

__all__ = ["CorpusSpec", "build_dataset", "labelled_queries"]


@dataclass(frozen=True)
class CorpusSpec:
    """An index prefix, its aliases, the encoder its vectors were built with, and its labelled tuning queries."""

    prefix: str
    aliases: Mapping[str, str]
    encoder: Encoder
    tuning: tuple[TrainingQuery, ...] = ()
    held: frozenset[str] = frozenset()  # judgments and provisions no training query may come from (benchmarks')


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


def typed_training(client: OpenSearch, corpus: CorpusSpec, cites: Mapping[str, Sequence[str]], *,
                   counts: Mapping[str, int], seed: int, guard: Guard) -> list[TrainingQuery]:
    """Typed queries mined from ``corpus``'s metadata, none drawn from a held judgment or provision nor from a
    judgment whose text holds a guarded benchmark query."""
    judgments = corpus.aliases["judgments"]

    def allowed(batch: Sequence[str]) -> list[str]:
        docs = client.mget(index=judgments, body={"ids": list(batch)}, params={"_source_includes": "text"})["docs"]
        return [d["_id"] for d in docs if d.get("found") and not guard.holds(str(d["_source"].get("text") or ""))]

    found = typed_queries(read_records(client, judgments), cites, counts=counts, seed=seed, skip=corpus.held,
                          allowed=allowed, prefix=f"{corpus.prefix}:typed:")
    return [TrainingQuery(q.qid, q.text, q.relevant, corpus.prefix, f"mined-{q.kind}", q.exclude) for q in found]


def build_dataset(client: OpenSearch, corpora: Sequence[CorpusSpec], *, mined_per_style: int,
                  guarded: Sequence[str], seed: int = 13, typed: Mapping[str, int] | None = None,
                  progress: Callable[[TrainingQuery], None] | None = None) -> Dataset:
    """Features and labels of every corpus's tuning queries, ``mined_per_style`` mined queries per long style
    (document, facts) and ``typed[kind]`` typed queries per kind, computed by the serving code path."""
    guard = Guard(guarded)
    dataset = Dataset()
    for corpus in corpora:
        graph = load_graph(client, corpus.aliases["judgments"], by_parties=False)  # as Features.graph
        mined = mine_queries(client, dict(corpus.aliases), graph, corpus.prefix, count=mined_per_style, seed=seed,
                             guard=guard, skip=corpus.held) if mined_per_style > 0 else []
        if typed and any(typed.values()):
            mined += typed_training(client, corpus, graph.cites, counts=typed, seed=seed, guard=guard)
        ranker = Ranker(client, corpus.aliases, None, graph=graph)  # features only: no model needed
        part = collect([*corpus.tuning, *mined], {corpus.prefix: ranker}, vectors=_vectors(corpus.encoder),
                       progress=progress)
        dataset.extend(part)
    return dataset
