"""Train the role head: reproducible, on CPU, from explicit data paths.

Sentence vectors come from the embedding cache (computed once), so a training run costs seconds per epoch.
Each ensemble member holds out its own slice of the training judgments for early stopping, so no member
ever sees OpenNyAI dev (the held-out evaluation split) and together the members still use all training data.

Labels may be *sets*: a Law-AI "Argument" sentence is allowed to be either argument_petitioner or
argument_respondent, and the loss is the negative log of the probability mass on the allowed set.

Its command line is ``ratio train roles``, which calls :func:`train` and
:func:`merge_heads` with typed arguments.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from backends.encoders import DEFAULT_ENCODER, Encoder
from indexer.roles.embeddings import EmbeddingCache
from indexer.roles.features import FeatureSet, load_feature_set
from indexer.roles.model import HeadArtifact, HeadConfig, RoleHead
from lab.roles.data import LabelledJudgment, load_law_ai, load_opennyai
from legal.roles import RoleSet, load_role_set


@dataclass(frozen=True)
class Example:
    """One judgment ready for the head: inputs (n, dim) and allowed labels (n, labels) as a 0/1 mask."""

    doc_id: str
    inputs: np.ndarray
    allowed: np.ndarray


@dataclass(frozen=True)
class TrainSettings:
    """Everything that decides the outcome of a training run, recorded in the artifact."""

    seed: int = 13
    epochs: int = 40
    patience: int = 8
    members: int = 1
    first_member: int = 0
    val_fraction: float = 0.1
    batch_size: int = 8
    learning_rate: float = 2e-3
    weight_decay: float = 1e-2
    projection: int = 256
    hidden: int = 128
    layers: int = 1
    dropout: float = 0.3


def scheme_labels(scheme: str, role_set: RoleSet) -> tuple[str, ...]:
    """Labels of a scheme: canonical role names, or a source dataset's own labels."""
    return role_set.names if scheme == "canonical" else role_set.source_labels(scheme)


def allowed_labels(scheme: str, source: str, label: str, role_set: RoleSet) -> set[str]:
    """Which labels of ``scheme`` a source label permits (empty: the sentence carries no signal there)."""
    if scheme == source:
        return {label}
    roles = role_set.covers(source, label)
    if scheme == "canonical":
        return set(roles)
    mapped = {role_set.to_source(scheme, role) for role in roles}
    return {item for item in mapped if item is not None}


def build_examples(
    judgments: Sequence[LabelledJudgment],
    scheme: str,
    role_set: RoleSet,
    features: FeatureSet,
    cache: EmbeddingCache,
    encoder: Encoder | None,
    batch_size: int = 32,
) -> list[Example]:
    """Embed (through the cache), featurise and encode the targets of each judgment."""
    labels = scheme_labels(scheme, role_set)
    index = {label: position for position, label in enumerate(labels)}
    examples = []
    for judgment in judgments:
        vectors = cache.get(judgment.sentences)
        if vectors is None:
            if encoder is None:
                raise ValueError(f"no cached vectors for {judgment.source}:{judgment.doc_id} and no encoder")
            vectors = cache.embed(encoder, judgment.sentences, batch_size=batch_size)
        inputs = np.concatenate([vectors, features.compute(judgment.sentences)], axis=1).astype(np.float32)
        allowed = np.zeros((len(judgment.sentences), len(labels)), dtype=np.float32)
        for row, label in enumerate(judgment.labels):
            for name in allowed_labels(scheme, judgment.source, label, role_set):
                allowed[row, index[name]] = 1.0
        examples.append(Example(f"{judgment.source}:{judgment.doc_id}", inputs, allowed))
    return examples


def _batch(examples: Sequence[Example]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    longest = max(example.inputs.shape[0] for example in examples)
    dim = examples[0].inputs.shape[1]
    labels = examples[0].allowed.shape[1]
    inputs = torch.zeros((len(examples), longest, dim))
    allowed = torch.zeros((len(examples), longest, labels))
    for row, example in enumerate(examples):
        count = example.inputs.shape[0]
        inputs[row, :count] = torch.from_numpy(example.inputs)
        allowed[row, :count] = torch.from_numpy(example.allowed)
    lengths = torch.tensor([example.inputs.shape[0] for example in examples])
    return inputs, lengths, allowed


def bucketed_batches(examples: Sequence[Example], size: int, order: random.Random) -> list[list[Example]]:
    """Batches of judgments of similar length, in random order.

    A recurrent layer on CPU pays per time step, and a batch takes as many steps as its longest judgment;
    grouping similar lengths (with a little noise, so batches differ between epochs) cuts the steps per epoch.
    """
    keyed = sorted(examples, key=lambda example: example.inputs.shape[0] * (1.0 + 0.3 * order.random()))
    batches = [keyed[start : start + size] for start in range(0, len(keyed), size)]
    order.shuffle(batches)
    return batches


def set_loss(logits: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """Mean of -log P(label in allowed set) over sentences that allow at least one label."""
    valid = allowed.sum(-1) > 0
    if not bool(valid.any()):
        return logits.sum() * 0.0
    allowed_logits = logits.masked_fill(allowed <= 0, float("-inf"))
    per_sentence = torch.logsumexp(logits, dim=-1) - torch.logsumexp(allowed_logits, dim=-1)
    return per_sentence[valid].mean()


@torch.no_grad()
def set_accuracy(model: RoleHead, examples: Sequence[Example]) -> float:
    """Share of sentences whose predicted label is in their allowed set (micro-F1 for single labels)."""
    model.eval()
    hits = total = 0
    for example in examples:
        inputs, lengths, allowed = _batch([example])
        predicted = model(inputs, lengths)[0].argmax(-1)
        valid = allowed[0].sum(-1) > 0
        hits += int(allowed[0][torch.arange(len(predicted)), predicted][valid].sum())
        total += int(valid.sum())
    return hits / max(total, 1)


def seed_everything(seed: int) -> None:
    """Fix Python, NumPy and torch seeds and ask torch for deterministic kernels."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)


def fit_member(
    train_set: Sequence[Example],
    val_set: Sequence[Example],
    config: HeadConfig,
    settings: TrainSettings,
    seed: int,
    log: Callable[[str], None] = print,
) -> tuple[RoleHead, dict]:
    """Train one head; keep the epoch with the best held-out set accuracy (the last if no held-out set)."""
    seed_everything(seed)
    model = RoleHead(config)
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    order = random.Random(seed)
    best_state = {k: v.clone() for k, v in model.state_dict().items()}
    best_score, best_epoch, stale = -1.0, 0, 0
    history = []
    for epoch in range(1, settings.epochs + 1):
        model.train()
        total = 0.0
        for batch in bucketed_batches(train_set, settings.batch_size, order):
            inputs, lengths, allowed = _batch(batch)
            loss = set_loss(model(inputs, lengths), allowed)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            total += loss.item()
        score = set_accuracy(model, val_set) if val_set else float(epoch)
        history.append({"epoch": epoch, "loss": round(total, 4), "val": round(score, 4)})
        log(f"  epoch {epoch:3d} loss {total:8.3f} val {score:.4f}")
        if score > best_score:
            best_score, best_epoch, stale = score, epoch, 0
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        else:
            stale += 1
            if val_set and stale >= settings.patience:
                break
    model.load_state_dict(best_state)
    model.eval()
    record = {"seed": seed, "best_epoch": best_epoch, "history": history}
    if val_set:
        record["val_accuracy"] = round(best_score, 4)
    return model, record


def train_examples(
    primary: Sequence[Example],
    extra: Sequence[Example],
    labels: Sequence[str],
    feature_dim: int,
    settings: TrainSettings,
    log: Callable[[str], None] = print,
) -> tuple[list[RoleHead], HeadConfig, list[dict]]:
    """Train ``settings.members`` heads; member i holds out slice i of the shuffled primary judgments.

    ``settings.first_member`` starts the numbering elsewhere, so members can be trained in separate runs
    (same seeds, same held-out slices) and joined with ``merge_heads``.
    """
    config = HeadConfig(
        embedding_dim=primary[0].inputs.shape[1] - feature_dim,
        feature_dim=feature_dim,
        num_labels=len(labels),
        projection=settings.projection,
        hidden=settings.hidden,
        layers=settings.layers,
        dropout=settings.dropout,
    )
    shuffled = list(primary)
    random.Random(settings.seed).shuffle(shuffled)
    held = max(1, round(len(shuffled) * settings.val_fraction)) if settings.val_fraction > 0 else 0
    members, records = [], []
    for member in range(settings.first_member, settings.first_member + settings.members):
        start = (member * held) % max(len(shuffled), 1)
        val_set = shuffled[start : start + held]
        val_ids = {example.doc_id for example in val_set}
        train_set = [example for example in shuffled if example.doc_id not in val_ids] + list(extra)
        log(f"member {member}: {len(train_set)} training judgments, {len(val_set)} held out")
        model, record = fit_member(train_set, val_set, config, settings, settings.seed + member, log)
        record["held_out"] = sorted(val_ids)
        members.append(model)
        records.append(record)
    return members, config, records


def train(
    opennyai_train: Path | None,
    output: Path,
    cache_dir: Path,
    *,
    law_ai_dir: Path | None = None,
    scheme: str = "canonical",
    encoder: Encoder | None = None,
    encoder_id: str = DEFAULT_ENCODER,
    settings: TrainSettings | None = None,
    max_documents: int | None = None,
    features: FeatureSet | None = None,
    log: Callable[[str], None] = print,
    threads: int = 2,
) -> HeadArtifact:
    """Train a role head and save it to ``output``; returns the saved artifact.

    ``opennyai_train`` is OpenNyAI's train split (never dev). ``law_ai_dir`` adds the Law-AI judgments with
    set-valued targets. ``cache_dir`` holds the sentence vectors; ``encoder`` fills cache misses.
    ``max_documents`` keeps only the first judgments of each corpus (for smoke tests). ``threads`` is torch's
    thread count: on a busy machine one thread trains many times faster than two competing for the cores.
    """
    settings = settings or TrainSettings()
    torch.set_num_threads(threads)
    role_set = load_role_set()
    features = features or load_feature_set()
    cache = EmbeddingCache(Path(cache_dir), encoder_id)
    judgments: list[LabelledJudgment] = []
    if opennyai_train is not None:
        judgments += load_opennyai(Path(opennyai_train))[:max_documents]
    extra_judgments = load_law_ai(Path(law_ai_dir))[:max_documents] if law_ai_dir is not None else []
    if not judgments:
        judgments, extra_judgments = extra_judgments, []
    if not judgments:
        raise ValueError("no training judgments: pass opennyai_train and/or law_ai_dir")
    started = time.perf_counter()
    primary = build_examples(judgments, scheme, role_set, features, cache, encoder)
    extra = build_examples(extra_judgments, scheme, role_set, features, cache, encoder)
    log(f"prepared {len(primary)} + {len(extra)} judgments in {time.perf_counter() - started:.1f}s")
    labels = scheme_labels(scheme, role_set)
    members, config, records = train_examples(primary, extra, labels, features.size, settings, log)
    artifact = HeadArtifact(
        labels=tuple(labels),
        scheme=scheme,
        encoder_id=encoder_id,
        head=config,
        features=features.to_json(),
        members=tuple(members),
        training={
            "settings": asdict(settings),
            "data": {
                "opennyai_train": Path(opennyai_train).name if opennyai_train else None,
                "law_ai": bool(law_ai_dir),
                "judgments": len(primary) + len(extra),
                "sentences": int(sum(example.inputs.shape[0] for example in [*primary, *extra])),
            },
            "members": [{k: v for k, v in record.items() if k != "history"} for record in records],
            "seconds": round(time.perf_counter() - started, 1),
        },
    )
    artifact.save(Path(output))
    log(f"saved {output} in {time.perf_counter() - started:.1f}s")
    return artifact


def merge_heads(paths: Sequence[Path], output: Path) -> HeadArtifact:
    """Join heads trained in separate runs (``--first-member``) into one ensemble saved at ``output``."""
    merged = HeadArtifact.merge([HeadArtifact.load(Path(path)) for path in paths])
    merged.save(Path(output))
    return merged
