"""``ratio dashboards``: export or import the OpenSearch Dashboards objects for Ratio's indices.

Both commands generate the objects for the chosen index prefix (see :mod:`ratio.dashboards`), so a deployment
with ``RATIO_INDEX_PREFIX=acme`` gets patterns over ``acme-judgments`` and ``acme-chunks`` without editing JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from ratio.cli.common import Context
from ratio.cli.options import json_option
from ratio.dashboards import DashboardsImportError, import_saved_objects, saved_objects, to_ndjson

PREFIX_HELP = "Index prefix (default: the global --prefix, RATIO_INDEX_PREFIX, or 'ratio')."


def _ndjson(ctx: Context, prefix: str | None) -> str:
    try:
        return to_ndjson(saved_objects(prefix or ctx.prefix))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--prefix") from exc


@click.group("dashboards")
def dashboards_group() -> None:
    """OpenSearch Dashboards: index patterns, visualisations and an overview dashboard."""


@dashboards_group.command("export")
@click.option("--prefix", help=PREFIX_HELP)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the ndjson file here (default: standard output).")
@click.pass_obj
def export_command(ctx: Context, prefix: str | None, out: Path | None) -> None:
    """Print (or write) the saved objects in the ndjson format of Dashboards' import."""
    text = _ndjson(ctx, prefix)
    if out is None:
        click.echo(text, nl=False)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    click.echo(f"wrote {text.count(chr(10))} saved objects to {out}", err=True)


@dashboards_group.command("import")
@click.option("--url", "dashboards_url", envvar="RATIO_DASHBOARDS_URL", default="http://localhost:5601",
              show_default=True, help="OpenSearch Dashboards URL (not the OpenSearch one).")
@click.option("--prefix", help=PREFIX_HELP)
@json_option(help="Print Dashboards' answer as JSON.")
@click.pass_obj
def import_command(ctx: Context, dashboards_url: str, prefix: str | None, as_json: bool) -> None:
    """Import the saved objects into a running Dashboards, overwriting earlier copies.

    With the security plugin on, Dashboards takes the same users as OpenSearch: OPENSEARCH_USER and
    OPENSEARCH_PASSWORD (or the global --user/--password) are sent as basic auth.
    """
    auth = (ctx.user, ctx.password or "") if ctx.user else None
    try:
        result = import_saved_objects(dashboards_url, _ndjson(ctx, prefix), auth=auth, verify=ctx.verify)
    except DashboardsImportError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        click.echo(f"imported {result.get('successCount', 0)} saved objects into {dashboards_url}")
