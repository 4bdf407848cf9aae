"""Attribution targets for the reranker: how much each retrieved passage moves the local LLM's answer.

Relevance labels say which judgment is relevant, not which passage an answer actually rests on. Here the
local LLM answers a question from its retrieved passages, and each passage's influence is measured by leave-one-out:
the answer's log-likelihood with all passages minus its log-likelihood with that passage removed. A passage the
answer depends on scores high; one the model ignores scores near zero. The influences of one question are
min-max scaled to [0, 1] and become MSE targets for the cross-encoder (``train_reranker(..., targets=...)``).

Scoring needs the model's token logits, which the chat interface of ``backends.llm`` does not expose. Two
scorers load the GGUF themselves (any :class:`AnswerScorer` will do):

- :class:`AnswerLikelihood` (llama-cpp-python, logits kept) scores one prompt at a time. The leave-one-out
  prompts share their prefix up to the removed passage, and the evaluation reuses the cached prefix, so the
  cost per question is one generation plus about half of ``1 + passages`` prompt evaluations. It is the
  fastest on a CPU.
- :class:`lab.training.attribution_torch.TorchAnswerLikelihood` (transformers, the GGUF dequantised)
  scores all of a question's prompts in padded batches of ``batch_size`` on any torch device, which is how
  the method scales on a GPU.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from lab.training.pairs import TrainingGroup

__all__ = ["AnswerLikelihood", "AnswerScorer", "Attribution", "attribute", "attribution_targets", "prompt"]

_INSTRUCTION = ("Answer the legal question in one or two sentences, using only the passages from court "
                "judgments below.\n\n")


def _cut(text: str, words: int) -> str:
    return " ".join(text.split()[:words])


def prompt(question: str, passages: Sequence[str]) -> str:
    """The plain-completion prompt: instruction, numbered passages, question, ``Answer:``."""
    body = "".join(f"Passage {i}: {text}\n\n" for i, text in enumerate(passages, start=1))
    return f"{_INSTRUCTION}{body}Question: {question}\nAnswer:"


class AnswerScorer(Protocol):
    """Answers a prompt greedily and scores an answer's log-likelihood after each of several prompts."""

    def prompt(self, question: str, passages: Sequence[str]) -> str: ...

    def answer(self, prompt: str, max_tokens: int = 48) -> str: ...

    def loglikelihoods(self, prompts: Sequence[str], answer: str) -> list[float]: ...


class AnswerLikelihood:
    """A GGUF model (llama-cpp-python, logits kept) that answers greedily and scores an answer's log-likelihood."""

    def __init__(self, gguf: Path, *, threads: int | None = None, context: int = 1536, seed: int = 0) -> None:
        from llama_cpp import Llama

        # logits_all keeps one row of logits per prompt position: context x vocabulary floats (~0.9 GB here).
        self._llama = Llama(model_path=str(gguf), n_ctx=context, n_threads=threads, seed=seed, logits_all=True,
                            verbose=False)
        self.context = context

    def prompt(self, question: str, passages: Sequence[str]) -> str:
        return prompt(question, passages)

    def answer(self, prompt: str, max_tokens: int = 48) -> str:
        """The model's greedy answer to ``prompt`` (first paragraph only)."""
        out = self._llama.create_completion(prompt, max_tokens=max_tokens, temperature=0.0,
                                            stop=["\n\n", "Question:", "Passage "])
        return str(out["choices"][0]["text"]).strip()

    def loglikelihood(self, prompt: str, answer: str) -> float:
        """Sum of the log-probabilities of ``answer``'s tokens after ``prompt``.

        The key-value cache of the longest common token prefix with the previous call is kept, so scoring
        prompts that differ late (leave-one-out of a later passage) costs only their tail.
        """
        llama = self._llama
        context = llama.tokenize(prompt.encode(), add_bos=True)
        target = llama.tokenize((" " + answer).encode(), add_bos=False)
        tokens = context + target
        if len(tokens) > self.context:
            raise ValueError(f"prompt and answer take {len(tokens)} tokens, over the context of {self.context}")
        common, limit = 0, min(llama.n_tokens, len(tokens) - 1)
        while common < limit and llama.input_ids[common] == tokens[common]:
            common += 1
        llama.n_tokens = common
        llama.eval(tokens[common:])
        logits = np.asarray(llama.scores[len(context) - 1:len(tokens) - 1], dtype=np.float64)
        peak = logits.max(axis=1, keepdims=True)
        logsumexp = peak[:, 0] + np.log(np.exp(logits - peak).sum(axis=1))
        return float(sum(logits[i, t] - logsumexp[i] for i, t in enumerate(target)))

    def loglikelihoods(self, prompts: Sequence[str], answer: str) -> list[float]:
        """:meth:`loglikelihood` after each prompt, one at a time, in the order given (give prompts that share
        long prefixes one after the other)."""
        return [self.loglikelihood(p, answer) for p in prompts]


@dataclass(frozen=True)
class Attribution:
    """One question's answer and each passage's leave-one-out influence on it (raw and scaled to [0, 1])."""

    question: str
    passages: tuple[str, ...]
    answer: str
    influence: tuple[float, ...]
    scaled: tuple[float, ...]


def attribute(model: AnswerScorer, question: str, passages: Sequence[str], *, max_tokens: int = 48) -> Attribution:
    """Answer from all passages, then drop each passage in turn and measure the answer's log-likelihood loss."""
    passages = tuple(passages)
    full_prompt = model.prompt(question, passages)
    answer = model.answer(full_prompt, max_tokens=max_tokens)
    if not answer:
        return Attribution(question, passages, "", (0.0,) * len(passages), (0.0,) * len(passages))
    # Later passages are dropped first: consecutive prompts then share the longest prefixes (llama's cache).
    dropped = list(reversed(range(len(passages))))
    scores = model.loglikelihoods([full_prompt, *(model.prompt(question, passages[:i] + passages[i + 1:])
                                                  for i in dropped)], answer)
    full, without = scores[0], dict(zip(dropped, scores[1:], strict=True))
    influence = [full - without[i] for i in range(len(passages))]
    low, high = min(influence), max(influence)
    scaled = tuple((x - low) / (high - low) if high > low else 0.0 for x in influence)
    return Attribution(question, passages, answer, tuple(influence), scaled)


def attribution_targets(model: AnswerScorer, groups: Sequence[TrainingGroup], *, passage_words: int = 100,
                        question_words: int = 60, max_tokens: int = 48,
                        progress: Callable[[int], None] | None = None
                        ) -> tuple[list[tuple[str, str, float]], list[Attribution]]:
    """(question, passage, scaled influence) for each group's positives and negatives, and the attributions.

    Passages are cut to ``passage_words`` so that all of them fit the context. A question whose passages all
    have the same influence (the answer is empty or ignores them) teaches nothing and is left out.
    """
    targets: list[tuple[str, str, float]] = []
    found: list[Attribution] = []
    for group in groups:
        question = _cut(group.query, question_words)
        passages = [_cut(p.text, passage_words) for p in (*group.positives, *group.negatives)]
        result = attribute(model, question, passages, max_tokens=max_tokens)
        found.append(result)
        if result.answer and max(result.scaled) > 0 and all(math.isfinite(x) for x in result.influence):
            targets.extend((question, passage, score) for passage, score in zip(passages, result.scaled, strict=True))
        if progress:
            progress(1)
    return targets, found
