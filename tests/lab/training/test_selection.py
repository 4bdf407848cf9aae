"""The ranker's selection grid on a small real dataset: every choice judged, the shipped row shared, the mined
queries never scored, a group's signal missed when it is dropped, the table written twice alike, and the CLI."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from lab.training.ranker import Dataset, RankerParams, fit
from lab.training.ranker_data import TrainingQuery
from lab.training.selection import (
    CHOICES,
    SHIPPED,
    TABLE,
    Configuration,
    Selection,
    card_entry,
    derive,
    markdown,
    params_for,
    resolved,
    select,
    write_selection,
)
from ratio.cli import cli
from search.ranking.features import FEATURES, GROUPS

TINY = RankerParams(trees=10, min_data_in_leaf=2, leaves=4, early_stopping=5, seed=3)
SIGNAL = FEATURES.index("bm25_long")  # the lexical group carries the labels
SOURCES = {"irled-tuning": 24, "mined-document": 24, "mined-title": 12}


def _dataset(seed: int = 7) -> Dataset:
    """Queries of 20 candidates each, 3 relevant; the signal column separates them, noisily."""
    rng = np.random.default_rng(seed)
    dataset = Dataset()
    for source, count in SOURCES.items():
        for n in range(count):
            labels = np.zeros(20, dtype=np.int32)
            labels[rng.choice(20, 3, replace=False)] = 1
            values = rng.random((20, len(FEATURES)), dtype=np.float32)
            values[:, SIGNAL] = labels + rng.normal(0, 0.6, 20)
            ids = [f"{source}-{n}-d{i}" for i in range(20)]
            relevant = frozenset(i for i, y in zip(ids, labels, strict=True) if y)
            query = TrainingQuery(f"{source}-{n}", "text", relevant, "c", source)
            dataset.add(query, ids, values)
    return dataset


@pytest.fixture(scope="module")
def selection() -> Selection:
    return select(_dataset(), TINY, folds=2, seed=5, command="ratio train ranker --cv 2")


def test_every_choice_and_alternative_has_a_row(selection: Selection) -> None:
    assert [c.name for c, _ in selection.choices] == [c.name for c in CHOICES]
    rows = selection.rows()
    assert len(rows) == sum(1 + len(resolved(c, _dataset()).alternatives) for c in CHOICES)
    assert not resolved(next(c for c in CHOICES if c.name == "facts-model"), _dataset()).alternatives  # no facts
    for choice, variants in selection.choices:
        assert [v.configuration for v in variants] == [Configuration(**{**SHIPPED.__dict__, choice.field: value})
                                                       for value in choice.alternatives]
    dropped = {v.configuration.drop_groups for _, variants in selection.choices for v in variants}
    assert {(g,) for g in GROUPS if g != "tuned"} <= dropped  # the tuned group is its own choice ("tuned")


def test_the_shipped_row_is_one_run_shared_by_every_choice(selection: Selection) -> None:
    shared = [variant for choice, value, variant in selection.rows() if value == choice.shipped]
    assert len(shared) == len(CHOICES) and all(v is selection.shipped for v in shared)
    assert selection.shipped.configuration == SHIPPED
    # the tuning queries repeated as shipped, the mined ones once
    assert selection.shipped.training == {"irled-tuning": 24 * SHIPPED.tuning_repeat, "mined-document": 24,
                                          "mined-title": 12}


def test_only_labelled_queries_are_held_out(selection: Selection) -> None:
    for _, _, variant in selection.rows():
        assert set(variant.held_out) == {"irled-tuning", "all"}
        assert variant.held_out["all"]["queries"] == SOURCES["irled-tuning"]  # each once, never a copy


def test_the_variants_train_on_what_they_say() -> None:
    dataset = _dataset()
    for configuration, expected in [
        (Configuration(mined=False), {"irled-tuning"}),
        (Configuration(typed=False), {"irled-tuning", "mined-document"}),
    ]:
        train, params = derive(dataset, TINY, configuration)
        assert set(train.sources) == expected and params.leaves == SHIPPED.leaves
    train, params = derive(dataset, TINY, Configuration(tuning_repeat=1, leaves=7))
    assert len(train.qids) == len(dataset.qids) and params.leaves == 7
    with pytest.raises(ValueError, match="repeated already"):
        derive(dataset.upweighted(lambda i: True, 2), TINY, SHIPPED)


def test_dropping_the_group_with_the_signal_lowers_map(selection: Selection) -> None:
    variants = next(variants for c, variants in selection.choices if c.name == "groups")
    groups = dict(zip([g for g in GROUPS if g != "tuned"], variants, strict=True))
    shipped = selection.shipped.held_out["all"]["MAP"]
    assert groups["lexical"].held_out["all"]["MAP"] < shipped - 0.1
    assert shipped > 0.5  # the signal is learnt (chance is about 0.3)


def test_the_markdown_and_the_json_hold_the_same_numbers(selection: Selection, tmp_path: Path) -> None:
    table, data = write_selection(selection, tmp_path)
    saved = json.loads(data.read_text(encoding="utf-8"))
    assert saved["folds"] == 2 and saved["seed"] == 5 and saved["command"] == "ratio train ranker --cv 2"
    expected = {}
    for choice in saved["choices"]:
        for row in choice["rows"]:
            held = row["held_out"]
            expected[(choice["name"], row["value"])] = [held["all"]["MAP"], held["all"]["nDCG@10"],
                                                        held["irled-tuning"]["MAP"], held["irled-tuning"]["nDCG@10"]]
            if row["chosen"]:
                assert held == saved["shipped"]["held_out"]
    found = {}
    for line in table.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 8 and re.fullmatch(r"[\d.]+", cells[4]):
            value = cells[1].removesuffix(" (chosen)").strip("*")
            found[(cells[0], value)] = [float(c) for c in cells[4:8]]
    assert found == expected and len(found) == len(selection.rows())
    assert "1,000" in table.read_text(encoding="utf-8")  # the depth is said to be out of reach


def test_two_runs_give_the_same_table(selection: Selection) -> None:
    again = select(_dataset(), TINY, folds=2, seed=5, command="ratio train ranker --cv 2")
    assert markdown(again) == markdown(selection)
    assert again.to_json() == selection.to_json()


def test_worker_processes_give_the_same_scores(selection: Selection) -> None:
    parallel = select(_dataset(), TINY, folds=2, seed=5, choices=["leaves"], workers=2)
    assert parallel.shipped.held_out == selection.shipped.held_out
    assert parallel.choices[0][1] == dict(selection.choices)[CHOICES[0]]


def test_an_unknown_choice_is_refused() -> None:
    with pytest.raises(ValueError, match="no choice nope"):
        select(_dataset(), TINY, folds=2, choices=["nope"])


def test_the_card_points_at_the_table() -> None:
    entry = card_entry(SHIPPED)
    assert entry["table"] == TABLE and entry["departs_from"] == []
    assert sorted(n for names in entry["tables"].values() for n in names) == sorted(c.name for c in CHOICES)
    assert entry["tables"]["docs/eval/ranker-selection-refit/selection.md"] == ["refit"]
    assert all((Path(__file__).resolve().parents[3] / t).is_file() for t in entry["tables"])
    assert entry["chosen"] == {"leaves": 15, "tuning_repeat": 5, "mined": True, "typed": True,
                               "groups": [g for g in GROUPS if g != "tuned"],  # only a model asked --tuned reads it
                               "anonymised": "without", "mined_from": "all", "facts_repeat": 1,
                               "facts_only": False, "min_data": 20, "learning_rate": 0.05, "objective": "lambdarank",
                               "refit": 0.0}
    assert card_entry(Configuration(drop_groups=("roles",)))["departs_from"] == ["groups"]
    assert card_entry(Configuration(objective="rank_xendcg"))["departs_from"] == ["objective"]
    assert (Path(__file__).resolve().parents[3] / TABLE).parent.name == "ranker-selection"


def test_a_configuration_sets_the_lightgbm_settings() -> None:
    """Leaf size, rate and objective come from the configuration (one mapping for the variants and the shipped
    training); half the rate gets twice the rounds, a faster one keeps them; each objective fits."""
    params = params_for(TINY, Configuration(min_data=5, learning_rate=0.025, objective="rank_xendcg"))
    assert (params.min_data_in_leaf, params.learning_rate, params.objective) == (5, 0.025, "rank_xendcg")
    assert params.trees == 2 * TINY.trees and params.leaves == SHIPPED.leaves and params.seed == TINY.seed
    assert params_for(TINY, Configuration(learning_rate=0.1)).trees == TINY.trees
    for objective in ("lambdarank", "rank_xendcg"):
        booster, _, _ = fit(_dataset(), replace(TINY, objective=objective))
        assert booster.params["objective"] == objective


def test_a_refit_trains_on_every_query_for_the_stopped_rounds() -> None:
    """Refitting trains again on the early-stopping fifth too, for the rounds early stopping chose (times the
    factor), and reports the early-stopped model's held-back figures; without it the stopped model is returned."""
    dataset = _dataset()
    params = replace(TINY, trees=40, early_stopping=3)
    stopped, _, metrics = fit(dataset, params)
    assert "refit_trees" not in metrics and stopped.best_iteration == metrics["trees"]
    for factor in (1.0, 1.5):
        refit, _, again = fit(dataset, replace(params, refit=factor))
        assert again["refit_trees"] == refit.current_iteration() == round(metrics["trees"] * factor)
        assert refit.best_iteration == 0 and again["valid"] == metrics["valid"]
        x = np.vstack(dataset.values)
        assert not np.allclose(refit.predict(x), stopped.predict(x, num_iteration=stopped.best_iteration))
    assert params_for(TINY, Configuration(refit=1.25)).refit == 1.25


def test_the_cli_runs_the_grid_on_saved_features(tmp_path: Path) -> None:
    saved = tmp_path / "d.npz"
    _dataset().save(saved)
    out = tmp_path / "selection"
    args = ["train", "ranker", "--dataset", str(saved), "--cv", "2", "--cv-out", str(out), "--cv-choice", "leaves",
            "--cv-workers", "1", "--seed", "5"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    saved_json = json.loads((out / "selection.json").read_text(encoding="utf-8"))
    assert [c["name"] for c in saved_json["choices"]] == ["leaves"]
    assert "**15** (chosen)" in result.output and (out / "selection.md").read_text(encoding="utf-8") in result.output
    refused = CliRunner().invoke(cli, ["train", "ranker", "--dataset", str(saved), "--cv", "2", "--cv-out", str(out),
                                       "--drop-group", "roles"])
    assert refused.exit_code == 2 and "--drop-group" in refused.output


def test_the_recorded_command_names_the_data_directory_by_its_variable(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A table committed under docs/ records its command: the data directory is spelled ``$RATIO_HOME``, not the
    path on the machine that ran it; other paths stay as typed."""
    from ratio.cli.train_ranker import _invocation

    monkeypatch.setenv("RATIO_HOME", str(tmp_path))
    monkeypatch.setattr("sys.argv", ["ratio", "train", "ranker", "--dataset", f"{tmp_path}/training/d.npz",
                                     "--cv-out", "docs/eval/x y"])
    assert _invocation() == "ratio train ranker --dataset $RATIO_HOME/training/d.npz --cv-out 'docs/eval/x y'"


def test_the_shipped_configuration_alone_is_a_table_that_counts_the_unscored(tmp_path: Path) -> None:
    """``--split all`` judges no choice: the table still has the shipped row, and labelled queries without a relevant
    candidate (not in the dataset) are counted as 0 in a MAP over all of them, as a benchmark would; a saved
    dataset keeps those counts."""
    dataset = _dataset()
    dataset.skipped["irled-tuning"] += 6
    dataset.save(tmp_path / "d.npz")
    again = Dataset.load(tmp_path / "d.npz")
    assert again.skipped == dataset.skipped and again.totals() == dataset.totals()
    alone = select(again, TINY, folds=2, seed=5, choices=())
    assert alone.choices == () and alone.unscored == {"irled-tuning": 6}
    table = markdown(alone)
    held = alone.shipped.held_out["irled-tuning"]
    assert "| shipped | **shipped** (chosen) |" in table
    assert f"over all 30 is {held['MAP'] * 24 / 30:.4f}" in table
