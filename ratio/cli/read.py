"""``ratio judgment``, ``ratio explain`` and ``ratio provisions``: the API's read routes on the command line.

Each runs the same :class:`ratio.Client` method as its route and, with ``--json``, prints what the route answers
(``GET /api/v1/judgments/{id}``, ``/explain``, ``/provisions``); errors go through :mod:`ratio.cli.errors` (an
unknown id is one line, or ``{"error": {"code": "not_found", ...}}`` under ``--json``).
"""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console
from rich.markup import escape

from ratio.cli.common import Context, configured_llm
from ratio.cli.options import encoder_option, json_option, llm_options
from search.query.options import MAX_PROVISIONS, PROVISIONS_SIZE


def _client(ctx: Context, encoder: str | None = None, llm: Any = None) -> Any:
    from ratio.client import Client

    conn = ctx.settings()
    return Client(conn.url, user=conn.user, password=conn.password, verify_certs=conn.verify_certs,
                  prefix=ctx.layout.prefix, encoder=encoder, llm=llm)


def _json(kind: Any, value: Any) -> None:
    from pydantic import TypeAdapter

    click.echo(TypeAdapter(kind).dump_json(value, indent=2).decode())


@click.command("judgment")
@click.argument("judgment_id")
@json_option(help="Print GET /api/v1/judgments/{id}'s JSON.")
@click.pass_obj
def judgment_command(ctx: Context, judgment_id: str, as_json: bool) -> None:
    """One judgment: metadata, summary, who it cites and who cites it (--json: sentences and roles too)."""
    from search.pages.browse import JudgmentView

    view = _client(ctx).judgment(judgment_id)
    if as_json:
        _json(JudgmentView, view)
        return
    console = Console()
    console.print(f"[bold]{escape(view.title or view.judgment_id)}[/bold]")
    console.print(escape(" · ".join(str(v) for v in (view.court, view.decision_date, view.case_number) if v)))
    if view.judges:
        console.print("judges: " + escape(", ".join(view.judges)))
    for name, text in view.summary.items():
        if isinstance(text, str) and text.strip():
            console.print(f"[bold]{escape(name)}[/bold]: {escape(' '.join(text.split())[:400])}")
    console.print(f"{len(view.sentences)} sentences; roles " +
                  ", ".join(f"{role} {n}" for role, n in view.role_counts.items()))
    console.print(f"cites {len(view.cites_judgments)} judgments and {len(view.cites_provisions)} provisions; "
                  f"cited by {len(view.cited_by)} in the corpus")


@click.command("explain")
@click.argument("query")
@click.argument("judgment_id")
@llm_options
@encoder_option()
@json_option(help="Print GET /api/v1/explain's JSON.")
@click.pass_obj
def explain_command(ctx: Context, query: str, judgment_id: str, llm_kind: str | None, llm_model: str | None,
                    llm_url: str | None, encoder: str | None, as_json: bool) -> None:
    """Why JUDGMENT_ID matches QUERY, in one line (the LLM's when one is set, checked against the judgment)."""
    from ratio.results import ExplainResponse

    llm = configured_llm(llm_kind, llm_model, llm_url)
    explanation = _client(ctx, encoder, llm).explain(query, judgment_id)
    if as_json:
        _json(ExplainResponse, ExplainResponse(judgment_id=judgment_id, query=query, explanation=explanation))
        return
    click.echo(explanation.text)
    if explanation.note:
        click.echo(f"({explanation.note})")


@click.command("provisions")
@click.argument("query")
@click.option("--size", type=click.IntRange(1, MAX_PROVISIONS), default=PROVISIONS_SIZE, show_default=True,
              help="Provisions to list.")
@encoder_option()
@json_option(help="Print GET /api/v1/provisions's JSON.")
@click.pass_obj
def provisions_command(ctx: Context, query: str, size: int, encoder: str | None, as_json: bool) -> None:
    """Statute provisions for a question or a description of facts (BM25 and vectors, fused)."""
    from ratio.results import ProvisionsResponse

    found = _client(ctx, encoder).provisions(query, size)
    if as_json:
        _json(ProvisionsResponse, ProvisionsResponse(query=query, provisions=found))
        return
    for provision in found:
        name = provision.title or provision.citation or provision.provision_id
        click.echo(f"{provision.score:7.3f}  {provision.provision_id}  {' '.join(name.split())[:100]}")
