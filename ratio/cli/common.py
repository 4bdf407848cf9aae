"""What the command modules share: the connection context, JSON-or-table output, the local node and cluster,
and the LLM.

Nothing here registers a command, so every command module can import it without importing the package
that assembles the group (:mod:`ratio.cli`), and there is no import cycle.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ratio import settings

if TYPE_CHECKING:  # imported where used: every command line (``ratio --help`` too) imports this module
    from opensearchpy import OpenSearch
    from rich.table import Table

    from backends.llm import LLM
    from backends.opensearch import ConnectionSettings, IndexLayout, LocalNode
    from backends.opensearch.cluster import LocalCluster

# Benchmarks by name: a queries file, a qrels file (both under --data) and what the qrels judge.
BENCHMARKS: dict[str, tuple[str, str, str]] = {
    "aila-precedents": ("aila-2019/Query_doc.txt", "aila-2019/relevance_judgments_priorcases.txt", "judgments"),
    "aila-statutes": ("aila-2019/Query_doc.txt", "aila-2019/relevance_judgments_statutes.txt", "provisions"),
    "irled": ("fire2017-irled-precedent/Current_Cases", "fire2017-irled-precedent/irled-qrel.txt", "judgments"),
}
DEFAULT_DATA = Path("../shared/data")  # the shared folder beside a checkout of the repository


def emit(data: Any, as_json: bool, table: Table | None = None) -> None:
    """``data`` as indented JSON for machines (or when there is no table), else the table for people."""
    if as_json or table is None:
        click.echo(json.dumps(data, indent=2, default=str))
    else:
        from rich.console import Console

        Console().print(table)


def local_node(port: int | None = None, heap_mb: int | None = None, java_home: str | None = None) -> LocalNode:
    """The local OpenSearch node under Ratio's data directory, as the settings describe it."""
    from backends.opensearch import LocalNode

    return LocalNode(home=settings.home_dir() / "opensearch", cache_dir=settings.cache_dir() / "maven",
                     port=port, heap_mb=heap_mb, java_home=settings.java_home(java_home),
                     repository_url=settings.maven_repository())


def local_cluster(java_home: str | None = None) -> LocalCluster:
    """The loopback cluster under ``$RATIO_HOME/opensearch-cluster``, sharing the local node's installation."""
    from backends.opensearch.cluster import LocalCluster

    return LocalCluster(settings.home_dir() / "opensearch-cluster", settings.cache_dir() / "maven",
                        install_home=settings.home_dir() / "opensearch", java_home=settings.java_home(java_home),
                        repository_url=settings.maven_repository())


def cluster_url() -> str | None:
    """Every member URL of the loopback cluster, comma-separated, when one of them runs (else None)."""
    cluster = local_cluster()
    return ",".join(cluster.urls) if cluster.running_urls() else None


class Context:
    """Connection options shared by every command that talks to a cluster (``ctx.obj`` of the group)."""

    def __init__(self, url: str | None, user: str | None, password: str | None, verify: bool, prefix: str):
        self.url, self.user, self.password, self.verify, self.prefix = url, user, password, verify, prefix

    def settings(self) -> ConnectionSettings:
        from backends.opensearch import ConnectionSettings

        url = self.url or local_node().url or cluster_url()
        if not url:
            raise click.ClickException(
                "no OpenSearch to talk to: start the local node with 'ratio opensearch start', "
                "or set OPENSEARCH_URL (and OPENSEARCH_USER/OPENSEARCH_PASSWORD) for an existing cluster"
            )
        return ConnectionSettings(url=url, user=self.user, password=self.password, verify_certs=self.verify)

    def client(self) -> OpenSearch:
        from backends.opensearch import connect

        return connect(self.settings())

    @property
    def layout(self) -> IndexLayout:
        from backends.opensearch import IndexLayout

        try:
            return IndexLayout(self.prefix)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--prefix") from exc

    def aliases(self) -> dict[str, str]:
        """Each index kind's alias under the prefix, as the search and alert layers take them."""
        return self.layout.aliases()


def configured_llm(llm_kind: str | None, llm_model: str | None, llm_url: str | None) -> LLM | None:
    """The LLM the ``--llm`` options and the environment ask for (None: none), errors as a message for the user."""
    from backends.llm import LLMError
    from ratio.llm import open_llm

    try:
        return open_llm(settings.LLMSettings.read(kind=llm_kind, model=llm_model, url=llm_url))
    except (ValueError, LLMError) as exc:
        raise click.ClickException(str(exc)) from exc


def import_lightgbm_alone() -> None:
    """Import LightGBM without its scikit-learn and pandas adapters, for a command that runs searches and exits.

    The learned ranker scores numpy arrays with a ``lightgbm.Booster``. Importing LightGBM also imports
    scikit-learn (and with it scipy.stats) and pandas when they are installed (the 'embed' extra brings
    scikit-learn): about 0.9 s of a search's start on a 2-core machine, for adapters Ratio never uses (training
    calls ``lightgbm.train`` on numpy arrays too). Hiding the two while LightGBM is first imported leaves its
    Booster and predictions as they are, and both stay importable afterwards. Only a command does this: it imports
    in one thread, where a server's other threads could be importing scikit-learn or pandas at the same moment.
    """
    import sys

    if "lightgbm" in sys.modules:
        return
    hidden = [name for name in ("sklearn", "pandas") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # their import raises ImportError: LightGBM goes without
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        pass  # the ranker says what is missing when it loads (search.ranking.model.RankerModel.load)
    finally:
        for name in hidden:
            sys.modules.pop(name, None)
