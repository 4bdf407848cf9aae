"""Option decorators shared by the commands, so one option has one spelling, one envvar and one default.

Choices come from the enums and tuples of the layers that consume them (``RoleMode``, ``FusionMethod``,
``EXPANSIONS``, ``LLM_KINDS``), never from string literals, so a new member reaches every command at once.
Where two commands once spelled an option differently, the other spelling survives as a hidden alias
(:func:`hidden_alias`), so old scripts keep working while ``--help`` shows one name.

Every command line imports this module (the root group takes its connection options from here), so the search
layers behind a choice or a default are imported in the decorator that needs them, not at the top.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from ratio.cli.common import DEFAULT_DATA
from ratio.settings import LLM_KINDS

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[F], F]

# search.ranking.model.DEFAULT_MODEL, the shipped ranker's name, spelled here because importing the ranker's model
# module (numpy, opensearch-py, the feature code) was most of ``ratio search --help``; a test keeps them equal.
DEFAULT_RANKER = "default"


def apply(*decorators: Decorator) -> Decorator:
    """One decorator made of several, applied so that the options list in ``--help`` in the order given."""

    def decorate(func: F) -> F:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return decorate


def hidden_alias(old: str, dest: str, **attrs: Any) -> Decorator:
    """``old`` as a hidden option filling ``dest``: an older spelling kept working; the command merges it with
    the option's current name through :func:`either`."""
    return click.option(old, dest, hidden=True, **attrs)


def either(new: Any, old: Any, new_name: str, old_name: str, *, required: bool = False) -> Any:
    """The value of an option given under its name or its hidden alias (None when neither), refusing both."""
    if new is not None and old is not None:
        raise click.UsageError(f"{old_name} is another name for {new_name}: pass one of them")
    if required and new is None and old is None:
        raise click.UsageError(f"Missing option '{new_name}'.")
    return new if new is not None else old


# --------------------------------------------------------------------------- connection (the root group)
connection_options = apply(
    click.option("--url", envvar="OPENSEARCH_URL", help="OpenSearch URL (default: the local node)."),
    click.option("--user", envvar="OPENSEARCH_USER", help="OpenSearch user name."),
    click.option("--password", envvar="OPENSEARCH_PASSWORD", help="OpenSearch password (never printed)."),
    click.option("--verify-certs/--no-verify-certs", envvar="OPENSEARCH_VERIFY_CERTS", default=True,
                 help="Verify TLS certificates."),
    click.option("--prefix", envvar="RATIO_INDEX_PREFIX", default="ratio", show_default=True,
                 help="Prefix of Ratio's index aliases."),
)


# --------------------------------------------------------------------------- output
def _note_json(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:
        ctx.meta["ratio.json"] = True  # ratio.cli.errors: errors are printed as JSON too
    return value


def json_option(help: str = "Print JSON.") -> Decorator:
    """``--json`` (as ``as_json``): machine-readable output instead of tables, errors included."""
    return click.option("--json", "as_json", is_flag=True, help=help, callback=_note_json)


# --------------------------------------------------------------------------- models
def encoder_option(help: str = "Query encoder (default: the one the index was built with).",
                   default: str | None = None) -> Decorator:
    """``--encoder`` / ``RATIO_ENCODER``. With no default the command decides: a search reads the encoder its
    index was built with, ``ratio index`` that of the existing indices."""
    return click.option("--encoder", envvar="RATIO_ENCODER", default=default, show_default=default is not None,
                        help=help)


def reranker_option(help: str = "A sentence-transformers CrossEncoder (path or id); default: bi-encoder rescoring.",
                    ) -> Decorator:
    """``--reranker`` / ``RATIO_RERANKER``."""
    return click.option("--reranker", envvar="RATIO_RERANKER", help=help)


def rerank_weight_option(help: str = "The reranker's share of a reranked chunk's score; the rest is the fused "
                                     "score (1: the reranker's score replaces it).") -> Decorator:
    """``--rerank-weight`` / ``RATIO_RERANK_WEIGHT``, between 0 and 1."""
    from search.retrieval.rerank import DEFAULT_RERANK_WEIGHT

    return click.option("--rerank-weight", envvar="RATIO_RERANK_WEIGHT", type=click.FloatRange(0, 1),
                        default=DEFAULT_RERANK_WEIGHT, show_default=True, help=help)


llm_options = apply(
    click.option("--llm", "llm_kind", envvar="RATIO_LLM", type=click.Choice(LLM_KINDS),
                 help="LLM for expansion and explanations (default none: non-LLM paths)."),
    click.option("--llm-model", envvar="RATIO_LLM_MODEL",
                 help="GGUF path or known id for local; the server's model name for http."),
    click.option("--llm-url", envvar="RATIO_LLM_URL",
                 help="OpenAI-compatible base URL for --llm http (e.g. http://127.0.0.1:8080/v1)."),
)
"""``--llm``, ``--llm-model`` and ``--llm-url`` (as ``llm_kind``, ``llm_model``, ``llm_url``); the API key is read
only from the environment, never from the command line, where it would land in shell history."""


def role_head_option(help: str = "A trained role head folder (default: the shipped one).") -> Decorator:
    """``--role-head``: the rhetorical-role head to label with (``--head`` is its hidden alias where it was used)."""
    return click.option("--role-head", type=click.Path(exists=True, file_okay=False, path_type=Path), help=help)


# --------------------------------------------------------------------------- search filters
def filter_options(*, judges: bool = True) -> Decorator:
    """``--court``, ``--judge``, ``--from`` and ``--to`` (as ``courts``, ``judges``, ``date_from``, ``date_to``)."""
    options = [click.option("--court", "courts", multiple=True, help="Only judgments of this court (repeatable).")]
    if judges:
        options.append(click.option("--judge", "judges", multiple=True,
                                    help="Only judgments with this judge on the bench (repeatable)."))
    options += [click.option("--from", "date_from", help="Decided on or after (YYYY, YYYY-MM-DD or DD-MM-YYYY)."),
                click.option("--to", "date_to", help="Decided on or before.")]
    return apply(*options)


def role_options(role_help: str, mode_help: str) -> Decorator:
    """``--role`` (repeatable, as ``roles``) and ``--mode`` (as ``role_mode``, a :class:`RoleMode`, no default:
    the request decides)."""
    return apply(click.option("--role", "roles", multiple=True, help=role_help),
                 role_mode_option(help=mode_help))


def role_mode_option(choices: Sequence[str] | None = None, default: str | None = None,
                     help: str = "Role handling.") -> Decorator:
    """``--mode`` as ``role_mode``: what the preferred roles do to the search (``choices``: every
    :class:`RoleMode` unless given)."""
    from search.query.options import RoleMode

    if choices is None:
        choices = tuple(mode.value for mode in RoleMode)
    return click.option("--mode", "role_mode", type=click.Choice(choices), default=default,
                        show_default=default is not None, help=help)


def fusion_option() -> Decorator:
    """``--fusion``: how the BM25 and k-NN lists are combined."""
    from search.query.options import DEFAULTS
    from search.retrieval.fusion import FusionMethod

    methods = tuple(method.value for method in FusionMethod)
    return click.option("--fusion", type=click.Choice(methods), default=DEFAULTS.fusion.value,
                        show_default=True, help="How the BM25 and vector lists are fused.")


def ranking_options() -> Decorator:
    """``--ranking`` (the learned ranker or the fusion it replaced) and ``--ranker`` (its model folder)."""
    from search.query.options import DEFAULTS, RankingMode

    ranking = click.option("--ranking", type=click.Choice([m.value for m in RankingMode]),
                           default=DEFAULTS.ranking.value, show_default=True,
                           help="What orders the judgments: the learned ranker, or the chunk fusion it replaced.")
    model = click.option("--ranker", "ranker_model", envvar="RATIO_RANKER", default=DEFAULT_RANKER, show_default=True,
                         help="The learned ranker's model folder ('default': the shipped one; 'off': fusion only).")
    return lambda func: ranking(model(func))


def expand_option() -> Decorator:
    """``--expand`` (repeatable): the LLM expansions a search may run."""
    from search.query.options import EXPANSIONS

    return click.option("--expand", type=click.Choice(EXPANSIONS), multiple=True,
                        help="LLM expansion: legal issues as extra queries, parametric provisions for provision "
                             "retrieval.")


# --------------------------------------------------------------------------- benchmarks and queries
def data_option(help: str = "Folder holding the benchmark datasets.") -> Decorator:
    """``--data``: the folder the benchmark names resolve in."""
    return click.option("--data", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_DATA,
                        show_default=True, help=help)


def query_file_options(queries_help: str, qrels_help: str, suffix: str = "") -> Decorator:
    """``--queries`` and ``--qrels`` (as ``queries``/``qrels``, or ``queries_path``/``qrels_path`` with
    ``suffix="_path"``): a query set and its relevance judgments instead of a named benchmark's."""
    return apply(
        click.option("--queries", f"queries{suffix}", type=click.Path(exists=True, path_type=Path),
                     help=queries_help),
        click.option("--qrels", f"qrels{suffix}", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help=qrels_help),
    )


def limit_option() -> Decorator:
    """``--limit``: only the first N queries."""
    return click.option("--limit", type=int, help="Use only the first N queries.")


def max_words_option(help: str = "Cut each query to its first N words.") -> Decorator:
    """``--max-words``: long fact patterns run past the query length limit."""
    return click.option("--max-words", default=300, show_default=True, help=help)


def api_key_option(help: str) -> Decorator:
    """``--api-key`` / ``RATIO_API_KEY``: the key of Ratio's REST API."""
    return click.option("--api-key", envvar="RATIO_API_KEY", help=help)


def _read_key_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> str | None:
    """The key held in the file ``value`` (its one line, white space around it dropped)."""
    if value is None:
        return None
    try:
        text = value.read_text(encoding="utf-8")
        mode = value.stat().st_mode
    except OSError as exc:
        raise click.BadParameter(f"cannot read the key file {value}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise click.BadParameter(f"the key file {value} is not UTF-8 text") from None
    key = text.strip()
    if not key:
        raise click.BadParameter(f"the key file {value} is empty: write the key on its first line")
    if "\n" in key:
        raise click.BadParameter(f"the key file {value} has more than one line: it holds the key alone")
    if mode & 0o077:
        click.echo(f"ratio: the key file {value} can be read by other users (chmod 600 {value})", err=True)
    return key


def api_key_file_option(help: str) -> Decorator:
    """``--api-key-file`` / ``RATIO_API_KEY_FILE``: the API key read from a file, so it is not on the command
    line (where ``ps`` shows it to every local user); the option's value is the key."""
    return click.option("--api-key-file", "api_key_from_file", envvar="RATIO_API_KEY_FILE",
                        type=click.Path(dir_okay=False, path_type=Path), callback=_read_key_file, help=help)
