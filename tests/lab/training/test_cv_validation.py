"""Cross-validation judged on held-out mined facts queries too (lab.training.folds, ranker.cross_validate with
``validate``): folds by source judgment, the same for every variant, nothing drawn from a held-out judgment in
training; the anonymised-facts choice; the plain training applying the shipped choice; typed ids naming their
judgment on the real AILA corpus."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lab.training.anonymise import ANON_SOURCE
from lab.training.folds import assign, source_judgment
from lab.training.ranker import Dataset, RankerParams, fold_sets
from lab.training.ranker_build import CorpusSpec, typed_training
from lab.training.ranker_data import TrainingQuery
from lab.training.selection import (
    CHOICES,
    SHIPPED,
    Configuration,
    derive,
    fact_pattern,
    labelled,
    markdown,
    select,
)
from ratio.cli import cli
from search.ranking.features import FEATURES
from search.ranking.groups import DECLARED

TINY = RankerParams(trees=10, min_data_in_leaf=2, leaves=4, early_stopping=5, seed=3)
SIGNAL = FEATURES.index("bm25_long")
JUDGMENTS = {"ratio": [f"C{n}" for n in range(12)], "irled": [f"T{n}" for n in range(8)]}


def _add(dataset: Dataset, rng: np.random.Generator, qid: str, source: str, corpus: str) -> None:
    """One query of 20 candidates, 3 relevant, the signal column separating them noisily."""
    labels = np.zeros(20, dtype=np.int32)
    labels[rng.choice(20, 3, replace=False)] = 1
    values = rng.random((20, len(FEATURES)), dtype=np.float32)
    values[:, SIGNAL] = labels + rng.normal(0, 0.6, 20)
    ids = [f"{qid}-d{i}" for i in range(20)]
    dataset.add(TrainingQuery(qid, "text", frozenset(i for i, y in zip(ids, labels, strict=True) if y), corpus,
                              source), ids, values)


def _dataset(seed: int = 7) -> Dataset:
    """Labelled queries, and per corpus judgment its document, facts, anonymised facts and typed queries (ids as
    mining writes them), a provision query and an older dataset's typed query that names no judgment."""
    rng = np.random.default_rng(seed)
    dataset = Dataset()
    for n in range(10):
        _add(dataset, rng, f"AILA_Q{n}", "aila-tuning", "ratio")
    for corpus, judgments in JUDGMENTS.items():
        for n, jid in enumerate(judgments):
            for style in ("document", "facts", "facts-anon"):
                _add(dataset, rng, f"{corpus}:{style}:{jid}", f"mined-{style}", corpus)
            _add(dataset, rng, f"{corpus}:typed:topic-{n + 1:03d}:{jid}", "mined-topic", corpus)
            _add(dataset, rng, f"{corpus}:typed:title-{n + 1:03d}:{jid}", "mined-title", corpus)
        _add(dataset, rng, f"{corpus}:typed:provision-001:IPC s. 302", "mined-provision", corpus)
        _add(dataset, rng, f"{corpus}:typed:party-001", "mined-party", corpus)  # an older dataset's id
    return dataset


def test_source_judgments_read_from_the_ids() -> None:
    assert source_judgment("ratio:facts:C12") == "ratio:C12"
    assert source_judgment("ratio:facts-anon:C12") == source_judgment("ratio:document:C12") == "ratio:C12"
    assert source_judgment("fast-irled:typed:topic-004:S1990_12") == "fast-irled:S1990_12"
    assert source_judgment("ratio:typed:provision-002:IPC s. 304B") is None
    assert source_judgment("ratio:typed:topic-004") is None  # an older dataset's id: cannot tell
    assert source_judgment("AILA_Q3") is None and source_judgment("AILA_Q3#2") is None


@pytest.mark.parametrize("folds", [2, 5])
def test_folds_hold_out_judgments_and_train_on_nothing_drawn_from_them(folds: int) -> None:
    dataset = _dataset()
    train, _ = derive(dataset, TINY, replace_anonymised("added"))  # copies of the labelled queries included
    trains, helds = fold_sets(train, folds=folds, labelled=labelled, validate=("mined-facts",), scored=dataset,
                              seed=5)
    assert len(helds) == folds
    scored_facts = [q for held in helds for q, s in zip(held.qids, held.sources, strict=True) if s == "mined-facts"]
    assert sorted(scored_facts) == sorted(q for q in dataset.qids if q.split(":")[1:2] == ["facts"])
    for fold_train, held in zip(trains, helds, strict=True):
        gone = {source_judgment(q) for q, s in zip(held.qids, held.sources, strict=True) if s == "mined-facts"}
        assert gone and set(held.sources) == {"aila-tuning", "mined-facts"}
        trained = [q.split("#")[0] for q in fold_train.qids]
        assert not gone & {source_judgment(q) for q in trained}  # no document, anon, topic or title query of J
        assert not set(held.qids) & set(trained)  # nor a held-out labelled query or one of its copies
        kept = {q for q in train.qids if source_judgment(q.split("#")[0]) not in gone
                and q.split("#")[0] not in held.qids}
        assert set(fold_train.qids) == kept  # and everything else is trained on
        assert "ratio:typed:provision-001:IPC s. 302" in trained and "ratio:typed:party-001" in trained


def replace_anonymised(value: str) -> Configuration:
    return Configuration(**{**SHIPPED.__dict__, "anonymised": value})


def test_the_folds_are_the_same_whatever_a_variant_trains_on() -> None:
    dataset = _dataset()
    seen = []
    for configuration in (SHIPPED, replace_anonymised("instead"), Configuration(mined=False),
                          Configuration(typed=False, tuning_repeat=1)):
        train, _ = derive(dataset, TINY, configuration)
        _, helds = fold_sets(train, folds=3, labelled=labelled, validate=("mined-facts",), scored=dataset, seed=5)
        seen.append([held.qids for held in helds])
    assert all(s == seen[0] for s in seen[1:])
    # scoring the mined facts too leaves the labelled queries' folds as they were
    _, before = fold_sets(dataset, folds=3, labelled=labelled, seed=5)
    assert [h.qids for h in before] == [[q for q in qids if not q.startswith(("ratio:", "irled:"))]
                                        for qids in seen[0]]


def test_a_cap_keeps_some_judgments_per_corpus_and_an_older_id_is_counted() -> None:
    dataset = _dataset()
    plan = assign(dataset.qids, dataset.sources, folds=3, seed=5, labelled=labelled, validate=("mined-facts",),
                  cap=4)
    assert sorted(j.split(":")[0] for j in plan.judgments) == ["irled"] * 4 + ["ratio"] * 4
    assert plan.unattributed == 2
    again = assign(dataset.qids, dataset.sources, folds=3, seed=5, labelled=labelled, validate=("mined-facts",),
                   cap=4)
    assert again == plan


def test_the_anonymised_choice_trains_on_what_it_says_and_is_scored_on_the_facts() -> None:
    assert next(c for c in CHOICES if c.name == "groups").alternatives == tuple(
        (g.name,) for g in DECLARED if g.name != "tuned")  # the tuned group is a choice of its own
    selection = select(_dataset(), TINY, folds=2, seed=5, choices=["anonymised"])
    without, ((_, (added, instead)),) = selection.shipped, selection.choices
    assert ANON_SOURCE not in without.training and without.training["mined-facts"] == 20
    assert added.training[ANON_SOURCE] == added.training["mined-facts"] == 20
    assert "mined-facts" not in instead.training and instead.training[ANON_SOURCE] == 20
    for variant in (without, added, instead):
        held = variant.held_out
        assert held["mined-facts"]["queries"] == held["validation"]["queries"] == 20
        assert held["mined-facts@ratio"]["queries"] == 12 and held["mined-facts@irled"]["queries"] == 8
        assert held["all"]["queries"] == held["aila-tuning"]["queries"] == 10
        assert held["validation"]["MAP"] > 0.5  # learnt from the signal (chance is about 0.3)
    table = markdown(selection)
    assert "| Δ MAP mined-facts | MAP mined-facts |" in table and "MAP mined-facts@ratio" in table
    assert "from 20 source judgments scored held out too" in table
    assert "2 typed queries of this dataset do not name the judgment" in table
    saved = selection.to_json()
    rows = saved["choices"][0]["rows"]
    assert [r["value"] for r in rows] == ["without", "added", "instead"]
    assert rows[2]["delta_map_validation"] == round(instead.held_out["validation"]["MAP"]
                                                    - without.held_out["validation"]["MAP"], 4)
    unvalidated = select(_dataset(), TINY, folds=2, seed=5, choices=(), validate=())
    assert set(unvalidated.shipped.held_out) == {"aila-tuning", "all"}
    assert unvalidated.shipped.held_out["all"]["queries"] == 10


def test_the_facts_repeat_choice_weighs_the_mined_fact_patterns_and_is_scored_on_them_alike() -> None:
    selection = select(_dataset(), TINY, folds=2, seed=5, choices=["facts-repeat"])
    once, ((choice, (none, thrice)),) = selection.shipped, selection.choices
    assert (SHIPPED.facts_repeat, choice.alternatives) == (1, (0, 3))
    assert once.training["mined-facts"] == 20 and thrice.training["mined-facts"] == 60  # copies counted
    assert "mined-facts" not in none.training and ANON_SOURCE not in none.training
    assert thrice.training["mined-document"] == once.training["mined-document"]
    assert thrice.training["aila-tuning"] == once.training["aila-tuning"]  # the tuning copies as shipped
    for variant in (once, none, thrice):  # every variant scored on the same held-out fact patterns
        assert variant.held_out["mined-facts"]["queries"] == 20 and variant.held_out["all"]["queries"] == 10
    assert [r["value"] for r in selection.to_json()["choices"][0]["rows"]] == ["×1", "×0", "×3"]


def test_the_facts_model_choice_trains_on_fact_patterns_alone_and_is_scored_on_every_row() -> None:
    assert fact_pattern("mined-facts") and fact_pattern(ANON_SOURCE)
    assert fact_pattern("aila-precedents-tuning") and fact_pattern("aila-precedents-all")  # AILA's are fact patterns
    assert not fact_pattern("irled-tuning") and not fact_pattern("mined-document") and not fact_pattern("mined-topic")
    selection = select(_dataset(), TINY, folds=2, seed=5, choices=["facts-model"])
    every, ((choice, (alone,)),) = selection.shipped, selection.choices
    assert SHIPPED.facts_only is False and choice.alternatives == (True,)
    assert alone.training == {"mined-facts": 20}  # the test's labelled source names no fact-pattern benchmark
    assert every.training["mined-document"] == 20 and every.training["mined-facts"] == 20
    for variant in (every, alone):  # scored on the same held-out queries, fact patterns or not
        assert variant.held_out["mined-facts"]["queries"] == 20 and variant.held_out["all"]["queries"] == 10
    assert every.held_out != alone.held_out
    assert [r["value"] for r in selection.to_json()["choices"][0]["rows"]] == ["every query", "fact patterns only"]


def test_the_plain_training_leaves_the_anonymised_queries_out_as_shipped(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """...and its card names the training set under the data directory as ``$RATIO_HOME/…`` (a card committed
    with the shipped model names no path of the machine that trained it) and every choice's table."""
    monkeypatch.setenv("RATIO_HOME", str(tmp_path))
    saved = tmp_path / "d.npz"
    _dataset().save(saved)
    out = tmp_path / "model"
    result = CliRunner().invoke(cli, ["train", "ranker", "--dataset", str(saved), "--out", str(out), "--seed", "5"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert SHIPPED.anonymised == "without"
    assert ANON_SOURCE not in card["data"]["queries"] and card["data"]["queries"]["mined-facts"] == 20
    assert card["data"]["selection"]["chosen"]["anonymised"] == "without"
    assert card["data"]["selection"]["chosen"]["facts_repeat"] == SHIPPED.facts_repeat == 1
    assert card["data"]["dataset"]["files"] == ["$RATIO_HOME/d.npz"]
    assert "refit" in card["data"]["selection"]["tables"]["docs/eval/ranker-selection-refit/selection.md"]
    refused = CliRunner().invoke(cli, ["train", "ranker", "--dataset", str(saved), "--cv", "2", "--cv-out",
                                       str(tmp_path / "cv"), "--cv-validate", "aila-tuning"])
    assert refused.exit_code == 2 and "--cv-validate" in refused.output


@pytest.mark.parametrize(("flags", "validated"), [((), ["mined-facts"]), (("--cv-validate", "none"), [])])
def test_the_cli_scores_the_mined_facts_by_default(tmp_path: Path, flags: tuple[str, ...],
                                                   validated: list[str]) -> None:
    saved = tmp_path / "d.npz"
    _dataset().save(saved)
    out = tmp_path / "cv"
    result = CliRunner().invoke(cli, ["train", "ranker", "--dataset", str(saved), "--cv", "2", "--cv-out", str(out),
                                      "--cv-choice", "mined", "--cv-workers", "1", "--seed", "5", *flags],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    saved_json = json.loads((out / "selection.json").read_text(encoding="utf-8"))
    assert saved_json["validate"] == validated
    for row in saved_json["choices"][0]["rows"]:  # labelled queries only: still scored on the mined facts
        assert ("mined-facts" in row["held_out"]) == bool(validated) == ("delta_map_validation" in row)
    assert ("MAP mined-facts" in result.output) == bool(validated)


def test_typed_training_ids_name_the_judgment_they_were_drawn_from(client, aliases) -> None:
    """On the sample corpus (18 AILA judgments, indexed by the session): a topic query's judgment is the one left out
    of its ranking; a title, short form, party or citation query's judgment is among its relevant ones; a provision
    names none."""
    corpus = CorpusSpec("ratio", aliases, None)  # type: ignore[arg-type]  # no features
    ids = sorted(hit["_id"] for hit in client.search(index=aliases["judgments"], body={"size": 100, "_source": False})
                 ["hits"]["hits"])
    assert len(ids) == 18
    cites = {judgment: [ids[(n + 1) % 18], ids[(n + 2) % 18]] for n, judgment in enumerate(ids)}
    found = typed_training(client, corpus, cites, counts=dict.fromkeys(("title", "party", "provision", "topic"), 3),
                           seed=5, refused=())
    kinds = {q.source for q in found}
    assert kinds == {"mined-title", "mined-party", "mined-provision", "mined-topic"} and len(found) == 12
    for query in found:
        judgment = source_judgment(query.qid)
        if query.source == "mined-provision":
            assert judgment is None
        elif query.source == "mined-topic":
            assert judgment == f"ratio:{query.exclude[0]}"
        else:
            assert judgment is not None and judgment.removeprefix("ratio:") in query.relevant
