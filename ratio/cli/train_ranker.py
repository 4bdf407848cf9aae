"""``ratio train ranker``: the learned ranker (LightGBM LambdaRank) from tuning qrels and mined citation queries.

Each ``--corpus PREFIX=BENCHMARK`` names an index prefix and the benchmark whose judgments it holds; that
benchmark's tuning split (lab/evaluate/splits/) gives labelled queries and the corpus's own citation graph and
metadata give mined ones (``--corpus PREFIX`` alone: mined ones only, for a corpus without labels). Reported
queries are never read: the split file names the tuning ids. Every query of every benchmark's query files is
guarded: a judgment holding one is never a training query, label or candidate. The training set is written
(``training/ranker/dataset.npz`` under the data directory, or ``--save-dataset``) with a manifest of every query,
its style, its label source and what was excluded; the same command gives the same set and the same model. The
model folder (``model.txt`` + ``card.json``) is what ``RATIO_RANKER`` / ``ratio search --ranker`` load;
``--out search/ranking/model`` rebuilds the shipped default.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from backends.opensearch.indices import IndexLayout, IndexOperationError, expunge_deletes
from lab.evaluate import judged, read_qrels, read_queries
from lab.evaluate.splits import split_queries
from lab.evaluate.typed import held_keys, load, packaged
from lab.training.nested import markdown as nested_markdown
from lab.training.nested import nested
from lab.training.ranker import Dataset, RankerParams, absent_groups, fit, save_model
from lab.training.ranker_build import CorpusSpec, build_dataset, labelled_queries
from lab.training.ranker_data import MINED_STYLES
from lab.training.selection import (
    CHOICES,
    SHIPPED,
    TYPED_SOURCES,
    VALIDATE,
    Configuration,
    card_entry,
    labelled,
    markdown,
    params_for,
    repeated,
    resolved,
    select,
    trains_on,
    write_selection,
)
from lab.training.typed import KINDS
from ratio import settings
from ratio.cli.common import BENCHMARKS, Context
from ratio.cli.extras import requires
from ratio.cli.options import data_option
from ratio.encoders import search_encoders, tuned_encoders
from search.ranking.features import GROUPS


def _spelled(path: str | Path) -> str:
    """A path as the manifest, the card and the tables record it: under the data directory spelled
    ``$RATIO_HOME/…``, so a card or table committed to the repository names no path of the machine it was made on."""
    home, text = str(settings.home_dir()) + "/", str(path)
    return "$RATIO_HOME/" + shlex.quote(text[len(home):]) if text.startswith(home) else shlex.quote(text)


def _invocation() -> str:
    """The command as typed (each argument through :func:`_spelled`)."""
    return "ratio " + " ".join(_spelled(a) for a in sys.argv[1:])


def _corpus(ctx: Context, spec: str, data: Path, split: str = "tuning") -> CorpusSpec:
    """``PREFIX=BENCHMARK`` as a corpus with its benchmark's tuning queries (``split="all"``: every judged query,
    for ``--cv`` only); ``PREFIX`` alone as a corpus with no labelled queries (its citation graph and metadata)."""
    prefix, sep, benchmark = spec.partition("=")
    if sep and (benchmark not in BENCHMARKS or BENCHMARKS[benchmark][2] != "judgments"):
        precedent = ", ".join(b for b, v in BENCHMARKS.items() if v[2] == "judgments")
        raise click.BadParameter(f"{spec!r}: expected PREFIX or PREFIX=BENCHMARK with BENCHMARK one of {precedent}",
                                 param_hint="--corpus")
    layout = IndexLayout(prefix)
    aliases = layout.aliases()
    client = ctx.client()
    if not client.indices.exists_alias(name=aliases["judgments"]):
        raise click.ClickException(f"no index with prefix {prefix!r}: index the corpus first (ratio --prefix "
                                   f"{prefix} index PATH)")
    encoder, _ = search_encoders(client, aliases, None)
    try:
        tuned, half_of = tuned_encoders(client, aliases)
    except (OSError, ValueError, KeyError) as exc:
        raise click.ClickException(str(exc)) from exc
    if not sep:
        return CorpusSpec(prefix, aliases, encoder, tuned=tuned, half_of=half_of)
    tuning = split_queries(benchmark, "tuning")
    if tuning is None:
        raise click.BadParameter(f"{benchmark} has no split file: its tuning queries are unknown",
                                 param_hint="--corpus")
    queries_file, qrels_file, _ = BENCHMARKS[benchmark]
    qrels = read_qrels(data / qrels_file)
    queries, _ = judged(read_queries(data / queries_file), qrels)
    keep = frozenset(q.qid for q in queries) if split == "all" else tuning
    labelled = labelled_queries(queries, qrels, keep, prefix, f"{benchmark}-{split}")
    typed = packaged(benchmark)
    held = held_keys([load(typed)]) if typed is not None and (typed / "queries.jsonl").is_file() else frozenset()
    return CorpusSpec(prefix, aliases, encoder, labelled, held, labels=f"qrels: {qrels_file} ({split} queries)",
                      tuned=tuned, half_of=half_of)


def _expunge(ctx: Context, specs: list[CorpusSpec]) -> dict[str, int]:
    """Merge away the deleted documents of every corpus read before any feature is computed: BM25 counts them
    until a merge drops them, and when that happens depends on timing, so without this the same corpus indexed
    twice gives another training set (backends.opensearch.indices.expunge_deletes; waits up to two minutes for
    the node to release them). The count merged per index, for the manifest."""
    client = ctx.client()
    merged = {}
    for spec in specs:
        for kind in ("judgments", "chunks"):
            try:
                merged[spec.aliases[kind]] = expunge_deletes(client, spec.aliases[kind])
            except IndexOperationError as exc:
                raise click.ClickException(f"{exc}: the training set would depend on when the node merges them; "
                                           "run the command again in a minute") from exc
            if merged[spec.aliases[kind]]:
                click.echo(f"{spec.aliases[kind]}: {merged[spec.aliases[kind]]} deleted documents merged away "
                           "first (BM25 counts them until then)", err=True)
    return merged


def guarded_texts(data: Path) -> tuple[dict[str, str], dict[str, int]]:
    """Every query of every benchmark's query files under ``data``, judged here or not, tuning or reported (the
    guard's texts, named ``FILE:QID``), and how many each file gave. Read before anything is judged, so a query
    without relevance judgments in this checkout is guarded too."""
    texts: dict[str, str] = {}
    counts: dict[str, int] = {}
    for queries_file in sorted({v[0] for v in BENCHMARKS.values()}):
        path = data / queries_file
        if not path.exists():
            continue
        try:
            queries = read_queries(path)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from exc
        counts[queries_file] = len(queries)
        texts.update({f"{queries_file}:{q.qid}": q.text for q in queries})
    return texts, counts


def _manifest_of(dataset_path: Path) -> Path:
    return dataset_path.with_name(dataset_path.stem + ".manifest.json")


@click.command("ranker")
@click.option("--corpus", "corpora", multiple=True, metavar="PREFIX[=BENCHMARK]",
              help="An index prefix and the benchmark it holds, or PREFIX alone for a corpus without labelled "
                   "queries (its citation graph and metadata only); repeatable; default: the --prefix index with "
                   "aila-precedents.")
@data_option()
@click.option("--mined", default=1000, show_default=True,
              help="Mined queries per style (document, facts, facts-anon) per corpus, at most: every citing judgment "
                   "of a corpus the size of the benchmarks' (more trained better than 250 or 500 in "
                   "cross-validation, docs/evaluation.md).")
@click.option("--typed", "typed_per_kind", default=150, show_default=True,
              help="Typed queries mined per kind (title, short form, party, own citation, provision, topic words) "
                   "per corpus; 0 leaves them out (an ablation).")
@click.option("--no-tuning", is_flag=True, help="Leave out the benchmarks' labelled tuning queries (an ablation).")
@click.option("--no-mined", is_flag=True, help="Leave out the mined queries (an ablation).")
@click.option("--mined-from", "mined_from", multiple=True, metavar="PREFIX",
              help="Keep only the mined queries of these corpora (repeatable; with --no-tuning: a model trained "
                   "on one corpus's citation graph and metadata alone, for the transfer table).")
@click.option("--drop-group", "drop", multiple=True, type=click.Choice(GROUPS),
              help="Train without this feature group (repeatable; an ablation).")
@click.option("--dataset", "datasets", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Train on saved features (from --save-dataset) instead of computing them (repeatable).")
@click.option("--save-dataset", type=click.Path(dir_okay=False, path_type=Path),
              help="Where the computed training set goes (default: training/ranker/dataset.npz under the data "
                   "directory), with its manifest beside it (dataset.manifest.json); --dataset reads it back.")
@click.option("--tuning-repeat", default=SHIPPED.tuning_repeat, show_default=True,
              help="Repeat each labelled tuning query this many times (weighs them against the mined ones; chosen "
                   "by cross-validation, --cv).")
@click.option("--cv", "cv_folds", type=click.IntRange(min=2),
              help="Select instead of training: K-fold cross-validation over the labelled tuning queries and the "
                   "mined facts queries (--cv-validate) of the shipped configuration and of each alternative of "
                   "every choice (tree size, tuning repeat, mined, typed and anonymised queries, feature groups); "
                   "prints the table of held-out MAP and nDCG@10 per source and writes it to --cv-out, writes no "
                   "model.")
@click.option("--cv-choice", "cv_choices", multiple=True, type=click.Choice([c.name for c in CHOICES]),
              help="With --cv: judge only this choice (repeatable; the shipped configuration always runs).")
@click.option("--cv-out", type=click.Path(file_okay=False, path_type=Path),
              help="With --cv: the folder for selection.md and selection.json (default: training/ranker/selection "
                   "under the data directory).")
@click.option("--cv-validate", "cv_validate", multiple=True, metavar="SOURCE",
              help="With --cv: score these mined sources held out too, each query folded by its source judgment "
                   "(every query drawn from it left out of that fold's training); repeatable; default "
                   "mined-facts; 'none' scores the labelled queries only.")
@click.option("--cv-cap", type=click.IntRange(min=1),
              help="With --cv: at most this many validated source judgments per corpus (seeded; default all).")
@click.option("--cv-nested", "cv_nested", type=click.IntRange(min=2), metavar="INNER",
              help="With --cv K: nested cross-validation instead of the table: each of the K folds' training "
                   "queries chooses among the --cv-choice choices (default: every choice) by an INNER-fold "
                   "selection of its own, and that choice scores the fold, beside the shipped configuration on the "
                   "same folds (lab.training.nested); writes nested.md and nested.json to --cv-out.")
@click.option("--cv-workers", default=2, show_default=True, type=click.IntRange(min=1),
              help="With --cv: processes fitting folds side by side (a fit is single-threaded; same scores).")
@click.option("--split", type=click.Choice(["tuning", "all"]), default="tuning", show_default=True,
              help="Which judged queries of each --corpus benchmark are labelled: its tuning split, or all (tuning "
                   "and reported; only with --cv and only the shipped configuration: the cross-validated figure "
                   "over a whole benchmark, each query scored by a model that never saw it; no model is written).")
@click.option("--tuned", is_flag=True,
              help="Train with the tuned facts encoder's group (its vectors must be in the indices: 'ratio train "
                   "facts-encoder'); the shipped model is trained without it.")
@click.option("--seed", default=13, show_default=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Model folder (default: models/ranker under the data directory).")
@click.option("--name", default="ratio-ranker", show_default=True, help="The model's name on its card.")
@click.pass_obj
@requires("lightgbm")  # before the minutes of feature building, not after them
def train_ranker(ctx: Context, corpora: tuple[str, ...], data: Path, mined: int, typed_per_kind: int,
                 no_tuning: bool, no_mined: bool, mined_from: tuple[str, ...],
                 drop: tuple[str, ...], datasets: tuple[Path, ...], save_dataset: Path | None, tuning_repeat: int,
                 cv_folds: int | None, cv_choices: tuple[str, ...], cv_out: Path | None, cv_validate: tuple[str, ...],
                 cv_cap: int | None, cv_nested: int | None, cv_workers: int, split: str, tuned: bool,
                 seed: int, out: Path | None, name: str) -> None:
    """Train the learned ranker and write its model folder with a card (features, data, seed, metrics)."""
    if split == "all" and not cv_folds:
        raise click.UsageError("--split all labels reported queries: it only cross-validates (--cv K); a model is "
                               "never trained on them")
    if cv_nested and not cv_folds:
        raise click.UsageError("--cv-nested INNER needs --cv K (the outer folds)")
    provenance: dict[str, Any] = {}
    if datasets:
        dataset = Dataset()
        for path in datasets:
            try:
                dataset.extend(Dataset.load(path))
            except (OSError, ValueError, KeyError) as exc:
                raise click.ClickException(f"{path}: {exc}") from exc
            if _manifest_of(path).is_file():  # the exclusions the card lists come from the build's manifest
                manifest = json.loads(_manifest_of(path).read_text(encoding="utf-8"))
                provenance.setdefault("excluded", []).append(manifest.get("excluded"))
                provenance.setdefault("guarded", []).append(manifest.get("guarded"))
        provenance["dataset"] = {"files": [_spelled(p) for p in datasets], "digest": dataset.digest()}
    else:
        texts, counts = guarded_texts(data)
        if not texts:
            click.echo(f"no benchmark query file under {data}: no benchmark query is guarded", err=True)
        specs = [_corpus(ctx, spec, data, split) for spec in corpora or (f"{ctx.prefix}=aila-precedents",)]
        expunged = _expunge(ctx, specs)
        with Progress(TextColumn("features"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=Console(stderr=True)) as bar:
            typed = {} if no_mined else dict.fromkeys(KINDS, typed_per_kind)
            total = sum(len(c.tuning) for c in specs) + (len(MINED_STYLES) * mined + sum(typed.values())) * len(
                specs)
            task = bar.add_task("features", total=total)
            built = build_dataset(ctx.client(), specs, mined_per_style=0 if no_mined else mined, guarded=texts,
                                  seed=seed, typed=typed, progress=lambda _: bar.advance(task))
        dataset = built.dataset
        path = save_dataset or settings.home_dir() / "training" / "ranker" / (
            "dataset.npz" if split == "tuning" else f"dataset-{split}.npz")
        path.parent.mkdir(parents=True, exist_ok=True)
        dataset.save(path)
        manifest = {"command": _invocation(), "seed": seed,
                    "corpora": list(corpora), "guarded": counts, "deleted_merged_first": expunged,
                    **built.manifest()}
        _manifest_of(path).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        click.echo(f"training set: {path} ({len(dataset.qids)} queries; manifest {_manifest_of(path)}); "
                   f"{sum(len(h) for h in built.holders.values())} judgments hold one of {len(texts)} guarded "
                   f"benchmark queries and are kept out", err=True)
        provenance = {"dataset": {"files": [_spelled(path)], "digest": manifest["dataset_digest"],
                                  "manifest": _spelled(_manifest_of(path))},
                      "guarded": counts, "excluded": built.excluded()}
    if typed_per_kind == 0:  # also for saved features: the typed queries left out (an ablation)
        dataset = dataset.subset(lambda i: dataset.sources[i] not in TYPED_SOURCES)
    if no_tuning:
        dataset = dataset.subset(lambda i: not labelled(dataset.sources[i]))
    if no_mined:
        dataset = dataset.subset(lambda i: labelled(dataset.sources[i]))
    if mined_from:  # a mined query's id starts with its corpus's prefix (PREFIX:style:judgment)
        dataset = dataset.subset(lambda i: labelled(dataset.sources[i])
                                 or dataset.qids[i].split(":", 1)[0] in mined_from)
    if not cv_folds:  # the anonymised facts queries as SHIPPED chooses (the one rule: selection.trains_on)
        dataset = dataset.subset(lambda i: trains_on(SHIPPED, dataset.sources[i]))
    if not dataset.qids:
        raise click.ClickException("no training query has a relevant judgment among its candidates")
    whole = split == "all" or any(s.endswith("-all") for s in dataset.sources)  # labels reported queries
    if not cv_folds and whole:
        raise click.UsageError("this training set labels reported queries (--split all): it only cross-validates "
                               "(--cv K)")
    sources = {s: dataset.sources.count(s) for s in sorted(set(dataset.sources))}
    if cv_folds:  # the grid takes the queries as built: it drops and repeats them itself, per variant
        validate = () if "none" in cv_validate else cv_validate or VALIDATE
        if cv_nested:
            _nested(dataset, cv_folds, cv_nested, cv_choices or None, cv_out, cv_workers, seed, validate, cv_cap)
            return
        if whole and cv_choices:
            raise click.UsageError("this training set labels reported queries (--split all): a choice is judged on "
                                   "tuning queries only (build one without --split all), so it cross-validates "
                                   "the shipped configuration alone, or each fold's own choice with --cv-nested")
        _select(dataset, cv_folds, () if whole else cv_choices or None, cv_out, cv_workers, seed,
                validate, cv_cap,
                {"--no-tuning": no_tuning, "--no-mined": no_mined, "--typed 0": typed_per_kind == 0,
                 "--drop-group": bool(drop), "--tuning-repeat": tuning_repeat != SHIPPED.tuning_repeat})
        return
    dataset = repeated(dataset, replace(SHIPPED, tuning_repeat=tuning_repeat))  # the copies (selection.repeated)
    params = params_for(RankerParams(seed=seed), SHIPPED)  # the LightGBM settings the selection chose
    configuration = Configuration(params.leaves, 0 if no_tuning else tuning_repeat, not no_mined, typed_per_kind != 0,
                                  tuple(drop), mined_from=mined_from[0] if len(mined_from) == 1 else "all",
                                  facts_repeat=SHIPPED.facts_repeat, tuned=tuned)
    absent = tuple(g for g in absent_groups(dataset) if g not in configuration.dropped)  # no value anywhere
    if absent:
        click.echo(f"no value anywhere in the training set for group(s) {', '.join(absent)}: left out", err=True)
    booster, features, metrics = fit(dataset, params, drop_groups=(*configuration.dropped, *absent))
    folder = out or settings.home_dir() / "models" / "ranker"
    save_model(folder, booster, features, name=name, params=params, metrics=metrics,
               data={**provenance, "queries": sources,
                     "skipped_without_relevant_candidate": dict(dataset.skipped),
                     "failed": len(dataset.failed), "dropped_groups": list(drop),
                     **({"absent_groups": list(absent)} if absent else {}), "tuning_repeat": tuning_repeat,
                     "selection": card_entry(configuration),
                     "command": _invocation()})
    click.echo(f"{folder}: {metrics['trees']} trees on {sum(sources.values())} queries {sources}; validation "
               f"MAP {metrics.get('valid', {}).get('MAP', 'n/a')} (reduced-query BM25 "
               f"{metrics.get('valid_bm25_long', {}).get('MAP', 'n/a')})")


def _nested(dataset: Dataset, folds: int, inner: int, choices: tuple[str, ...] | None, out: Path | None,
            workers: int, seed: int, validate: tuple[str, ...], cap: int | None) -> None:
    """``--cv K --cv-nested INNER``: each outer fold chooses by its own selection (lab.training.nested)."""
    command = _invocation()
    run = nested(dataset, RankerParams(seed=seed), folds=folds, inner=inner, seed=seed, choices=choices,
                 validate=validate, cap=cap, workers=workers, command=command,
                 progress=lambda i, c: click.echo(f"fold {i + 1}: {c.values()}", err=True))
    folder = out or settings.home_dir() / "training" / "ranker" / "nested"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nested.md").write_text(nested_markdown(run), encoding="utf-8")
    (folder / "nested.json").write_text(json.dumps(run.to_json(), indent=1) + "\n", encoding="utf-8")
    click.echo(nested_markdown(run))
    click.echo(f"written: {folder / 'nested.md'}, {folder / 'nested.json'}", err=True)


def _select(dataset: Dataset, folds: int, choices: tuple[str, ...] | None, out: Path | None, workers: int, seed: int,
            validate: tuple[str, ...], cap: int | None, ablations: dict[str, bool]) -> None:
    """``--cv``: the selection table of every choice (lab.training.selection), printed and written; the
    ``validate`` sources' mined queries scored beside the labelled ones."""
    given = [flag for flag, on in ablations.items() if on]
    if given:
        raise click.UsageError(f"--cv judges each choice itself (--cv-choice NAME picks some): leave out "
                               f"{', '.join(given)}")
    if any(labelled(s) for s in validate):
        raise click.BadParameter("the labelled queries are always scored: name mined sources (mined-facts, ...)",
                                 param_hint="--cv-validate")
    absent = sorted(set(validate) - set(dataset.sources))
    if absent:
        click.echo(f"no {', '.join(absent)} queries in the training set: not scored", err=True)
    command = _invocation()
    variants = 1 + sum(len(resolved(c, dataset).alternatives) for c in CHOICES if choices is None or c.name in choices)
    with Progress(TextColumn("cross-validation"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True)) as bar:
        task = bar.add_task("variants", total=variants)
        selection = select(dataset, RankerParams(seed=seed), folds=folds, seed=seed, choices=choices,
                           workers=workers, command=command, validate=validate, cap=cap,
                           progress=lambda _: bar.advance(task))
    table, data = write_selection(selection, out or settings.home_dir() / "training" / "ranker" / "selection")
    click.echo(markdown(selection))
    click.echo(f"written: {table}, {data}", err=True)
