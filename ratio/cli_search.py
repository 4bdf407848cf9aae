"""``ratio search``: role-aware hybrid search, shown as judgments with their best passages."""

from __future__ import annotations

import json
from dataclasses import asdict

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

import mappings
from backends.encoders import DEFAULT_ENCODER, ModelError, load_encoder
from ratio.cli import Context, cli
from search.errors import QueryError
from search.execute import Searcher, SearchResult
from search.request import SearchRequest
from search.rerank import BiEncoderRescorer, CrossEncoderReranker
from search.syntax import MAX_TERMS, as_plain_text

SYNTAX_HELP = """Query syntax: words (ranked), "quoted phrases" (exact, no stemming), AND / OR / NOT, -word,
parentheses, and filters court:"Supreme Court of India" judge:Sikri year:2001..2010 role:ratio
cites:"(2017) 10 SCC 1" statute:"s. 302 IPC"."""


def _table(query: str, result: SearchResult) -> Table:
    title = f"{result.judgments_found} judgments for: {query[:70]} ({result.fusion}, {result.took_ms:.0f} ms)"
    table = Table("#", "score", "judgment", "best passage", title=title, show_lines=True)
    for rank, hit in enumerate(result.hits, 1):
        best = hit.passages[0]
        passage = " ".join(best.text.split())
        judgment = f"{hit.title or hit.judgment_id}\n{hit.court or ''} {hit.decision_date or ''}\n[{hit.judgment_id}]"
        shown = f"{passage[:300]}{'...' if len(passage) > 300 else ''}"
        table.add_row(str(rank), f"{hit.score:.3f}", escape(judgment), f"[bold]{best.role}[/bold] {escape(shown)}")
    return table


@cli.command("search", epilog=SYNTAX_HELP)
@click.argument("query")
@click.option("--court", "courts", multiple=True, help="Only judgments of this court (repeatable).")
@click.option("--judge", "judges", multiple=True, help="Only judgments with this judge on the bench.")
@click.option("--from", "date_from", help="Decided on or after (YYYY, YYYY-MM-DD or DD-MM-YYYY).")
@click.option("--to", "date_to", help="Decided on or before.")
@click.option("--role", "roles", multiple=True, help="Preferred (or, with --mode filter, required) role.")
@click.option("--mode", type=click.Choice(["off", "boost", "filter"]), help="Role handling (default boost).")
@click.option("--fusion", type=click.Choice(["minmax", "rrf"]), default="minmax", show_default=True)
@click.option("--size", default=10, show_default=True, help="Judgments per page.")
@click.option("--page", default=1, show_default=True)
@click.option("--rerank", is_flag=True, help="Rescore the top chunks before rolling up to judgments.")
@click.option("--rerank-top", default=50, show_default=True, help="How many chunks to rescore.")
@click.option("--reranker", envvar="RATIO_RERANKER",
              help="A sentence-transformers CrossEncoder (path or id); default: bi-encoder rescoring.")
@click.option("--explain", is_flag=True, help="Add a one-line reason to each hit.")
@click.option("--plain", is_flag=True, help="Search the text as plain words (for pasted facts): no operators.")
@click.option("--encoder", envvar="RATIO_ENCODER", default=DEFAULT_ENCODER, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def search_command(ctx: Context, query: str, courts: tuple[str, ...], judges: tuple[str, ...], date_from: str | None,
                   date_to: str | None, roles: tuple[str, ...], mode: str | None, fusion: str, size: int, page: int,
                   rerank: bool, rerank_top: int, reranker: str | None, explain: bool, plain: bool, encoder: str,
                   as_json: bool) -> None:
    """Search judgments: BM25 and vector similarity over role-typed chunks, fused, rolled up to judgments."""
    if plain:
        query = as_plain_text(query, max_words=MAX_TERMS)
    try:
        request = SearchRequest.from_query(query, courts=courts, judges=judges, date_from=date_from,
                                           date_to=date_to, roles=roles, role_mode=mode, fusion=fusion,
                                           size=size, page=page, rerank=rerank, rerank_top=rerank_top,
                                           explain=explain)
    except QueryError as exc:
        raise click.ClickException(str(exc)) from exc
    client = ctx.client()
    try:
        model = load_encoder(encoder)
    except ModelError as exc:
        raise click.ClickException(str(exc)) from exc
    aliases = {kind: ctx.layout.alias(kind) for kind in mappings.INDEX_KINDS}
    scorer = (CrossEncoderReranker(reranker) if reranker else BiEncoderRescorer(model)) if rerank else None
    result = Searcher(client, aliases, model, reranker=scorer).search(request)
    if as_json:
        click.echo(json.dumps(asdict(result), indent=2, default=str))
        return
    Console().print(_table(query, result) if result.hits else "no judgment matched")
    for rank, hit in enumerate(result.hits, 1):
        if hit.explanation:
            click.echo(f"{rank}. {hit.title or hit.judgment_id}: {hit.explanation.text}")
    if result.rerank_ms is not None:
        click.echo(f"reranking took {result.rerank_ms:.0f} ms")
    if result.removed_by_role is not None:
        click.echo(f"the role filter removed {result.removed_by_role} otherwise-matching chunks "
                   f"({', '.join(f'{k} {v}' for k, v in result.removed_roles.items()) or 'none'})")
