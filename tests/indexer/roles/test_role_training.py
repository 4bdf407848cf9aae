"""A tiny training run produces a loadable head with the canonical label set."""

from __future__ import annotations

import shutil
from dataclasses import asdict
from pathlib import Path

from backends.encoders import DEFAULT_ENCODER
from indexer.roles.labeller import RoleLabeller
from indexer.roles.model import HeadArtifact
from lab.roles.train import TrainSettings, train
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


def test_ratio_train_roles_trains_and_merges(tmp_path: Path, law_ai_dir: Path) -> None:
    """The command passes its options to ``train`` (the rest keep TrainSettings' defaults) and ``merge_heads``."""
    from click.testing import CliRunner

    from ratio.cli import cli

    corpus = tmp_path / "law-ai"
    (corpus / "text").mkdir(parents=True)
    for name in SMALL:
        shutil.copy(law_ai_dir / "text" / f"{name}.txt", corpus / "text")
    env = {"RATIO_CACHE": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    args = ["train", "roles", "--law-ai", str(corpus), "--out", str(tmp_path / "head"), "--epochs", "1",
            "--val-fraction", "0.5", "--hidden", "16", "--projection", "32"]
    result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert f"role head: {tmp_path / 'head'} (1 member(s)" in result.output
    trained = HeadArtifact.load(tmp_path / "head")
    assert trained.encoder_id == DEFAULT_ENCODER  # the default --encoder
    assert trained.training["settings"] == asdict(TrainSettings(epochs=1, val_fraction=0.5, hidden=16, projection=32))
    assert len(list((tmp_path / "cache" / "roles").rglob("*.npy"))) == 2  # Ratio's cache directory, per judgment

    head = str(tmp_path / "head")
    result = CliRunner().invoke(cli, ["train", "roles", "--merge", head, "--merge", head, "--out",
                                      str(tmp_path / "both")], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert len(HeadArtifact.load(tmp_path / "both").members) == 2


def test_every_training_setting_has_an_option() -> None:
    from ratio.cli.train_roles import TRAIN_SETTINGS

    assert {name: kind for name, kind, _ in TRAIN_SETTINGS} == {
        name: type(value) for name, value in asdict(TrainSettings()).items()}
