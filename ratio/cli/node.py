"""``ratio opensearch``: install, start, stop and inspect the local OpenSearch node (127.0.0.1, security off)."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import click
from rich.table import Table

from backends.opensearch import NodeError
from backends.opensearch.artifacts import ArtifactError
from backends.opensearch.install import InstallError
from backends.opensearch.java import JavaNotFoundError
from ratio.cli.common import emit, local_node
from ratio.cli.options import json_option

java_home_option = click.option(
    "--java-home", help="JDK to use (default: $RATIO_JAVA_HOME, $JAVA_HOME, else the newest suitable one).")


def node_errors(func: Callable[..., Any]) -> Callable[..., Any]:
    """The node's own failures (Java missing, a bad download, a node that will not start) as a message."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (NodeError, InstallError, ArtifactError, JavaNotFoundError) as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


@click.group()
def opensearch() -> None:
    """Install and run the local OpenSearch node (127.0.0.1, security off)."""


@opensearch.command()
@java_home_option
@node_errors
def install(java_home: str | None) -> None:
    """Fetch, verify and assemble OpenSearch and its plugins (does nothing if already installed)."""
    node = local_node(java_home=java_home)
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
@java_home_option
@node_errors
def start(port: int | None, heap_mb: int | None, java_home: str | None) -> None:
    """Start the local node, installing it first if needed; waits until it is healthy."""
    node = local_node(port, heap_mb, java_home)
    if node.state():
        click.echo(f"already running at {node.url}")
        return
    state = node.start(progress=lambda message: click.echo(f"  {message}", err=True))
    click.echo(f"OpenSearch {state['version']} running at {state['url']} (pid {state['pid']}, "
               f"heap {state['heap_mb']} MB, Java {state['java_version']}, up in {state['start_seconds']}s)")


@opensearch.command()
@node_errors
def stop() -> None:
    """Stop the local node."""
    click.echo("stopped" if local_node().stop() else "not running")


@opensearch.command("status")
@json_option()
def node_status(as_json: bool) -> None:
    """Whether the local node is installed and running, and where."""
    info = local_node().status()
    table = Table("setting", "value", title="local OpenSearch node")
    for key, value in info.items():
        table.add_row(key, str(value))
    emit(info, as_json, table)


@opensearch.command()
@click.option("-n", "--lines", default=50, show_default=True, help="How many lines.")
def logs(lines: int) -> None:
    """The last lines of the local node's log."""
    click.echo(local_node().logs(lines))
