"""``ratio ask``: a question answered from the indexed judgments (or statutes), with citations, or withheld.

Progress (each round's search, draft and scores, and any rewritten query) is printed to stderr as it
happens; the answer is printed once it has passed its checks. ``--json`` prints the API's answer (``POST
/api/v1/ask``: text, citations with links, claims, every round's scores), for scripts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.markup import escape

from legal.roles import role_label
from ratio.cli.common import Context, configured_llm
from ratio.cli.options import encoder_option, filter_options, json_option, llm_options, reranker_option
from search.answer import MODES

if TYPE_CHECKING:  # the encoders, the searcher and the API's schemas are imported by a question, not by --help
    from search.answer import Answer


def _progress(console: Console) -> Any:
    def show(kind: str, data: dict[str, Any]) -> None:
        if kind == "retrieved":
            console.print(f"[dim]round {data['round']}: searched {escape(data['query'][:90])!s} -> "
                          f"{data['passages']} passages[/dim]")
        elif kind == "checked":
            scores = ", ".join(f"{name} {'none' if data[name] is None else format(data[name], '.2f')}"
                               for name in ("context_relevance", "groundedness", "answer_relevance"))
            console.print(f"[dim]round {data['round']}: {scores}[/dim]")
        elif kind == "rewritten":
            console.print(f"[dim]rewritten query: {escape(data['query'])}[/dim]")
    return show


def render(answer: Answer, console: Console) -> None:
    """The answer (or the reason it is withheld), its sources with links, and the notice."""
    if answer.withheld:
        console.print(f"[bold red]No answer[/bold red]: {escape(answer.reason or '')}")
        if answer.passages:
            console.print("The passages found, to read yourself:")
    else:
        if answer.status == "unchecked":
            console.print(f"[bold yellow]Unchecked answer[/bold yellow] ({escape(answer.reason or '')})")
        console.print(escape(answer.text))
        console.print("Sources:")
    for passage in answer.passages:
        title = passage.title or passage.judgment_id
        console.print(f"  {passage.label} {escape(title[:80])} ({role_label(passage.role)}) "
                      f"{passage.link}")
        if answer.withheld:
            console.print(f"      {escape(passage.text[:240])}…")
    console.print(f"[dim]{escape(answer.notice)} ({answer.model}, {len(answer.attempts)} round(s), "
                  f"{answer.took_ms / 1000:.1f} s)[/dim]")


@click.command("ask")
@click.argument("question")
@click.option("--mode", type=click.Choice(MODES), default="auto", show_default=True,
              help="Answer from judgment passages, or from statute provisions the LLM names and the index holds "
                   "(auto: provisions when the question is about a statute).")
@click.option("--no-parametric", is_flag=True, help="Provision mode: search with the question itself.")
@filter_options(judges=False)
@click.option("--rounds", default=3, show_default=True, help="Most search-draft-check rounds.")
@click.option("--context-tokens", default=1200, show_default=True, help="Token budget of the passages read.")
@click.option("--min-context", default=0.25, show_default=True, help="Least context relevance (0..1).")
@click.option("--min-grounded", default=1.0, show_default=True, help="Least share of supported sentences.")
@click.option("--min-relevance", default=0.5, show_default=True, help="Least answer relevance (0..1).")
@click.option("--allow-ungrounded", is_flag=True, help="Show an answer that failed its checks, marked unchecked.")
@reranker_option()
@llm_options
@encoder_option()
@json_option(help="Print the answer as the API gives it (JSON).")
@click.pass_obj
def ask_command(ctx: Context, question: str, mode: str, no_parametric: bool, courts: tuple[str, ...],
                date_from: str | None, date_to: str | None, rounds: int, context_tokens: int, min_context: float,
                min_grounded: float, min_relevance: float, allow_ungrounded: bool, reranker: str | None,
                llm_kind: str | None, llm_model: str | None, llm_url: str | None, encoder: str | None,
                as_json: bool) -> None:
    """Answer QUESTION from the passages Ratio retrieves, citing them, or say why it cannot."""
    from backends.encoders import ModelError
    from ratio.encoders import search_encoders, tuned_encoder
    from ratio.errors import LLMUnavailableError
    from search.answer import Answerer, AskOptions, Thresholds, ask
    from search.execute import Searcher
    from search.query.errors import QueryError
    from search.retrieval.rerank import BiEncoderRescorer, CrossEncoderReranker

    if not question.strip():
        raise click.ClickException("the question is empty")
    llm = configured_llm(llm_kind, llm_model, llm_url)
    if llm is None:
        raise LLMUnavailableError("ratio ask needs an LLM: pass --llm local or --llm http (or set RATIO_LLM)")
    try:
        options = AskOptions(Thresholds(min_context, min_grounded, min_relevance), rounds,
                             context_tokens=context_tokens, allow_ungrounded=allow_ungrounded,
                             search={"courts": courts, "date_from": date_from, "date_to": date_to})
        aliases = ctx.aliases()
        model, rescoring = search_encoders(ctx.client(), aliases, encoder)
    except (ValueError, ModelError) as exc:
        raise click.ClickException(str(exc)) from exc
    scorer = CrossEncoderReranker(reranker) if reranker else BiEncoderRescorer(rescoring)
    answerer = Answerer(Searcher(ctx.client(), aliases, model, reranker=scorer, llm=llm,
                                 tuned=tuned_encoder(ctx.client(), aliases)), llm, options)
    console, progress = Console(), Console(stderr=True)
    try:
        answer = ask(answerer, question, mode=mode, parametric=not no_parametric, on_event=_progress(progress))
    except (QueryError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        from ratio.answer_results import answer_out

        click.echo(answer_out(answer).model_dump_json(indent=2))  # the API's shape (POST /api/v1/ask)
    else:
        render(answer, console)
