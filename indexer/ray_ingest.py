"""``ratio index --ray``: the same write path as a Ray Data job, on a local Ray instance or a Ray cluster.

The job has two stages. Reading and parsing (decoding, metadata, citations: :func:`indexer.loaders.load` on
one file) runs in Ray tasks, one file at a time. Embedding, role labelling and the bulk writes run in a pool
of actors, each holding one :class:`~indexer.pipeline.Pipeline` (models loaded once per actor, on a GPU when
``num_gpus`` asks for one) and handing each block of loaded items to :meth:`IndexWriter.run
<indexer.writer.IndexWriter.run>`, the single-machine writer itself. So every judgment gets what ``ratio
index`` gives it: the same document ids, the same stored-hash check (unchanged judgments cost nothing), chunks
before the judgment document that commits them, and the same failure report, now summed over blocks. Periodic
refresh is paused once by the driver for the whole job and one refresh ends it, rather than per block.

Ray is imported here only, and only when a job runs: the default path (``ratio index`` without ``--ray``)
never imports it. On a cluster every node needs Ratio installed (same version) and its models, and every node
must reach the OpenSearch URL the driver was given (a loopback URL only works on a local instance).
"""

from __future__ import annotations

import os
import pickle
import socket
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from backends.opensearch import ConnectionSettings, connect
from indexer import bulk_settings
from indexer.document import LoadError
from indexer.loaders import LoadOptions, iter_files, load
from indexer.pipeline import Pipeline
from indexer.writer import BulkSettings, IndexReport, IndexWriter, written_indices

PipelineFactory = Callable[[], Pipeline]  # builds the pipeline inside each actor (models load there)
Progress = Callable[[str, int], None]

_PROJECT_ROOT = Path(__file__).resolve().parents[1]
# CPUs each read-and-parse task asks for: the actor pool must leave at least this much free, or the reads wait
# for CPUs the actors hold while the actors wait for blocks, for ever.
READ_CPUS = 0.5


@dataclass(frozen=True)
class RaySettings:
    """Where the job runs and how wide.

    ``address`` is what ``ray.init`` takes (``"auto"``, ``"ray://head:10001"``); None starts a local instance
    (or joins the one ``RAY_ADDRESS`` names, as Ray itself decides). ``workers`` is the size of the actor pool;
    each actor asks for ``cpus_per_worker`` CPUs and ``gpus_per_worker`` GPUs. ``block_size`` is the number
    of loaded items (judgments, provisions, load errors) one actor call receives; the writer then processes
    them ``batch_size`` judgments at a time, as on one machine.
    """

    address: str | None = None
    workers: int = 1
    cpus_per_worker: float = 1.0
    gpus_per_worker: float = 0.0
    block_size: int = 64
    batch_size: int = 16

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be >= 1, not {self.workers}")
        if self.block_size < 1 or self.batch_size < 1:
            raise ValueError("block and batch sizes must be >= 1")
        if self.cpus_per_worker < 0 or self.gpus_per_worker < 0:
            raise ValueError("CPUs and GPUs per worker must be >= 0")


@dataclass(frozen=True)
class WorkerThroughput:
    """What one actor did: judgments and sentences indexed, over the seconds it spent on its blocks."""

    worker: str
    blocks: int
    judgments: int
    sentences: int
    seconds: float

    @property
    def judgments_per_s(self) -> float:
        return self.judgments / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"worker": self.worker, "blocks": self.blocks, "judgments": self.judgments,
                "sentences": self.sentences, "seconds": round(self.seconds, 2),
                "judgments_per_s": round(self.judgments_per_s, 3),
                "sentences_per_s": round(self.sentences / self.seconds, 1) if self.seconds > 0 else 0.0}


@dataclass
class RayIndexReport:
    """The summed :class:`IndexReport` of every block, and the throughput of each worker."""

    report: IndexReport
    workers: list[WorkerThroughput] = field(default_factory=list)
    address: str = ""

    def as_dict(self) -> dict[str, Any]:
        data = self.report.as_dict()
        data["ray"] = {"address": self.address, "workers": [w.as_dict() for w in self.workers]}
        return data


# ---------------------------------------------------------------------------------------------- stage 1: tasks
def _load_file(row: dict[str, Any], options: LoadOptions) -> list[dict[str, Any]]:
    """Read and parse one file (a Ray task): each judgment, provision or load error pickled in a row. The
    file's seconds ride on its first row, so the job's parse time counts them."""
    from ray import cloudpickle  # the domain objects hold read-only mappings, which plain pickle refuses

    started = time.perf_counter()
    items = list(load([row["path"]], options))
    seconds = time.perf_counter() - started
    return [{"item": cloudpickle.dumps(item), "seconds": seconds if i == 0 else 0.0} for i, item in enumerate(items)]


# --------------------------------------------------------------------------------------------- stage 2: actors
class BlockIndexer:
    """One actor of the pool: builds the pipeline once, then indexes each block it is given."""

    def __init__(self, make_pipeline: PipelineFactory, connection: ConnectionSettings, aliases: dict[str, str],
                 batch_size: int, bulk: BulkSettings, replace_stored: bool = False) -> None:
        import ray

        self.worker = f"{socket.gethostname()}:{os.getpid()}"
        gpus = ray.get_gpu_ids()
        if gpus:
            self.worker += f" gpu {','.join(str(g) for g in gpus)}"
        self.writer = IndexWriter(connect(connection), aliases, make_pipeline(), batch_size=batch_size, bulk=bulk,
                                  replace=replace_stored)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        items = [pickle.loads(blob) for blob in batch["item"]]
        report = self.writer.run(items)
        report.times.parse += float(sum(batch["seconds"]))
        from ray import cloudpickle

        return {"report": [cloudpickle.dumps(report)], "worker": [self.worker]}


# ------------------------------------------------------------------------------------------------- the driver
def local_ray(num_cpus: int | None = None, num_gpus: int | None = None) -> None:
    """Start a local Ray instance whose workers import this checkout of Ratio (first on their path), as the
    driver does. Tests call it with a small ``num_cpus``."""
    import ray

    path = os.pathsep.join(p for p in (str(_PROJECT_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    ray.init(num_cpus=num_cpus, num_gpus=num_gpus, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": path}})


def _files(paths: Iterable[str], report: IndexReport) -> list[dict[str, Any]]:
    """The files to read, in the loader's order; paths that match nothing go straight to the report."""
    rows = []
    for found in iter_files(paths):
        if isinstance(found, LoadError):
            report.failed.append((found.item, found.reason))
        else:
            rows.append({"path": str(found[0])})
    return rows


def run_on_ray(paths: Iterable[str], *, make_pipeline: PipelineFactory, connection: ConnectionSettings,
               aliases: dict[str, str], settings: RaySettings, load_options: LoadOptions | None = None,
               bulk: BulkSettings | None = None, progress: Progress | None = None,
               replace_stored: bool = False) -> RayIndexReport:
    """Index ``paths`` as a Ray Data job; never raises for a bad item (see :meth:`IndexWriter.run`).

    Ids are checked as on one machine, per block: an id claimed twice within a block fails the later item, and a
    judgment held in the index by another file is not replaced (unless ``replace_stored``). Two blocks that write one id
    at the same moment are not caught: each finds the id free.

    Connects to (or starts) Ray unless this process already has it, and shuts down only what it started. A
    block whose cluster stopped answering ends the job early with ``stopped`` set, as on one machine;
    re-running resumes, since written judgments are skipped by their stored hash.
    """
    import ray

    bulk = bulk or BulkSettings()
    progress = progress or (lambda what, n: None)
    started_here = not ray.is_initialized()
    if started_here:
        if settings.address is None:
            local_ray()
        else:
            ray.init(address=settings.address, log_to_driver=False)
    try:
        address = ray.get_runtime_context().gcs_address
        _check_room(settings, float(ray.cluster_resources().get("CPU", 0.0)))
        total, workers = _drive(paths, make_pipeline, connection, aliases, settings, load_options, bulk, progress,
                                replace_stored)
    finally:
        if started_here:
            ray.shutdown()
    return RayIndexReport(total, sorted(workers.values(), key=lambda w: w.worker), address)


def _check_room(settings: RaySettings, cpus: float) -> None:
    """Refuse a pool that would leave no CPU for the read tasks (the job would wait for ever)."""
    taken = settings.workers * settings.cpus_per_worker
    if taken + READ_CPUS > cpus:
        raise ValueError(
            f"{settings.workers} workers of {settings.cpus_per_worker:g} CPU take {taken:g} of the cluster's {cpus:g} "
            f"CPUs and leave less than the {READ_CPUS:g} a read task needs: use fewer workers or fewer CPUs each "
            "(--ray-workers, --num-cpus)")


def _drive(paths: Iterable[str], make_pipeline: PipelineFactory, connection: ConnectionSettings,
           aliases: dict[str, str], settings: RaySettings, load_options: LoadOptions | None, bulk: BulkSettings,
           progress: Progress, replace_stored: bool = False) -> tuple[IndexReport, dict[str, WorkerThroughput]]:
    """Refresh paused, the job's blocks summed as they finish, refresh restored (also when the job raises or is
    interrupted; :mod:`indexer.bulk_settings`); stops at a stopped block."""
    total = IndexReport()
    workers: dict[str, WorkerThroughput] = {}
    started = time.perf_counter()
    client = connect(connection)
    paused = bulk_settings.pause(client, written_indices(aliases)) if bulk.refresh_off else None
    if paused is not None:
        total.leftovers.extend(paused.found)
    try:
        rows = _files(paths, total)
        for row in _dataset(rows, make_pipeline, connection, aliases, settings, load_options, bulk,
                            replace_stored) if rows else ():
            block: IndexReport = pickle.loads(row["report"])
            total.add(block)
            _count(workers, str(row["worker"]), block)
            progress("item", block.judgments_indexed + block.judgments_unchanged + block.provisions_indexed
                     + block.provisions_unchanged + len(block.failed))
            if block.stopped:  # the block's writer says what was written and that a re-run resumes
                total.stopped = f"{block.stopped} (blocks not yet read were left for the re-run)"
                break
    finally:
        if paused is not None:
            bulk_settings.restore(client, paused)
    client.indices.refresh(index=written_indices(aliases))
    total.seconds = time.perf_counter() - started
    return total, workers


def _dataset(rows: list[dict[str, Any]], make_pipeline: PipelineFactory, connection: ConnectionSettings,
             aliases: dict[str, str], settings: RaySettings, load_options: LoadOptions | None,
             bulk: BulkSettings, replace_stored: bool = False) -> Iterator[dict[str, Any]]:
    """The job's output rows (one per block: its pickled report and its worker), streamed as blocks finish. An
    actor is handed one block at a time (it works through a block synchronously), so blocks spread over the
    pool instead of queueing at the first actor."""
    import ray

    block_bulk = replace(bulk, refresh_off=False, refresh_at_end=False)
    dataset = (
        ray.data.from_items(rows, override_num_blocks=max(1, min(len(rows), 200)))
        .flat_map(_load_file, fn_kwargs={"options": load_options or LoadOptions()}, num_cpus=READ_CPUS)
        .map_batches(BlockIndexer, batch_size=settings.block_size, batch_format="numpy",
                     fn_constructor_kwargs={"make_pipeline": make_pipeline, "connection": connection,
                                            "aliases": aliases, "batch_size": settings.batch_size,
                                            "bulk": block_bulk, "replace_stored": replace_stored},
                     compute=ray.data.ActorPoolStrategy(size=settings.workers, max_tasks_in_flight_per_actor=1),
                     num_cpus=settings.cpus_per_worker,
                     num_gpus=settings.gpus_per_worker or None)
    )
    yield from dataset.iter_rows()


def _count(workers: dict[str, WorkerThroughput], worker: str, block: IndexReport) -> None:
    seen = workers.get(worker)
    workers[worker] = WorkerThroughput(
        worker=worker, blocks=(seen.blocks if seen else 0) + 1,
        judgments=(seen.judgments if seen else 0) + block.judgments_indexed,
        sentences=(seen.sentences if seen else 0) + block.sentences,
        seconds=(seen.seconds if seen else 0.0) + block.seconds)
