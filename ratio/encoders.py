"""Which encoders a search uses: the one its index was built with for queries, a transformer for rescoring.

A query vector is only comparable with chunk vectors from the same model, and ``ratio index`` records its
encoder in the chunks index (``_meta.encoder``), so a search that is not told otherwise reads it there. The
bi-encoder rescoring of the top passages reads whole passage texts, which a static model (word order lost)
does worse than MiniLM, so rescoring always uses a transformer: the index's encoder unless that is static,
then all-MiniLM-L6-v2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from opensearchpy import OpenSearch

from backends.encoders import DEFAULT_ENCODER, Encoder, is_static, load_encoder
from backends.opensearch.indices import index_encoder, index_meta
from ratio import settings


def models_dir() -> Path:
    """Where Ratio keeps models it makes or assembles (distilled encoders, GGUF files, trained models)."""
    return settings.home_dir() / "models"


def open_encoder(name: str) -> Encoder:
    """Load encoder ``name`` (a static one is distilled into :func:`models_dir` on first use)."""
    return load_encoder(name, models_dir=models_dir())


def query_encoder_name(client: OpenSearch, aliases: dict[str, str], given: str | None) -> str:
    """``given``, else the encoder the chunks index was built with, else the default transformer."""
    return given or index_encoder(client, aliases["chunks"]) or DEFAULT_ENCODER


class LazyEncoder:
    """An encoder loaded on its first ``encode``: most searches never rescore, so never need the transformer."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._encoder: Encoder | None = None

    def encode(self, texts: list[str], **kwargs: Any) -> np.ndarray:
        if self._encoder is None:
            self._encoder = open_encoder(self.name)
        return self._encoder.encode(texts, **kwargs)


def _facts_encoders(client: OpenSearch, aliases: dict[str, str]) -> dict[str, Path]:
    """Half -> the tuned facts encoder's folder, as the judgments index names them in ``_meta.facts_encoders``
    (``ratio train facts-encoder`` wrote their vectors there); empty when it holds no tuned vectors."""
    meta = index_meta(client, aliases["judgments"])
    return {half: Path(name) if Path(name).is_absolute() else models_dir() / name
            for half, name in (meta.get("facts_encoders") or {}).items()}


def tuned_encoder(client: OpenSearch, aliases: dict[str, str]) -> Encoder | None:
    """The tuned facts encoder a search over ``aliases`` compares queries with (the serving half's), loaded on first
    use; None when the index holds no tuned vectors."""
    from search.ranking.tuned import SERVING

    path = _facts_encoders(client, aliases).get(SERVING)
    return LazyEncoder(str(path)) if path is not None else None


def tuned_encoders(client: OpenSearch, aliases: dict[str, str]) -> tuple[dict[str, Encoder], dict[str, str]]:
    """Every half's tuned facts encoder (loaded on first use) and which half each citing judgment was dealt to
    (from the encoders' ``facts-encoder.json``): what a training set's cross-fitted features need."""
    paths = _facts_encoders(client, aliases)
    if not paths:
        return {}, {}
    card = next(iter(paths.values())).parent / "facts-encoder.json"
    if not card.is_file():
        raise FileNotFoundError(f"{card}: the facts encoders' card is missing (run 'ratio train facts-encoder')")
    half_of = json.loads(card.read_text(encoding="utf-8"))["half_of"]
    return {half: LazyEncoder(str(path)) for half, path in paths.items()}, half_of


def search_encoders(client: OpenSearch, aliases: dict[str, str], given: str | None) -> tuple[Encoder, Encoder]:
    """(query encoder, rescoring encoder) for searches over ``aliases``; the same object when they agree."""
    name = query_encoder_name(client, aliases, given)
    query = open_encoder(name)
    return query, (LazyEncoder(DEFAULT_ENCODER) if is_static(name) else query)
