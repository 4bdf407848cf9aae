"""The attribution scorer on torch: a question's leave-one-out prompts scored in padded batches on any device.

llama.cpp (:class:`lab.training.attribution.AnswerLikelihood`) scores one prompt at a time, which is the
fast path on a CPU. On a GPU the cost that matters is the number of forward passes, so here the answer's
log-likelihood after each of a question's ``1 + passages`` prompts is computed ``batch_size`` prompts per
forward pass. The model is the same GGUF, loaded by transformers (dequantised: about 2.5 GB of float32 for the
0.5B model, half that in bfloat16). It needs the ``train`` extra (``gguf`` and ``accelerate``).

Prompts are padded on the left, so that every sequence's answer tokens end at the same position and a single
gather reads their log-probabilities; the attention mask and position ids keep the padding out of the result
(checked against unbatched scoring by the tests).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lab.training.attribution import prompt

__all__ = ["TorchAnswerLikelihood", "default_device"]


def default_device() -> str:
    """``cuda`` when torch sees a GPU, else ``cpu``."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


@contextmanager
def _one_reader() -> Iterator[None]:
    """One ``gguf.GGUFReader`` per file while a model loads.

    transformers reads a GGUF's header three times to load it (the tokenizer's config, the model's config, the
    state dict), and each ``GGUFReader`` builds every field of the file in Python, the 151k-entry vocabulary and
    merges included: 10 s apiece for the 0.5B test model on one CPU core, most of its load. The reader only maps
    the file and describes it, so one instance serves all three reads. transformers imports ``GGUFReader`` from
    ``gguf`` when it reads, which is what lets this swap the name for the load; if it stops doing so, the load is
    only slower.
    """
    import gguf

    original = gguf.GGUFReader
    readers: dict[tuple[str, str], Any] = {}

    def reader(path: Any, mode: str = "r") -> Any:
        key = (str(Path(path).resolve()), mode)
        if key not in readers:
            readers[key] = original(path, mode)
        return readers[key]

    gguf.GGUFReader = reader  # type: ignore[misc, assignment]
    try:
        yield
    finally:
        gguf.GGUFReader = original  # type: ignore[misc]


class TorchAnswerLikelihood:
    """A GGUF causal LM on a torch device that answers greedily and scores answers in batches."""

    def __init__(self, gguf: Path, *, device: str | None = None, batch_size: int = 8, dtype: str = "float32",
                 threads: int | None = None) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if threads:
            torch.set_num_threads(threads)
        gguf = Path(gguf)
        self.device = device or default_device()
        self.batch_size = batch_size
        with _one_reader():
            self.tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
            self.model: Any = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name,
                                                                   dtype=getattr(torch, dtype)).to(self.device)
        self.model.eval()
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else \
            self.tokenizer.eos_token_id

    def prompt(self, question: str, passages: Sequence[str]) -> str:
        return prompt(question, passages)

    def answer(self, text: str, max_tokens: int = 48) -> str:
        """The greedy answer to ``text`` (first paragraph only, cut where llama's stop strings would cut)."""
        import torch

        ids = self.tokenizer(text, return_tensors="pt").to(self.device)
        with torch.inference_mode():
            out = self.model.generate(**ids, max_new_tokens=max_tokens, do_sample=False, pad_token_id=self.pad_id)
        answer = self.tokenizer.decode(out[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)
        for stop in ("\n\n", "Question:", "Passage "):
            answer = answer.split(stop, 1)[0]
        return answer.strip()

    def loglikelihoods(self, prompts: Sequence[str], answer: str) -> list[float]:
        """Sum of the log-probabilities of ``answer``'s tokens after each prompt, ``batch_size`` per pass."""
        import torch

        target = self.tokenizer(" " + answer, add_special_tokens=False)["input_ids"]
        if not target:
            return [0.0] * len(prompts)
        scores: list[float] = []
        for start in range(0, len(prompts), self.batch_size):
            rows = [self.tokenizer(p, add_special_tokens=False)["input_ids"] + target
                    for p in prompts[start:start + self.batch_size]]
            width = max(len(r) for r in rows)
            ids = torch.tensor([[self.pad_id] * (width - len(r)) + r for r in rows], device=self.device)
            mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=self.device)
            positions = (mask.cumsum(dim=1) - 1).clamp(min=0)
            with torch.inference_mode():
                logits = self.model(input_ids=ids, attention_mask=mask, position_ids=positions).logits
            # The answer's n tokens are the last n of every row; each is predicted one position earlier.
            n = len(target)
            logprobs = torch.log_softmax(logits[:, width - n - 1:width - 1, :].float(), dim=-1)
            wanted = torch.tensor(target, device=self.device).expand(len(rows), n).unsqueeze(-1)
            scores += logprobs.gather(-1, wanted).squeeze(-1).sum(dim=1).tolist()
        return [float(s) for s in scores]
