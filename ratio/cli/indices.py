"""``ratio indices`` (create, list, upgrade Ratio's indices) and ``ratio status`` (the cluster and its indices)."""

from __future__ import annotations

import click
from opensearchpy import OpenSearch
from opensearchpy.exceptions import OpenSearchException
from rich.table import Table

import analyzers
import mappings
from backends.encoders import INDEX_ENCODER, encoder_dimension
from backends.opensearch import indices as os_indices
from backends.opensearch.client import plugin_names
from ratio.cli.common import Context, emit
from ratio.cli.options import apply, encoder_option, json_option


def _index_options(client: OpenSearch, engine: str, encoder: str, dimension: int | None, replicas: int | None,
                   shards: int | None, quantisation: str = "none") -> mappings.IndexOptions:
    """The index options asked for, with shards and replicas not given fitted to the cluster's data nodes."""
    dimension = dimension or encoder_dimension(encoder)
    if dimension is None:
        raise click.ClickException(f"unknown encoder {encoder!r}: pass --dimension")
    try:
        options = mappings.IndexOptions(dimension=dimension, engine=engine, encoder=encoder,
                                        quantisation=quantisation)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        return os_indices.fit_to_cluster(client, options, shards=shards, replicas=replicas)
    except OpenSearchException as exc:
        raise click.ClickException(f"OpenSearch refused: {exc}") from exc


index_definition_options = apply(
    click.option("--engine", envvar="RATIO_KNN_ENGINE", default="lucene", show_default=True,
                 type=click.Choice(mappings.ENGINES), help="k-NN engine (faiss needs native libraries)."),
    encoder_option(default=INDEX_ENCODER, help="Bi-encoder whose dimension the vector fields take."),
    click.option("--dimension", type=int, help="Vector dimension (default: the encoder's)."),
    click.option("--language", default="en", show_default=True, type=click.Choice(list(analyzers.LANGUAGES)),
                 help="Analysis language of the text fields."),
    click.option("--replicas", type=click.IntRange(min=0),
                 help="Replicas per shard (default: 1 on a cluster of two or more data nodes, else 0)."),
    click.option("--shards", type=click.IntRange(min=1),
                 help="Primary shards per index (default: one per data node)."),
    click.option("--quantisation", default="none", show_default=True, type=click.Choice(mappings.QUANTISATIONS),
                 help="Vector storage: sq = the lucene engine's 7-bit scalar quantiser (3.7x less memory per "
                      "vector, lower k-NN recall; docs/capacity.md)."),
)


@click.group()
def indices() -> None:
    """Create, list and upgrade Ratio's indices (judgments, chunks, provisions)."""


@indices.command("create")
@index_definition_options
@json_option()
@click.pass_obj
def indices_create(ctx: Context, engine: str, encoder: str, dimension: int | None, language: str,
                   replicas: int | None, shards: int | None, quantisation: str, as_json: bool) -> None:
    """Create the indices behind their aliases and install the search pipelines (idempotent)."""
    client = ctx.client()
    options = _index_options(client, engine, encoder, dimension, replicas, shards, quantisation)
    try:
        report = os_indices.create_indices(client, ctx.layout, options, language=language)
        pipelines = os_indices.install_pipelines(client)
    except OpenSearchException as exc:
        raise click.ClickException(f"OpenSearch refused: {exc}") from exc
    table = Table("kind", "alias", "index", "created", title="indices")
    for kind, row in report.items():
        table.add_row(kind, row["alias"], str(row["index"]),
                      "yes" if row["created"] else row.get("skipped", "already there"))
    emit({"indices": report, "pipelines": pipelines}, as_json, table)
    if not as_json:
        for name, installed in pipelines.items():
            click.echo(f"search pipeline {name}: {'installed' if installed else 'skipped (no neural-search)'}")


@indices.command("list")
@json_option()
@click.pass_obj
def indices_list(ctx: Context, as_json: bool) -> None:
    """Each alias, the index version behind it and its document count."""
    info = os_indices.describe(ctx.client(), ctx.layout)
    columns = ("documents", "dimension", "engine", "quantisation", "language", "encoder")
    table = Table("kind", "alias", "index", *columns, title="indices")
    for kind, row in info.items():
        table.add_row(kind, row["alias"], str(row["index"]), *(str(row.get(k, "")) for k in columns))
    emit(info, as_json, table)


@indices.command("upgrade")
@click.argument("kind", type=click.Choice(mappings.INDEX_KINDS))
@index_definition_options
@click.option("--delete-old", is_flag=True, help="Delete the previous version after the switch.")
@click.pass_obj
def indices_upgrade(ctx: Context, kind: str, engine: str, encoder: str, dimension: int | None, language: str,
                    replicas: int | None, shards: int | None, quantisation: str, delete_old: bool) -> None:
    """Rebuild KIND as a new version with the current definitions and switch its alias atomically."""
    client = ctx.client()
    options = _index_options(client, engine, encoder, dimension, replicas, shards, quantisation)
    try:
        result = os_indices.upgrade_index(client, ctx.layout, kind, options, language=language,
                                          delete_old=delete_old)
    except (os_indices.IndexOperationError, OpenSearchException) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{result['alias']}: {result['from']} -> {result['to']} ({result['documents']} documents)")


@indices.command("analysis")
@click.argument("kinds", nargs=-1, type=click.Choice(mappings.INDEX_KINDS))
@click.pass_obj
def indices_analysis(ctx: Context, kinds: tuple[str, ...]) -> None:
    """Put the current analysis settings on KINDS (default: all) in place: close, update, open.

    Only for changes that keep the tokens, such as the linear char filters of issue 29 (docs/hardening.md); any
    other analysis change needs 'ratio indices upgrade KIND'. Searches of an index fail while it is closed.
    """
    try:
        report = os_indices.update_analysis(ctx.client(), ctx.layout, kinds or mappings.INDEX_KINDS)
    except OpenSearchException as exc:
        raise click.ClickException(f"OpenSearch refused: {exc}") from exc
    for kind, index in report.items():
        click.echo(f"{kind}: {index} updated" if index else f"{kind}: no index behind {ctx.layout.alias(kind)}")


@click.command()
@json_option()
@click.pass_obj
def status(ctx: Context, as_json: bool) -> None:
    """The cluster's health and version, the plugins it loaded, and Ratio's indices."""
    client = ctx.client()
    try:
        info = client.info()
        health = client.cluster.health()
        plugins = sorted(plugin_names(client))
        layout_info = os_indices.describe(client, ctx.layout)
    except OpenSearchException as exc:
        raise click.ClickException(f"cannot reach OpenSearch at {ctx.settings().url}: {exc}") from exc
    data = {"url": ctx.settings().url, "version": info["version"]["number"], "cluster": info["cluster_name"],
            "health": health["status"], "nodes": health["number_of_nodes"], "plugins": plugins,
            "indices": layout_info}
    table = Table("", "", title=f"OpenSearch at {data['url']}")
    for key in ("version", "cluster", "health", "nodes"):
        table.add_row(key, str(data[key]))
    table.add_row("plugins", ", ".join(plugins) or "(none)")
    for kind, row in layout_info.items():
        table.add_row(f"index {kind}", f"{row['index']} ({row.get('documents', 0)} documents)"
                      if row["index"] else "not created")
    emit(data, as_json, table)
