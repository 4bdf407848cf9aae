"""``ratio train roles``: rebuild the rhetorical-role head reproducibly (same data and seed, same head).

The work is :func:`lab.roles.train.train` (and :func:`~lab.roles.train.merge_heads` for ensembles
trained in separate runs); this module turns options into its typed arguments. The training settings default
to :class:`~lab.roles.train.TrainSettings` (one home for them): an option left out keeps the trainer's
value. torch is imported only when the command runs, so ``ratio --help`` stays light.
"""

from __future__ import annotations

from pathlib import Path

import click

from backends.encoders import DEFAULT_ENCODER, INDEX_ENCODER, encoder_for
from ratio import settings
from ratio.cli.options import apply, either, hidden_alias

# TrainSettings fields a user may set: (field, type, help). A test checks that every field has its option.
TRAIN_SETTINGS: tuple[tuple[str, type, str], ...] = (
    ("seed", int, "Seed of the shuffle, the held-out slices and torch."),
    ("epochs", int, "Most training epochs per member."),
    ("patience", int, "Epochs without a better held-out score before a member stops."),
    ("members", int, "Ensemble members trained in this run."),
    ("first_member", int, "Number of the first member (to train members in separate runs, then --merge)."),
    ("val_fraction", float, "Share of the training judgments each member holds out."),
    ("batch_size", int, "Judgments per batch."),
    ("learning_rate", float, "AdamW learning rate."),
    ("weight_decay", float, "AdamW weight decay."),
    ("projection", int, "Size of the projection of sentence vector and features."),
    ("hidden", int, "Hidden size of the BiGRU."),
    ("layers", int, "BiGRU layers."),
    ("dropout", float, "Dropout."),
)

settings_options = apply(*(
    click.option(f"--{name.replace('_', '-')}", name, type=kind, help=f"{text} (default: the trainer's)")
    for name, kind, text in TRAIN_SETTINGS
))


@click.command("roles")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), help="Folder for the trained head.")
@hidden_alias("--output", "output", type=click.Path(file_okay=False, path_type=Path))
@click.option("--opennyai-train", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="OpenNyAI train.json(.gz) (never dev.json, which is the evaluation split).")
@click.option("--law-ai", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Law-AI corpus folder (text/ and categories.txt), trained on with set-valued targets.")
@click.option("--scheme", default="canonical", show_default=True,
              help="Label set: the canonical roles, or a source dataset's own labels (law-ai).")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Sentence-vector cache (default: the roles folder of Ratio's cache directory).")
@click.option("--max-documents", type=int, help="Use only the first N judgments of each corpus (smoke tests).")
@click.option("--encoder", default=DEFAULT_ENCODER, show_default=True,
              help=f"Sentence encoder the head reads ({INDEX_ENCODER} for the fast indexer's head; a static "
                   "encoder is distilled into Ratio's models folder on first use).")
@click.option("--threads", type=click.IntRange(min=1), default=2, show_default=True,
              help="torch threads: on a busy machine one thread trains faster than two competing for the cores.")
@click.option("--merge", "merge", multiple=True, type=click.Path(exists=True, file_okay=False, path_type=Path),
              metavar="HEAD", help="Join these trained heads (repeatable) into --out instead of training.")
@settings_options
def train_roles(out: Path | None, output: Path | None, opennyai_train: Path | None, law_ai: Path | None,
                scheme: str, cache_dir: Path | None, max_documents: int | None, encoder: str, threads: int,
                merge: tuple[Path, ...], **chosen: int | float | None) -> None:
    """Rebuild the rhetorical-role head reproducibly (same data and seed, same head).

    Train on OpenNyAI's train split and/or Law-AI, or join heads trained in separate runs with --merge.
    """
    out = either(out, output, "--out", "--output", required=True)
    if not merge and opennyai_train is None and law_ai is None:
        raise click.UsageError("pass --opennyai-train and/or --law-ai (or --merge HEAD ... to join trained heads)")
    from lab.roles.train import TrainSettings, merge_heads, train
    from ratio.encoders import models_dir

    try:
        if merge:
            merged = merge_heads(merge, out)
            click.echo(f"role head: {out} ({len(merged.members)} members joined)")
            return
        train_settings = TrainSettings(**{name: value for name, value in chosen.items() if value is not None})
        artifact = train(opennyai_train, out, cache_dir or settings.cache_dir() / "roles", law_ai_dir=law_ai,
                         scheme=scheme, encoder=encoder_for(encoder, models_dir()), encoder_id=encoder,
                         settings=train_settings, max_documents=max_documents,
                         log=lambda line: click.echo(line, err=True), threads=threads)
    except (ValueError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"role head: {out} ({len(artifact.members)} member(s), {len(artifact.labels)} labels, "
               f"scheme {artifact.scheme})")
