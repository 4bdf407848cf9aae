"""The ``ratio`` command line: the local node, the indices, and the cluster's status."""

from __future__ import annotations

import json
import time
from typing import Any

import click
from opensearchpy import OpenSearch
from opensearchpy.exceptions import OpenSearchException
from rich.console import Console
from rich.table import Table

import mappings
from backends.encoders import INDEX_ENCODER, encoder_dimension
from backends.opensearch import ConnectionSettings, IndexLayout, LocalNode, NodeError, connect
from backends.opensearch import indices as os_indices
from backends.opensearch.artifacts import ArtifactError
from backends.opensearch.client import plugin_names
from backends.opensearch.install import InstallError
from backends.opensearch.java import JavaNotFoundError
from ratio import settings

console = Console()


def _emit(data: Any, as_json: bool, table: Table | None = None) -> None:
    if as_json or table is None:
        click.echo(json.dumps(data, indent=2, default=str))
    else:
        console.print(table)


def _node(port: int | None = None, heap_mb: int | None = None, java_home: str | None = None) -> LocalNode:
    return LocalNode(home=settings.home_dir() / "opensearch", cache_dir=settings.cache_dir() / "maven",
                     port=port, heap_mb=heap_mb, java_home=settings.java_home(java_home),
                     repository_url=settings.maven_repository())


def _cluster_url() -> str | None:
    """Every member URL of the loopback cluster, comma-separated, when one of them runs (else None)."""
    from ratio.cli_cluster import local_cluster

    cluster = local_cluster()
    return ",".join(cluster.urls) if cluster.running_urls() else None


class Context:
    """Connection options shared by every command that talks to a cluster."""

    def __init__(self, url: str | None, user: str | None, password: str | None, verify: bool, prefix: str):
        self.url, self.user, self.password, self.verify, self.prefix = url, user, password, verify, prefix

    def settings(self) -> ConnectionSettings:
        url = self.url or _node().url or _cluster_url()
        if not url:
            raise click.ClickException(
                "no OpenSearch to talk to: start the local node with 'ratio opensearch start', "
                "or set OPENSEARCH_URL (and OPENSEARCH_USER/OPENSEARCH_PASSWORD) for an existing cluster"
            )
        return ConnectionSettings(url=url, user=self.user, password=self.password, verify_certs=self.verify)

    def client(self) -> OpenSearch:
        return connect(self.settings())

    @property
    def layout(self) -> IndexLayout:
        try:
            return IndexLayout(self.prefix)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--prefix") from exc


@click.group()
@click.option("--url", envvar="OPENSEARCH_URL", help="OpenSearch URL (default: the local node).")
@click.option("--user", envvar="OPENSEARCH_USER", help="OpenSearch user name.")
@click.option("--password", envvar="OPENSEARCH_PASSWORD", help="OpenSearch password (never printed).")
@click.option("--verify-certs/--no-verify-certs", envvar="OPENSEARCH_VERIFY_CERTS", default=True,
              help="Verify TLS certificates.")
@click.option("--prefix", envvar="RATIO_INDEX_PREFIX", default="ratio", show_default=True,
              help="Prefix of Ratio's index aliases.")
@click.pass_context
def cli(ctx: click.Context, url: str | None, user: str | None, password: str | None,
        verify_certs: bool, prefix: str) -> None:
    """Ratio: search over court judgments, backed by OpenSearch."""
    ctx.obj = Context(url, user, password, verify_certs, prefix)


# --------------------------------------------------------------------------- the local node
@cli.group()
def opensearch() -> None:
    """Install and run the local OpenSearch node (127.0.0.1, security off)."""


def _node_errors(func: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (NodeError, InstallError, ArtifactError, JavaNotFoundError) as exc:
            raise click.ClickException(str(exc)) from exc
    wrapper.__name__, wrapper.__doc__ = func.__name__, func.__doc__
    return wrapper


@opensearch.command()
@click.option("--java-home", help="JDK to use (default: $RATIO_JAVA_HOME, $JAVA_HOME, else the newest suitable one).")
@_node_errors
def install(java_home: str | None) -> None:
    """Fetch, verify and assemble OpenSearch and its plugins (does nothing if already installed)."""
    node = _node(java_home=java_home)
    started = time.monotonic()
    if node.is_installed():
        click.echo(f"OpenSearch {node.manifest.version} already installed in {node.install_dir}")
        return
    node.install(progress=lambda message: click.echo(f"  {message}", err=True))
    click.echo(f"installed OpenSearch {node.manifest.version} in {node.install_dir} "
               f"({time.monotonic() - started:.1f}s)")


@opensearch.command()
@click.option("--port", type=click.IntRange(1, 65535), envvar="RATIO_OPENSEARCH_PORT",
              help="HTTP port; the start fails if it is taken (default: 9200, or a free one when 9200 is taken).")
@click.option("--heap-mb", type=int, envvar="RATIO_OPENSEARCH_HEAP_MB", help="JVM heap (default: RAM/8).")
@click.option("--java-home", help="JDK to use (default: $RATIO_JAVA_HOME, $JAVA_HOME, else the newest suitable one).")
@_node_errors
def start(port: int | None, heap_mb: int | None, java_home: str | None) -> None:
    """Start the local node, installing it first if needed; waits until it is healthy."""
    node = _node(port, heap_mb, java_home)
    if node.state():
        click.echo(f"already running at {node.url}")
        return
    state = node.start(progress=lambda message: click.echo(f"  {message}", err=True))
    click.echo(f"OpenSearch {state['version']} running at {state['url']} (pid {state['pid']}, "
               f"heap {state['heap_mb']} MB, Java {state['java_version']}, up in {state['start_seconds']}s)")


@opensearch.command()
@_node_errors
def stop() -> None:
    """Stop the local node."""
    click.echo("stopped" if _node().stop() else "not running")


@opensearch.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def node_status(as_json: bool) -> None:
    """Whether the local node is installed and running, and where."""
    info = _node().status()
    table = Table("setting", "value", title="local OpenSearch node")
    for key, value in info.items():
        table.add_row(key, str(value))
    _emit(info, as_json, table)


@opensearch.command()
@click.option("-n", "--lines", default=50, show_default=True, help="How many lines.")
def logs(lines: int) -> None:
    """The last lines of the local node's log."""
    click.echo(_node().logs(lines))


# --------------------------------------------------------------------------- indices
@cli.group()
def indices() -> None:
    """Create, list and upgrade Ratio's indices (judgments, chunks, provisions)."""


def _index_options(
    client: OpenSearch, engine: str, encoder: str, dimension: int | None, replicas: int | None, shards: int | None
) -> mappings.IndexOptions:
    """The index options asked for, with shards and replicas not given fitted to the cluster's data nodes."""
    dimension = dimension or encoder_dimension(encoder)
    if dimension is None:
        raise click.ClickException(f"unknown encoder {encoder!r}: pass --dimension")
    try:
        options = mappings.IndexOptions(dimension=dimension, engine=engine, encoder=encoder)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        return os_indices.fit_to_cluster(client, options, shards=shards, replicas=replicas)
    except OpenSearchException as exc:
        raise click.ClickException(f"OpenSearch refused: {exc}") from exc


_index_option_decorators = [
    click.option("--engine", envvar="RATIO_KNN_ENGINE", default="lucene", show_default=True,
                 type=click.Choice(mappings.ENGINES), help="k-NN engine (faiss needs native libraries)."),
    click.option("--encoder", envvar="RATIO_ENCODER", default=INDEX_ENCODER, show_default=True,
                 help="Bi-encoder whose dimension the vector fields take."),
    click.option("--dimension", type=int, help="Vector dimension (default: the encoder's)."),
    click.option("--language", default="en", show_default=True, type=click.Choice(["en", "ko", "cjk"]),
                 help="Analysis language of the text fields."),
    click.option("--replicas", type=click.IntRange(min=0),
                 help="Replicas per shard (default: 1 on a cluster of two or more data nodes, else 0)."),
    click.option("--shards", type=click.IntRange(min=1),
                 help="Primary shards per index (default: one per data node)."),
]


def _with_index_options(func: Any) -> Any:
    for decorator in reversed(_index_option_decorators):
        func = decorator(func)
    return func


@indices.command("create")
@_with_index_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def indices_create(ctx: Context, engine: str, encoder: str, dimension: int | None, language: str,
                   replicas: int | None, shards: int | None, as_json: bool) -> None:
    """Create the indices behind their aliases and install the search pipelines (idempotent)."""
    client = ctx.client()
    options = _index_options(client, engine, encoder, dimension, replicas, shards)
    try:
        report = os_indices.create_indices(client, ctx.layout, options, language=language)
        pipelines = os_indices.install_pipelines(client)
    except OpenSearchException as exc:
        raise click.ClickException(f"OpenSearch refused: {exc}") from exc
    table = Table("kind", "alias", "index", "created", title="indices")
    for kind, row in report.items():
        table.add_row(kind, row["alias"], str(row["index"]),
                      "yes" if row["created"] else row.get("skipped", "already there"))
    _emit({"indices": report, "pipelines": pipelines}, as_json, table)
    if not as_json:
        for name, installed in pipelines.items():
            click.echo(f"search pipeline {name}: {'installed' if installed else 'skipped (no neural-search)'}")


@indices.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_obj
def indices_list(ctx: Context, as_json: bool) -> None:
    """Each alias, the index version behind it and its document count."""
    info = os_indices.describe(ctx.client(), ctx.layout)
    table = Table("kind", "alias", "index", "documents", "dimension", "engine", "language", "encoder",
                  title="indices")
    for kind, row in info.items():
        table.add_row(kind, row["alias"], str(row["index"]), *(str(row.get(k, "")) for k in
                      ("documents", "dimension", "engine", "language", "encoder")))
    _emit(info, as_json, table)


@indices.command("upgrade")
@click.argument("kind", type=click.Choice(mappings.INDEX_KINDS))
@_with_index_options
@click.option("--delete-old", is_flag=True, help="Delete the previous version after the switch.")
@click.pass_obj
def indices_upgrade(ctx: Context, kind: str, engine: str, encoder: str, dimension: int | None, language: str,
                    replicas: int | None, shards: int | None, delete_old: bool) -> None:
    """Rebuild KIND as a new version with the current definitions and switch its alias atomically."""
    client = ctx.client()
    options = _index_options(client, engine, encoder, dimension, replicas, shards)
    try:
        result = os_indices.upgrade_index(client, ctx.layout, kind, options, language=language,
                                          delete_old=delete_old)
    except (os_indices.IndexOperationError, OpenSearchException) as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{result['alias']}: {result['from']} -> {result['to']} ({result['documents']} documents)")


# --------------------------------------------------------------------------- status
@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
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
    _emit(data, as_json, table)


from ratio import (  # noqa: E402,F401 - register the other commands
    cli_alerts,
    cli_ask,
    cli_bench,
    cli_cite,
    cli_cluster,
    cli_dashboards,
    cli_eval,
    cli_index,
    cli_llm,
    cli_search,
    cli_serve,
    cli_train,
)


def main() -> None:
    cli(prog_name="ratio")
