"""The ranker's training set as a product: every benchmark query guarded (judged here or not), and the documented
command giving the same training set and the same model twice, with a manifest and a card saying what was kept
out."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from lab.evaluate import read_qrels
from lab.training.ranker_data import ANON_SOURCE, Guard
from ratio.cli import cli
from ratio.cli.train_ranker import guarded_texts

AILA = "aila-2019"


def test_every_benchmark_query_is_guarded_judged_or_not(shared_data: Path) -> None:
    texts, counts = guarded_texts(shared_data)
    assert counts == {f"{AILA}/Query_doc.txt": 50, "fire2017-irled-precedent/Current_Cases": 200}
    judged = set(read_qrels(shared_data / AILA / "relevance_judgments_priorcases.txt"))
    unjudged = {name.rpartition(":")[2] for name in texts if name.startswith(AILA)} - judged
    assert len(unjudged) == 20  # AILA's 20 queries without judgments here are someone's unseen test queries


def test_the_guard_names_the_query_a_judgment_holds(shared_data: Path) -> None:
    """AILA_Q21's fact pattern sits verbatim in C113; a judgment sharing only boilerplate holds nothing."""
    texts, _ = guarded_texts(shared_data)
    guard = Guard(texts)
    c113 = (shared_data / AILA / "Object_casedocs" / "C113.txt").read_text(encoding="utf-8", errors="replace")
    assert guard.owner(c113) == f"{AILA}/Query_doc.txt:AILA_Q21"
    c1 = (shared_data / AILA / "Object_casedocs" / "C1.txt").read_text(encoding="utf-8", errors="replace")
    assert guard.owner(c1) is None and not guard.holds(c1)


def test_the_command_gives_the_same_training_set_and_model_twice(opensearch_settings, aliases: dict[str, str],
                                                                 shared_data: Path, tmp_path: Path) -> None:
    """The session's sample corpus named without a benchmark (no labelled queries: its citation graph and
    metadata only), trained twice by the documented command: the same manifest, dataset digest and model bytes."""
    prefix = aliases["judgments"].removesuffix("-judgments")
    runs = {}
    for run in ("first", "second"):
        result = CliRunner().invoke(cli, [
            "--url", opensearch_settings.url, "--prefix", prefix, "train", "ranker", "--corpus", prefix,
            "--data", str(shared_data), "--mined", "5", "--typed", "5", "--tuning-repeat", "1",
            "--save-dataset", str(tmp_path / run / "set.npz"), "--out", str(tmp_path / run / "model")])
        assert result.exit_code == 0, result.output
        manifest = json.loads((tmp_path / run / "set.manifest.json").read_text(encoding="utf-8"))
        card = json.loads((tmp_path / run / "model" / "card.json").read_text(encoding="utf-8"))
        runs[run] = (manifest, card, (tmp_path / run / "model" / "model.txt").read_bytes())
    (first, card, model), (second, _, again) = runs["first"], runs["second"]
    assert model == again
    assert {k: v for k, v in first.items() if k != "command"} == {k: v for k, v in second.items() if k != "command"}
    kept = [row for row in first["queries"] if row["status"] == "kept"]
    assert kept and all(row["source"].startswith("mined-") and row["labels"] for row in first["queries"])
    assert card["data"]["dataset"]["digest"] == first["dataset_digest"]
    assert card["data"]["excluded"]["guarded_benchmark_queries"] == 250
    assert card["data"]["guarded"] == first["guarded"]
    trained = [row for row in kept if row["source"] != ANON_SOURCE]  # anonymised facts: built, not trained on yet
    assert sum(card["data"]["queries"].values()) == len(trained)


def test_reported_queries_only_ever_cross_validate(tmp_path: Path) -> None:
    """``--split all`` labels reported queries: it is refused for a model, and so is a training set built with it."""
    import numpy as np

    from lab.training.ranker import Dataset
    from search.ranking.features import FEATURES

    refused = CliRunner().invoke(cli, ["train", "ranker", "--split", "all", "--out", str(tmp_path / "m")])
    assert refused.exit_code == 2 and "only cross-validates" in refused.output
    values = np.zeros((3, len(FEATURES)), dtype=np.float32)
    saved = Dataset(["AILA_Q2"], ["aila-precedents-all"], [("C1", "C2", "C3")], [values],
                    [np.array([1, 0, 0], dtype=np.int32)])
    saved.save(tmp_path / "all.npz")
    again = CliRunner().invoke(cli, ["train", "ranker", "--dataset", str(tmp_path / "all.npz"), "--out",
                                     str(tmp_path / "m")])
    assert again.exit_code == 2 and "only cross-validates" in again.output
    assert not (tmp_path / "m").exists()
    # a choice judged on it would choose on reported queries: refused, however the set was made
    judged = CliRunner().invoke(cli, ["train", "ranker", "--dataset", str(tmp_path / "all.npz"), "--cv", "2",
                                      "--cv-choice", "leaves", "--cv-out", str(tmp_path / "cv")])
    assert judged.exit_code == 2 and "tuning queries only" in judged.output
    assert not (tmp_path / "cv").exists()
