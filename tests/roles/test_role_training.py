"""A tiny training run produces a loadable head with the canonical label set."""

from __future__ import annotations

import shutil
from pathlib import Path

from indexer.roles.labeller import RoleLabeller
from indexer.roles.train import TrainSettings, main, train
from legal.roles import load_role_set

SMALL = ("1978_M_13", "1977_P_19")  # the two shortest Law-AI judgments (79 and 95 sentences)


def test_tiny_training_run(tmp_path: Path, law_ai_dir: Path, encoder):
    corpus = tmp_path / "law-ai"
    (corpus / "text").mkdir(parents=True)
    for name in SMALL:
        shutil.copy(law_ai_dir / "text" / f"{name}.txt", corpus / "text")
    settings = TrainSettings(epochs=1, val_fraction=0.5, hidden=16, projection=32)
    artifact = train(
        None, tmp_path / "head", tmp_path / "cache", law_ai_dir=corpus, encoder=encoder, settings=settings,
        log=lambda _: None,
    )  # fmt: skip
    assert artifact.labels == load_role_set().names
    assert (tmp_path / "head" / "config.json").is_file()
    assert len(list((tmp_path / "cache").rglob("*.npy"))) == 2  # vectors cached per judgment

    labeller = RoleLabeller.load(encoder, tmp_path / "head")
    assert labeller.labels == artifact.labels
    assert labeller.artifact.training["settings"]["epochs"] == 1
    roles = labeller.label(["The appeal is dismissed.", "The facts are these."])
    assert len(roles) == 2 and set(roles) <= set(artifact.labels)


def test_cli_help(capsys):
    try:
        main(["--help"])
    except SystemExit as done:
        assert done.code == 0
    assert "--opennyai-train" in capsys.readouterr().out
