"""``ratio index --ray [ADDRESS]``: the options and the run of the distributed write path (indexer.ray_ingest).

Kept apart from ``ratio index`` itself, which only adds :func:`ray_options` and hands over to
:func:`index_on_ray` when ``--ray`` is given; Ray is imported only then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # ``ratio index --help`` imports this module: the write path and its models wait for a run
    from backends.opensearch import ConnectionSettings
    from indexer.loaders import LoadOptions
    from indexer.writer import BulkSettings
    from ratio.ingest import PipelineRecipe

LOCAL = "local"


def ray_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--ray [ADDRESS]``, ``--ray-workers``, ``--num-cpus``, ``--num-gpus`` and ``--block-size``."""
    command = click.option("--block-size", type=click.IntRange(min=1), default=64, show_default=True,
                           help="With --ray: loaded items per actor call (a block).")(command)
    command = click.option("--num-gpus", type=click.FloatRange(min=0), default=0.0, show_default=True,
                           help="With --ray: GPUs per worker (the encoder then runs on its GPU).")(command)
    command = click.option("--num-cpus", type=click.FloatRange(min=0), default=1.0, show_default=True,
                           help="With --ray: CPUs per worker.")(command)
    command = click.option("--ray-workers", type=click.IntRange(min=1), default=1, show_default=True,
                           help="With --ray: workers (actors) embedding, labelling and writing.")(command)
    return click.option(
        "--ray", "ray_address", is_flag=False, flag_value=LOCAL, default=None, metavar="[ADDRESS]",
        help="Run as a Ray Data job: on a local Ray instance ('--ray' alone, or the cluster RAY_ADDRESS names), "
             "or on the cluster at ADDRESS ('auto', 'ray://head:10001'). Every node needs Ratio, its models "
             "and a route to the OpenSearch URL.")(command)


def index_on_ray(paths: tuple[str, ...], *, address: str, recipe: PipelineRecipe, connection: ConnectionSettings,
                 aliases: dict[str, str], load_options: LoadOptions, bulk: BulkSettings, batch_size: int,
                 workers: int, num_cpus: float, num_gpus: float, block_size: int,
                 progress: Callable[[str, int], None], replace: bool = False):
    """Run the job; returns its :class:`indexer.ray_ingest.RayIndexReport`."""
    from indexer.ray_ingest import RaySettings, run_on_ray

    try:
        ray_settings = RaySettings(address=None if address == LOCAL else address, workers=workers,
                                   cpus_per_worker=num_cpus, gpus_per_worker=num_gpus, block_size=block_size,
                                   batch_size=batch_size)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    try:
        from ray.exceptions import RayError
    except ImportError as exc:
        raise click.ClickException("--ray needs Ray: pip install 'ratio[ray]'") from exc
    _quiet_ray()
    try:
        return run_on_ray(paths, make_pipeline=recipe, connection=connection, aliases=aliases,
                          settings=ray_settings, load_options=load_options, bulk=bulk, progress=progress,
                          replace_stored=replace)
    except RayError as exc:  # a worker could not start (no models, no route to OpenSearch) or crashed
        raise click.ClickException(f"the Ray job failed: {exc}") from exc
    except ValueError as exc:  # a pool too wide for the cluster
        raise click.BadParameter(str(exc), param_hint="--ray-workers") from exc


def _quiet_ray() -> None:
    """Ray Data's own progress lines off: the command has its progress bar and its report."""
    import logging

    from ray.data import DataContext

    context = DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    logging.getLogger("ray.data").setLevel(logging.WARNING)


def print_workers(result: Any) -> None:
    """The per-worker throughput table of a Ray run."""
    from rich.console import Console
    from rich.table import Table

    table = Table("worker", "blocks", "judgments", "sentences", "busy s", "judgments/s", "sentences/s",
                  title=f"Ray workers ({result.address})")
    for worker in result.workers:
        row = worker.as_dict()
        table.add_row(row["worker"], str(row["blocks"]), str(row["judgments"]), str(row["sentences"]),
                      f"{row['seconds']:.1f}", f"{row['judgments_per_s']:.2f}", f"{row['sentences_per_s']:.0f}")
    Console().print(table)
