"""The learned ranker's model: a LightGBM LambdaRank booster in a folder with its card, loaded by path.

A model folder holds ``model.txt`` (LightGBM's own text format: small, diffable, loadable without pickle) and
``card.json`` (the feature names in column order, the data it was trained on, the seed, the parameters and the
validation metrics). The model reads its columns by the names its card records, never by position: the full
feature vector (:data:`search.ranking.groups.FEATURES`, the declared groups' features in order) may gain features
or change their order, and a model trained before, or with a feature group removed (an ablation), still reads
exactly the columns it was trained on, in its own order. A card naming a feature this version does not compute
is refused rather than silently misread.

The default models ship inside the package and are rebuilt by ``ratio train ranker`` (docs/ranking.md): the main
model (``search/ranking/model/``) ranks pasted texts, whole judgments, provisions and citations, and the typed model
(``search/ranking/model_typed/``, trained on typed queries) ranks case names and topic words typed into the box
(:data:`TYPED_KINDS`). The kind the search box read the query as (:mod:`search.query.understand`) picks the model,
so one query never meets two. LightGBM is imported on first load only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from search.ranking.groups import FEATURE_GROUPS, FEATURES

__all__ = ["DEFAULT_MODEL", "TYPED_KINDS", "RankerModel", "RankerModelError", "default_model_path",
           "default_typed_model_path"]

MODEL_FILE, CARD_FILE = "model.txt", "card.json"
DEFAULT_MODEL = "default"  # the name that means "the models shipped with Ratio"
# The query kinds the shipped typed model ranks (the others: the main model), chosen per kind on the typed
# benchmark's tuning half (docs/evaluation.md, "One model per kind of query"): names and topic words gained there,
# provisions lost 0.0045 MAP and stay with the main model, as does a reporter citation typed alone (no tuning query
# measures it).
TYPED_KINDS: frozenset[str] = frozenset({"name", "topic"})


class RankerModelError(RuntimeError):
    """A ranker model is missing, unreadable or was trained on features this version does not compute."""


def default_model_path() -> Path:
    """The folder of the main model shipped with the package."""
    return Path(str(resources.files("search.ranking").joinpath("model")))


def default_typed_model_path() -> Path:
    """The folder of the typed model shipped with the package (it ranks the :data:`TYPED_KINDS`)."""
    return Path(str(resources.files("search.ranking").joinpath("model_typed")))


@dataclass(frozen=True)
class RankerModel:
    """A loaded booster, the feature columns it reads (by name, in its own order), and its card."""

    booster: Any
    features: tuple[str, ...]
    card: dict[str, Any]
    path: Path

    @property
    def positions(self) -> list[int]:
        """Where each of the model's features sits in the full feature vector (:data:`FEATURES`)."""
        return [FEATURES.index(f) for f in self.features]

    def reads(self, group: str) -> bool:
        """Whether the model reads any feature of feature group ``group`` (a model trained without a group's
        features need not have them computed: the ``tuned`` group costs a transformer pass over the query)."""
        return any(FEATURE_GROUPS[f] == group for f in self.features)

    @property
    def name(self) -> str:
        return str(self.card.get("name") or self.path.name)

    @classmethod
    def load(cls, path: str | Path = DEFAULT_MODEL) -> RankerModel:
        """The model in folder ``path`` (``"default"``: the shipped one)."""
        folder = default_model_path() if str(path) == DEFAULT_MODEL else Path(path)
        model_file, card_file = folder / MODEL_FILE, folder / CARD_FILE
        if not model_file.is_file() or not card_file.is_file():
            raise RankerModelError(f"{folder} is not a ranker model: it needs {MODEL_FILE} and {CARD_FILE}")
        try:
            import lightgbm
        except ImportError as exc:
            raise RankerModelError("the learned ranker needs lightgbm, one of Ratio's own dependencies: "
                                   "pip install 'lightgbm' (or reinstall Ratio)") from exc
        try:
            card = json.loads(card_file.read_text(encoding="utf-8"))
            booster = lightgbm.Booster(model_file=str(model_file))
        except (OSError, ValueError, lightgbm.basic.LightGBMError) as exc:
            raise RankerModelError(f"cannot read the ranker model in {folder}: {exc}") from exc
        features = tuple(card.get("features") or ())
        unknown = [f for f in features if f not in FEATURES]
        if not features or unknown or booster.num_feature() != len(features):
            raise RankerModelError(f"the ranker model in {folder} reads features this version does not compute "
                                   f"({', '.join(unknown) or 'a different feature count'}): retrain it with "
                                   "'ratio train ranker'")
        if len(set(features)) != len(features):
            raise RankerModelError(f"the ranker model in {folder} names a feature twice in its card")
        trained = tuple(booster.feature_name())
        if trained != features and trained != tuple(f"Column_{i}" for i in range(len(trained))):
            raise RankerModelError(f"the ranker model in {folder} was trained on features {', '.join(trained)}, "
                                   "not those its card names")
        return cls(booster, features, card, folder)

    def columns(self, values: np.ndarray) -> np.ndarray:
        """The model's columns of a full feature matrix (all of :data:`FEATURES`), by name, in the model's order."""
        return values[:, self.positions]

    def score(self, values: np.ndarray) -> np.ndarray:
        """One score per row of a full feature matrix: higher ranks first."""
        if len(values) == 0:
            return np.zeros(0)
        return np.asarray(self.booster.predict(self.columns(values)), dtype=np.float64)

    def contributions(self, values: np.ndarray) -> np.ndarray:
        """Per-row, per-feature contributions to the score (SHAP values, LightGBM's ``pred_contrib``), in the
        model's feature order; the bias column is dropped."""
        if len(values) == 0:
            return np.zeros((0, len(self.features)))
        return np.asarray(self.booster.predict(self.columns(values), pred_contrib=True))[:, :-1]
