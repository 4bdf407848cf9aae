"""Train Ratio's own cross-encoder reranker and fine-tune its bi-encoder on mined training groups.

No cross-encoder is packaged for this machine and a general one is weak on judgments, so the reranker is
trained here: a sentence-transformers ``CrossEncoder`` (one logit) on top of a bi-encoder backbone, with binary
cross-entropy on (query, positive) = 1 and (query, hard negative) = 0. The bi-encoder is fine-tuned with
MultipleNegativesRankingLoss on (query, positive, hard negative) triplets, the other passages of the batch
serving as more negatives.

The loops are plain torch rather than the sentence-transformers Trainer: that Trainer needs ``datasets`` and
``accelerate``, which nothing else here uses, and a few dozen steps on a CPU need none of their machinery.
Validation ranks each held-out query's positives among its negatives before and after training, so the
figures say whether the training helped on queries it did not see. Nothing here prints: progress goes to
a callback and the result comes back as a :class:`TrainResult` that the model card is written from.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from backends.encoders import DEFAULT_ENCODER, load_encoder, packaged_model_path
from lab.training.pairs import PairSet, TrainingGroup
from search.retrieval.rerank import BiEncoderRescorer, CrossEncoderReranker, Reranker, focus_many

__all__ = ["TrainOptions", "TrainResult", "measure", "rank_metrics", "resolve_backbone", "train_embedder",
           "train_reranker"]

Progress = Callable[[int, int, float], None]  # step, total steps, loss of that step


@dataclass(frozen=True)
class TrainOptions:
    """How to train: the backbone and the few knobs that matter on a CPU."""

    backbone: str = DEFAULT_ENCODER
    epochs: int = 1
    steps: int | None = None  # when set, overrides epochs (the examples are cycled)
    batch_size: int = 16
    max_length: int = 256
    learning_rate: float = 3e-5
    warmup_share: float = 0.1
    seed: int = 13


@dataclass
class TrainResult:
    """What a training run did and measured; the model card and ``training.json`` are written from it."""

    kind: str
    out: Path
    backbone: str
    loss: str
    examples: int
    steps: int
    options: TrainOptions
    seconds: float = 0.0
    final_loss: float = float("nan")
    before: dict[str, float] = field(default_factory=dict)
    after: dict[str, float] = field(default_factory=dict)
    baseline: dict[str, float] = field(default_factory=dict)
    baseline_name: str = ""
    by_kind: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)  # stage -> kind -> metrics


def resolve_backbone(name: str) -> str:
    """A local folder for ``name``: the path itself, the verified packaged copy of a known id, or the id."""
    if Path(name).exists():
        return str(name)
    packaged = packaged_model_path(name)
    return str(packaged) if packaged else name


def _group_figures(scorer: Reranker, group: TrainingGroup) -> tuple[float, float, float]:
    """Reciprocal rank of the first positive, nDCG@10 and P@1 of one group ranked by ``scorer``."""
    passages = [p.text for p in group.positives] + [n.text for n in group.negatives]
    relevant = [1] * len(group.positives) + [0] * len(group.negatives)
    scores = scorer.score(group.query, passages)
    order = sorted(range(len(passages)), key=lambda i: (-scores[i], relevant[i]))
    gains = [relevant[i] for i in order]
    first = next((rank for rank, gain in enumerate(gains, start=1) if gain), None)
    dcg = sum(g / math.log2(r + 1) for r, g in enumerate(gains[:10], start=1))
    ideal = sum(1 / math.log2(r + 1) for r in range(1, min(len(group.positives), 10) + 1))
    return (1 / first if first else 0.0), (dcg / ideal if ideal else 0.0), (float(gains[0]) if gains else 0.0)


def _mean(rows: Sequence[tuple[float, float, float]]) -> dict[str, float]:
    if not rows:
        return {"groups": 0}
    columns = np.asarray(rows, dtype=float).mean(axis=0)
    return {"MRR": float(columns[0]), "nDCG@10": float(columns[1]), "P@1": float(columns[2]), "groups": len(rows)}


def rank_metrics(scorer: Reranker, groups: Sequence[TrainingGroup]) -> dict[str, float]:
    """MRR, nDCG@10 and P@1 of each group's positives ranked among its negatives, averaged over groups.

    Ties are broken against the positives (a constant scorer gets no credit for the positives coming first).
    """
    return _mean([_group_figures(scorer, group) for group in groups])


def measure(scorer: Reranker, groups: Sequence[TrainingGroup]) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """:func:`rank_metrics` over all groups and per source kind (``qrels``, ``self``), scoring each group once.

    The kinds differ in difficulty (a self-supervised query finds its own judgment), so a gain on one may hide
    a loss on the other.
    """
    rows = [(group.kind, _group_figures(scorer, group)) for group in groups]
    kinds = sorted({kind for kind, _ in rows})
    return _mean([r for _, r in rows]), {kind: _mean([r for k, r in rows if k == kind]) for kind in kinds}


def _total_steps(examples: int, options: TrainOptions) -> int:
    if options.steps is not None:
        return max(options.steps, 1)
    return max(math.ceil(examples / options.batch_size) * options.epochs, 1)


def _batches(examples: Sequence[Any], options: TrainOptions, total: int) -> Iterator[list[Any]]:
    """``total`` batches, reshuffling (with the seed) at each pass over the examples."""
    rng = random.Random(options.seed)
    order: list[Any] = []
    for _ in range(total):
        if len(order) < options.batch_size:
            fresh = list(examples)
            rng.shuffle(fresh)
            order.extend(fresh)
        batch, order = order[:options.batch_size], order[options.batch_size:]
        yield batch


def _optimise(model: Any, examples: Sequence[Any], options: TrainOptions, step_loss: Callable[[list[Any]], Any],
              progress: Progress | None) -> tuple[int, float, float]:
    """Run AdamW with linear warmup and decay; returns the steps, the last loss and the seconds spent."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    total = _total_steps(len(examples), options)
    optimiser = torch.optim.AdamW(model.parameters(), lr=options.learning_rate)
    schedule = get_linear_schedule_with_warmup(optimiser, int(total * options.warmup_share), total)
    model.train()
    started = time.perf_counter()
    loss_value = float("nan")
    for step, batch in enumerate(_batches(examples, options, total), start=1):
        loss = step_loss(batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
        loss_value = float(loss.detach())
        if progress:
            progress(step, total, loss_value)
    model.eval()
    return total, loss_value, time.perf_counter() - started


def reranker_examples(groups: Sequence[TrainingGroup]) -> list[tuple[str, str, float]]:
    """(query, passage, label): 1 for each positive, 0 for each hard negative. A long query is read through
    :func:`search.retrieval.rerank.focus`, as :class:`search.retrieval.rerank.CrossEncoderReranker` reads it when
    ranking."""
    examples = []
    for label, side in ((1.0, "positives"), (0.0, "negatives")):
        for group in groups:
            texts = [p.text for p in getattr(group, side)]
            examples += [(q, t, label) for q, t in zip(focus_many(group.query, texts), texts, strict=True)]
    return examples


def train_reranker(pairs: PairSet, out: Path, options: TrainOptions = TrainOptions(),
                   progress: Progress | None = None,
                   targets: Sequence[tuple[str, str, float]] | None = None) -> TrainResult:
    """Train a one-logit CrossEncoder from ``options.backbone`` and save it to ``out``.

    Without ``targets`` the signal is binary: BCE on the training groups' positives (1) and hard negatives
    (0), the positives weighted by the negatives-to-positives ratio so that answering "irrelevant" to
    everything does not look good to the loss. With ``targets`` (query, passage, score in [0, 1]), for
    example attribution scores, the loss is MSE between the sigmoid of the logit and the score. Either way
    the validation groups of ``pairs`` measure the ranking before and after.
    """
    import torch
    from sentence_transformers import CrossEncoder

    examples = list(targets) if targets is not None else reranker_examples(pairs.train)
    if not examples:
        raise ValueError("no training examples: mine some first")
    torch.manual_seed(options.seed)
    model = CrossEncoder(resolve_backbone(options.backbone), num_labels=1, max_length=options.max_length,
                         device="cpu")
    if targets is not None:
        name = "MSE between the sigmoid of the logit and the passage's attribution score (min-max scaled per question)"

        def loss_fn(scores: Any, labels: Any) -> Any:
            return torch.nn.functional.mse_loss(torch.sigmoid(scores), labels)
    else:
        name = "BCEWithLogitsLoss (binary labels, positives weighted by the negative/positive ratio)"
        positives = sum(1 for *_, label in examples if label)
        loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor((len(examples) - positives) / max(positives, 1)))
    result = TrainResult("reranker", out, options.backbone, name, len(examples), 0, options)
    result.baseline_name = "bi-encoder cosine of the backbone (the current default rescorer)"
    result.baseline, result.by_kind["baseline"] = measure(BiEncoderRescorer(load_encoder(options.backbone)),
                                                          pairs.validation)
    result.before, result.by_kind["before"] = measure(CrossEncoderReranker(model), pairs.validation)

    def step_loss(batch: list[tuple[str, str, float]]) -> Any:
        features = model.preprocess([(query, passage) for query, passage, _ in batch])
        scores = model(features)["scores"].view(-1)
        return loss_fn(scores, torch.tensor([label for *_, label in batch], dtype=scores.dtype))

    result.steps, result.final_loss, result.seconds = _optimise(model, examples, options, step_loss, progress)
    result.after, result.by_kind["after"] = measure(CrossEncoderReranker(model), pairs.validation)
    out.mkdir(parents=True, exist_ok=True)
    model.save(str(out), create_model_card=False)
    return result


def embedder_examples(groups: Sequence[TrainingGroup]) -> list[tuple[str, str, str]]:
    """(query, positive, hardest negative) triplets, one per positive."""
    return [(g.query, p.text, g.negatives[0].text) for g in groups for p in g.positives if g.negatives]


def train_embedder(pairs: PairSet, out: Path, options: TrainOptions = TrainOptions(),
                   progress: Progress | None = None) -> TrainResult:
    """Fine-tune the bi-encoder ``options.backbone`` with MultipleNegativesRankingLoss and save it to ``out``."""
    import torch
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    if not pairs.train:
        raise ValueError("no training groups: mine some first")
    torch.manual_seed(options.seed)
    model = load_encoder(options.backbone)
    model.max_seq_length = options.max_length
    examples = embedder_examples(pairs.train)
    loss_fn = MultipleNegativesRankingLoss(model)
    result = TrainResult("embedder", out, options.backbone, "MultipleNegativesRankingLoss (in-batch negatives plus "
                         "one BM25 hard negative per query, scale 20, cosine)", len(examples), 0, options)
    result.before, result.by_kind["before"] = measure(BiEncoderRescorer(model), pairs.validation)

    def step_loss(batch: list[tuple[str, str, str]]) -> Any:
        features = [model.preprocess([row[column] for row in batch]) for column in range(3)]
        return loss_fn(features, None)

    result.steps, result.final_loss, result.seconds = _optimise(model, examples, options, step_loss, progress)
    result.after, result.by_kind["after"] = measure(BiEncoderRescorer(model), pairs.validation)
    out.mkdir(parents=True, exist_ok=True)
    model.save(str(out), create_model_card=False)
    return result
