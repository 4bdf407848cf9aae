"""Turning :class:`ratio.settings.LLMSettings` into an LLM object (or None), wrapped in the answer cache; and
the CLI options that choose it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from backends.llm import DEFAULT_LLM, LLM, CachedLLM, LlamaCppLLM, LLMError, OpenAICompatibleLLM, resolve_gguf
from ratio import settings as settings_module
from ratio.settings import LLM_KINDS, LLMSettings


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


def llm_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--llm``, ``--llm-model`` and ``--llm-url``, with their environment variables."""
    command = click.option("--llm-url", envvar="RATIO_LLM_URL",
                           help="OpenAI-compatible base URL for --llm http (e.g. http://127.0.0.1:8080/v1).")(command)
    command = click.option("--llm-model", envvar="RATIO_LLM_MODEL",
                           help="GGUF path or known id for local; the server's model name for http.")(command)
    return click.option("--llm", "llm_kind", envvar="RATIO_LLM", type=click.Choice(LLM_KINDS),
                        help="LLM for expansion and explanations (default none: non-LLM paths).")(command)


def configured_llm(llm_kind: str | None, llm_model: str | None, llm_url: str | None) -> LLM | None:
    """The LLM the options and environment ask for, with errors turned into a message for the user."""
    try:
        config = LLMSettings.read(kind=llm_kind, model=llm_model, url=llm_url)
        return open_llm(config)
    except (ValueError, LLMError) as exc:
        raise click.ClickException(str(exc)) from exc
