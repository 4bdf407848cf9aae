"""``ratio bench graph``: the citation graph at a chosen size (default a million judgments) on a synthetic corpus
with the real one's shape: build, save, start-up from the snapshot, memory (:mod:`lab.bench.graph`)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from ratio.cli.common import emit
from ratio.cli.options import json_option


@click.command("graph")
@click.option("--nodes", default=1_000_000, show_default=True, type=click.IntRange(min=100),
              help="Judgments in the synthetic corpus.")
@click.option("--edges-per-node", type=click.FloatRange(min=0.0), default=None,
              help="Mean resolved citations a judgment (default: AILA's measured mean out-degree).")
@click.option("--dict-nodes", type=click.IntRange(min=0), default=0, show_default=True,
              help="Also measure the old dict-of-tuples state at this size (0: skip; e.g. 100000).")
@click.option("--folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where the snapshot is written and removed (default: the system's temporary folder).")
@click.option("--seed", default=0, show_default=True)
@json_option()
def bench_graph(nodes: int, edges_per_node: float | None, dict_nodes: int, folder: Path | None, seed: int,
                as_json: bool) -> None:
    """Build, save and load back the citation graph of NODES synthetic judgments: power-law in-degree, AILA's
    mean out-degree and unresolved citations per judgment; the load runs in a fresh process, as a server starts."""
    from lab.bench.graph import REAL_OUT_DEGREE, measure

    result = measure(nodes, REAL_OUT_DEGREE if edges_per_node is None else edges_per_node, seed=seed,
                     dict_nodes=dict_nodes or None, folder=folder)
    data = result.as_dict()
    table = Table(title=f"citation graph, {nodes:,} synthetic judgments")
    table.add_column("measure")
    table.add_column("value", justify="right")
    for key, value in data.items():
        shown = f"{value / 2**20:,.1f} MiB" if key.endswith("bytes") and value is not None else f"{value}"
        table.add_row(key, shown)
    emit(data, as_json, table)
