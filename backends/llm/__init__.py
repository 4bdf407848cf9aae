"""LLM clients behind one small interface (:class:`LLM`): an OpenAI-compatible HTTP client and an
in-process llama-cpp-python backend, plus structured JSON output, prompt files, a response cache and the
guard that untrusted text passes before it reaches a prompt (:mod:`backends.llm.guard`)."""

from backends.llm.base import LLM, LLMError, Message, Prompt, extract_json, generate_json
from backends.llm.cache import CachedLLM
from backends.llm.guard import Screened, borrowed_from_address, clean, screen, untrusted
from backends.llm.http import OpenAICompatibleLLM
from backends.llm.local import LlamaCppLLM
from backends.llm.models import DEFAULT_LLM, SMALL_LLM, known_llms, resolve_gguf

__all__ = ["DEFAULT_LLM", "LLM", "SMALL_LLM", "CachedLLM", "LLMError", "LlamaCppLLM", "Message",
           "OpenAICompatibleLLM", "Prompt", "Screened", "borrowed_from_address", "clean", "extract_json",
           "generate_json", "known_llms", "resolve_gguf", "screen", "untrusted"]
