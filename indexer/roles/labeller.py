"""Label the sentences of a judgment with rhetorical roles.

``RoleLabeller`` joins a sentence encoder (passed in, never loaded here) with a trained role head. The head
shipped in ``indexer/roles/model/`` predicts canonical roles (see ``roles.json``); heads trained in another
label set (the Law-AI cross-validation heads) report that set's labels instead.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import torch

from backends.encoders import Encoder
from indexer.roles.embeddings import EmbeddingCache, encode_sentences
from indexer.roles.features import FeatureSet, parse_feature_set
from indexer.roles.model import HeadArtifact
from legal.roles import RoleSet, load_role_set


def normalise(sentence: str) -> str:
    """Collapse whitespace, as the training data loaders do, so inference sees the same text shape."""
    return " ".join(sentence.split())


# The heads shipped inside the package, one per encoder: MiniLM sentence vectors (``model``) and the static
# vectors of the fast indexer (``model_static``). Each folder's config.json names its encoder.
SHIPPED_HEADS = ("model", "model_static")


def shipped_head_path(encoder_id: str | None = None) -> Path:
    """Directory of the shipped role head trained on ``encoder_id``'s vectors (default: the MiniLM head)."""
    root = Path(str(resources.files("indexer.roles")))
    if encoder_id is None:
        return root / SHIPPED_HEADS[0]
    for name in SHIPPED_HEADS:
        config = root / name / "config.json"
        if config.is_file() and json.loads(config.read_text(encoding="utf-8"))["encoder_id"] == encoder_id:
            return root / name
    raise FileNotFoundError(f"no shipped role head for encoder {encoder_id!r}: train one (ratio train roles) "
                            f"and pass it with --role-head")


@dataclass(frozen=True)
class RolePrediction:
    """The role chosen for one sentence, its coarse group (canonical heads only) and its probability."""

    role: str
    coarse: str | None
    probability: float


class RoleLabeller:
    """A frozen encoder plus a trained role head."""

    def __init__(
        self,
        encoder: Encoder,
        artifact: HeadArtifact,
        role_set: RoleSet | None = None,
        cache: EmbeddingCache | None = None,
        batch_size: int = 32,
    ) -> None:
        self.encoder = encoder
        self.artifact = artifact
        self.role_set = role_set or load_role_set()
        self.features: FeatureSet = parse_feature_set(artifact.features)
        self.cache = cache
        self.batch_size = batch_size

    @classmethod
    def load(
        cls,
        encoder: Encoder,
        path: Path | None = None,
        cache_dir: Path | None = None,
        batch_size: int = 32,
        encoder_id: str | None = None,
    ) -> RoleLabeller:
        """Load a head (default: the one shipped for ``encoder_id``, else the MiniLM one) and pair it with
        ``encoder``.

        ``encoder`` must produce the vectors the head was trained on (``artifact.encoder_id``,
        all-MiniLM-L6-v2 for the default head). ``cache_dir`` turns on the per-judgment embedding cache.
        """
        artifact = HeadArtifact.load(Path(path) if path is not None else shipped_head_path(encoder_id))
        cache = EmbeddingCache(Path(cache_dir), artifact.encoder_id) if cache_dir is not None else None
        return cls(encoder, artifact, cache=cache, batch_size=batch_size)

    @property
    def labels(self) -> tuple[str, ...]:
        """The head's label set, in the column order of ``probabilities``."""
        return self.artifact.labels

    def embed(self, sentences: Sequence[str]) -> np.ndarray:
        """Sentence vectors for one judgment (through the cache when one is configured)."""
        texts = [normalise(sentence) for sentence in sentences]
        if self.cache is not None:
            return self.cache.embed(self.encoder, texts, batch_size=self.batch_size)
        return encode_sentences(self.encoder, texts, batch_size=self.batch_size)

    def embed_many(self, judgments: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Sentence vectors for several judgments: cached judgments are read, and every other sentence is
        encoded in one call, so the encoder batches (and length-sorts) across judgments."""
        texts = [[normalise(sentence) for sentence in sentences] for sentences in judgments]
        out: list[np.ndarray | None] = [None] * len(texts)
        missing = []
        for index, sentences in enumerate(texts):
            cached = self.cache.get(sentences) if self.cache is not None and sentences else None
            if cached is not None:
                out[index] = cached
            elif sentences:
                missing.append(index)
            else:
                out[index] = np.zeros((0, 0), dtype=np.float32)
        if missing:
            flat = [sentence for index in missing for sentence in texts[index]]
            vectors = encode_sentences(self.encoder, flat, batch_size=self.batch_size)
            start = 0
            for index in missing:
                part = vectors[start : start + len(texts[index])]
                start += len(texts[index])
                out[index] = part
                if self.cache is not None:
                    self.cache.put(texts[index], part)
        return [vectors for vectors in out if vectors is not None]

    def probabilities_from_vectors(self, vectors: np.ndarray, sentences: Sequence[str]) -> np.ndarray:
        """Run the head alone on precomputed vectors; returns (len(sentences), len(labels))."""
        if len(sentences) == 0:
            return np.zeros((0, len(self.labels)), dtype=np.float32)
        if vectors.shape[0] != len(sentences):
            raise ValueError(f"{vectors.shape[0]} vectors for {len(sentences)} sentences")
        if vectors.shape[1] != self.artifact.head.embedding_dim:
            raise ValueError(
                f"encoder gives {vectors.shape[1]}-d vectors; the head expects "
                f"{self.artifact.head.embedding_dim}-d ({self.artifact.encoder_id})"
            )
        features = self.features.compute([normalise(sentence) for sentence in sentences])
        inputs = torch.from_numpy(np.concatenate([vectors.astype(np.float32), features], axis=1))
        return self.artifact.probabilities(inputs).numpy()

    def probabilities_many(self, vectors: Sequence[np.ndarray], sentences: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """``probabilities_from_vectors`` for several judgments at once: the head runs over padded batches
        of judgments of similar length, which costs far fewer recurrent steps than one call per judgment."""
        inputs = []
        for judgment_vectors, judgment_sentences in zip(vectors, sentences, strict=True):
            if len(judgment_sentences) == 0:
                inputs.append(None)
                continue
            if judgment_vectors.shape != (len(judgment_sentences), self.artifact.head.embedding_dim):
                raise ValueError(f"vectors of shape {judgment_vectors.shape} for {len(judgment_sentences)} "
                                 f"sentences; the head expects {self.artifact.head.embedding_dim}-d "
                                 f"({self.artifact.encoder_id})")
            features = self.features.compute([normalise(sentence) for sentence in judgment_sentences])
            inputs.append(np.concatenate([judgment_vectors.astype(np.float32), features], axis=1))
        results = self.artifact.probabilities_batch([x for x in inputs if x is not None])
        out, ready = [], iter(results)
        for x in inputs:
            out.append(np.zeros((0, len(self.labels)), dtype=np.float32) if x is None else next(ready))
        return out

    def probabilities(self, sentences: Sequence[str]) -> np.ndarray:
        """Per-sentence probabilities over ``labels`` for one judgment, in order."""
        if len(sentences) == 0:
            return np.zeros((0, len(self.labels)), dtype=np.float32)
        return self.probabilities_from_vectors(self.embed(sentences), sentences)

    def label(self, sentences: Sequence[str]) -> list[str]:
        """One role per sentence of a judgment (canonical role names for the shipped head)."""
        return [prediction.role for prediction in self.predict(sentences)]

    def predict(self, sentences: Sequence[str]) -> list[RolePrediction]:
        """Role, coarse group and probability of the chosen role for each sentence."""
        probabilities = self.probabilities(sentences)
        predictions = []
        for row in probabilities:
            best = int(row.argmax())
            role = self.labels[best]
            coarse = self.role_set.coarse(role) if self.artifact.scheme == "canonical" else None
            predictions.append(RolePrediction(role, coarse, float(row[best])))
        return predictions
