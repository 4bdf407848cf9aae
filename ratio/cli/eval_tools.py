"""``ratio eval rankings``, ``ratio eval statutes-grid`` and ``ratio eval mapping-report``: the evaluation's tools
beside ``ratio eval run`` (rankings scored elsewhere, the grid the provisions box's mix was chosen by, the corpus
mapping checked by hand)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import click

from lab.evaluate import judged, read_qrels, read_queries
from lab.evaluate.splits import split_queries
from lab.evaluate.systems import Runner
from ratio.cli.common import BENCHMARKS, Context
from ratio.cli.options import data_option, encoder_option, query_file_options
from ratio.encoders import search_encoders, tuned_encoder
from search.execute import Searcher

__all__ = ["mapping_report_command", "rankings_command", "statutes_grid_command"]


def _command_line() -> str:
    return "ratio " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def _searcher(ctx: Context, encoder: str | None) -> Searcher:
    aliases = ctx.aliases()
    model, _ = search_encoders(ctx.client(), aliases, encoder)
    return Searcher(ctx.client(), aliases, model, tuned=tuned_encoder(ctx.client(), aliases))


@click.command("rankings")
@click.argument("queries", type=click.Path(exists=True, path_type=Path))
@click.option("--split", type=click.Choice(["tuning", "reported"]),
              help="Only the queries of this split (a typed benchmark's own, or --benchmark's split file).")
@click.option("--benchmark", type=click.Choice(sorted(BENCHMARKS)),
              help="The benchmark whose split file names the queries (QUERIES is then any file its runs read).")
@click.option("--config", default="default", show_default=True, help="The configuration to rank with.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="The JSON file written.")
@encoder_option()
@click.pass_obj
def rankings_command(ctx: Context, queries: Path, split: str | None, benchmark: str | None, config: str, out: Path,
                     encoder: str | None) -> None:
    """Rank QUERIES with CONFIG and write the rankings as JSON (qid -> judgment ids, best first), for
    ``ratio eval run ... --run LABEL=FILE`` to score beside today's configurations: another checkout's default
    (run this command in that checkout), or a run kept to compare with later. QUERIES is a typed benchmark's
    queries.jsonl (with its splits) or any file or folder ``ratio eval run`` reads (with --benchmark)."""
    if benchmark:
        chosen = split_queries(benchmark, split) if split else None
        if split and chosen is None:
            raise click.UsageError(f"{benchmark} has no split file; its halves are by position (ratio eval run --half)")
        rows = [(q.qid, q.text) for q in read_queries(queries) if chosen is None or q.qid in chosen]
    elif queries.suffix == ".jsonl":
        lines = [json.loads(line) for line in queries.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = [(row["qid"], row["text"]) for row in lines if split is None or row.get("split") == split]
    else:
        if split:
            raise click.UsageError("--split needs --benchmark for a queries file that is not a typed benchmark's")
        rows = [(q.qid, q.text) for q in read_queries(queries)]
    runner = Runner(_searcher(ctx, encoder))
    try:
        runner.check(config)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    rankings = {qid: runner.rank(config, text, qid) for qid, text in rows}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(rankings) + "\n", encoding="utf-8")
    click.echo(f"{out}: {len(rankings)} queries ranked by {config}")


@click.command("statutes-grid")
@data_option()
@query_file_options("Statute queries instead of AILA's (all of them are read).", "Their statute qrels.")
@click.option("--depth", default=1000, show_default=True, help="Provisions ranked per query (as ratio eval run).")
@click.option("--top", default=15, show_default=True, help="Rows printed, best first (all are written).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for grid.md and grid.json.")
@encoder_option()
@click.pass_obj
def statutes_grid_command(ctx: Context, data: Path, queries: Path | None, qrels: Path | None, depth: int, top: int,
                          out: Path, encoder: str | None) -> None:
    """Score every mix of the provisions box's parts (the query's own provisions, the top precedents' statute
    passages, the provisions the top judgments cite) and citing depth by MAP on AILA's statute tuning queries
    (the odd half of the judged ones; never the reported half), the shipped mix marked."""
    from lab.evaluate.statutes_grid import grid, leave_one_out, query_parts, shipped

    default_queries, default_qrels, _ = BENCHMARKS["aila-statutes"]
    all_qrels = read_qrels(qrels or data / default_qrels)
    chosen, _ = judged(read_queries(queries or data / default_queries), all_qrels)
    if queries is None:
        chosen = chosen[0::2]  # the tuning half: AILA's statute queries have no split file
    searcher = _searcher(ctx, encoder)
    prepared = [(query_parts(searcher, q.text, depth), {d for d, g in all_qrels[q.qid].items() if g > 0})
                for q in chosen]
    rows = grid(prepared, depth)
    mine = next(r for r in rows if r.shipped)
    held_out, choices = leave_one_out(rows) if len(rows[0].aps) > 1 else (float("nan"), [])
    kept = sum(c.shipped for c in choices)
    summary = (f"The shipped mix {shipped()} scores MAP {mine.map:.4f}, rank {rows.index(mine) + 1} of {len(rows)}; "
               f"the grid's best {rows[0].map:.4f} (chosen on the queries it is scored on). Chosen by leave-one-query-"
               f"out (the best row on the other queries, scored on the one left out): MAP {held_out:.4f}, the "
               f"shipped mix chosen for {kept} of {len(choices)} queries.")
    header = "| MAP | direct | passages | citations | citing depth | |\n|---|---|---|---|---|---|"
    table = [f"| {r.map:.4f} | {r.direct} | {r.passages} | {r.citations} | {r.citing} | "
             f"{'shipped' if r.shipped else ''} |" for r in rows]
    out.mkdir(parents=True, exist_ok=True)
    (out / "grid.md").write_text(
        f"# The provisions box's mix on {len(chosen)} statute tuning queries\n\nCommand: `{_command_line()}`\n\n"
        f"{summary}\n\n{header}\n" + "\n".join(table) + "\n", encoding="utf-8")
    (out / "grid.json").write_text(json.dumps({
        "queries": [q.qid for q in chosen], "command": _command_line(), "leave_one_out_map": round(held_out, 6),
        "rows": [{"map": round(r.map, 6), "direct": r.direct, "passages": r.passages, "citations": r.citations,
                  "citing": r.citing, "shipped": r.shipped, "ap": [round(a, 6) for a in r.aps]} for r in rows]},
                             indent=1) + "\n", encoding="utf-8")
    click.echo(header)
    click.echo("\n".join(table[:top]))
    click.echo(f"{summary}\nWritten to {out / 'grid.md'}.")


@click.command("mapping-report")
@click.option("--seed", default=26, show_default=True, help="Seed of the sample checked by hand.")
@click.option("--sample", default=30, show_default=True, help="Mapped provisions in the sample.")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="The Markdown written.")
@click.pass_obj
def mapping_report_command(ctx: Context, seed: int, sample: int, out: Path) -> None:
    """Report the corpus mapping of the provisions index (counts by status, agreement of mapped titles with
    published section headings, a seeded sample with its evidence to check by hand); changes nothing."""
    from lab.evaluate.mapping_report import mapping_report

    report = mapping_report(ctx.client(), ctx.aliases()["provisions"], seed=seed, sample=sample,
                            command=_command_line())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report.markdown, encoding="utf-8")
    click.echo(f"{report.statuses}; heading agreement {report.agreement}; report {out}")
