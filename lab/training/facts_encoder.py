"""The facts encoder: MiniLM tuned on the corpora's citation pairs, in two cross-fitted halves, and its vectors
written into the indices (``ratio train facts-encoder``; what the ranker's ``tuned`` group reads,
:mod:`search.ranking.tuned`).

**Pairs.** A citing judgment's facts (its facts-role chunks in order, citations removed, the first 600 words: what
a mined ``facts`` query holds) against the facts of each corpus judgment it cites, both with at least 80 words of
facts; no judgment that holds a guarded benchmark query (:func:`lab.training.ranker_data.holders`) on either
side. **Halves.** The citing judgments are shuffled with the seed and dealt into two halves; encoder ``a`` is tuned
on half ``b``'s pairs and encoder ``b`` on half ``a``'s, so a mined training query drawn from a judgment of half
``a`` takes encoder ``a``'s features (which never saw that judgment's pairs: its labels), and of half ``b`` the
other's. Labelled benchmark queries and searches take ``a`` (no benchmark judgment is in a pair). **Tuning.** One
epoch of MultipleNegativesRankingLoss (in-batch negatives), learning rate 5e-5, batch 16, 256 tokens, seeded:
the probe that chose it was ``scripts/distilled_encoder_probe.py --transformer`` (commit 314fb2e;
docs/evaluation-journal.md). About 10 minutes an encoder on 2 cores for
2,000 pairs; the same corpora give the same pairs and halves.

**Vectors.** Every facts chunk of each corpus and each judgment's facts text under both encoders (256 tokens a
text; about 7 minutes an encoder for 4,400 judgments), written by partial updates; a judgment's mean facts chunk
vector is stored normalised. The indices' ``_meta.facts_encoders`` records each half's model.
"""

from __future__ import annotations

import json
import random
import time
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from opensearchpy import OpenSearch, helpers

from backends.encoders import DEFAULT_ENCODER, load_encoder
from backends.opensearch.indices import index_meta
from lab.training.folds import source_judgment
from lab.training.ranker_data import mask_citations
from search.graph.citation_graph import load_graph
from search.ranking.group import role_groups
from search.ranking.query import CITATION_MASK
from search.ranking.tuned import HALVES, MAX_TOKENS, SERVING, chunk_field, judgment_fields

__all__ = [
    "FactsCorpus",
    "Pair",
    "corpus_facts",
    "fill_vectors",
    "halves_of",
    "pairs_of",
    "train_facts_encoders",
    "tune",
]

SEED = 13
FACTS_MIN_WORDS, FACTS_MAX_WORDS = 80, 600  # a mined facts query's bounds (lab.training.ranker_data)
FACTS_MAX_CHUNKS = 50
LEARNING_RATE = 5e-5
EPOCHS = 1
Pair = tuple[str, str, str]  # (citing key ``prefix:judgment``, citing facts, cited facts)
Log = Callable[[str], None]


@dataclass(frozen=True)
class FactsCorpus:
    """One corpus's facts: each judgment's facts chunks (id, text) in order, and what each judgment cites."""

    prefix: str
    chunks: Mapping[str, tuple[tuple[str, str], ...]]
    cites: Mapping[str, tuple[str, ...]]

    def facts(self, judgment: str) -> str:
        return facts_text([text for _, text in self.chunks[judgment]])


def facts_text(texts: Sequence[str]) -> str:
    """A judgment's facts as a mined facts query holds them: the first 50 facts chunks, citations removed, at most
    600 words."""
    words = mask_citations(" ".join(texts[:FACTS_MAX_CHUNKS])).replace(CITATION_MASK, " ").split()
    return " ".join(words[:FACTS_MAX_WORDS])


def corpus_facts(client: OpenSearch, prefix: str) -> FactsCorpus:
    """The facts chunks of corpus ``prefix`` (``PREFIX-chunks``), by judgment in ordinal order, and its citation
    graph (``PREFIX-judgments``)."""
    roles = list(role_groups()["facts"])
    rows = [(h["_source"]["judgment_id"], int(h["_source"].get("ordinal") or 0), h["_id"],
             h["_source"].get("text") or "")
            for h in helpers.scan(client, index=f"{prefix}-chunks", size=2000,
                                  query={"query": {"terms": {"role": roles}}},
                                  _source=["judgment_id", "ordinal", "text"])]
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    chunks: dict[str, list[tuple[str, str]]] = {}
    for judgment, _, chunk_id, text in rows:
        chunks.setdefault(judgment, []).append((chunk_id, text))
    graph = load_graph(client, f"{prefix}-judgments", by_parties=False)
    return FactsCorpus(prefix, {j: tuple(c) for j, c in chunks.items()},
                       {j: tuple(c) for j, c in sorted(graph.cites.items())})


def pairs_of(corpora: Sequence[FactsCorpus], holders: Mapping[str, set[str]]) -> list[Pair]:
    """Every citation between two judgments of one corpus with at least FACTS_MIN_WORDS words of facts each,
    neither of them holding a guarded query, in a fixed order (corpus, citing id, the graph's order)."""
    out: list[Pair] = []
    for corpus in corpora:
        held = holders.get(corpus.prefix, set())
        facts = {j: corpus.facts(j) for j in corpus.chunks if j not in held}
        kept = {j: t for j, t in facts.items() if len(t.split()) >= FACTS_MIN_WORDS}
        for citing, cited in sorted(corpus.cites.items()):
            if citing in kept:
                out += [(f"{corpus.prefix}:{citing}", kept[citing], kept[c]) for c in cited
                        if c in kept and c != citing]
    return out


def halves_of(pairs: Sequence[Pair], seed: int = SEED) -> dict[str, str]:
    """Citing key -> half (``a`` or ``b``): the sorted citing judgments shuffled with ``seed``, dealt in turn."""
    citing = sorted({key for key, _, _ in pairs})
    random.Random(f"{seed}:halves").shuffle(citing)
    return {key: HALVES[i % 2] for i, key in enumerate(citing)}


def half_of_query(qid: str, half_of: Mapping[str, str]) -> str:
    """The half whose encoder gives training query ``qid`` its tuned features: its source judgment's half (the
    encoder tuned on the other half's pairs never saw that judgment's); a judgment in no pair by a hash of its key;
    a labelled benchmark query (no source judgment: no pair holds it) the serving half."""
    key = source_judgment(qid)
    if key is None:
        return SERVING
    return half_of.get(key) or HALVES[zlib.crc32(key.encode()) % 2]


def tune(pairs: Sequence[Pair], out: Path, *, seed: int = SEED, log: Log = print) -> dict[str, Any]:
    """MiniLM tuned on ``pairs`` (MultipleNegativesRankingLoss over in-batch negatives), saved to ``out``; what
    it did."""
    import torch
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    from lab.training.train import TrainOptions, _optimise

    options = TrainOptions(backbone=DEFAULT_ENCODER, epochs=EPOCHS, learning_rate=LEARNING_RATE, seed=seed)
    torch.manual_seed(seed)
    model = load_encoder(DEFAULT_ENCODER)
    model.max_seq_length = options.max_length
    loss_fn = MultipleNegativesRankingLoss(model)
    examples = [(q, d) for _, q, d in pairs]

    def step_loss(batch: list[tuple[str, str]]) -> Any:
        return loss_fn([model.preprocess([row[c] for row in batch]) for c in range(2)], None)

    def progress(step: int, total: int, loss: float) -> None:
        if step % 20 == 0 or step == total:
            log(f"{out.name}: step {step}/{total}, loss {loss:.3f}")

    steps, last, seconds = _optimise(model, examples, options, step_loss, progress)
    model.save(str(out), create_model_card=False)
    return {"pairs": len(examples), "steps": steps, "final_loss": round(last, 4), "seconds": round(seconds, 1)}


def train_facts_encoders(corpora: Sequence[FactsCorpus], holders: Mapping[str, set[str]], out: Path, *,
                         seed: int = SEED, log: Log = print) -> dict[str, Any]:
    """Both halves' encoders under ``out`` (``a/``, ``b/``) and ``facts-encoder.json``: the pairs, the halves and
    what each tuning did."""
    pairs = pairs_of(corpora, holders)
    if not pairs:
        raise ValueError("no citation pairs with facts on both sides: nothing to tune the facts encoder on")
    halves = halves_of(pairs, seed)
    out.mkdir(parents=True, exist_ok=True)
    card: dict[str, Any] = {"backbone": DEFAULT_ENCODER, "seed": seed, "epochs": EPOCHS,
                            "learning_rate": LEARNING_RATE, "max_tokens": MAX_TOKENS,
                            "corpora": [c.prefix for c in corpora], "pairs": len(pairs),
                            "citing": len(halves), "holders_left_out": sum(len(h) for h in holders.values()),
                            "halves": {}}
    for half in HALVES:
        trained_on = [p for p in pairs if halves[p[0]] != half]  # the other half's pairs only
        log(f"encoder {half}: {len(trained_on)} pairs of the other half's citing judgments")
        card["halves"][half] = tune(trained_on, out / half, seed=seed, log=log)
    card["half_of"] = halves
    (out / "facts-encoder.json").write_text(json.dumps(card, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return card


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def _vector_mapping(dimension: int) -> dict[str, Any]:
    return {"type": "knn_vector", "dimension": dimension,
            "method": {"name": "hnsw", "space_type": "cosinesimil", "engine": "lucene"}}


def fill_vectors(client: OpenSearch, corpus: FactsCorpus, encoders: Mapping[str, Any], models: Mapping[str, str],
                 *, log: Log = print, batch: int = 500) -> dict[str, int]:
    """Write each half's vectors of ``corpus``'s facts chunks and facts texts into its indices (partial updates:
    nothing else of a document changes), and record the models in each index's ``_meta.facts_encoders``."""
    dimension = int(next(iter(encoders.values())).get_embedding_dimension())
    judgments, chunks_index = f"{corpus.prefix}-judgments", f"{corpus.prefix}-chunks"
    for index, fields in ((judgments, [f for h in encoders for f in judgment_fields(h)]),
                          (chunks_index, [chunk_field(h) for h in encoders])):
        meta = {"facts_encoders": dict(models)}
        client.indices.put_mapping(index=index, body={"_meta": {**index_meta(client, index), **meta},
                                                      "properties": {f: _vector_mapping(dimension) for f in fields}})
    ids = sorted(corpus.chunks)
    chunk_rows = [(j, cid, text) for j in ids for cid, text in corpus.chunks[j]]
    texts = [corpus.facts(j) for j in ids]
    vectors: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for half, encoder in encoders.items():
        started = time.perf_counter()
        encoder.max_seq_length = MAX_TOKENS
        chunk_vectors = np.asarray(encoder.encode([t for _, _, t in chunk_rows], normalize_embeddings=True,
                                                  batch_size=32, show_progress_bar=False), dtype=np.float32)
        text_vectors = np.asarray(encoder.encode(texts, normalize_embeddings=True, batch_size=32,
                                                 show_progress_bar=False), dtype=np.float32)
        vectors[half] = (chunk_vectors, text_vectors)
        log(f"{corpus.prefix}: encoder {half}, {len(chunk_rows)} facts chunks and {len(texts)} facts texts in "
            f"{time.perf_counter() - started:.0f} s")
    starts = {j: i for i, j in reversed(list(enumerate(r[0] for r in chunk_rows)))}

    def actions() -> Iterator[dict[str, Any]]:
        for row, (_, chunk_id, _) in enumerate(chunk_rows):
            yield {"_op_type": "update", "_index": chunks_index, "_id": chunk_id,
                   "doc": {chunk_field(h): v[0][row].tolist() for h, v in vectors.items()}}
        for n, judgment in enumerate(ids):
            first, count = starts[judgment], len(corpus.chunks[judgment])
            doc: dict[str, Any] = {}
            for half, (chunk_vectors, text_vectors) in vectors.items():
                text_field, mean_field = judgment_fields(half)
                mean = _unit(chunk_vectors[first:first + count].sum(axis=0, keepdims=True))[0]
                doc[text_field], doc[mean_field] = text_vectors[n].tolist(), mean.tolist()
            yield {"_op_type": "update", "_index": judgments, "_id": judgment, "doc": doc}

    written, failed = 0, 0
    for ok, _ in helpers.streaming_bulk(client, actions(), chunk_size=batch, raise_on_error=False,
                                        max_retries=3):
        written += int(ok)
        failed += int(not ok)
    client.indices.refresh(index=f"{judgments},{chunks_index}")
    return {"chunks": len(chunk_rows), "judgments": len(ids), "written": written, "failed": failed}
