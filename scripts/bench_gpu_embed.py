"""MiniLM's sentence throughput on a GPU (and on the CPU for comparison), over judgments split by Ratio's
own sentence splitter: what the transformer pipeline (``ratio index --encoder
sentence-transformers/all-MiniLM-L6-v2 --num-gpus ...``) can embed per GPU. The figures in docs/capacity.md
came from this measurement on a lent H200 (60,141 AILA sentences from the first 491 judgments):

    python scripts/bench_gpu_embed.py ../shared/data/aila-2019/Object_casedocs --sentences 60000

The model is the packaged all-MiniLM-L6-v2 (``--model`` takes any sentence-transformers folder). Prints JSON:
sentences/s per precision and batch size, the cosine of float16 to float32 vectors, and CPU sentences/s on
one thread and on all of them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def sentences_of(folder: str, wanted: int) -> tuple[int, list[str]]:
    from legal.sentences import split

    texts: list[str] = []
    judgments = 0
    for path in sorted(Path(folder).glob("*.txt")):
        texts.extend(s.text for s in split(path.read_text(encoding="utf-8", errors="replace")))
        judgments += 1
        if len(texts) >= wanted:
            break
    return judgments, texts


def rate(model, texts: list[str], batch_size: int) -> tuple[float, object]:
    import torch

    model.encode(texts[:4096], batch_size=batch_size)  # warm-up
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    started = time.perf_counter()
    vectors = model.encode(texts, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return len(texts) / (time.perf_counter() - started), vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--sentences", type=int, default=60000)
    parser.add_argument("--model", default=None, help="a sentence-transformers folder (default: packaged MiniLM)")
    options = parser.parse_args()
    import torch
    from sentence_transformers import SentenceTransformer

    if options.model is None:
        from backends.encoders import DEFAULT_ENCODER, packaged_model_path

        options.model = str(packaged_model_path(DEFAULT_ENCODER))
    judgments, texts = sentences_of(options.folder, options.sentences)
    out: dict[str, object] = {"judgments": judgments, "sentences": len(texts), "runs": {}}
    if torch.cuda.is_available():
        out["gpu"] = torch.cuda.get_device_name(0)
        model = SentenceTransformer(options.model, device="cuda")
        model.max_seq_length = 256
        vectors = {}
        for precision in ("fp16", "fp32"):
            model = model.half() if precision == "fp16" else model.float()
            for batch_size in (256, 1024):
                per_s, v = rate(model, texts, batch_size)
                out["runs"][f"{precision}_batch{batch_size}"] = round(per_s)
                vectors.setdefault(precision, v)
        cosine = (vectors["fp16"].astype("float32") * vectors["fp32"]).sum(axis=1)
        out["fp16_vs_fp32_cosine_min"] = float(cosine.min())
    cpu = SentenceTransformer(options.model, device="cpu")
    cpu.max_seq_length = 256
    for threads in sorted({1, os.cpu_count() or 1}):
        torch.set_num_threads(threads)
        out["runs"][f"cpu_threads{threads}"] = round(rate(cpu, texts[:2000], 64)[0])
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
