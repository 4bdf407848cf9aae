"""Issue 27, item 5: does a static encoder tuned on the corpus's citation pairs help the ranker, as features only?

The candidate: the index's static encoder (model2vec, distilled from MiniLM) with its token vectors trained further
on (facts of a citing judgment, text of a judgment it cites) pairs of both corpora, in-batch negatives, the way
``ratio train embedder`` tunes a transformer but on the static model directly (a model2vec of a tuned transformer
would need a transformer trained on CPU first; this is the cheap end of the same idea). Three features per
(query, candidate): cosine of the query vector with the candidate's mean chunk vector, with its best chunk, and
with its best facts chunk (``tuned_*``, a group of their own).

Judged as every selection choice is (lab.training.selection): 5 folds of the shipped training set, the labelled
queries and the held-out mined fact patterns scored, the rule of item 5 (keep when it gains 0.01 MAP on the mined
fact patterns and loses under 0.01 on the labelled queries). The encoder is trained **inside each fold**: the
citing judgments whose queries a fold holds out give no training pair to that fold's encoder, since a pair (J's
facts, a judgment J cites) is exactly the label of J's held-out facts query. A control computes the same features
with the untuned encoder, so a gain can be told apart from the features' mere presence. Nothing in the product
changes; the figures are in docs/evaluation.md.

    ratio train ranker --corpus ratio=aila-precedents --corpus fast-irled=irled --mined 250 --save-dataset D.npz \
        --out OUT              # the set its figures in docs/evaluation.md were judged on (the shipped one then)
    .venv/bin/python scripts/tuned_encoder_probe.py D.npz --mined 250 [--epochs 8 --tuned-only --cross-fit]
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import pickle
import random
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from itertools import repeat
from pathlib import Path

import numpy as np

import lab.training.ranker as ranker_module
from search.ranking.groups import FEATURE_GROUPS, FEATURES

EXTRA = ("tuned_judgment", "tuned_chunk", "tuned_facts")
GROUP = "tuned"
# the probe's features join the list in this process and in every spawned worker (which imports this module first)
FEATURE_GROUPS.update(dict.fromkeys(EXTRA, GROUP))
ranker_module.FEATURES = (*FEATURES, *EXTRA)

CORPORA = ("ratio=aila-precedents", "fast-irled=irled")
SEED = 13
FACTS_MIN_WORDS, FACTS_MAX_WORDS = 80, 600
INNER = 5  # inner folds of --cross-fit
DOC_TOKENS = 4096  # a cited judgment's tokens read in training (its mean vector; a chunk is far shorter)


def log(*parts: object) -> None:
    print(time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


# ---- the training queries' texts, rebuilt as build_dataset makes them (checked against the manifest's digests) ----

def training_texts(data: Path, mined: int) -> dict[str, str]:
    """qid -> text of every query the documented build with ``--mined mined`` makes (tuning, mined, typed), by the
    build's own :func:`~lab.training.ranker_build.training_queries`."""
    from lab.training.ranker_build import training_queries
    from lab.training.ranker_data import Guard
    from lab.training.typed import KINDS
    from ratio.cli.common import Context
    from ratio.cli.train_ranker import _corpus, guarded_texts

    ctx = Context(None, None, None, True, "ratio")
    client = ctx.client()
    guard = Guard(guarded_texts(data)[0])
    texts: dict[str, str] = {}
    for c in CORPORA:
        part = training_queries(client, _corpus(ctx, c, data), guard, mined_per_style=mined, seed=SEED,
                                typed=dict.fromkeys(KINDS, 150))
        texts.update({q.qid: q.text for q in part.queries})
        log(part.corpus.prefix, len(texts), "query texts")
    return texts


# ---- the corpora's chunks and citation pairs ----

def corpus_chunks(client, prefix: str) -> dict[str, np.ndarray]:
    """Every chunk of the corpus sorted by (judgment, ordinal): judgment ids, roles and texts."""
    from opensearchpy.helpers import scan

    rows = [(h["_source"]["judgment_id"], int(h["_source"].get("ordinal") or 0), h["_source"].get("role") or "",
             h["_source"].get("text") or "")
            for h in scan(client, index=f"{prefix}-chunks", query={"query": {"match_all": {}}},
                          _source=["judgment_id", "ordinal", "role", "text"], size=2000)]
    rows.sort(key=lambda r: (r[0], r[1]))
    return {"judgment": np.array([r[0] for r in rows]), "role": np.array([r[2] for r in rows]),
            "text": np.array([r[3] for r in rows], dtype=object)}


def facts_text(texts: Sequence[str]) -> str:
    """A judgment's facts as a mined facts query holds them (lab.training.ranker_data._facts)."""
    from lab.training.ranker_data import _strip_citations

    return " ".join(_strip_citations(" ".join(texts[:50])).split()[:FACTS_MAX_WORDS])


def load_corpora(work: Path) -> dict[str, dict]:
    """Per corpus: chunks, facts per judgment, the citation graph's pairs, the guard's holders (cached in work)."""
    cache = work / "corpora.pkl"
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    from ratio.cli.common import Context
    from search.graph.citation_graph import load_graph
    from search.ranking.group import role_groups

    client = Context(None, None, None, True, "ratio").client()
    facts_roles = set(role_groups()["facts"])
    out = {}
    for spec in CORPORA:
        prefix = spec.partition("=")[0]
        chunks = corpus_chunks(client, prefix)
        by_judgment: dict[str, list[str]] = {}
        for jid, role, text in zip(chunks["judgment"], chunks["role"], chunks["text"], strict=True):
            if role in facts_roles:
                by_judgment.setdefault(str(jid), []).append(text)
        facts = {j: facts_text(t) for j, t in by_judgment.items()}
        graph = load_graph(client, f"{prefix}-judgments", by_parties=False)
        out[prefix] = {"chunks": chunks, "facts": facts, "cites": {j: tuple(c) for j, c in graph.cites.items()},
                       "facts_roles": facts_roles}
        log(prefix, len(chunks["text"]), "chunks", len(facts), "judgments with facts")
    cache.write_bytes(pickle.dumps(out))
    return out


# ---- the encoder: model2vec's token vectors, mean-pooled, trained with in-batch negatives ----

class Tokens:
    """Token ids of many texts as one flat array with offsets (what EmbeddingBag reads)."""

    def __init__(self, model, texts: Sequence[str], max_length: int | None) -> None:
        ids = [i[:max_length] if max_length else i for i in model.tokenize(list(texts))]
        self.lengths = np.array([max(len(i), 1) for i in ids], dtype=np.int64)
        self.flat = np.concatenate([np.asarray(i if len(i) else [model.unk_token_id or 0], dtype=np.int64)
                                    for i in ids])
        self.offsets = np.concatenate([[0], np.cumsum(self.lengths)[:-1]])

    def __len__(self) -> int:
        return len(self.lengths)

    def subset(self, rows: Sequence[int]) -> Tokens:
        """The texts at ``rows`` alone."""
        out = object.__new__(Tokens)
        rows = np.asarray(rows, dtype=np.int64)
        out.lengths = self.lengths[rows]
        out.flat = np.concatenate([self.flat[self.offsets[r]:self.offsets[r] + self.lengths[r]] for r in rows])
        out.offsets = np.concatenate([[0], np.cumsum(out.lengths)[:-1]])
        return out

    def take(self, rows: Sequence[int]):
        import torch

        rows = np.asarray(rows)
        parts = [self.flat[self.offsets[r]:self.offsets[r] + self.lengths[r]] for r in rows]
        lengths = self.lengths[rows]
        return torch.from_numpy(np.concatenate(parts)), torch.from_numpy(np.concatenate([[0], np.cumsum(lengths)[:-1]]))


def encode(weights: np.ndarray, tokens: Tokens, batch: int = 20000) -> np.ndarray:
    """Unit mean vectors of every text."""
    import torch

    bag = torch.nn.EmbeddingBag.from_pretrained(torch.from_numpy(weights), mode="mean", freeze=True)
    out = []
    with torch.no_grad():
        for start in range(0, len(tokens), batch):
            flat, offsets = tokens.take(range(start, min(start + batch, len(tokens))))
            out.append(torch.nn.functional.normalize(bag(flat, offsets), dim=1).numpy())
    return np.concatenate(out).astype(np.float32)


def train_encoder(base: np.ndarray, queries: Tokens, docs: Tokens, pairs: np.ndarray, *, epochs: int = 2,
                  batch: int = 128, lr: float = 5e-4, temperature: float = 0.05, seed: int = SEED) -> np.ndarray:
    """Token vectors trained so a citing judgment's facts lie near what it cites: ``pairs`` rows (query row, doc
    row), in-batch negatives (a batch's other cited judgments; one the query also cites is masked)."""
    import torch

    torch.manual_seed(seed)
    bag = torch.nn.EmbeddingBag.from_pretrained(torch.from_numpy(base.copy()), mode="mean", freeze=False)
    optimiser = torch.optim.Adam(bag.parameters(), lr=lr)
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        order = rng.permutation(len(pairs))
        for start in range(0, len(order), batch):
            rows = pairs[order[start:start + batch]]
            q = torch.nn.functional.normalize(bag(*queries.take(rows[:, 0])), dim=1)
            d = torch.nn.functional.normalize(bag(*docs.take(rows[:, 1])), dim=1)
            logits = q @ d.T / temperature
            same_query = torch.from_numpy(rows[:, 0][:, None] == rows[:, 0][None, :])
            logits = logits.masked_fill(same_query & ~torch.eye(len(rows), dtype=torch.bool), float("-inf"))
            loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(rows)))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return bag.weight.detach().numpy().astype(np.float32)


# ---- features ----

class CorpusVectors:
    """One corpus's chunk vectors under one encoder, reduced per judgment (mean, best chunk, best facts chunk)."""

    def __init__(self, chunks: Mapping[str, np.ndarray], facts_roles: set[str], vectors: np.ndarray) -> None:
        judgments = chunks["judgment"]
        starts = np.flatnonzero(np.r_[True, judgments[1:] != judgments[:-1]])
        self.ids = {str(judgments[s]): i for i, s in enumerate(starts)}
        self.starts = starts
        self.vectors = vectors
        means = np.add.reduceat(vectors, starts, axis=0)
        self.means = means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-9)
        is_facts = np.isin(chunks["role"], list(facts_roles))
        self.facts_rows = np.flatnonzero(is_facts)
        fj = judgments[is_facts]
        fstarts = np.flatnonzero(np.r_[True, fj[1:] != fj[:-1]]) if len(fj) else np.zeros(0, dtype=int)
        self.facts_starts = fstarts
        self.facts_ids = {str(fj[s]): i for i, s in enumerate(fstarts)}

    def features(self, query: np.ndarray, candidates: Sequence[str]) -> np.ndarray:
        sims = self.vectors @ query
        best = np.maximum.reduceat(sims, self.starts)
        facts = np.maximum.reduceat(sims[self.facts_rows], self.facts_starts) if len(self.facts_rows) else sims[:0]
        mean = self.means @ query
        out = np.full((len(candidates), 3), np.nan, dtype=np.float32)
        for row, jid in enumerate(candidates):
            j = self.ids.get(jid)
            if j is not None:
                out[row, 0], out[row, 1] = mean[j], best[j]
            f = self.facts_ids.get(jid)
            if f is not None:
                out[row, 2] = facts[f]
        return out


def corpus_of_query(qid: str, source: str) -> str:
    if source.startswith("aila"):
        return "ratio"
    if source.startswith("irled"):
        return "fast-irled"
    return qid.split(":", 1)[0]


def fill(dataset, rows: Sequence[int], query_vectors: Mapping[str, np.ndarray],
         corpora: Mapping[str, CorpusVectors]) -> None:
    """Fill in the probe's three columns of ``dataset``'s queries at ``rows`` (in place; a query without a text
    keeps NaN)."""
    columns = [ranker_module.FEATURES.index(f) for f in EXTRA]
    for i in rows:
        qid, source = dataset.qids[i], dataset.sources[i]
        vector = query_vectors.get(qid.split("#", 1)[0])
        if vector is not None:
            dataset.values[i][:, columns] = corpora[corpus_of_query(qid, source)].features(vector, dataset.ids[i])


# ---- the run ----

def main() -> None:
    from model2vec import StaticModel

    from lab.training.folds import assign, source_judgment
    from lab.training.ranker import Dataset, RankerParams, fold_sets, held_out, summarise
    from lab.training.selection import SHIPPED, VALIDATE, derive, labelled

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/tuned-encoder-probe"))
    parser.add_argument("--mined", type=int, default=1000,
                        help="the --mined the training set was built with (its queries' texts are rebuilt)")
    parser.add_argument("--epochs", type=int, default=2, help="passes over the citation pairs per fold's encoder")
    parser.add_argument("--cross-fit", action="store_true",
                        help="give each training query features from an encoder that did not see its judgment's pairs")
    parser.add_argument("--tuned-only", action="store_true",
                        help="skip the shipped and untuned rows (they do not depend on --epochs)")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)

    from ratio import settings
    model = StaticModel.from_pretrained(settings.home_dir() / "models" / "ratio__all-MiniLM-L6-v2-static256")
    base = np.asarray(model.embedding, dtype=np.float32)
    dataset = Dataset.load(args.dataset)
    log("dataset", len(dataset.qids), "queries", sum(map(len, dataset.values)), "rows")

    cache = args.work / f"texts-{args.mined}.pkl"
    if not cache.exists():
        cache.write_bytes(pickle.dumps(training_texts(args.data, args.mined)))
    texts = pickle.loads(cache.read_bytes())
    bases = sorted({q.split("#", 1)[0] for q in dataset.qids})
    missing = [q for q in bases if q not in texts]
    log("texts for", len(bases) - len(missing), "of", len(bases), "queries; missing", missing[:5])
    corpora = load_corpora(args.work)

    # tokens: every query, every chunk, every judgment's facts (training queries) and text (training documents)
    query_ids = [q for q in bases if q in texts]
    query_tokens = Tokens(model, [texts[q] for q in query_ids], 512)
    chunk_tokens = {p: Tokens(model, list(c["chunks"]["text"]), 512) for p, c in corpora.items()}
    pair_rows, fact_texts, doc_texts, doc_row, pair_judgment = [], [], [], {}, []
    for prefix, c in corpora.items():
        chunks = c["chunks"]
        starts = np.flatnonzero(np.r_[True, chunks["judgment"][1:] != chunks["judgment"][:-1]])
        ends = np.r_[starts[1:], len(chunks["judgment"])]
        whole = {str(chunks["judgment"][s]): " ".join(chunks["text"][s:e]) for s, e in zip(starts, ends, strict=True)}
        for citing, cited in sorted(c["cites"].items()):
            facts = c["facts"].get(citing, "")
            if len(facts.split()) < FACTS_MIN_WORDS:
                continue
            q = len(fact_texts)
            fact_texts.append(facts)
            for k in cited:
                if k not in whole:
                    continue
                if (prefix, k) not in doc_row:
                    doc_row[(prefix, k)] = len(doc_texts)
                    doc_texts.append(whole[k])
                pair_rows.append((q, doc_row[(prefix, k)]))
                pair_judgment.append(f"{prefix}:{citing}")
    pairs = np.array(pair_rows, dtype=np.int64)
    fact_tokens, doc_tokens = Tokens(model, fact_texts, 512), Tokens(model, doc_texts, DOC_TOKENS)
    log("pairs", len(pairs), "from", len(fact_texts), "citing judgments,", len(doc_texts), "cited")

    plan = assign(dataset.qids, dataset.sources, folds=5, seed=SEED, labelled=labelled, validate=VALIDATE)
    fold_of_pair = np.array([plan.judgments.get(j, -1) for j in pair_judgment])
    params = RankerParams(seed=SEED)

    def encoded(weights: np.ndarray, data=None, rows: Sequence[int] | None = None):
        """``data`` (default: a copy of the dataset) with the features of ``weights`` at ``rows`` (default: all)."""
        if data is None:
            data = replace(dataset, values=[v.copy() for v in dataset.values])
        rows = range(len(data.qids)) if rows is None else rows
        wanted = {data.qids[i].split("#", 1)[0] for i in rows}
        picked = [j for j, q in enumerate(query_ids) if q in wanted]
        vectors = encode(weights, query_tokens.subset(picked)) if picked else np.zeros((0, base.shape[1]))
        query_vectors = {query_ids[j]: v for j, v in zip(picked, vectors, strict=True)}
        corpus_vectors = {p: CorpusVectors(c["chunks"], c["facts_roles"], encode(weights, chunk_tokens[p]))
                          for p, c in corpora.items()}
        fill(data, rows, query_vectors, corpus_vectors)
        return data

    def pair_accuracy(weights: np.ndarray, rows: np.ndarray) -> float:
        """Held-out pairs: how often the cited judgment beats 99 others of the same set (a sanity figure)."""
        if not len(rows):
            return float("nan")
        q, d = encode(weights, fact_tokens)[rows[:, 0]], encode(weights, doc_tokens)
        rng = np.random.default_rng(SEED)
        wins = [float(qv @ d[r[1]] > np.max(d[rng.choice(len(d), 99)] @ qv)) for qv, r in zip(q, rows, strict=True)]
        return float(np.mean(wins))

    results = {}
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        def judged(name: str, per_fold: Sequence, drop: tuple[str, ...]) -> None:
            trains, helds, fold_params = [], [], []
            for fold, data in enumerate(per_fold):
                train, variant_params = derive(data, params, replace(SHIPPED, drop_groups=drop))
                t, h = fold_sets(train, folds=5, labelled=labelled, validate=VALIDATE, scored=data, seed=SEED)
                trains.append(t[fold])
                helds.append(h[fold])
                fold_params.append(variant_params)
            rows = []
            for held, scores in zip(helds, pool.map(held_out, trains, helds, fold_params, repeat(drop)),
                                    strict=True):
                rows += list(zip(held.qids, held.sources, scores, strict=True))
            results[name] = summarise(rows, labelled)
            table = {k: v["MAP"] for k, v in sorted(results[name].items())}
            log(name, table)

        if not args.tuned_only:
            untuned = encoded(base)
            judged("shipped (no probe features)", [untuned] * 5, (GROUP,))
            judged("untuned static encoder features", [untuned] * 5, ())
            del untuned
        tuned = []
        for fold in range(5):
            train = pairs[fold_of_pair != fold]
            weights = train_encoder(base, fact_tokens, doc_tokens, train, epochs=args.epochs)
            held = pairs[fold_of_pair == fold]
            log(f"fold {fold}: encoder trained on {len(train)} pairs; held-out pair accuracy untuned "
                f"{pair_accuracy(base, held):.3f} tuned {pair_accuracy(weights, held):.3f}")
            data = encoded(weights)
            if args.cross_fit:
                # a training query drawn from J gets the features of an encoder that never saw J's pairs: J's
                # pairs are its labels, and an encoder that learnt them makes the features look better in training
                # than they are on a held-out query (the ranker would learn to trust them too much)
                citing = sorted({j for j, f in zip(pair_judgment, fold_of_pair, strict=True) if f != fold})
                random.Random(f"{SEED}:inner:{fold}").shuffle(citing)
                inner = {j: i % INNER for i, j in enumerate(citing)}
                inner_of_pair = np.array([inner.get(j, -1) for j in pair_judgment])
                for part in range(INNER):
                    rows = [i for i, q in enumerate(data.qids) if inner.get(source_judgment(q) or "") == part]
                    mask = (fold_of_pair != fold) & (inner_of_pair != part)
                    encoded(train_encoder(base, fact_tokens, doc_tokens, pairs[mask], epochs=args.epochs), data,
                            rows)
                log(f"fold {fold}: training queries' features cross-fitted over {INNER} inner folds")
            tuned.append(data)
        how = "cross-fitted" if args.cross_fit else "not cross-fitted"
        judged(f"tuned static encoder features ({args.epochs} epochs, trained inside each fold, {how})", tuned, ())
    digest = hashlib.sha256(repr(sorted(results.items())).encode()).hexdigest()[:12]
    (args.work / "results.txt").write_text(repr(results) + "\n")
    for name, scores in results.items():
        print(name, {k: (v["MAP"], v["queries"]) for k, v in sorted(scores.items())})
    print("results digest", digest)


if __name__ == "__main__":
    main()
