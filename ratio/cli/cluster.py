"""``ratio opensearch cluster ...``: a multi-node OpenSearch cluster on loopback, beside the single local node.

A subgroup rather than ``ratio opensearch start --nodes N``: a cluster has verbs a single node has not (stop
or restart one member, a rolling restart), its own state (several members, each with its ports), and it
runs beside the single node (9200) instead of replacing it, so ``ratio opensearch stop`` never has to
guess which of the two it means. :mod:`ratio.cli` adds the group under ``ratio opensearch``.
"""

from __future__ import annotations

import click
from rich.table import Table

from ratio.cli.common import emit, local_cluster
from ratio.cli.node import java_home_option, node_errors
from ratio.cli.options import json_option


@click.group()
def cluster() -> None:
    """A multi-node cluster on 127.0.0.1 (one installation, a home, ports and name per node)."""


@cluster.command("start")
@click.option("--nodes", type=click.IntRange(1, 9), help="Members (default 3, or as first created).")
@click.option("--port", type=click.IntRange(1024, 65535),
              help="HTTP port of node 1; node i listens on PORT+i-1 (default 9201, or the next free range).")
@click.option("--transport-port", type=click.IntRange(1024, 65535),
              help="Transport port of node 1 (default 9301, or the next free range).")
@click.option("--heap-mb", type=click.IntRange(min=256), help="JVM heap per node (default 512).")
@java_home_option
@json_option()
@node_errors
def cluster_start(nodes: int | None, port: int | None, transport_port: int | None, heap_mb: int | None,
                  java_home: str | None, as_json: bool) -> None:
    """Start the members that are not running (forming the cluster the first time) and wait until all joined.

    The shape (members, ports, heap) is fixed when the cluster is first created; a stopped or killed
    member is brought back by running this again.
    """
    info = local_cluster(java_home).start(nodes, http_port=port, transport_port=transport_port, heap_mb=heap_mb,
                                          progress=lambda message: click.echo(f"  {message}", err=True))
    if as_json:
        emit(info, True)
        return
    started = (f"started {', '.join(info['started'])} in {info['form_seconds']}s" if info["started"]
               else "already running")
    click.echo(f"OpenSearch {info['version']} cluster {info['name']}: {started}; {info['nodes_joined']} nodes, "
               f"{info['health']}, cluster manager {info['cluster_manager']}")
    click.echo(f"export OPENSEARCH_URL={','.join(info['urls'])}")


@cluster.command("stop")
@click.option("--node", "number", type=click.IntRange(min=1), help="Stop only this member (1, 2, ...).")
@node_errors
def cluster_stop(number: int | None) -> None:
    """Stop every member, or one."""
    local = local_cluster()
    if number:
        click.echo(f"stopped node {number}" if local.stop_node(number) else f"node {number} was not running")
        return
    stopped = local.stop()
    click.echo(f"stopped {', '.join(stopped)}" if stopped else "not running")


@cluster.command("restart")
@node_errors
def cluster_restart() -> None:
    """Rolling restart: each member in turn stopped and started, the cluster green again before the next."""
    for row in local_cluster().rolling_restart():
        click.echo(f"{row['node']}: back in {row['away_seconds']}s, green after {row['green_seconds']}s")


@cluster.command("status")
@json_option()
def cluster_status(as_json: bool) -> None:
    """The cluster's shape, each member, its health and its elected cluster manager."""
    info = local_cluster().status()
    table = Table("node", "running", "pid", "url", "transport", title=f"loopback cluster ({info['home']})")
    for row in info.get("members", []):
        table.add_row(row["node"], "yes" if row["running"] else "no", str(row["pid"] or ""), row["url"],
                      str(row["transport_port"]))
    emit(info, as_json, table)
    if not as_json and info["created"]:
        click.echo(f"health {info['health']}, {info['nodes_joined']} nodes joined, "
                   f"cluster manager {info['cluster_manager']}")
    elif not as_json:
        click.echo("no cluster yet: 'ratio opensearch cluster start'")


@cluster.command("logs")
@click.option("--node", "number", type=click.IntRange(min=1), default=1, show_default=True, help="Which member.")
@click.option("-n", "--lines", default=50, show_default=True, help="How many lines.")
@node_errors
def cluster_logs(number: int, lines: int) -> None:
    """The last lines of one member's log."""
    click.echo(local_cluster().member(number).logs(lines))
