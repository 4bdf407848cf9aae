"""The learned ranker's training data end to end: tuning queries and mined queries per corpus, then features.

One corpus is one index prefix (its judgments, chunks and citation graph). Its training queries are the
tuning split of the benchmark whose judgments it holds (never the reported split: only the tuning ids are
read), long queries mined from its own citation graph (:mod:`lab.training.ranker_data`) and typed queries
mined from its metadata (:mod:`lab.training.typed`: titles, short forms, parties, own citations, provisions,
topic words), so one model serves a pasted judgment and a typed case name alike. A corpus without a benchmark
(a user's own courts) trains from its citation graph and metadata alone.

The guard: every query of every benchmark's query files (judged here or not) is guarded; a corpus judgment
holding one (:func:`lab.training.ranker_data.holders`) is never a mined query's source, never a training
label and never a training candidate, so no benchmark query comes back in disguise, as a query or as an answer.
Mined queries never come from a judgment (or provision) a typed benchmark was drawn from (``held``), in either of
its halves. What was kept out, and why, is in the :class:`Built` record that the manifest and the card read.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from opensearchpy import OpenSearch

from backends.encoders import Encoder
from lab.training.facts_encoder import half_of_query
from lab.training.ranker import Dataset, collect
from lab.training.ranker_data import Guard, TrainingQuery, holders, mine_queries
from lab.training.typed import read_records, typed_queries
from search.graph.citation_graph import CitationGraph, load_graph
from search.ranking.rank import Ranker
from search.ranking.tuned import TunedQuery

__all__ = ["Built", "CorpusQueries", "CorpusSpec", "build_dataset", "labelled_queries", "training_queries"]

LABEL_SOURCES = {  # where each source's relevant judgments come from (the manifest says it per query)
    "mined-document": "citation graph: the judgments the query's judgment cites",
    "mined-facts": "citation graph: the judgments the query's judgment cites",
    "mined-facts-anon": "citation graph: the judgments the query's judgment cites",
    "mined-title": "metadata: judgments naming the same parties",
    "mined-short": "metadata: judgments naming the same parties",
    "mined-party": "metadata: judgments naming the same parties",
    "mined-citation": "metadata: judgments reported at that citation",
    "mined-provision": "metadata: judgments citing the provision",
    "mined-topic": "citation graph: the judgments the source judgment cites",
}


@dataclass(frozen=True)
class CorpusSpec:
    """An index prefix, its aliases, the encoder its vectors were built with, and its labelled tuning queries."""

    prefix: str
    aliases: Mapping[str, str]
    encoder: Encoder
    tuning: tuple[TrainingQuery, ...] = ()
    held: frozenset[str] = frozenset()  # judgments and provisions no training query may come from (benchmarks')
    labels: str = ""  # where the tuning queries' judgments come from (a qrels file), for the manifest
    tuned: Mapping[str, Encoder] = field(default_factory=dict)  # half -> the tuned facts encoder (none: no vectors)
    half_of: Mapping[str, str] = field(default_factory=dict)  # citing judgment key -> the half it was dealt to


@dataclass
class Built:
    """A built training set and what went into it: every training query (kept or not), the corpus judgments kept
    out because they hold a guarded benchmark query, and the queries dropped because every relevant judgment of
    theirs was such a holder."""

    dataset: Dataset
    queries: list[TrainingQuery] = field(default_factory=list)
    holders: dict[str, dict[str, str]] = field(default_factory=dict)  # corpus -> judgment id -> guarded text
    guarded: int = 0
    unlabelled: Counter = field(default_factory=Counter)  # source -> queries left without a relevant judgment
    dropped: list[TrainingQuery] = field(default_factory=list)  # those queries themselves, for the manifest
    label_sources: dict[str, str] = field(default_factory=dict)  # source -> where its labels come from

    def manifest(self) -> dict[str, Any]:
        """Every query (id, corpus, style, label source, relevant count, text digest, kept or why not) and every
        exclusion: what the card summarises and a reader can audit."""
        kept = set(self.dataset.qids)
        failed = dict(self.dataset.failed)
        rows = []
        dropped = {q.qid for q in self.dropped}
        for q in [*self.queries, *self.dropped]:
            status = "kept" if q.qid in kept else f"failed: {failed[q.qid]}" if q.qid in failed else \
                "every relevant judgment holds a benchmark query" if q.qid in dropped else \
                "no relevant judgment among its candidates"
            rows.append({"qid": q.qid, "corpus": q.corpus, "source": q.source,
                         "labels": self.label_sources.get(q.source, ""), "relevant": len(q.relevant),
                         "words": len(q.text.split()),
                         "text_sha1": hashlib.sha1(q.text.encode("utf-8")).hexdigest()[:16], "status": status})
        return {"dataset_digest": self.dataset.digest(), "excluded": self.excluded(), "queries": rows}

    def excluded(self) -> dict[str, Any]:
        """What the guard kept out, for the card."""
        return {"guarded_benchmark_queries": self.guarded,
                "rule": "a judgment holding a fifth (and at least 30) of a guarded query's 12-word runs is never a "
                        "training query, label or candidate",
                "judgments_holding_a_benchmark_query": {c: dict(h) for c, h in self.holders.items()},
                "queries_left_without_labels": dict(self.unlabelled)}


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


def _tuned(corpus: CorpusSpec) -> Callable[[TrainingQuery], TunedQuery | None] | None:
    """A training query under the tuned facts encoder of its half (cross-fitting: the encoder that never saw its
    judgment's citation pairs, :func:`lab.training.facts_encoder.half_of_query`); None without the encoders."""
    if not corpus.tuned:
        return None

    def embed(query: TrainingQuery) -> TunedQuery:
        half = half_of_query(query.qid, corpus.half_of)
        vector = np.asarray(corpus.tuned[half].encode([query.text], normalize_embeddings=True))[0]
        return TunedQuery(half, tuple(map(float, vector)))
    return embed


def typed_training(client: OpenSearch, corpus: CorpusSpec, cites: Mapping[str, Sequence[str]], *,
                   counts: Mapping[str, int], seed: int, refused: Collection[str]) -> list[TrainingQuery]:
    """Typed queries mined from ``corpus``'s metadata, none drawn from a held judgment or provision nor from a
    ``refused`` judgment (one holding a guarded benchmark query); ids ``{prefix}:typed:{kind}-{n}:{key}``."""
    def allowed(batch: Sequence[str]) -> list[str]:
        return [j for j in batch if j not in refused]

    found = typed_queries(read_records(client, corpus.aliases["judgments"]), cites, counts=counts, seed=seed,
                          skip=corpus.held, allowed=allowed, prefix=f"{corpus.prefix}:typed:")
    # the id ends with the judgment (or provision) drawn from: cross-validation folds a query by its source
    # judgment (lab.training.folds), so one drawn from a held-out judgment leaves training with it
    return [TrainingQuery(f"{q.qid}:{q.source}", q.text, q.relevant, corpus.prefix, f"mined-{q.kind}", q.exclude)
            for q in found]


def _without(queries: Iterable[TrainingQuery], refused: Mapping[str, str], built: Built) -> list[TrainingQuery]:
    """The queries with the refused judgments out of their labels and their candidates; a query left without a
    relevant judgment is dropped (counted and kept on ``built`` for the manifest)."""
    out = []
    gone = tuple(refused)
    for query in queries:
        relevant = query.relevant - refused.keys()
        if not relevant:
            built.unlabelled[query.source] += 1
            built.dropped.append(query)
            continue
        out.append(replace(query, relevant=frozenset(relevant), exclude=(*query.exclude, *gone)))
    return out


@dataclass(frozen=True)
class CorpusQueries:
    """One corpus's training queries before the guard's holders leave their labels, with what made them: the
    holders refused and the citation graph (the features read the same graph)."""

    corpus: CorpusSpec
    queries: tuple[TrainingQuery, ...]
    refused: dict[str, str]
    graph: CitationGraph


def training_queries(client: OpenSearch, corpus: CorpusSpec, guard: Guard, *, mined_per_style: int,
                     seed: int = 13, typed: Mapping[str, int] | None = None) -> CorpusQueries:
    """``corpus``'s tuning queries, then its mined long queries, then its typed queries, in the order the build
    collects them. The one home of that order: the build and anything that rebuilds its query texts call it, so
    their queries are the shipped build's by construction."""
    refused = holders(client, corpus.aliases["judgments"], guard)
    graph = load_graph(client, corpus.aliases["judgments"], by_parties=False)  # as Features.graph
    mined = mine_queries(client, dict(corpus.aliases), graph, corpus.prefix, count=mined_per_style, seed=seed,
                         skip=corpus.held | refused.keys()) if mined_per_style > 0 else []
    if typed and any(typed.values()):
        mined += typed_training(client, corpus, graph.cites, counts=typed, seed=seed, refused=refused)
    return CorpusQueries(corpus, (*corpus.tuning, *mined), refused, graph)


def build_dataset(client: OpenSearch, corpora: Sequence[CorpusSpec], *, mined_per_style: int,
                  guarded: Mapping[str, str] | Sequence[str], seed: int = 13, typed: Mapping[str, int] | None = None,
                  progress: Callable[[TrainingQuery], None] | None = None) -> Built:
    """Features and labels of every corpus's tuning queries, ``mined_per_style`` mined queries per long style
    (:data:`~lab.training.ranker_data.MINED_STYLES`: document, facts, facts-anon) and ``typed[kind]`` typed
    queries per kind, computed by the serving code path, with every judgment holding a ``guarded`` text kept out of
    queries, labels and candidates. Deterministic: the same corpora, guard and seed give the same queries in the
    same order, so the same features."""
    guard = Guard(guarded)
    built = Built(Dataset(), guarded=len(guard))
    for corpus in corpora:
        part = training_queries(client, corpus, guard, mined_per_style=mined_per_style, seed=seed, typed=typed)
        built.holders[corpus.prefix] = part.refused
        queries = _without(part.queries, part.refused, built)
        built.queries += queries
        built.label_sources.update({q.source: corpus.labels for q in corpus.tuning})
        ranker = Ranker(client, corpus.aliases, None, graph=part.graph)  # features only: no model needed
        features = collect(queries, {corpus.prefix: ranker}, vectors=_vectors(corpus.encoder), progress=progress,
                           tuned=_tuned(corpus))
        built.dataset.extend(features)
    built.label_sources.update(LABEL_SOURCES)
    return built
