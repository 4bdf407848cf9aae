"""Training the learned ranker: features for every training query, LightGBM LambdaRank, a model folder with a card.

Features are computed exactly as at search time (the same :class:`search.ranking.rank.Ranker` code path, one
corpus per index prefix), with the query's relevant judgments as labels. A query whose candidates hold none of
its relevant judgments teaches nothing and is counted, not kept. Validation is by query: a seeded share of the
training queries (never a reported benchmark query: those are not read at all) is held back for early stopping
and for the card's metrics.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from itertools import pairwise, repeat
from pathlib import Path
from typing import Any

import numpy as np

from lab.training.folds import assign, corpus_of
from lab.training.ranker_data import TrainingQuery
from search.ranking.features import FEATURE_GROUPS, FEATURES, RankingError
from search.ranking.model import CARD_FILE, MODEL_FILE
from search.ranking.rank import Ranker
from search.ranking.tuned import TunedQuery

__all__ = ["Dataset", "RankerParams", "collect", "cross_validate", "fit", "fold_sets", "held_out", "predicted",
           "save_model", "summarise"]


@dataclass(frozen=True)
class RankerParams:
    """LightGBM LambdaRank settings (chosen on validation queries drawn from the training data)."""

    trees: int = 300
    learning_rate: float = 0.05
    leaves: int = 15  # the shipped tree size: lab.training.selection.SHIPPED (chosen by cross-validation)
    min_data_in_leaf: int = 20
    feature_fraction: float = 0.8
    bagging_fraction: float = 0.8
    early_stopping: int = 40
    seed: int = 13
    objective: str = "lambdarank"  # or "rank_xendcg" (lab.training.selection's objective choice)
    refit: float = 0.0  # 0: keep the early-stopped model; else train again on every query, that many × its rounds


@dataclass
class Dataset:
    """Feature rows of every usable training query, grouped by query."""

    qids: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    ids: list[tuple[str, ...]] = field(default_factory=list)
    values: list[np.ndarray] = field(default_factory=list)
    labels: list[np.ndarray] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    failed: list[tuple[str, str]] = field(default_factory=list)
    # each query's count of relevant judgments, among its candidates or not (empty: only the candidates' labels
    # are known): average precision divides by it, so a relevant judgment the candidates miss counts as missed
    relevant: list[int] = field(default_factory=list)

    def totals(self) -> list[int]:
        """Each query's number of relevant judgments (its candidates' labels where the count was not kept)."""
        if len(self.relevant) == len(self.qids):
            return list(self.relevant)
        return [int(labels.sum()) for labels in self.labels]

    def add(self, query: TrainingQuery, ids: Sequence[str], values: np.ndarray) -> None:
        labels = np.array([1 if d in query.relevant else 0 for d in ids], dtype=np.int32)
        if labels.sum() == 0:
            self.skipped[query.source] += 1
            return
        if len(self.relevant) != len(self.qids):
            self.relevant = self.totals()
        self.relevant.append(len(query.relevant))
        self.qids.append(query.qid)
        self.sources.append(query.source)
        self.ids.append(tuple(ids))
        self.values.append(values)
        self.labels.append(labels)

    def digest(self) -> str:
        """SHA-256 of the dataset's content (queries, sources, candidates, features, labels), not of its file: a
        ``.npz`` holds zip timestamps, so two identical builds give different bytes but the same digest."""
        sha = hashlib.sha256()
        for qid, source, ids, values, labels in zip(self.qids, self.sources, self.ids, self.values, self.labels,
                                                    strict=True):
            sha.update("\x1f".join([qid, source, *ids]).encode("utf-8"))
            sha.update(np.ascontiguousarray(values, dtype=np.float32).tobytes())
            sha.update(np.ascontiguousarray(labels, dtype=np.int32).tobytes())
        sha.update(np.array(self.totals(), dtype=np.int64).tobytes())
        return sha.hexdigest()

    def save(self, path: Path) -> None:
        """One ``.npz`` of plain arrays (rows of all queries stacked, with each query's row count): loadable
        without pickle."""
        sizes = np.array([len(v) for v in self.values], dtype=np.int64)
        values = np.vstack(self.values) if self.values else np.zeros((0, len(FEATURES)), dtype=np.float32)
        labels = np.concatenate(self.labels) if self.labels else np.zeros(0, dtype=np.int32)
        np.savez_compressed(path, qids=np.array(self.qids, dtype=str), sources=np.array(self.sources, dtype=str),
                            ids=np.array(["\t".join(i) for i in self.ids], dtype=str), sizes=sizes,
                            values=values.astype(np.float32), labels=labels.astype(np.int32),
                            relevant=np.array(self.totals(), dtype=np.int64), features=np.array(FEATURES, dtype=str),
                            skipped=np.array(json.dumps(dict(sorted(self.skipped.items())))))

    @classmethod
    def load(cls, path: Path) -> Dataset:
        """A saved dataset, its columns matched to :data:`FEATURES` by name: a feature it lacks is missing (NaN),
        one no longer computed is dropped, so a feature change does not force recomputing everything."""
        data = np.load(path, allow_pickle=False)
        if "sizes" not in data:
            raise ValueError(f"{path} is a dataset in an older format: collect it again")
        bounds = np.cumsum(np.concatenate([[0], data["sizes"]]))
        stacked, flat = data["values"], data["labels"]
        values = [stacked[a:b] for a, b in pairwise(bounds)]
        labels = [flat[a:b] for a, b in pairwise(bounds)]
        saved = list(data["features"])
        where = [saved.index(f) if f in saved else -1 for f in FEATURES]

        def columns(values: np.ndarray) -> np.ndarray:
            out = np.full((len(values), len(FEATURES)), np.nan, dtype=np.float32)
            for i, j in enumerate(where):
                if j >= 0:
                    out[:, i] = values[:, j]
            return out

        return cls(list(map(str, data["qids"])), list(map(str, data["sources"])),
                   [tuple(str(i).split("\t")) for i in data["ids"]], [columns(v) for v in values], labels,
                   skipped=Counter(json.loads(str(data["skipped"]))) if "skipped" in data else Counter(),
                   relevant=[int(r) for r in data["relevant"]] if "relevant" in data else [])

    def extend(self, other: Dataset) -> None:
        """Append ``other``'s queries (and its skipped and failed counts)."""
        self.relevant = self.totals() + other.totals()
        self.qids += other.qids
        self.sources += other.sources
        self.ids += other.ids
        self.values += other.values
        self.labels += other.labels
        self.skipped.update(other.skipped)
        self.failed += other.failed

    def upweighted(self, keep: Callable[[int], bool], times: int) -> Dataset:
        """This dataset with the queries ``keep`` selects repeated ``times`` times in all (labelled queries are
        few beside the mined ones; repeating them weighs them more in LambdaRank's per-query gradient)."""
        out = self.subset(lambda i: True)
        chosen = self.subset(keep)
        for copy in range(1, times):
            extra = chosen.subset(lambda i: True)
            extra.qids = [f"{q}#{copy}" for q in extra.qids]
            extra.skipped, extra.failed = Counter(), []
            out.extend(extra)
        return out

    def subset(self, keep: Callable[[int], bool]) -> Dataset:
        out = Dataset(skipped=Counter(self.skipped))
        totals = self.totals()
        for i in range(len(self.qids)):
            if keep(i):
                out.relevant.append(totals[i])
                out.qids.append(self.qids[i])
                out.sources.append(self.sources[i])
                out.ids.append(self.ids[i])
                out.values.append(self.values[i])
                out.labels.append(self.labels[i])
        return out


def collect(queries: Sequence[TrainingQuery], rankers: Mapping[str, Ranker], *,
            vectors: Callable[[str], Sequence[float] | None] | None = None,
            progress: Callable[[TrainingQuery], None] | None = None,
            tuned: Callable[[TrainingQuery], TunedQuery | None] | None = None) -> Dataset:
    """Features of every query against its corpus's ranker; ``vectors`` embeds a query text (None: no semantic
    features), ``tuned`` a query under its half's tuned facts encoder (None: no tuned features)."""
    dataset = Dataset()
    for query in queries:
        ranker = rankers[query.corpus]
        vector = vectors(query.text) if vectors else None
        try:
            _, _, matrix, _ = ranker.matrix(query.text, vector=vector, exclude=query.exclude,
                                            tuned=tuned(query) if tuned else None)
        except RankingError as exc:  # one bad query must not end a long run: it is counted, with its reason
            dataset.failed.append((query.qid, str(exc)))
            continue
        dataset.add(query, matrix.ids, matrix.values)
        if progress:
            progress(query)
    return dataset


def _split(dataset: Dataset, share: float, seed: int) -> tuple[Dataset, Dataset]:
    """Training and validation queries; the copies of a repeated query (``qid#n``) stay on one side."""
    base = [q.split("#", 1)[0] for q in dataset.qids]
    order = sorted(set(base))
    random.Random(seed).shuffle(order)
    held = set(order[: round(len(order) * share)])
    return dataset.subset(lambda i: base[i] not in held), dataset.subset(lambda i: base[i] in held)


def _matrix(dataset: Dataset, columns: Sequence[int]) -> tuple[np.ndarray, np.ndarray, list[int]]:
    values = np.vstack([v[:, columns] for v in dataset.values]) if dataset.values else np.zeros((0, len(columns)))
    labels = np.concatenate(dataset.labels) if dataset.labels else np.zeros(0)
    return values, labels, [len(v) for v in dataset.values]


def _map(dataset: Dataset, scores: Sequence[np.ndarray]) -> dict[str, float]:
    """Mean average precision and nDCG@10 over the dataset's queries, as their candidates are ranked, each over
    all of the query's relevant judgments (one the candidates miss is missed, as in the benchmarks' scoring)."""
    aps, ndcgs = [], []
    for labels, score, relevant in zip(dataset.labels, scores, dataset.totals(), strict=True):
        order = np.argsort(-score, kind="stable")
        ranked = labels[order]
        hits = np.cumsum(ranked)
        total = max(relevant, int(ranked.sum()))
        aps.append(float((hits[ranked > 0] / (np.nonzero(ranked)[0] + 1)).sum() / total) if total else 0.0)
        gains = ranked[:10] / np.log2(np.arange(2, min(len(ranked), 10) + 2))
        ideal = np.ones(min(total, 10)) / np.log2(np.arange(2, min(total, 10) + 2))
        ndcgs.append(float(gains.sum() / ideal.sum()) if ideal.sum() else 0.0)
    return {"MAP": round(float(np.mean(aps)), 4) if aps else 0.0,
            "nDCG@10": round(float(np.mean(ndcgs)), 4) if ndcgs else 0.0}


def absent_groups(dataset: Dataset) -> tuple[str, ...]:
    """The feature groups with no value anywhere in ``dataset`` (every feature missing for every candidate: the
    ``tuned`` group on indices the facts encoder never filled). A model leaves them out, so a corpus without them
    trains the model it trained before the group existed, byte for byte, and its searches never compute them."""
    if not dataset.values:
        return ()
    values = np.vstack(dataset.values)
    present = {FEATURE_GROUPS[f] for f, column in zip(FEATURES, values.T, strict=True) if not np.isnan(column).all()}
    return tuple(dict.fromkeys(g for g in FEATURE_GROUPS.values() if g not in present))


def fit(dataset: Dataset, params: RankerParams | None = None, *, drop_groups: Sequence[str] = (),
        valid_share: float = 0.2) -> tuple[Any, tuple[str, ...], dict[str, Any]]:
    """Train LambdaRank on ``dataset`` without the features of ``drop_groups``; returns the booster, its
    feature names and the metrics (per source, on the held-back validation queries). With ``params.refit``, the
    booster returned is trained again on every query for that many times the early-stopped rounds."""
    import lightgbm

    params = params or RankerParams()
    features = tuple(f for f in FEATURES if FEATURE_GROUPS[f] not in set(drop_groups))
    columns = [FEATURES.index(f) for f in features]
    train, valid = _split(dataset, valid_share, params.seed)
    x_train, y_train, g_train = _matrix(train, columns)
    x_valid, y_valid, g_valid = _matrix(valid, columns)
    config = {"objective": params.objective, "metric": "map", "eval_at": [100], "learning_rate": params.learning_rate,
              "num_leaves": params.leaves, "min_data_in_leaf": params.min_data_in_leaf,
              "feature_fraction": params.feature_fraction, "bagging_fraction": params.bagging_fraction,
              "bagging_freq": 1, "seed": params.seed, "deterministic": True, "force_row_wise": True,
              "num_threads": 1, "verbosity": -1, "lambdarank_truncation_level": 100}
    train_set = lightgbm.Dataset(x_train, y_train, group=g_train, feature_name=list(features))
    sets, callbacks = [train_set], []
    if g_valid:
        sets.append(lightgbm.Dataset(x_valid, y_valid, group=g_valid, reference=train_set))
        callbacks.append(lightgbm.early_stopping(params.early_stopping, verbose=False))
    booster = lightgbm.train(config, train_set, num_boost_round=params.trees, valid_sets=sets[1:],
                             callbacks=callbacks)
    metrics: dict[str, Any] = {"trees": booster.best_iteration or booster.current_iteration(),
                               "train_queries": len(train.qids), "valid_queries": len(valid.qids)}
    if valid.qids:
        scores = predicted(booster, features, valid)
        baseline = [v[:, FEATURES.index("bm25_long")] for v in valid.values]
        metrics["valid"] = _map(valid, scores)
        metrics["valid_bm25_long"] = _map(valid, baseline)
        for source in sorted(set(valid.sources)):
            part = [i for i, s in enumerate(valid.sources) if s == source]
            sub = valid.subset(lambda i, part=set(part): i in part)
            metrics[f"valid:{source}"] = {"queries": len(part), **_map(sub, [scores[i] for i in part]),
                                          "bm25_long": _map(sub, [baseline[i] for i in part])}
    if params.refit and g_valid:
        booster = _refit(config, dataset, features, columns, round(metrics["trees"] * params.refit))
        metrics["refit_trees"] = booster.current_iteration()
    return booster, features, metrics


def _refit(config: Mapping[str, Any], dataset: Dataset, features: Sequence[str], columns: Sequence[int],
           rounds: int) -> Any:
    """The model trained again on every query of ``dataset``, the early-stopping fifth included, for ``rounds``
    rounds (the early-stopped fit said how far to go): no query is left untrained on, at the price of no held-back
    check on the model that ships. The metrics stay the early-stopped model's (the only held-out ones there are);
    whether refitting pays is the selection's ``refit`` choice to judge."""
    import lightgbm

    x, y, groups = _matrix(dataset, columns)
    return lightgbm.train(dict(config), lightgbm.Dataset(x, y, group=groups, feature_name=list(features)),
                          num_boost_round=max(1, rounds))


def save_model(folder: Path, booster: Any, features: Sequence[str], *, name: str, data: Mapping[str, Any],
               params: RankerParams, metrics: Mapping[str, Any]) -> Path:
    """Write ``model.txt`` and ``card.json`` into ``folder``."""
    import lightgbm

    folder.mkdir(parents=True, exist_ok=True)
    booster.save_model(str(folder / MODEL_FILE), num_iteration=booster.best_iteration or None)
    card = {"name": name, "kind": "ratio learned ranker (LightGBM LambdaRank)", "features": list(features),
            "feature_groups": sorted({FEATURE_GROUPS[f] for f in features}),
            "data": dict(data), "params": params.__dict__, "metrics": dict(metrics),
            "lightgbm": lightgbm.__version__, "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    (folder / CARD_FILE).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    return folder


def cross_validate(dataset: Dataset, params: RankerParams | None = None, *, folds: int = 5,
                   labelled: Callable[[str], bool] = lambda source: not source.startswith("mined"),
                   validate: Collection[str] = (), scored: Dataset | None = None, cap: int | None = None,
                   drop_groups: Sequence[str] = (), seed: int = 13,
                   executor: Executor | None = None) -> dict[str, dict[str, float]]:
    """K-fold cross-validation: each fold's labelled queries (``labelled`` says which sources are) and the mined
    queries of the ``validate`` sources whose source judgment falls in the fold are held out and scored (MAP and
    nDCG@10 over their candidates); the rest of ``dataset`` is trained on, less every query drawn from a held-out
    judgment (:mod:`lab.training.folds`). The folds and the held-out queries come from ``scored`` (default:
    ``dataset``), the dataset as built: a variant that trains on fewer sources is judged on the same folds and the
    same queries, those it does not train on included. ``cap`` keeps at most that many validated judgments per
    corpus. Returns the means per source over every held-out query, ``all`` over the labelled ones, and, where
    any mined query was scored, ``validation`` over those and ``SOURCE@CORPUS`` per corpus when there are
    several. The copies of a repeated query (``qid#n``) stay in one fold and are never scored. ``executor`` (a
    process pool) fits the folds side by side: a fit is deterministic and single-threaded, so the scores are the
    same as in one process."""
    params = params or RankerParams()
    trains, helds = fold_sets(dataset, folds=folds, labelled=labelled, validate=validate, scored=scored, cap=cap,
                              seed=seed)
    run = executor.map if executor else map
    rows: list[tuple[str, str, dict[str, float]]] = []
    for held, scores in zip(helds, run(held_out, trains, helds, repeat(params), repeat(tuple(drop_groups))),
                            strict=True):
        rows += [(qid, source, row) for qid, source, row in zip(held.qids, held.sources, scores, strict=True)]
    return summarise(rows, labelled)


def summarise(rows: Sequence[tuple[str, str, Mapping[str, float]]],
              labelled: Callable[[str], bool]) -> dict[str, dict[str, float]]:
    """Held-out ``(qid, source, scores)`` rows as :func:`cross_validate` reports them: the means per source, ``all``
    over the labelled queries, ``validation`` over the mined ones and ``SOURCE@CORPUS`` when several corpora gave
    mined queries."""
    per_source: dict[str, list[Mapping[str, float]]] = {}
    for _, source, row in rows:
        per_source.setdefault(source, []).append(row)
    out = {source: _means(part) for source, part in sorted(per_source.items())}
    every = [row for _, source, row in rows if labelled(source)]
    if every:
        out["all"] = _means(every)
    mined = [(qid, source, row) for qid, source, row in rows if not labelled(source)]
    if mined:
        out["validation"] = _means([row for _, _, row in mined])
        corpora = sorted({corpus_of(qid) for qid, _, _ in mined})
        if len(corpora) > 1:
            for source in sorted({s for _, s, _ in mined}):
                for corpus in corpora:
                    part = [row for qid, s, row in mined if s == source and corpus_of(qid) == corpus]
                    if part:
                        out[f"{source}@{corpus}"] = _means(part)
    return out


def fold_sets(dataset: Dataset, *, folds: int, labelled: Callable[[str], bool], validate: Collection[str] = (),
              scored: Dataset | None = None, cap: int | None = None,
              seed: int = 13) -> tuple[list[Dataset], list[Dataset]]:
    """Each fold's training set (from ``dataset``) and held-out set (from ``scored``, default ``dataset``), folds
    without a held-out query left out; see :func:`cross_validate`."""
    scored = scored if scored is not None else dataset
    plan = assign(scored.qids, scored.sources, folds=folds, seed=seed, labelled=labelled, validate=validate,
                  cap=cap)
    left_out = [plan.left_out(q) for q in dataset.qids]
    held_in = [plan.scored(q, s) for q, s in zip(scored.qids, scored.sources, strict=True)]
    trains, helds = [], []
    for fold in range(folds):
        held = scored.subset(lambda i, fold=fold: held_in[i] == fold)
        if held.qids:
            trains.append(dataset.subset(lambda i, fold=fold: left_out[i] != fold))
            helds.append(held)
    return trains, helds


def held_out(train: Dataset, held: Dataset, params: RankerParams,
              drop_groups: Sequence[str]) -> list[dict[str, float]]:
    """One fold: fit on ``train``, then MAP and nDCG@10 of each ``held`` query (module level: a worker runs it)."""
    booster, features, _ = fit(train, params, drop_groups=drop_groups)
    return [_map(held.subset(lambda j, i=i: j == i), [score])
            for i, score in enumerate(predicted(booster, features, held))]


def predicted(booster: Any, features: Sequence[str], dataset: Dataset) -> list[np.ndarray]:
    """``booster``'s score of every candidate of each of ``dataset``'s queries, reading the ``features`` it was
    trained on, up to its early-stopped round (every round of a model without one: a refit)."""
    columns = [FEATURES.index(f) for f in features]
    return [booster.predict(v[:, columns], num_iteration=booster.best_iteration or None) for v in dataset.values]


def _means(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    return {**{m: round(float(np.mean([r[m] for r in rows])), 4) for m in ("MAP", "nDCG@10")}, "queries": len(rows)}
