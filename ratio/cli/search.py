"""``ratio search``: role-aware hybrid search, shown as judgments with their best passages."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ratio.cli.common import Context, configured_llm, import_lightgbm_alone
from ratio.cli.options import (
    encoder_option,
    expand_option,
    filter_options,
    fusion_option,
    json_option,
    llm_options,
    ranking_options,
    rerank_weight_option,
    reranker_option,
    role_options,
)
from search.query.options import (
    DEFAULT_LLM_RERANK,
    DEFAULTS,
    MAX_LLM_RERANK,
    MAX_LLM_RERANK_DEADLINE,
    MAX_PROVISIONS,
    MAX_RERANK,
    MAX_SIZE,
    SearchOptions,
    SortOrder,
)

if TYPE_CHECKING:  # the client and the read path behind it are imported by a search, not by ``--help``
    from search.hits import SearchResult

SYNTAX_HELP = """Query syntax: words (ranked), "quoted phrases" (exact, no stemming), AND / OR / NOT, -word,
parentheses, and filters court:"Supreme Court of India" judge:Sikri year:2001..2010 role:ratio
cites:"(2017) 10 SCC 1" statute:"s. 302 IPC"."""


def _marked(fragment: str) -> str:
    """A highlight fragment (HTML-escaped, matches in <mark>) as rich markup with the matches in bold."""
    parts = re.split(r"</?mark>", fragment)
    return "".join(f"[bold yellow]{escape(html.unescape(p))}[/]" if i % 2 else escape(html.unescape(p))
                   for i, p in enumerate(parts))


def counts(result: SearchResult, first: int = 1) -> str:
    """What the search counted and which of it this page shows, as the search page says it
    (:func:`ratio.counts.counted`: "N judgments have every word · M have any; showing the best K"; for a sorted
    search "N judgments match; showing 11-20, newest first"; ``first`` is the page's first rank), with the
    meaning-only hits of a ranked page."""
    from ratio.counts import counted

    text = counted(result, first, dash="-", ranged=False)
    meaning = sum(1 for hit in result.hits if hit.match == "meaning")
    return text + (f" ({meaning} on this page by meaning only)" if meaning and result.sort == "relevance" else "")


def no_match(query: str) -> str:
    """The answer when nothing matches: said plainly, with what was searched (filters included)."""
    shown = query if len(query) <= 200 else query[:200].rsplit(" ", 1)[0] + " …"  # a pasted judgment: its start
    return f"No judgment matches {shown!r}: none has the words or the phrase, and none is close enough in meaning."


def _table(query: str, result: SearchResult, first: int = 1) -> Table:
    from search.retrieval.records import MatchKind

    title = f"{counts(result, first)} — {query[:70]} ({result.fusion}, {result.took_ms:.0f} ms)"
    table = Table("#", "score", "judgment", "best passage", title=title, show_lines=True)
    for rank, hit in enumerate(result.hits, first):
        best = hit.passages[0]
        judgment = f"{hit.title or hit.judgment_id}\n{hit.court or ''} {hit.decision_date or ''}\n[{hit.judgment_id}]"
        if hit.match == MatchKind.MEANING:
            judgment += f"\nmatched by meaning only (similarity {hit.similarity:.2f})"
        if hit.match == MatchKind.CITATION:
            judgment += "\nfound by its citation (the corpus's judgments cite it so)"
        if hit.missing:
            judgment += f"\nmissing: {', '.join(hit.missing)}"
        if hit.cited_by:
            judgment += f"\ncited by {hit.cited_by}"
        if best.highlights:
            shown = " … ".join(_marked(" ".join(f.split())) for f in best.highlights[:2])
        else:
            passage = " ".join(best.text.split())
            shown = escape(f"{passage[:300]}{'...' if len(passage) > 300 else ''}")
        table.add_row(str(rank), f"{hit.score:.3f}", escape(judgment), f"[bold]{best.role}[/bold] {shown}")
    return table


@click.command("search", epilog=SYNTAX_HELP)
@click.argument("query", required=False, default="")
@click.option("--document", "document", type=click.Path(dir_okay=False), default=None,
              help="Search with a brief, a draft or a judgment in this file (.txt or .pdf), read whole, instead of "
                   "QUERY; each hit says which parts of it matched (--court, --from, --to, --size, --exclude apply).")
@click.option("--exclude", default=None, help="With --document: leave out this judgment id (the brief's own).")
@filter_options()
@click.option("--statute", "statutes", multiple=True,
              help="Only judgments citing this provision, e.g. \"s. 302 IPC\" (repeatable; as statute: in QUERY).")
@role_options(role_help="Preferred (or, with --mode filter, required) role (repeatable).",
              mode_help="Role handling (default boost).")
@ranking_options()
@fusion_option()
@click.option("--sort", type=click.Choice([s.value for s in SortOrder]), default=DEFAULTS.sort.value,
              show_default=True, help="relevance (the ranked window, best first), or every matching judgment by "
              "date (newest, oldest; undated last) or by how many corpus judgments cite it (cited_by).")
@click.option("--size", type=click.IntRange(1, MAX_SIZE), default=DEFAULTS.size, show_default=True,
              help="Judgments per page.")
@click.option("--page", type=click.IntRange(min=1), default=DEFAULTS.page, show_default=True,
              help="Page number, from 1.")
@click.option("--rerank", is_flag=True, help="Rescore the top chunks before rolling up to judgments.")
@click.option("--rerank-top", type=click.IntRange(1, MAX_RERANK), default=DEFAULTS.rerank_top, show_default=True,
              help="How many chunks to rescore.")
@reranker_option()
@rerank_weight_option()
@click.option("--explain", is_flag=True, help="Add a one-line reason to each hit (by the LLM, if one is set).")
@click.option("--explain-top", type=click.IntRange(min=0), default=DEFAULTS.explain_top, show_default=True,
              help="How many hits the LLM explains.")
@click.option("--llm-rerank", type=click.IntRange(0, MAX_LLM_RERANK), default=DEFAULTS.llm_rerank, is_flag=False,
              flag_value=DEFAULT_LLM_RERANK, metavar="K",
              help=f"Grade the ranker's top K judgments with the LLM and reorder them (K {DEFAULT_LLM_RERANK} when "
                   "left out; needs --llm; docs/llm-rerank.md). Each graded hit is explained by the LLM's reason.")
@click.option("--llm-rerank-deadline", type=click.IntRange(1, MAX_LLM_RERANK_DEADLINE),
              default=DEFAULTS.llm_rerank_deadline, show_default=True, metavar="SECONDS",
              help="How long --llm-rerank waits for the grades before keeping the ranker's order.")
@expand_option()
@click.option("--provisions", type=click.IntRange(0, MAX_PROVISIONS), default=DEFAULTS.provisions,
              help="Also list this many statute provisions (5 with --expand provisions).")
@llm_options
@click.option("--plain", is_flag=True, help="Search the text as plain words (for pasted facts): no operators.")
@encoder_option()
@json_option()
@click.pass_obj
def search_command(ctx: Context, query: str, courts: tuple[str, ...], judges: tuple[str, ...], date_from: str | None,
                   date_to: str | None, roles: tuple[str, ...], role_mode: str | None, ranking: str,
                   ranker_model: str, fusion: str, sort: str, size: int,
                   page: int, rerank: bool, rerank_top: int, reranker: str | None, rerank_weight: float,
                   explain: bool, explain_top: int, llm_rerank: int, llm_rerank_deadline: int,
                   expand: tuple[str, ...], provisions: int, llm_kind: str | None, llm_model: str | None,
                   llm_url: str | None, plain: bool, encoder: str | None, as_json: bool, document: str | None,
                   exclude: str | None, statutes: tuple[str, ...] = ()) -> None:
    """Search judgments: the learned ranker orders candidates from BM25 over reduced queries, citations and
    provisions by role, meaning and citation evidence; the fusion path (BM25 + k-NN over role chunks) runs where
    it cannot (a filter-only search, a role filter, --rerank, issue expansion), and the result says so. --sort
    newest, oldest or cited_by lists every matching judgment in that order instead; so does a search of filters
    alone (no QUERY, or only filters in it), newest first, having no words to rank by.
    With --document FILE, a whole brief is the query (the document path)."""
    from ratio.client import Client, window_notes
    from search.query.request import SearchRequest

    if ranking == "ranker" and ranker_model != "off":
        import_lightgbm_alone()  # before the ranker imports it: 0.9 s less of scikit-learn and pandas
    if document is not None or exclude is not None:
        if sort != SortOrder.RELEVANCE.value:
            raise click.UsageError("--sort orders a query's matches; a brief (--document) is ranked by relevance")
        if statutes:
            raise click.UsageError("--statute filters a query's matches; a brief (--document) takes --court, --from "
                                   "and --to")
        _check_document_options(query, document, judges, roles, page, rerank, expand, explain, provisions, plain)
        _document_command(ctx, document or "", encoder, ranker_model, size, courts, date_from, date_to, exclude,
                          as_json)
        return
    if not query and not (courts or judges or date_from or date_to or statutes):
        raise click.UsageError("give a QUERY or a filter (--court, --judge, --from, --to, --statute), or a brief "
                               "with --document FILE")
    options = SearchOptions(courts=courts, judges=judges, date_from=date_from, date_to=date_to, roles=roles,
                            role_mode=role_mode, ranking=ranking, fusion=fusion, sort=sort, size=size, page=page,
                            rerank=rerank, rerank_top=rerank_top, explain=explain, explain_top=explain_top,
                            llm_rerank=llm_rerank, llm_rerank_deadline=llm_rerank_deadline, expand=expand,
                            provisions=provisions, plain=plain)
    request = SearchRequest.from_options(query, options, statutes=statutes)  # a QueryError says what to fix
    typed = query
    query = request.semantic_text or request.text  # as searched (plain words with --plain), for the table's title
    conn = ctx.settings()
    llm = configured_llm(llm_kind, llm_model, llm_url) if (expand or explain or llm_rerank) else None
    client = Client(conn.url, user=conn.user, password=conn.password, verify_certs=conn.verify_certs,
                    prefix=ctx.layout.prefix, encoder=encoder, reranker=reranker, rerank_weight=rerank_weight,
                    llm=llm, ranker=None if ranker_model == "off" else ranker_model)
    result = client.run(request)
    if as_json:  # the API's shape: what GET /api/v1/search answers for the same search
        from ratio.results import to_page

        _, notes = window_notes(result, page, size, options.candidates)
        click.echo(to_page(typed, result, page, None, notes, size=size).model_dump_json(indent=2))
        return
    Console().print(_table(query, result, (page - 1) * size + 1) if result.hits
                    else escape(no_match(request.text) if request.query is not None else
                                "No judgment passes the filters."))
    if result.query_note:
        click.echo(f"note: {result.query_note}")
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
    if result.ranking_note and result.ranking == "fusion" and ranking == "ranker":
        click.echo(f"ranked by fusion: {result.ranking_note}")
    if result.llm_rerank is not None:
        stage = result.llm_rerank
        click.echo(f"LLM rerank ({stage.model}, {len(stage.grades)} graded in {stage.seconds:.1f} s): "
                   + ("reordered by grade" if stage.applied else stage.note or "the ranker's order"))
    if result.rerank_ms is not None:
        click.echo(f"reranking took {result.rerank_ms:.0f} ms")
    if result.removed_by_role is not None:
        click.echo(f"the role filter removed {result.removed_by_role} otherwise-matching chunks "
                   f"({', '.join(f'{k} {v}' for k, v in result.removed_roles.items()) or 'none'})")


def _check_document_options(query: str, document: str | None, judges: tuple[str, ...], roles: tuple[str, ...],
                            page: int, rerank: bool, expand: tuple[str, ...], explain: bool, provisions: int,
                            plain: bool) -> None:
    """A brief search takes the filters, --size and --exclude; the rest belong to a typed query."""
    if document is None:
        raise click.UsageError("--exclude goes with --document FILE")
    if query:
        raise click.UsageError("give either a QUERY or --document FILE, not both")
    unused = [name for name, given in (("--judge", judges), ("--role", roles), ("--page", page != 1),
                                       ("--rerank", rerank), ("--expand", expand), ("--explain", explain),
                                       ("--provisions", provisions), ("--plain", plain)) if given]
    if unused:
        raise click.UsageError(f"{', '.join(unused)} cannot be used with --document (it takes --court, --from, "
                               "--to, --size and --exclude)")


def _document_command(ctx: Context, document: str, encoder: str | None, ranker_model: str, size: int,
                      courts: tuple[str, ...], date_from: str | None, date_to: str | None, exclude: str | None,
                      as_json: bool) -> None:
    from ratio.cli.brief import document_search, print_brief_result
    from ratio.client import Client

    conn = ctx.settings()
    client = Client(conn.url, user=conn.user, password=conn.password, verify_certs=conn.verify_certs,
                    prefix=ctx.layout.prefix, encoder=encoder, llm=None,
                    ranker=None if ranker_model == "off" else ranker_model)
    result = document_search(client, document, size=size, courts=courts, date_from=date_from, date_to=date_to,
                             exclude=exclude)
    print_brief_result(document, result, as_json)
