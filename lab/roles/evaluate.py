"""Measure the role labeller: OpenNyAI dev in its 13 labels, Law-AI cross-validation, and speed.

Scores come from scikit-learn's metrics. OpenNyAI dev is only ever evaluated here, never trained or tuned on.
Run ``python -m lab.roles.evaluate --help``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support

from backends.encoders import DEFAULT_ENCODER, Encoder, encoder_for
from indexer.roles.embeddings import EmbeddingCache
from indexer.roles.features import load_feature_set
from indexer.roles.labeller import RoleLabeller
from indexer.roles.model import HeadArtifact
from lab.roles.data import LabelledJudgment, load_law_ai, load_opennyai
from lab.roles.train import TrainSettings, build_examples, train_examples
from legal.roles import load_role_set

UNMAPPED = "(no such label)"


@dataclass(frozen=True)
class LabelScore:
    """Precision, recall, F1 and support of one label."""

    label: str
    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class Scores:
    """Averaged F1s, accuracy and the per-label table for one evaluation."""

    micro_f1: float
    macro_f1: float
    weighted_f1: float
    accuracy: float
    sentences: int
    per_label: tuple[LabelScore, ...]
    extra: dict

    def markdown(self) -> str:
        """A per-label table plus the averages, ready for docs/roles.md."""
        lines = ["| label | precision | recall | F1 | support |", "|---|---|---|---|---|"]
        for row in self.per_label:
            lines.append(f"| {row.label} | {row.precision:.3f} | {row.recall:.3f} | {row.f1:.3f} | {row.support} |")
        lines.append(
            f"\nmicro-F1 {self.micro_f1:.4f} · macro-F1 {self.macro_f1:.4f} · weighted-F1 {self.weighted_f1:.4f}"
            f" · accuracy {self.accuracy:.4f} · {self.sentences} sentences"
        )
        return "\n".join(lines)


def score(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str], extra: dict | None = None) -> Scores:
    """Score predictions over a fixed label list with scikit-learn (labels absent from gold still count)."""
    labels = list(labels)
    precision, recall, f1, support = precision_recall_fscore_support(gold, predicted, labels=labels, zero_division=0)
    per_label = tuple(
        LabelScore(label, float(p), float(r), float(f), int(s))
        for label, p, r, f, s in zip(labels, precision, recall, f1, support, strict=True)
    )
    return Scores(
        micro_f1=float(f1_score(gold, predicted, labels=labels, average="micro", zero_division=0)),
        macro_f1=float(f1_score(gold, predicted, labels=labels, average="macro", zero_division=0)),
        weighted_f1=float(f1_score(gold, predicted, labels=labels, average="weighted", zero_division=0)),
        accuracy=float(accuracy_score(gold, predicted)),
        sentences=len(gold),
        per_label=per_label,
        extra=extra or {},
    )


def _vectors(cache: EmbeddingCache, encoder: Encoder | None, judgment: LabelledJudgment) -> np.ndarray:
    vectors = cache.get(judgment.sentences)
    if vectors is None:
        if encoder is None:
            raise ValueError(f"no cached vectors for {judgment.doc_id} and no encoder")
        vectors = cache.embed(encoder, judgment.sentences)
    return vectors


def predict_judgments(
    labeller: RoleLabeller, judgments: Sequence[LabelledJudgment], cache: EmbeddingCache
) -> list[list[str]]:
    """Head labels for each judgment, reading sentence vectors from the cache (encoding on a miss)."""
    out = []
    for judgment in judgments:
        vectors = _vectors(cache, labeller.encoder, judgment)
        probabilities = labeller.probabilities_from_vectors(vectors, judgment.sentences)
        out.append([labeller.labels[i] for i in probabilities.argmax(axis=1)])
    return out


def evaluate_opennyai(labeller: RoleLabeller, dev: Sequence[LabelledJudgment], cache: EmbeddingCache) -> Scores:
    """Score a canonical head on OpenNyAI judgments in OpenNyAI's 13 labels (canonical maps back 1:1)."""
    role_set = labeller.role_set
    gold: list[str] = []
    predicted: list[str] = []
    coarse_gold: list[str] = []
    coarse_predicted: list[str] = []
    for judgment, roles in zip(dev, predict_judgments(labeller, dev, cache), strict=True):
        gold += judgment.labels
        predicted += [role_set.to_source("opennyai", role) or UNMAPPED for role in roles]
        coarse_gold += [role_set.coarse(role_set.to_canonical("opennyai", label)) for label in judgment.labels]
        coarse_predicted += [role_set.coarse(role) for role in roles]
    coarse = float(accuracy_score(coarse_gold, coarse_predicted))
    return score(gold, predicted, role_set.source_labels("opennyai"), {"coarse_accuracy": round(coarse, 4)})


def evaluate_on_law_ai(labeller: RoleLabeller, judgments: Sequence[LabelledJudgment], cache: EmbeddingCache) -> Scores:
    """Score a canonical head (trained without these judgments) on Law-AI in Law-AI's 7 labels.

    Canonical roles map to the Law-AI label covering them; preamble and none have no Law-AI label and count
    as errors.
    """
    role_set = labeller.role_set
    gold: list[str] = []
    predicted: list[str] = []
    for judgment, roles in zip(judgments, predict_judgments(labeller, judgments, cache), strict=True):
        gold += judgment.labels
        predicted += [role_set.to_source("law-ai", role) or UNMAPPED for role in roles]
    return score(gold, predicted, role_set.source_labels("law-ai"))


def cross_validate_law_ai(
    law_ai_dir: Path,
    cache_dir: Path,
    encoder: Encoder | None,
    settings: TrainSettings,
    opennyai_train: Path | None = None,
    encoder_id: str = DEFAULT_ENCODER,
    log: Callable[[str], None] = print,
) -> Scores:
    """5-fold cross-validation on Law-AI, one fold per law area (as in Bhattacharya et al. 2019).

    For each area, heads in Law-AI's 7 labels are trained on the other areas (early stopping on a slice of
    those) and predict the held-out area; predictions are pooled over folds for the table, and the mean of
    per-fold macro-F1 is reported as well. ``opennyai_train`` adds OpenNyAI's train split, mapped to
    Law-AI labels, as extra training data.
    """
    torch.set_num_threads(2)
    role_set = load_role_set()
    features = load_feature_set()
    cache = EmbeddingCache(Path(cache_dir), encoder_id)
    judgments = load_law_ai(Path(law_ai_dir))
    areas = sorted({judgment.group for judgment in judgments})
    if "" in areas:
        raise ValueError("every Law-AI judgment needs a law area from categories.txt")
    labels = role_set.source_labels("law-ai")
    examples = build_examples(judgments, "law-ai", role_set, features, cache, encoder)
    extra = []
    if opennyai_train is not None:
        extra = build_examples(load_opennyai(Path(opennyai_train)), "law-ai", role_set, features, cache, encoder)
    gold: list[str] = []
    predicted: list[str] = []
    folds = []
    for area in areas:
        test_ids = {f"law-ai:{j.doc_id}" for j in judgments if j.group == area}
        train_set = [example for example in examples if example.doc_id not in test_ids]
        test_set = [example for example in examples if example.doc_id in test_ids]
        log(f"fold {area}: train {len(train_set)} judgments, test {len(test_set)}")
        members, config, _ = train_examples(train_set, extra, labels, features.size, settings, log=lambda _: None)
        artifact = HeadArtifact(labels, "law-ai", encoder_id, config, features.to_json(), tuple(members))
        fold_gold: list[str] = []
        fold_predicted: list[str] = []
        for example in test_set:
            probabilities = artifact.probabilities(torch.from_numpy(example.inputs)).numpy()
            fold_predicted += [labels[i] for i in probabilities.argmax(axis=1)]
            fold_gold += [labels[i] for i in example.allowed.argmax(axis=1)]
        fold_macro = float(f1_score(fold_gold, fold_predicted, labels=list(labels), average="macro", zero_division=0))
        folds.append(
            {
                "area": area,
                "judgments": len(test_set),
                "sentences": len(fold_gold),
                "macro_f1": round(fold_macro, 4),
                "accuracy": round(float(accuracy_score(fold_gold, fold_predicted)), 4),
            }
        )
        log(f"  macro-F1 {fold_macro:.4f}")
        gold += fold_gold
        predicted += fold_predicted
    mean_macro = float(np.mean([fold["macro_f1"] for fold in folds]))
    return score(gold, predicted, labels, {"folds": folds, "mean_fold_macro_f1": round(mean_macro, 4)})


def measure_speed(labeller: RoleLabeller, judgments: Sequence[LabelledJudgment], cache: EmbeddingCache) -> dict:
    """Sentences per second: end to end (encoder + head, no cache) and head only (cached vectors)."""
    sentences = sum(len(judgment.sentences) for judgment in judgments)
    started = time.perf_counter()
    for judgment in judgments:
        labeller.label(list(judgment.sentences))
    end_to_end = time.perf_counter() - started
    vectors = [_vectors(cache, labeller.encoder, judgment) for judgment in judgments]
    started = time.perf_counter()
    for judgment, vector in zip(judgments, vectors, strict=True):
        labeller.probabilities_from_vectors(vector, judgment.sentences)
    head_only = time.perf_counter() - started
    return {
        "judgments": len(judgments),
        "sentences": sentences,
        "end_to_end_sentences_per_s": round(sentences / end_to_end, 1),
        "head_only_sentences_per_s": round(sentences / head_only, 1),
        "threads": torch.get_num_threads(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Command line with three subcommands: ``opennyai``, ``law-ai-cv`` and ``speed``."""
    parser = argparse.ArgumentParser(prog="python -m lab.roles.evaluate", description=__doc__.split("\n")[0])
    parser.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "ratio" / "roles")
    parser.add_argument("--head", type=Path, help="head directory (default: the shipped head)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--encoder", default=DEFAULT_ENCODER,
                        help="sentence encoder; its shipped head is scored unless --head is given")
    parser.add_argument("--models-dir", type=Path, help="where a static encoder lives (Ratio's models folder)")
    commands = parser.add_subparsers(dest="command", required=True)
    dev = commands.add_parser("opennyai", help="score on OpenNyAI dev (13 labels)")
    dev.add_argument("--dev", type=Path, required=True)
    zero = commands.add_parser("law-ai", help="score the canonical head on all of Law-AI (7 labels)")
    zero.add_argument("--law-ai", type=Path, required=True)
    cv = commands.add_parser("law-ai-cv", help="5-fold (law area) cross-validation on Law-AI")
    cv.add_argument("--law-ai", type=Path, required=True)
    cv.add_argument("--opennyai-train", type=Path, help="add OpenNyAI train as extra training data")
    for name, value in asdict(TrainSettings()).items():
        cv.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    speed = commands.add_parser("speed", help="sentences/s on the first judgments of OpenNyAI dev")
    speed.add_argument("--dev", type=Path, required=True)
    speed.add_argument("--judgments", type=int, default=5)
    args = parser.parse_args(argv)

    torch.set_num_threads(2)
    encoder_id = HeadArtifact.load(args.head).encoder_id if args.head else args.encoder
    encoder = encoder_for(encoder_id, args.models_dir)
    result: dict
    if args.command == "law-ai-cv":
        settings = TrainSettings(**{name: getattr(args, name) for name in asdict(TrainSettings())})
        scores = cross_validate_law_ai(
            args.law_ai,
            args.cache_dir,
            encoder,
            settings,
            args.opennyai_train,
            encoder_id=encoder_id,
            log=lambda line: print(line, flush=True),
        )
        print(scores.markdown())
        print(json.dumps(scores.extra, indent=1))
        result = asdict(scores)
    else:
        labeller = RoleLabeller.load(encoder, args.head, encoder_id=encoder_id)
        cache = EmbeddingCache(args.cache_dir, labeller.artifact.encoder_id)
        if args.command == "opennyai":
            scores = evaluate_opennyai(labeller, load_opennyai(args.dev), cache)
            print(scores.markdown())
            print(json.dumps(scores.extra))
            result = asdict(scores)
        elif args.command == "law-ai":
            scores = evaluate_on_law_ai(labeller, load_law_ai(args.law_ai), cache)
            print(scores.markdown())
            result = asdict(scores)
        else:
            result = measure_speed(labeller, load_opennyai(args.dev)[: args.judgments], cache)
            print(json.dumps(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
