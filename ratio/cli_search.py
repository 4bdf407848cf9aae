"""``ratio search``: hybrid search over the indexed chunks, shown as judgments with their best passages."""

from __future__ import annotations

import json
from dataclasses import asdict

import click
from rich.console import Console
from rich.table import Table

import mappings
from backends.encoders import DEFAULT_ENCODER, ModelError, load_encoder
from backends.opensearch.client import plugin_names
from backends.opensearch.indices import NEURAL_PLUGIN
from ratio.cli import Context, cli
from search.basic import BasicRequest, QueryError, search


@cli.command("search")
@click.argument("query")
@click.option("--court", help="Only judgments of this court (exact name).")
@click.option("--role", "roles", multiple=True, help="Only chunks with this role (repeatable).")
@click.option("--size", default=10, show_default=True, help="Judgments to show.")
@click.option("--encoder", envvar="RATIO_ENCODER", default=DEFAULT_ENCODER, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def search_command(ctx: Context, query: str, court: str | None, roles: tuple[str, ...], size: int, encoder: str,
                   as_json: bool) -> None:
    """Search judgments: BM25 and vector similarity over role-typed chunks, fused by OpenSearch."""
    try:
        request = BasicRequest(text=query, court=court, roles=roles, size=size)
    except QueryError as exc:
        raise click.ClickException(str(exc)) from exc
    client = ctx.client()
    if NEURAL_PLUGIN not in plugin_names(client):
        raise click.ClickException(f"this cluster has no {NEURAL_PLUGIN}; client-side fusion is not built yet")
    try:
        model = load_encoder(encoder)
    except ModelError as exc:
        raise click.ClickException(str(exc)) from exc
    vector = model.encode([query], normalize_embeddings=True)[0].tolist()
    aliases = {kind: ctx.layout.alias(kind) for kind in mappings.INDEX_KINDS}
    hits = search(client, aliases, request, vector)
    if as_json:
        click.echo(json.dumps([asdict(hit) for hit in hits], indent=2))
        return
    table = Table("#", "score", "judgment", "best passage", title=f"results for: {query[:80]}", show_lines=True)
    for rank, hit in enumerate(hits, 1):
        best = hit.chunks[0]
        passage = " ".join(best.text.split())
        judgment = f"{hit.title or hit.judgment_id}\n{hit.court or ''} {hit.decision_date or ''}\n[{hit.judgment_id}]"
        table.add_row(str(rank), f"{hit.score:.3f}", judgment,
                      f"[{best.role}] {passage[:300]}{'...' if len(passage) > 300 else ''}")
    Console().print(table if hits else "no judgment matched")
