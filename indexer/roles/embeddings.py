"""Sentence embeddings with an on-disk cache keyed by content hash.

Embedding a judgment with MiniLM costs far more than running the role head over it (tens of sentences per
second against tens of thousands), so training and evaluation read vectors from a cache instead of
re-encoding. The cache key covers the encoder id and the exact sentences, so a changed sentence splitter or
encoder can never serve stale vectors. The cache directory is always passed in: this layer reads no
environment variables and picks no default location.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from backends.encoders import Encoder


def document_key(encoder_id: str, sentences: Sequence[str]) -> str:
    """Return a stable hash of the encoder id and the judgment's sentences (order matters)."""
    digest = hashlib.sha256()
    digest.update(encoder_id.encode("utf-8"))
    for sentence in sentences:
        digest.update(b"\x00")
        digest.update(sentence.encode("utf-8"))
    return digest.hexdigest()


def encode_sentences(encoder: Encoder, sentences: Sequence[str], batch_size: int = 32) -> np.ndarray:
    """Encode sentences as float32, returning an empty (0, 0) array for no sentences.

    Passes ``batch_size`` when the encoder accepts it (sentence-transformers does) and falls back to a
    plain ``encode(list)`` call for minimal encoders that take no keyword arguments.
    """
    if not sentences:
        return np.zeros((0, 0), dtype=np.float32)
    texts = list(sentences)
    try:
        vectors = encoder.encode(texts, batch_size=batch_size, show_progress_bar=False)  # type: ignore[call-arg]
    except TypeError:
        vectors = encoder.encode(texts)
    return np.asarray(vectors, dtype=np.float32)


class EmbeddingCache:
    """Per-judgment ``.npy`` files under ``root/<encoder slug>/<key>.npy``."""

    def __init__(self, root: Path, encoder_id: str) -> None:
        self.encoder_id = encoder_id
        slug = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in encoder_id)
        self.directory = Path(root) / slug

    def path_for(self, sentences: Sequence[str]) -> Path:
        """Return where the vectors for these sentences live (whether or not they exist yet)."""
        return self.directory / f"{document_key(self.encoder_id, sentences)}.npy"

    def get(self, sentences: Sequence[str]) -> np.ndarray | None:
        """Return cached vectors, or None on a miss."""
        path = self.path_for(sentences)
        if not path.exists():
            return None
        return np.load(path)

    def embed(self, encoder: Encoder, sentences: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Return vectors for a judgment, encoding and storing them on a miss."""
        cached = self.get(sentences)
        if cached is not None:
            return cached
        vectors = encode_sentences(encoder, sentences, batch_size=batch_size)
        self.put(sentences, vectors)
        return vectors

    def put(self, sentences: Sequence[str], vectors: np.ndarray) -> None:
        """Store a judgment's vectors (written to a temporary name first, so a reader never sees half)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.path_for(sentences)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, vectors)
        tmp.replace(path)
