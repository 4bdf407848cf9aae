"""The models Ratio knows by id (``backends/models.json``): where a packaged copy lives, its sha256, its dimension.

Both kinds of encoder read this registry: :mod:`backends.encoders` (the protocol and the loader) and
:mod:`backends.static` (the distilled static encoder). It sits below both so that neither imports the other to
reach it; the loader then imports the static encoder plainly, with no import running back up.
"""

from __future__ import annotations

import importlib
import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from backends.files import sha256_of

__all__ = ["ModelError", "encoder_dimension", "is_static", "packaged_model_path", "registry"]


class ModelError(RuntimeError):
    """A model could not be resolved, verified or loaded."""


@cache
def registry() -> dict[str, Any]:
    """The known encoders by id, as ``models.json`` records them (read once)."""
    data = json.loads(resources.files(__name__.rsplit(".", 1)[0]).joinpath("models.json").read_text())
    return data["encoders"]


def encoder_dimension(name: str) -> int | None:
    """The vector dimension of a known encoder, without loading it."""
    entry = registry().get(name)
    return int(entry["dimension"]) if entry else None


@cache
def packaged_model_path(name: str) -> Path | None:
    """The verified local folder of a packaged copy of ``name``, or None if no package provides it."""
    entry = registry().get(name, {}).get("packaged")
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
    if "static" in registry().get(name, {}):
        return True
    config = Path(name) / "config.json"
    return config.is_file() and json.loads(config.read_text()).get("model_type") == "model2vec"
