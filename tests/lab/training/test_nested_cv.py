"""Nested cross-validation and the selection rule it applies inside each fold: the rule gives back the shipped
choices from the committed table, takes a gain only when both kinds of held-out query agree, and a nested run on a
small dataset scores every labelled query once, never chooses to drop the group that carries the signal, and
compares itself with the shipped configuration on the same folds."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from lab.training.nested import Nested, markdown, nested
from lab.training.ranker import RankerParams
from lab.training.selection import (
    CHOICES,
    MARGIN,
    SHIPPED,
    TABLE,
    Configuration,
    Selection,
    Variant,
    decide,
)
from ratio.cli import cli
from search.ranking.features import GROUPS
from tests.lab.training.test_selection import TINY, _dataset

ROOT = Path(__file__).resolve().parents[3]


def _configuration(values: dict) -> Configuration:
    dropped = tuple(g for g in GROUPS if g not in values["groups"])
    # fields older tables lack
    later = ("mined_from", "facts_repeat", "facts_only", "min_data", "learning_rate", "objective", "refit")
    return Configuration(values["leaves"], values["tuning_repeat"], values["mined"], values["typed"], dropped,
                         values["anonymised"], **{k: values.get(k, getattr(SHIPPED, k)) for k in later})


def _from_table(data: dict) -> Selection:
    """A selection table's JSON as the Selection it was written from (what decide reads)."""
    def variant(row: dict) -> Variant:
        return Variant(_configuration(row["configuration"]), row["training"], row["held_out"])

    shipped = variant(data["shipped"])
    choices = []
    for entry in data["choices"]:
        variants = tuple(variant(r) for r in entry["rows"] if not r["chosen"])
        choice = next(c for c in CHOICES if c.name == entry["name"])
        choice = replace(choice, alternatives=tuple(getattr(v.configuration, choice.field) for v in variants))
        choices.append((choice, variants))
    return Selection(data["folds"], data["seed"], RankerParams(), data["queries"], shipped, tuple(choices))


@pytest.mark.parametrize("path", sorted({TABLE} | {c.table for c in CHOICES}))
def test_the_rule_gives_back_the_shipped_choices_from_the_committed_table(path: str) -> None:
    """Each committed table a choice points at (the card records them: selection.card_entry) judged that choice
    and chooses the shipped values."""
    table = json.loads((ROOT / path).with_suffix(".json").read_text(encoding="utf-8"))
    judged = {entry["name"] for entry in table["choices"]}
    assert {c.name for c in CHOICES if c.table == path} <= judged
    assert decide(_from_table(table)) == SHIPPED


def _selection(all_gain: float, validation_gain: float) -> Selection:
    base = {"all": {"MAP": 0.30}, "validation": {"MAP": 0.20}}
    better = {"all": {"MAP": 0.30 + all_gain}, "validation": {"MAP": 0.20 + validation_gain}}
    leaves = next(c for c in CHOICES if c.name == "leaves")
    variants = (Variant(replace(SHIPPED, leaves=7), {}, better), Variant(replace(SHIPPED, leaves=31), {}, base))
    return Selection(5, 13, RankerParams(), {}, Variant(SHIPPED, {}, base), ((leaves, variants),))


@pytest.mark.parametrize(("all_gain", "validation_gain", "leaves"), [
    (MARGIN, MARGIN, 7),              # both gain enough: taken
    (0.05, -0.001, SHIPPED.leaves),   # a gain on the labelled queries at a loss on the mined ones: not taken
    (MARGIN / 2, 0.05, SHIPPED.leaves),  # too small a gain on one row: not taken
])
def test_an_alternative_is_taken_only_when_both_rows_gain(all_gain: float, validation_gain: float,
                                                            leaves: int) -> None:
    assert decide(_selection(all_gain, validation_gain)).leaves == leaves


@pytest.fixture(scope="module")
def run() -> Nested:
    return nested(_dataset(), TINY, folds=2, inner=2, seed=5, choices=("groups",), validate=(), workers=1)


def test_every_labelled_query_is_scored_once_by_both(run: Nested) -> None:
    assert set(run.per_query) == {"irled-tuning"}
    assert len(run.per_query["irled-tuning"]) == 24
    assert run.held_out["irled-tuning"]["queries"] == run.shipped["irled-tuning"]["queries"] == 24
    assert len(run.per_fold) == 2 and run.choices == ("groups",)


def test_no_fold_chooses_to_drop_the_signal(run: Nested) -> None:
    for fold in run.per_fold:
        assert "lexical" not in fold.configuration.drop_groups
        assert fold.configuration.leaves == SHIPPED.leaves  # a choice not judged stays shipped
        if fold.configuration == SHIPPED:  # the same model twice: the same scores
            assert fold.held_out == fold.shipped


def test_the_report_compares_with_the_shipped_configuration(run: Nested) -> None:
    text = markdown(run)
    assert "| irled-tuning | 24 |" in text and "stayed at the shipped values" in text
    data = run.to_json()
    assert data["comparisons"]["irled-tuning"]["queries"] == 24
    assert json.loads(json.dumps(data)) == data


def test_nested_needs_the_outer_folds(tmp_path: Path) -> None:
    (tmp_path / "x.npz").write_bytes(b"")  # refused before it is read
    result = CliRunner().invoke(cli, ["train", "ranker", "--dataset", str(tmp_path / "x.npz"), "--cv-nested", "2"])
    assert result.exit_code == 2 and "--cv-nested INNER needs --cv K" in result.output
