"""The ``ratio`` command line: one click group, assembled here from the command modules.

Each module under ``ratio/cli/`` defines its commands as plain click commands and groups and imports only
:mod:`ratio.cli.common` and :mod:`ratio.cli.options` (never this package), so there is no import cycle. The
group loads them lazily (:mod:`ratio.cli.lazy`): :data:`COMMANDS` says where each command lives and what its
``--help`` row says, and a command's module is imported only when that command is asked for, so ``ratio --help``,
``ratio --version`` and ``ratio COMMAND --help`` start in well under a second (``ratio --help`` lists them
alphabetically). A new command is a module and an entry in :data:`COMMANDS`; a new model to train
(``ratio train ranker``, say) is an entry in :data:`TRAINERS`. ``tests/ratio/test_cli_startup.py`` checks both
tables against the commands themselves.
"""

from __future__ import annotations

import click

from ratio.cli.common import Context
from ratio.cli.errors import RatioGroup
from ratio.cli.lazy import LazyCommand, LazyGroup
from ratio.cli.options import connection_options

__all__ = ["COMMANDS", "TRAINERS", "cli", "main"]

# ``ratio train NAME``: the trainers, by name.
TRAINERS: dict[str, LazyCommand] = {
    "embedder": LazyCommand("ratio.cli.train_pairs:embedder_command",
                            "Fine-tune the bi-encoder (MultipleNegativesRankingLoss); use it with --encoder PATH or "
                            "RATIO_ENCODER."),
    "facts-encoder": LazyCommand("ratio.cli.train_facts:train_facts_encoder",
                                 "Tune the facts encoder on citation pairs (two cross-fitted halves) and write its "
                                 "vectors into the indices."),
    "ranker": LazyCommand("ratio.cli.train_ranker:train_ranker",
                          "Train the learned ranker and write its model folder with a card (features, data, seed, "
                          "metrics)."),
    "reranker": LazyCommand("ratio.cli.train_pairs:reranker_command",
                            "Train a cross-encoder reranker; use it with --reranker PATH, RATIO_RERANKER or "
                            "Client(reranker=PATH)."),
    "roles": LazyCommand("ratio.cli.train_roles:train_roles",
                         "Rebuild the rhetorical-role head reproducibly (same data and seed, same head)."),
}

# ``ratio NAME``: every command, by name (``train`` is the group below).
COMMANDS: dict[str, LazyCommand] = {
    "alerts": LazyCommand("ratio.cli.alerts:alerts_group",
                          "Saved searches: save a query, then learn which newly indexed judgments match it."),
    "ask": LazyCommand("ratio.cli.ask:ask_command",
                       "Answer QUESTION from the passages Ratio retrieves, citing them, or say why it cannot."),
    "bench": LazyCommand("ratio.cli.bench:bench", "Measure Ratio on this machine.",
                         subcommands=("ratio.cli.knn:bench_knn", "ratio.cli.bench_scale:bench_scale")),
    "cite-check": LazyCommand("ratio.cli.cite:cite_check_command",
                              "Check the citations in a brief or draft (FILE, or stdin with '-') against the corpus."),
    "dashboards": LazyCommand("ratio.cli.dashboards:dashboards_group",
                              "OpenSearch Dashboards: index patterns, visualisations and an overview dashboard."),
    "eval": LazyCommand("ratio.cli.eval:eval_group", "Retrieval quality on benchmarks with relevance judgments."),
    "explain": LazyCommand("ratio.cli.read:explain_command",
                           "Why JUDGMENT_ID matches QUERY, in one line (the LLM's when one is set, checked against "
                           "the judgment)."),
    "index": LazyCommand("ratio.cli.index:index",
                         "Index judgments and statutes from files, directories or globs (.txt, .txt.gz, .json, "
                         ".jsonl, .pdf, .html)."),
    "indices": LazyCommand("ratio.cli.indices:indices",
                           "Create, list and upgrade Ratio's indices (judgments, chunks, provisions)."),
    "judgment": LazyCommand("ratio.cli.read:judgment_command",
                            "One judgment: metadata, summary, who it cites and who cites it (--json: sentences and "
                            "roles too)."),
    "llm": LazyCommand("ratio.cli.llm:llm_group", "The optional LLM: query expansion and explanations."),
    "opensearch": LazyCommand("ratio.cli.node:opensearch",
                              "Install and run the local OpenSearch node (127.0.0.1, security off).",
                              subcommands=("ratio.cli.cluster:cluster",)),
    "provisions": LazyCommand("ratio.cli.read:provisions_command",
                              "Statute provisions for a question or a description of facts (BM25 and vectors, "
                              "fused)."),
    "search": LazyCommand("ratio.cli.search:search_command",
                          "Search judgments: the learned ranker orders candidates from BM25 over reduced queries, "
                          "citations and provisions by role, meaning and citation evidence; the fusion path (BM25 + "
                          "k-NN over role chunks) runs where it cannot (a filter-only search, a role filter, "
                          "--rerank, issue expansion), and the result says so."),
    "serve": LazyCommand("ratio.cli.serve:serve_command",
                         "Serve the REST API (/api/v1, OpenAPI at /api/v1/openapi.json) and the search pages."),
    "status": LazyCommand("ratio.cli.indices:status",
                          "The cluster's health and version, the plugins it loaded, and Ratio's indices."),
}


class RootGroup(RatioGroup, LazyGroup):
    """The ``ratio`` group: errors in one line (:class:`RatioGroup`), commands loaded lazily (:class:`LazyGroup`)."""


@click.group("ratio", cls=RootGroup, lazy=COMMANDS)
@click.version_option(package_name="ratio", prog_name="ratio", message="%(prog)s %(version)s")
@connection_options
@click.pass_context
def cli(ctx: click.Context, url: str | None, user: str | None, password: str | None,
        verify_certs: bool, prefix: str) -> None:
    """Ratio: search over court judgments, backed by OpenSearch."""
    ctx.obj = Context(url, user, password, verify_certs, prefix)


@cli.group(cls=LazyGroup, lazy=TRAINERS)
def train() -> None:
    """Train Ratio's own models: the rhetorical-role head, the reranker, the bi-encoder and the learned ranker."""


def main() -> None:
    """The console script ``ratio`` (and ``python -m ratio.cli``)."""
    cli(prog_name="ratio")
