"""``ratio train facts-encoder``: tune the facts encoder on the corpora's citation pairs and write its vectors.

One command, the corpora named by prefix: it reads each corpus's facts chunks and citation graph, leaves out every
judgment that holds a guarded benchmark query (the ranker's guard, :func:`guarded_texts`), tunes the two
cross-fitted halves' encoders into ``$RATIO_HOME/models/ratio-facts-encoder/{a,b}``
(:mod:`lab.training.facts_encoder`), then writes both encoders' vectors into every named corpus's indices, where
the ranker's ``tuned`` group reads them (:mod:`search.ranking.tuned`). ``--fill-only`` writes the vectors with the
encoders already there (after more judgments were indexed, or into another corpus). Each update leaves the
document's old version deleted, which BM25 counts until a merge drops it, so the command ends by merging them
away (``expunge_deletes``), as ``ratio train ranker`` does before it computes a feature.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

from backends.encoders import load_encoder
from backends.opensearch.indices import IndexLayout, IndexOperationError, expunge_deletes
from lab.training.facts_encoder import corpus_facts, fill_vectors, train_facts_encoders
from lab.training.ranker_data import Guard, holders
from ratio.cli.common import Context
from ratio.cli.options import data_option
from ratio.cli.train_ranker import guarded_texts
from ratio.encoders import models_dir
from search.ranking.tuned import HALVES

__all__ = ["FOLDER", "train_facts_encoder"]

FOLDER = "ratio-facts-encoder"


def _log(message: str) -> None:
    click.echo(f"{time.strftime('%H:%M:%S')} {message}", err=True)


@click.command("facts-encoder")
@click.option("--corpus", "corpora", multiple=True, metavar="PREFIX",
              help="A corpus (index prefix) whose citation pairs tune the encoder and whose indices get its vectors "
                   "(repeatable; default: --prefix).")
@data_option("Folder holding the benchmark datasets (their queries are guarded).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help=f"Where the two encoders go (default: $RATIO_HOME/models/{FOLDER}).")
@click.option("--fill-only", is_flag=True, help="Write the vectors with the encoders already under --out.")
@click.option("--seed", default=13, show_default=True)
@click.pass_obj
def train_facts_encoder(ctx: Context, corpora: tuple[str, ...], data: Path, out: Path | None, fill_only: bool,
                        seed: int) -> None:
    """Tune the facts encoder on citation pairs (two cross-fitted halves) and write its vectors into the indices."""
    out = out or models_dir() / FOLDER
    client = ctx.client()
    prefixes = corpora or (ctx.prefix,)
    for prefix in prefixes:
        if not client.indices.exists_alias(name=IndexLayout(prefix).aliases()["judgments"]):
            raise click.ClickException(f"no index with prefix {prefix!r}: index the corpus first")
    facts = [corpus_facts(client, prefix) for prefix in prefixes]
    if not fill_only:
        texts, _ = guarded_texts(data)
        guard = Guard(texts)
        held = {p: set(holders(client, f"{p}-judgments", guard)) for p in prefixes}
        _log(f"{sum(len(h) for h in held.values())} judgments hold one of {len(texts)} guarded benchmark queries "
             f"and are left out of the pairs")
        try:
            card = train_facts_encoders(facts, held, out, seed=seed, log=_log)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from exc
        _log(f"{card['pairs']} pairs of {card['citing']} citing judgments; encoders in {out}")
    missing = [h for h in HALVES if not (out / h / "config.json").is_file()]
    if missing:
        raise click.ClickException(f"{out}: no encoder for half {', '.join(missing)} (run without --fill-only)")
    encoders = {h: load_encoder(str(out / h)) for h in HALVES}
    models = {h: f"{FOLDER}/{h}" if out == models_dir() / FOLDER else str(out / h) for h in HALVES}
    report = {c.prefix: fill_vectors(client, c, encoders, models, log=_log) for c in facts}
    for prefix in prefixes:  # a partial update leaves the old version deleted, and BM25 counts it until merged away
        for kind in ("judgments", "chunks"):
            index = IndexLayout(prefix).aliases()[kind]
            try:
                report[prefix][f"deleted_merged_{kind}"] = expunge_deletes(client, index)
            except IndexOperationError as exc:
                _log(f"{exc}: BM25 counts the old versions until the node merges them")
    json.dump(report, sys.stdout, indent=1)
    click.echo()
    if any(r["failed"] for r in report.values()):
        raise click.ClickException("some vectors were not written (see the report)")
