"""An LLM run in-process by llama-cpp-python from a GGUF file: the offline default.

The import of ``llama_cpp`` waits until the first model is loaded, so Ratio works without the ``llm``
extra. One ``Llama`` object is not safe to call from two threads at once, so calls hold a lock. A JSON
Schema becomes llama.cpp's ``response_format`` schema, which constrains decoding by grammar: the answer
can only be JSON of that shape (the caller still validates it).
"""

from __future__ import annotations

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
            from llama_cpp import Llama
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
