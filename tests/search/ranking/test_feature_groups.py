"""A ranker feature is one object: the vector, the round trip and the explanations follow the declared groups, and
a model reads its columns by the names its card records. No node needed (a stand-in client answers the round
trip; LightGBM trains a tiny model)."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from search.query.understand import QueryKind, Understanding
from search.ranking import features as features_module
from search.ranking.evidence import evidence
from search.ranking.features import FeatureMatrix, Features
from search.ranking.group import (
    Answers,
    Candidates,
    Clue,
    EvidenceKind,
    FeatureGroup,
    Inputs,
    Metadata,
    always,
    present,
)
from search.ranking.groups import DECLARED, EXPLAINS, FEATURE_GROUPS, FEATURES, GROUPS
from search.ranking.model import (
    CARD_FILE,
    MODEL_FILE,
    RankerModel,
    RankerModelError,
    default_model_path,
    default_typed_model_path,
)
from search.ranking.query import Corpus, QueryProfile, TermStat

# ---------------------------------------------------------------- the declared list


def test_the_vector_is_the_declared_groups_features_in_declaration_order() -> None:
    assert tuple(name for group in DECLARED for name in group.features) == FEATURES
    assert len(set(FEATURES)) == len(FEATURES), "a feature name is declared twice"
    assert tuple(group.name for group in DECLARED) == GROUPS and len(set(GROUPS)) == len(GROUPS)
    assert {name: group.name for group in DECLARED for name in group.features} == FEATURE_GROUPS


@pytest.mark.parametrize("group", DECLARED, ids=lambda g: g.name)
def test_every_group_declares_a_reader_and_an_explanation_per_feature(group: FeatureGroup) -> None:
    """A reader of its own (not the base's abstract one), and an explanation decided for every feature: the kind
    of evidence it is, or None where it describes the query and so explains no judgment."""
    assert type(group).read is not FeatureGroup.read
    assert group.features and set(group.explains) == set(group.features)
    assert all(kind is None or isinstance(kind, EvidenceKind) for kind in group.explains.values())


def test_a_kind_given_by_two_groups_is_one_kind() -> None:
    """Contributions add up per kind's name ("facts" counts once for the roles and the semantic group), so two
    kinds of one name must phrase themselves alike: they are one object."""
    by_name: dict[str, EvidenceKind] = {}
    for kind in filter(None, EXPLAINS.values()):
        assert by_name.setdefault(kind.name, kind) is kind, kind.name
    assert EXPLAINS["role_facts_norm"] is EXPLAINS["sim_facts"]


def test_the_shipped_models_read_only_declared_features() -> None:
    for folder in (default_model_path(), default_typed_model_path()):
        card = json.loads((folder / CARD_FILE).read_text(encoding="utf-8"))
        assert set(card["features"]) <= set(FEATURES), folder


# ---------------------------------------------------------------- the round trip follows the list


class _Echo(FeatureGroup):
    """A toy group: asks one request per feature and reads each column from its own answer's number."""

    def __init__(self, name: str, features: Sequence[str]) -> None:
        self.name = name  # type: ignore[misc]
        self.features = tuple(features)
        self.explains = {f: always(f, f) for f in features}

    def requests(self, inputs: Inputs) -> list[tuple[str, dict[str, Any]]]:
        return [("judgments", {"feature": f}) for f in self.features]

    def metadata(self, inputs: Inputs) -> Metadata:
        return Metadata((f"{self.name}_value",))

    def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
        assert [r["feature"] for r in answers.responses] == list(self.features)  # its own answers, in its order
        return {f: np.full(len(inputs.ids), float(r["value"])) for f, r in zip(self.features, answers.responses,
                                                                                 strict=True)}


class _Client:
    """Answers a ``_msearch``: a feature request with a number, the metadata request with one hit per id."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def msearch(self, body: list[dict[str, Any]]) -> dict[str, Any]:
        bodies = body[1::2]
        self.sent = bodies
        answers = []
        for i, b in enumerate(bodies):
            if "feature" in b:
                answers.append({"feature": b["feature"], "value": i})
            else:
                ids = b["query"]["bool"]["filter"][0]["ids"]["values"]
                answers.append({"hits": {"hits": [{"fields": {"judgment_id": [d]}} for d in ids]}})
        return {"responses": answers}


def _profile(text: str = "dowry death", kind: QueryKind = QueryKind.TOPIC) -> QueryProfile:
    return QueryProfile(text, (TermStat("dowri", 1, 3, 5),), Corpus(10, 1000),
                        understanding=Understanding(kind, len(text.split()), plain=True))


def test_the_matrix_is_read_group_by_group_in_declaration_order(monkeypatch: pytest.MonkeyPatch) -> None:
    groups = (_Echo("second", ("b1", "b2")), _Echo("first", ("a1",)))
    monkeypatch.setattr(features_module, "DECLARED", groups)
    monkeypatch.setattr(features_module, "FEATURES", ("b1", "b2", "a1"))
    client = _Client()
    matrix = Features(client, {"judgments": "j", "chunks": "c"}).features(  # type: ignore[arg-type]
        _profile(), Candidates(("J1", "J2"), {"J1": 1.0}))
    assert isinstance(matrix, FeatureMatrix) and matrix.ids == ("J1", "J2")
    assert [b.get("feature") for b in client.sent] == ["b1", "b2", "a1", None]  # the metadata request last
    assert client.sent[-1]["docvalue_fields"] == ["judgment_id", "second_value", "first_value"]
    assert matrix.values.tolist() == [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0]]


def test_a_group_reading_other_features_than_it_declares_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    class Wrong(_Echo):
        def read(self, inputs: Inputs, answers: Answers) -> dict[str, np.ndarray]:
            return {"other": np.zeros(len(inputs.ids))}

    monkeypatch.setattr(features_module, "DECLARED", (Wrong("wrong", ("w",)),))
    with pytest.raises(RuntimeError, match="declared"):
        Features(_Client(), {"judgments": "j", "chunks": "c"}).features(  # type: ignore[arg-type]
            _profile(), Candidates(("J1",), {}))


# ---------------------------------------------------------------- explanations read as before


def _features(**values: float) -> dict[str, float]:
    return {name: values.get(name, math.nan) for name in FEATURES}


def test_evidence_adds_up_a_kind_across_groups_and_phrases_it_from_the_judgment() -> None:
    profile = QueryProfile("s. 304B IPC", (), Corpus(10, 100), provisions=("IPC s. 304B",))
    meta: Mapping[str, object] = {"cited_provisions": ["IPC s. 304B"]}
    contributions = {"role_facts_norm": 0.3, "sim_facts": 0.3, "prov_shared": 0.5, "cited_by": 0.1,
                     "q_terms": 2.0, "bm25_title_norm": -0.2}
    found = evidence(contributions, _features(role_facts_norm=0.7, sim_facts=0.4, prov_shared=1.0,
                                              cited_by=math.log1p(12)), meta, profile)
    # facts (0.6, from two groups) before provisions (0.5); the query's own length explains nothing
    assert found.phrases == ("facts similar", "same provisions: IPC s. 304B",
                             "often cited (12 judgments of the corpus)")
    assert found.kinds == ("facts", "provisions", "cited_by")


def test_evidence_leaves_out_a_kind_its_features_do_not_back() -> None:
    profile = QueryProfile("dowry", (), Corpus(10, 100))
    found = evidence({"ctx_max": 0.4, "sim_judgment": 0.3, "year_gap": 0.2, "bm25_long": 0.1},
                     _features(sim_judgment=0.0, year_gap=-3.0, bm25_long=5.0), {}, profile)
    # no citation context (missing), no similarity (0), decided after the query: only the terms remain
    assert found.phrases == ("shares the query's distinctive terms",)


def test_present_phrases_only_a_known_positive_value() -> None:
    kind = present("x", "x matches")
    assert kind.says(Clue({}, (math.nan, 0.0), {}, _profile())) is None
    assert kind.says(Clue({}, (math.nan, 0.2), {}, _profile())) == "x matches"


# ---------------------------------------------------------------- a model reads its columns by name


def _tiny_model(folder: Path, names: Sequence[str], seed: int = 3) -> tuple[Any, np.ndarray]:
    """A LightGBM model trained on ``names`` (in that order) of a random full matrix, saved with its card."""
    import lightgbm

    rng = np.random.default_rng(seed)
    full = rng.random((200, len(FEATURES))).astype(np.float32)
    x = full[:, [FEATURES.index(n) for n in names]]
    y = (x[:, 0] > 0.5).astype(int) + (x[:, -1] > 0.5).astype(int)
    booster = lightgbm.train({"objective": "lambdarank", "verbosity": -1, "min_data_in_leaf": 5, "seed": seed,
                              "deterministic": True, "num_threads": 1},
                             lightgbm.Dataset(x, y, group=[20] * 10, feature_name=list(names)), num_boost_round=10)
    folder.mkdir(parents=True)
    booster.save_model(str(folder / MODEL_FILE))
    (folder / CARD_FILE).write_text(json.dumps({"name": folder.name, "features": list(names)}), encoding="utf-8")
    return booster, full


@pytest.mark.parametrize("names", [
    ("bm25_long", "q_terms", "sim_chunk", "name_fit"),  # reordered against FEATURES
    ("cited_by", "bm25_short_norm"),  # a subset, backwards
    FEATURES[::-1],  # every feature, reversed
], ids=["reordered", "subset", "reversed"])
def test_a_model_card_in_another_order_or_a_subset_reads_its_own_columns(tmp_path: Path,
                                                                         names: tuple[str, ...]) -> None:
    booster, full = _tiny_model(tmp_path / "m", names)
    model = RankerModel.load(tmp_path / "m")
    assert model.features == names and model.positions == [FEATURES.index(n) for n in names]
    expected = booster.predict(full[:, [FEATURES.index(n) for n in names]])
    assert np.array_equal(model.score(full), expected)
    assert np.array_equal(model.columns(full), full[:, model.positions])
    assert model.contributions(full[:3]).shape == (3, len(names))


def test_a_card_that_disagrees_with_its_model_is_refused(tmp_path: Path) -> None:
    _tiny_model(tmp_path / "m", ("bm25_long", "q_terms"))
    for card, message in [(["q_terms", "bm25_long"], "trained on features"),
                          (["bm25_long", "bm25_long"], "twice"),
                          (["bm25_long", "no_such_feature"], "no_such_feature")]:
        folder = tmp_path / f"copy{len(list(tmp_path.iterdir()))}"
        shutil.copytree(tmp_path / "m", folder)
        (folder / CARD_FILE).write_text(json.dumps({"features": card}), encoding="utf-8")
        with pytest.raises(RankerModelError, match=message):
            RankerModel.load(folder)
