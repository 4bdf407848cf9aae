"""``ratio alerts``: saved searches, checked against newly indexed judgments, with optional webhooks.

The work is done by :mod:`search.alerts`; this module wires the connection and turns its errors into
``click`` errors. :func:`index_alerts` is what ``ratio index`` calls after a run: it reports, and it never
makes the indexing fail.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import click
from opensearchpy import OpenSearch
from opensearchpy.exceptions import OpenSearchException
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ratio import settings
from ratio.cli.common import Context
from ratio.cli.options import filter_options, json_option, role_options
from search import alerts as saved
from search.query.errors import QueryError
from search.query.options import FilterOptions


@click.group("alerts")
def alerts_group() -> None:
    """Saved searches: save a query, then learn which newly indexed judgments match it."""


@alerts_group.command("save")
@click.argument("name")
@click.argument("query")
@filter_options()
@role_options(role_help="Only chunks of this role (repeatable).",
              mode_help="Role handling (default: filter when roles are named; boost and off restrict nothing).")
@click.option("--webhook", help="POST matching judgments to this http(s) URL as JSON (public hosts only unless "
                                "RATIO_WEBHOOK_ALLOW names it; signed when RATIO_WEBHOOK_SECRET is set).")
@click.option("--replace", is_flag=True, help="Replace a saved search of the same name.")
@json_option()
@click.pass_obj
def save_command(ctx: Context, name: str, query: str, courts: tuple[str, ...], judges: tuple[str, ...],
                 date_from: str | None, date_to: str | None, roles: tuple[str, ...], role_mode: str | None,
                 webhook: str | None, replace: bool, as_json: bool) -> None:
    """Save QUERY (same syntax as 'ratio search') under NAME."""
    try:
        options = FilterOptions(courts=courts, judges=judges, date_from=date_from, date_to=date_to, roles=roles,
                                role_mode=role_mode)
        saved.compile_search(query, options)  # bad syntax is reported before touching the cluster
        client = ctx.client()
        saved.ensure_index(client, ctx.layout)
        search = saved.save_search(client, ctx.aliases(), name, query, options=options, webhook=webhook,
                                   replace=replace, policy=settings.WebhookSettings.read().policy())
    except (QueryError, saved.SavedSearchError, saved.AlertsUnavailableError) as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(asdict(search), indent=2))
    else:
        click.echo(f"saved {search.name!r}: {search.query}" + (f" -> {search.webhook}" if search.webhook else ""))


@alerts_group.command("list")
@json_option()
@click.pass_obj
def list_command(ctx: Context, as_json: bool) -> None:
    """The saved searches, by name."""
    searches = saved.list_searches(ctx.client(), ctx.aliases())
    if as_json:
        click.echo(json.dumps([asdict(s) for s in searches], indent=2))
        return
    if not searches:
        click.echo("no saved searches")
        return
    table = Table("name", "query", "options", "webhook", "saved", title="saved searches")
    for s in searches:
        options = ", ".join(f"{k}={v}" for k, v in asdict(s.options).items() if v)
        table.add_row(escape(s.name), escape(s.query), escape(options), escape(s.webhook or ""), s.created_at)
    Console().print(table)


@alerts_group.command("delete")
@click.argument("name")
@click.pass_obj
def delete_command(ctx: Context, name: str) -> None:
    """Delete the saved search NAME."""
    try:
        saved.delete_search(ctx.client(), ctx.aliases(), name)
    except saved.SavedSearchError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"deleted {name!r}")


def _since(value: str) -> dt.datetime:
    try:
        moment = dt.datetime.fromisoformat(value)
        return moment.astimezone(dt.UTC) if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
    except (ValueError, OverflowError):
        raise click.BadParameter(f"{value!r} is not an ISO date-time (2025-01-31 or 2025-01-31T09:00:00+05:30)",
                                 param_hint="--since") from None


def _echo_alerts(alerts: Sequence[saved.Alert], err: bool = False) -> None:
    for alert in alerts:
        click.echo(f"saved search {alert.search.name!r} matched {len(alert.judgments)} judgment(s):", err=err)
        for j in alert.judgments:
            roles = f" [{', '.join(j.roles)}]" if j.roles else ""
            click.echo(f"  {j.judgment_id}  {j.title or ''}{roles}", err=err)


@alerts_group.command("check")
@click.option("--judgment", "judgment_ids", multiple=True, help="A judgment id to check (repeatable).")
@click.option("--since", help="Check the judgments indexed at or after this ISO date-time (UTC unless it says).")
@click.option("--notify", is_flag=True, help="POST each alert to its saved search's webhook.")
@click.option("--timeout", default=10.0, show_default=True, help="Seconds per webhook attempt.")
@click.option("--attempts", default=3, show_default=True, help="Tries per webhook (the first included).")
@json_option()
@click.pass_obj
def check_command(ctx: Context, judgment_ids: tuple[str, ...], since: str | None, notify: bool, timeout: float,
                  attempts: int, as_json: bool) -> None:
    """Which saved searches the given (or recently indexed) judgments match; --notify sends them."""
    if not judgment_ids and not since:
        raise click.UsageError("name the judgments to check: --judgment ID (repeatable) and/or --since DATETIME")
    client = ctx.client()
    aliases = ctx.aliases()
    ids = list(judgment_ids)
    try:
        if since:
            ids += saved.judgments_since(client, aliases, _since(since))
        alerts = saved.check(client, aliases, ids)
    except OpenSearchException as exc:
        raise click.ClickException(f"OpenSearch refused: {exc}") from exc
    policy = settings.WebhookSettings.read().policy()
    deliveries = saved.notify(alerts, timeout=timeout, attempts=attempts, policy=policy) if notify else []
    if as_json:
        click.echo(json.dumps({"checked": len(dict.fromkeys(ids)), "alerts": [asdict(a) for a in alerts],
                               "deliveries": [asdict(d) for d in deliveries]}, indent=2))
    else:
        click.echo(f"checked {len(dict.fromkeys(ids))} judgment(s): {len(alerts)} saved search(es) matched")
        _echo_alerts(alerts)
        for d in deliveries:
            click.echo(f"webhook {d.name!r} -> {d.webhook}: " + ("delivered" if d.ok else f"FAILED ({d.error})"))
    if any(not d.ok for d in deliveries):
        raise SystemExit(1)


def index_alerts(client: OpenSearch, aliases: dict[str, str], judgment_ids: Sequence[str]) -> dict[str, Any]:
    """Saved searches matched by the judgments an index run wrote, as ``{"alerts": [...], "error": ...}``.

    Never raises: a failure of the alerts is reported as ``error``, because it must not fail the indexing.
    """
    try:
        alerts = saved.check(client, aliases, judgment_ids)
    except (OpenSearchException, ValueError, KeyError) as exc:
        return {"alerts": [], "error": f"saved searches not checked: {type(exc).__name__}: {exc}"}
    return {"alerts": alerts, "error": None}


def report_index_alerts(client: OpenSearch, aliases: dict[str, str], judgment_ids: Sequence[str],
                        data: dict[str, Any] | None) -> None:
    """For ``ratio index``: add the alerts to the JSON report ``data``, or print them (to stderr) for people."""
    result = index_alerts(client, aliases, judgment_ids)
    if data is not None:
        data["alerts"] = [asdict(a) for a in result["alerts"]]
        if result["error"]:
            data["alerts_error"] = result["error"]
        return
    _echo_alerts(result["alerts"], err=True)
    if result["error"]:
        click.echo(f"warning: {result['error']}", err=True)
