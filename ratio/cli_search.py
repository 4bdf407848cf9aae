"""``ratio search``: role-aware hybrid search, shown as judgments with their best passages."""

from __future__ import annotations

import html
import json
import re
from dataclasses import asdict

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

import mappings
from backends.encoders import ModelError
from ratio.cli import Context, cli
from ratio.encoders import search_encoders
from ratio.llm import configured_llm, llm_options
from search.errors import QueryError
from search.execute import Searcher, SearchResult
from search.request import SearchRequest
from search.rerank import DEFAULT_RERANK_WEIGHT, BiEncoderRescorer, CrossEncoderReranker
from search.syntax import MAX_TERMS, as_plain_text

SYNTAX_HELP = """Query syntax: words (ranked), "quoted phrases" (exact, no stemming), AND / OR / NOT, -word,
parentheses, and filters court:"Supreme Court of India" judge:Sikri year:2001..2010 role:ratio
cites:"(2017) 10 SCC 1" statute:"s. 302 IPC"."""


def _marked(fragment: str) -> str:
    """A highlight fragment (HTML-escaped, matches in <mark>) as rich markup with the matches in bold."""
    parts = re.split(r"</?mark>", fragment)
    return "".join(f"[bold yellow]{escape(html.unescape(p))}[/]" if i % 2 else escape(html.unescape(p))
                   for i, p in enumerate(parts))


def _table(query: str, result: SearchResult) -> Table:
    title = f"{result.judgments_found} judgments for: {query[:70]} ({result.fusion}, {result.took_ms:.0f} ms)"
    table = Table("#", "score", "judgment", "best passage", title=title, show_lines=True)
    for rank, hit in enumerate(result.hits, 1):
        best = hit.passages[0]
        judgment = f"{hit.title or hit.judgment_id}\n{hit.court or ''} {hit.decision_date or ''}\n[{hit.judgment_id}]"
        if best.highlights:
            shown = " … ".join(_marked(" ".join(f.split())) for f in best.highlights[:2])
        else:
            passage = " ".join(best.text.split())
            shown = escape(f"{passage[:300]}{'...' if len(passage) > 300 else ''}")
        table.add_row(str(rank), f"{hit.score:.3f}", escape(judgment), f"[bold]{best.role}[/bold] {shown}")
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
@click.option("--rerank-weight", envvar="RATIO_RERANK_WEIGHT", type=click.FloatRange(0, 1),
              default=DEFAULT_RERANK_WEIGHT,
              show_default=True, help="The reranker's share of a reranked chunk's score; the rest is the fused "
                                      "score (1: the reranker's score replaces it).")
@click.option("--explain", is_flag=True, help="Add a one-line reason to each hit (by the LLM, if one is set).")
@click.option("--explain-top", default=5, show_default=True, help="How many hits the LLM explains.")
@click.option("--expand", type=click.Choice(["issues", "provisions"]), multiple=True,
              help="LLM expansion: legal issues as extra queries, parametric provisions for provision retrieval.")
@click.option("--provisions", default=0, help="Also list this many statute provisions (5 with --expand provisions).")
@llm_options
@click.option("--plain", is_flag=True, help="Search the text as plain words (for pasted facts): no operators.")
@click.option("--encoder", envvar="RATIO_ENCODER", help="Query encoder (default: the one the index was built with).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def search_command(ctx: Context, query: str, courts: tuple[str, ...], judges: tuple[str, ...], date_from: str | None,
                   date_to: str | None, roles: tuple[str, ...], mode: str | None, fusion: str, size: int, page: int,
                   rerank: bool, rerank_top: int, reranker: str | None, rerank_weight: float, explain: bool,
                   explain_top: int,
                   expand: tuple[str, ...], provisions: int, llm_kind: str | None, llm_model: str | None,
                   llm_url: str | None, plain: bool, encoder: str, as_json: bool) -> None:
    """Search judgments: BM25 and vector similarity over role-typed chunks, fused, rolled up to judgments."""
    if plain:
        query = as_plain_text(query, max_words=MAX_TERMS)
    try:
        request = SearchRequest.from_query(query, courts=courts, judges=judges, date_from=date_from,
                                           date_to=date_to, roles=roles, role_mode=mode, fusion=fusion,
                                           size=size, page=page, rerank=rerank, rerank_top=rerank_top,
                                           explain=explain, explain_top=explain_top, expand=expand,
                                           provisions=provisions)
    except QueryError as exc:
        raise click.ClickException(str(exc)) from exc
    client = ctx.client()
    aliases = {kind: ctx.layout.alias(kind) for kind in mappings.INDEX_KINDS}
    try:
        model, rescoring = search_encoders(client, aliases, encoder)
    except ModelError as exc:
        raise click.ClickException(str(exc)) from exc
    scorer = (CrossEncoderReranker(reranker) if reranker else BiEncoderRescorer(rescoring)) if rerank else None
    llm = configured_llm(llm_kind, llm_model, llm_url) if (expand or explain) else None
    result = Searcher(client, aliases, model, reranker=scorer, llm=llm, rerank_weight=rerank_weight).search(request)
    if as_json:
        click.echo(json.dumps(asdict(result), indent=2, default=str))
        return
    Console().print(_table(query, result) if result.hits else "no judgment matched")
    expansion = result.expansion
    if expansion and expansion.issues:
        click.echo("searched also for the issues: " + "; ".join(expansion.issues))
    if expansion and expansion.note:
        click.echo(f"note: {expansion.note}")
    for rank, hit in enumerate(result.hits, 1):
        if hit.explanation:
            by = "" if hit.explanation.method == "extractive" else f" [{hit.explanation.method}]"
            click.echo(f"{rank}. {hit.title or hit.judgment_id}: {hit.explanation.text}{by}")
            if hit.explanation.note:
                click.echo(f"   ({hit.explanation.note})")
    if result.provisions:
        click.echo("provisions:")
        for provision in result.provisions:
            name = provision.title or provision.citation or provision.provision_id
            click.echo(f"  {provision.provision_id}  {name[:90]}")
    if result.rerank_ms is not None:
        click.echo(f"reranking took {result.rerank_ms:.0f} ms")
    if result.removed_by_role is not None:
        click.echo(f"the role filter removed {result.removed_by_role} otherwise-matching chunks "
                   f"({', '.join(f'{k} {v}' for k, v in result.removed_roles.items()) or 'none'})")
