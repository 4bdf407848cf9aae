"""An LLM run in-process by llama-cpp-python from a GGUF file: the offline default.

The import of ``llama_cpp`` waits until the first model is loaded, so Ratio works without the ``llm``
extra. One ``Llama`` object is not safe to call from two threads at once, so calls hold a lock. A JSON
Schema becomes llama.cpp's ``response_format`` schema, which constrains decoding by grammar: the answer
can only be JSON of that shape (the caller still validates it).
"""

from __future__ import annotations

import functools
import os
import threading
from pathlib import Path
from typing import Any

from backends.llm.base import LLMError, Message


class LlamaCppLLM:
    """A GGUF chat model loaded with llama-cpp-python; ``name`` is the model id or file name."""

    def __init__(self, model_path: Path, *, name: str | None = None, context: int = 4096,
                 threads: int | None = None, seed: int = 0) -> None:
        try:
            Llama = _greedy_first_llama()
        except ImportError as exc:
            raise LLMError("the in-process LLM needs the 'llm' extra: pip install 'ratio[llm]'") from exc
        if not Path(model_path).is_file():
            raise LLMError(f"GGUF model file not found: {model_path}")
        self.model_path = Path(model_path)
        self.name = name or self.model_path.name
        self._lock = threading.Lock()
        try:
            self._llama = Llama(model_path=str(model_path), n_ctx=context, n_threads=threads or os.cpu_count(),
                                seed=seed, verbose=False)
        except (ValueError, RuntimeError) as exc:
            raise LLMError(f"cannot load GGUF model {model_path}: {exc}") from None

    def __repr__(self) -> str:
        return f"LlamaCppLLM(name={self.name!r}, model_path={str(self.model_path)!r})"

    def chat(self, messages: list[Message], *, max_tokens: int = 256, temperature: float = 0.0,
             schema: dict[str, Any] | None = None) -> str:
        options: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature}
        if schema is not None:
            options["response_format"] = {"type": "json_object", "schema": schema}
        with self._lock:
            try:
                answer = self._llama.create_chat_completion(messages=[m.as_dict() for m in messages], **options)
            except ValueError as exc:  # prompt longer than the context, for instance
                raise LLMError(f"{self.name} could not answer: {exc}") from None
        return answer["choices"][0]["message"]["content"] or ""


@functools.cache
def _greedy_first_llama() -> type:
    """``llama_cpp.Llama`` whose greedy decoding under a grammar checks the model's own best token first.

    Why: llama-cpp-python puts the grammar in the sampler chain, so every generated token tests all ~150k
    vocabulary entries against it (about a third of the small model's time per JSON token on a CPU). At
    temperature 0 the pick is the highest logit among the tokens the grammar allows; when the highest logit
    of all is allowed, that is the same token, and testing it alone suffices. Only when it is not is the grammar
    applied to the whole vocabulary, as before: the answer is token for token what the plain chain gives (as
    llama.cpp's own samplers do, which try the grammar on the chosen token first). Any other sampling (a
    temperature, penalties, logits processors) keeps llama-cpp-python's chain."""
    import ctypes

    import numpy as np
    from llama_cpp import Llama
    from llama_cpp import _internals as internals
    from llama_cpp import llama_cpp as c

    class GreedyFirstGrammar:
        def __init__(self, model: Any, grammar: Any) -> None:
            self.sampler = c.llama_sampler_init_grammar(model.vocab, grammar._grammar.encode("utf-8"),
                                                        grammar._root.encode("utf-8"))
            self._one = c.llama_token_data()
            self._single = c.llama_token_data_array(data=ctypes.pointer(self._one), size=1, selected=-1,
                                                    sorted=False)

        def apply(self, cur_p: Any) -> None:
            array = cur_p.contents
            logits = np.ctypeslib.as_array(ctypes.cast(array.data, ctypes.POINTER(ctypes.c_float)),
                                           shape=(array.size * 3,))[1::3]  # llama_token_data: id, logit, p
            best = int(np.argmax(logits))
            self._one.id, self._one.logit, self._one.p = array.data[best].id, array.data[best].logit, 0.0
            self._single.size, self._single.selected = 1, -1
            c.llama_sampler_apply(self.sampler, ctypes.byref(self._single))
            if self._one.logit == -np.inf:  # the model's best token breaks the grammar: mask them all
                c.llama_sampler_apply(self.sampler, cur_p)
                best = int(np.argmax(logits))
            c.llama_sampler_accept(self.sampler, array.data[best].id)  # the greedy sampler after this picks it

        def free(self) -> None:
            if self.sampler is not None:
                c.llama_sampler_free(self.sampler)
                self.sampler = None

    class GreedyFirstLlama(Llama):
        def _init_sampler(self, *, temp: float = 0.8, repeat_penalty: float = 1.0, frequency_penalty: float = 0.0,
                          presence_penalty: float = 0.0, logits_processor: Any = None, grammar: Any = None,
                          **options: Any) -> Any:
            plain = (repeat_penalty, frequency_penalty, presence_penalty) == (1.0, 0.0, 0.0)
            if grammar is None or temp != 0.0 or logits_processor is not None or not plain:
                return super()._init_sampler(temp=temp, repeat_penalty=repeat_penalty,
                                             frequency_penalty=frequency_penalty, presence_penalty=presence_penalty,
                                             logits_processor=logits_processor, grammar=grammar, **options)
            lazy = GreedyFirstGrammar(self._model, grammar)
            sampler = internals.LlamaSampler()
            sampler.add_custom(lazy.apply)
            sampler.add_greedy()
            sampler._exit_stack.callback(lazy.free)
            sampler.greedy_first = lazy  # kept alive with the chain that calls it
            return sampler

    return GreedyFirstLlama
