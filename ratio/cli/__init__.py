"""The ``ratio`` command line: one click group, assembled here from the command modules.

Each module under ``ratio/cli/`` defines its commands as plain click commands and groups and imports only
:mod:`ratio.cli.common` and :mod:`ratio.cli.options` (never this package), so there is no import cycle and
every command is added below, once (``ratio --help`` lists them alphabetically). A new command is a module
and a line here; a new model to train (``ratio train ranker``, say) is a command added to the ``train`` group
below.
"""

from __future__ import annotations

import click

from ratio.cli import (
    alerts,
    ask,
    bench,
    cite,
    cluster,
    dashboards,
    index,
    indices,
    knn,
    llm,
    node,
    read,
    search,
    serve,
    train_pairs,
    train_ranker,
    train_roles,
)
from ratio.cli import eval as evaluation
from ratio.cli.common import Context
from ratio.cli.errors import RatioGroup
from ratio.cli.options import connection_options

__all__ = ["cli", "main"]


@click.group("ratio", cls=RatioGroup)
@click.version_option(package_name="ratio", prog_name="ratio", message="%(prog)s %(version)s")
@connection_options
@click.pass_context
def cli(ctx: click.Context, url: str | None, user: str | None, password: str | None,
        verify_certs: bool, prefix: str) -> None:
    """Ratio: search over court judgments, backed by OpenSearch."""
    ctx.obj = Context(url, user, password, verify_certs, prefix)


@click.group()
def train() -> None:
    """Train Ratio's own models: the rhetorical-role head, the reranker, the bi-encoder and the learned ranker."""


node.opensearch.add_command(cluster.cluster)
bench.bench.add_command(knn.bench_knn)

for command in (train_roles.train_roles, train_pairs.reranker_command, train_pairs.embedder_command,
                train_ranker.train_ranker):
    train.add_command(command)

for command in (
    node.opensearch,
    indices.indices,
    indices.status,
    index.index,
    search.search_command,
    read.judgment_command,
    read.explain_command,
    read.provisions_command,
    ask.ask_command,
    cite.cite_check_command,
    alerts.alerts_group,
    llm.llm_group,
    evaluation.eval_group,
    bench.bench,
    train,
    dashboards.dashboards_group,
    serve.serve_command,
):
    cli.add_command(command)


def main() -> None:
    """The console script ``ratio`` (and ``python -m ratio.cli``)."""
    cli(prog_name="ratio")
