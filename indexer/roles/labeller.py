"""Label the sentences of a judgment with rhetorical roles.

``RoleLabeller`` joins a sentence encoder (passed in, never loaded here) with a trained role head. The head
shipped in ``indexer/roles/model/`` predicts canonical roles (see ``roles.json``); heads trained in another
label set (the Law-AI cross-validation heads) report that set's labels instead.
"""

from __future__ import annotations

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


def shipped_head_path() -> Path:
    """Directory of the role head shipped inside the package."""
    return Path(str(resources.files("indexer.roles").joinpath("model")))


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
    ) -> RoleLabeller:
        """Load a head (default: the shipped one) and pair it with ``encoder``.

        ``encoder`` must produce the vectors the head was trained on (``artifact.encoder_id``,
        all-MiniLM-L6-v2 for the shipped head). ``cache_dir`` turns on the per-judgment embedding cache.
        """
        artifact = HeadArtifact.load(Path(path) if path is not None else shipped_head_path())
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
