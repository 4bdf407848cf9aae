"""Turning :class:`ratio.settings.LLMSettings` into an LLM object (or None), wrapped in the answer cache.

The command-line options that choose it are ``llm_options`` in :mod:`ratio.cli.options`."""

from __future__ import annotations

from backends.llm import DEFAULT_LLM, LLM, CachedLLM, LlamaCppLLM, OpenAICompatibleLLM, resolve_gguf
from ratio import settings as settings_module
from ratio.settings import LLMSettings


def open_llm(config: LLMSettings, *, cache: bool = True) -> LLM | None:
    """The configured LLM, or None for ``kind == "none"``. Local models resolve to a verified GGUF under the
    data directory (assembled from packaged parts on first use); answers are cached under the cache
    directory unless ``cache`` is False."""
    if config.kind == "none":
        return None
    llm: LLM
    if config.kind == "local":
        model = config.model or DEFAULT_LLM
        path = resolve_gguf(model, settings_module.home_dir() / "models")
        llm = LlamaCppLLM(path, name=model, context=config.context, threads=config.threads)
    else:
        assert config.url is not None  # LLMSettings.read checks it
        llm = OpenAICompatibleLLM(config.url, config.model or "default", api_key=config.api_key,
                                  timeout=config.timeout)
    return CachedLLM(llm, settings_module.cache_dir() / "llm-answers.sqlite") if cache else llm
