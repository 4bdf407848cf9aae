"""How the write path's processing scales with worker processes on one machine, OpenSearch left out:
``ratio bench workers``.

N processes (torch on one thread each) each load the static encoder and its role head, then read and process the
same judgments (metadata, sentences, static vectors, roles, chunks, summary; no bulk writes), for each N asked.
Each N gives judgments/s in all and per worker and CPU ms per judgment: what one more core buys, and so how many
Ray actors (``ratio index --ray``) a machine is worth. docs/capacity.md has the figures of a lent
16-core machine.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path

__all__ = ["WorkerRun", "WorkersResult", "measure_workers", "process_judgments"]


@dataclass(frozen=True)
class WorkerRun:
    """What one worker did: wall and CPU seconds, judgments and sentences processed."""

    seconds: float
    cpu_s: float
    judgments: int
    sentences: int


@dataclass(frozen=True)
class WorkersResult:
    """One worker count's figures (the slowest worker's wall time sets the rate)."""

    workers: int
    judgments_per_s_total: float
    judgments_per_s_per_worker: float
    cpu_ms_per_judgment: float
    sentences_per_judgment: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def process_judgments(job: tuple[str, int, str]) -> WorkerRun:
    """One worker: the first ``limit`` judgments of ``folder`` through the default pipeline (static encoder from
    ``models``), torch on one thread. A module-level function, so a spawned process can run it."""
    folder, limit, models = job
    import torch

    torch.set_num_threads(1)
    from backends.encoders import STATIC_ENCODER, load_encoder
    from indexer.document import Judgment
    from indexer.loaders import load
    from indexer.pipeline import Pipeline
    from indexer.roles.labeller import RoleLabeller

    labeller = RoleLabeller.load(load_encoder(STATIC_ENCODER, models_dir=Path(models)), encoder_id=STATIC_ENCODER)
    pipeline = Pipeline(labeller)
    started, cpu = time.perf_counter(), time.process_time()
    judgments = (item for item in load([folder]) if isinstance(item, Judgment))
    done = sentences = 0
    for batch in iter(lambda: list(itertools.islice(judgments, 16)), []):
        if done >= limit:
            break
        for processed in pipeline.process_many(batch[: limit - done]):
            done += 1
            sentences += len(processed.sentences)
    return WorkerRun(time.perf_counter() - started, time.process_time() - cpu, done, sentences)


def measure_workers(folder: Path, counts: list[int], limit: int, models_dir: Path) -> list[WorkersResult]:
    """For each worker count, that many spawned processes each running :func:`process_judgments` at once."""
    context = get_context("spawn")
    results = []
    for n in counts:
        with context.Pool(n) as pool:
            runs = pool.map(process_judgments, [(str(folder), limit, str(models_dir))] * n)
        wall = max(r.seconds for r in runs)
        total = sum(r.judgments for r in runs)
        if not total:
            raise ValueError(f"{folder}: no judgments to process")
        results.append(WorkersResult(n, round(total / wall, 2), round(total / wall / n, 2),
                                     round(1000 * sum(r.cpu_s for r in runs) / total, 1),
                                     round(sum(r.sentences for r in runs) / total, 1)))
    return results
