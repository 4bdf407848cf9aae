"""How the default indexing pipeline scales with worker processes on one machine, OpenSearch left out.

N processes (torch on one thread each) each load the static encoder and its role head, then load and process
the same judgments (read, metadata, sentences, static vectors, roles, chunks, summary; no bulk writes), for
each N given. Prints one JSON line per N: judgments/s in all and per worker, CPU ms per judgment. The figures
in docs/capacity.md came from this script on the idle cores of a lent 16-core machine:

    python scripts/bench_workers.py ../shared/data/aila-2019/Object_casedocs --limit 120 --workers 1,2,4,8,16

Run it from the repository root with the project installed (the ``embed`` extra); ``--models-dir`` defaults
to ``$RATIO_HOME/models``, where ``ratio index`` distils the static encoder on first use.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from multiprocessing import get_context
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def worker(args: tuple[str, int, str]) -> dict[str, float]:
    folder, limit, models = args
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
    return {"seconds": time.perf_counter() - started, "cpu_s": time.process_time() - cpu, "judgments": done,
            "sentences": sentences}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--limit", type=int, default=120, help="judgments per worker")
    parser.add_argument("--workers", default="1,2,4", help="worker counts, comma-separated")
    parser.add_argument("--models-dir", default=None)
    options = parser.parse_args()
    if options.models_dir is None:
        from ratio import settings

        options.models_dir = str(settings.home_dir() / "models")
    context = get_context("spawn")
    for n in (int(part) for part in options.workers.split(",")):
        with context.Pool(n) as pool:
            runs = pool.map(worker, [(options.folder, options.limit, options.models_dir)] * n)
        wall = max(r["seconds"] for r in runs)
        total = sum(r["judgments"] for r in runs)
        print(json.dumps({"workers": n, "judgments_per_s_total": round(total / wall, 2),
                          "judgments_per_s_per_worker": round(total / wall / n, 2),
                          "cpu_ms_per_judgment": round(1000 * sum(r["cpu_s"] for r in runs) / total, 1),
                          "sentences_per_judgment": round(sum(r["sentences"] for r in runs) / total, 1)}),
              flush=True)


if __name__ == "__main__":
    main()
