"""A sentence-transformers encoder's throughput over judgments split by Ratio's own sentence splitter:
``ratio bench embed``.

What the transformer pipeline (``ratio index --encoder sentence-transformers/all-MiniLM-L6-v2 --num-gpus ...``) can
embed per GPU, and per CPU thread for comparison. On a GPU it runs float16 and float32 at two batch sizes and says
how close float16's vectors are to float32's; on the CPU, one thread and all of them. docs/capacity.md has the
figures of a lent H200.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

__all__ = ["measure_embedding", "rate", "sentences_of"]


def sentences_of(folder: Path, wanted: int) -> tuple[int, list[str]]:
    """The sentences of the judgments of ``folder`` (``*.txt``, in name order) until ``wanted`` are gathered, and
    how many judgments gave them."""
    from legal.sentences import split

    texts: list[str] = []
    judgments = 0
    for path in sorted(folder.glob("*.txt")):
        texts.extend(s.text for s in split(path.read_text(encoding="utf-8", errors="replace")))
        judgments += 1
        if len(texts) >= wanted:
            break
    return judgments, texts[:wanted]


def rate(model: Any, texts: list[str], batch_size: int) -> tuple[float, Any]:
    """Sentences per second of ``model`` over ``texts`` (after a warm-up batch), and the normalised vectors."""
    import torch

    model.encode(texts[:batch_size], batch_size=batch_size)  # warm-up
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    started = time.perf_counter()
    vectors = model.encode(texts, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return len(texts) / (time.perf_counter() - started), vectors


def measure_embedding(folder: Path, sentences: int, model_path: Path, cpu_sentences: int = 2000,
                      gpu_batches: tuple[int, ...] = (256, 1024)) -> dict[str, Any]:
    """The throughput figures as one JSON-ready dict (``runs``: sentences/s by precision and batch, or by CPU
    threads)."""
    import torch
    from sentence_transformers import SentenceTransformer

    judgments, texts = sentences_of(folder, sentences)
    if not texts:
        raise ValueError(f"{folder}: no sentences in its *.txt files")
    out: dict[str, Any] = {"judgments": judgments, "sentences": len(texts), "model": str(model_path), "runs": {}}
    if torch.cuda.is_available():
        out["gpu"] = torch.cuda.get_device_name(0)
        model = SentenceTransformer(str(model_path), device="cuda")
        model.max_seq_length = 256
        vectors = {}
        for precision in ("fp16", "fp32"):
            model = model.half() if precision == "fp16" else model.float()
            for batch_size in gpu_batches:
                per_s, found = rate(model, texts, batch_size)
                out["runs"][f"{precision}_batch{batch_size}"] = round(per_s)
                vectors.setdefault(precision, found)
        cosine = (vectors["fp16"].astype("float32") * vectors["fp32"]).sum(axis=1)
        out["fp16_vs_fp32_cosine_min"] = float(cosine.min())
    cpu = SentenceTransformer(str(model_path), device="cpu")
    cpu.max_seq_length = 256
    before = torch.get_num_threads()
    try:
        for threads in sorted({1, os.cpu_count() or 1}):
            torch.set_num_threads(threads)
            out["runs"][f"cpu_threads{threads}"] = round(rate(cpu, texts[:cpu_sentences], 64)[0])
    finally:
        torch.set_num_threads(before)
    return out
