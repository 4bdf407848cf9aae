"""``ratio serve``: the REST API and the web pages on one port (uvicorn).

The API key, CORS origins and rate limit come from options or the environment (``RATIO_API_KEY`` or
``RATIO_API_KEY_FILE``: better than ``--api-key``, which ``ps`` shows to every local user;
``RATIO_CORS_ORIGINS`` comma-separated, ``RATIO_RATE_LIMIT``, ``RATIO_HEAVY_TIMEOUT``; webhooks:
``RATIO_WEBHOOK_ALLOW``, ``RATIO_WEBHOOK_SECRET``). Without a key the server is open on the bound address
and not readable cross-origin, which suits the default loopback binding. The settings reach uvicorn's
worker processes through the environment (:mod:`ratio.web.factory`), so ``--workers N`` runs N processes.
"""

from __future__ import annotations

import atexit
import dataclasses
import shutil
import tempfile
from pathlib import Path

import click
from click.core import ParameterSource

from ratio import settings
from ratio.cli.common import Context
from ratio.cli.options import api_key_file_option, api_key_option, llm_options, rerank_weight_option, reranker_option


def _rate_limit(ctx: click.Context, param: click.Parameter, value: str) -> str | None:
    if value.strip().lower() in ("off", "none", "0", ""):
        return None
    try:
        from limits import parse_many

        parse_many(value)
    except ImportError as exc:
        raise click.ClickException(f"the web extra is missing ({exc.name}): pip install 'ratio[web]'") from exc
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a rate such as 120/minute or '10/second;500/hour' "
                                 "(or 'off')") from None
    return value.strip()


def _key(api_key: str | None, from_file: str | None) -> str | None:
    """The server's key from ``--api-key`` / ``RATIO_API_KEY`` or ``--api-key-file`` (not both)."""
    if api_key and from_file:
        raise click.UsageError("the key is given twice: use --api-key (or RATIO_API_KEY) or --api-key-file")
    if api_key and click.get_current_context().get_parameter_source("api_key") == ParameterSource.COMMANDLINE:
        click.echo("ratio: --api-key on the command line is visible to every local user (ps); "
                   "use --api-key-file or RATIO_API_KEY", err=True)
    return api_key or from_file


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (0.0.0.0: all interfaces).")
@click.option("--port", default=8000, show_default=True)
@api_key_option(help="Require this key on every route but /api/v1/health (X-API-Key header; browsers sign in "
                     "at /login). On the command line it shows in ps: prefer --api-key-file or RATIO_API_KEY.")
@api_key_file_option(help="Read the key from this file (its one line; chmod 600), so it is not on the command line.")
@click.option("--session-hours", default=settings.DEFAULT_SESSION_HOURS, show_default=True,
              type=click.FloatRange(min=0, min_open=True), envvar="RATIO_SESSION_HOURS",
              help="How long a browser's sign-in at /login lasts (/logout ends it sooner).")
@click.option("--forwarded-allow-ips", default="", envvar="FORWARDED_ALLOW_IPS",
              help="Proxies whose X-Forwarded-For names the client (comma-separated addresses, '*': any); "
                   "default: none, so no client can choose its address for the rate limit or the key backoff.")
@click.option("--cors-origin", "cors_origins", multiple=True, envvar="RATIO_CORS_ORIGINS",
              help="Allow this origin to call the API from a browser (repeatable; default: none).")
@click.option("--no-pages", is_flag=True, help="Serve the API only.")
@reranker_option(help="A CrossEncoder for rerank=true (default: bi-encoder).")
@rerank_weight_option(help="The reranker's share of a reranked score; the rest is the fused score.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(min=1),
              help="Server processes (each loads its own models and counts its own rate limits).")
@click.option("--rate-limit", default=settings.DEFAULT_RATE_LIMIT, show_default=True, envvar="RATIO_RATE_LIMIT",
              callback=_rate_limit, help="Requests per client address, e.g. 120/minute or '10/second;500/hour'; "
                                         "'off' disables. Over it: 429 with Retry-After.")
@click.option("--heavy-timeout", default=settings.DEFAULT_HEAVY_TIMEOUT, show_default=True,
              type=click.FloatRange(min=0.1), envvar="RATIO_HEAVY_TIMEOUT",
              help="Seconds a search, export, explanation or citation check may run before a 503.")
@click.option("--answer-timeout", default=settings.DEFAULT_ANSWER_TIMEOUT, show_default=True,
              type=click.FloatRange(min=1), envvar="RATIO_ANSWER_TIMEOUT",
              help="Seconds an answer (/api/v1/ask, the ask page) may run before it is stopped.")
@click.option("--citation-workers", default=settings.DEFAULT_CITATION_WORKERS, show_default=True,
              type=click.IntRange(min=1), envvar="RATIO_CITATION_WORKERS",
              help="Processes (per server process) that find the citations of /api/v1/citations/check, started "
                   "with the server; 4 more checks each may wait, the rest get 503 busy.")
@click.option("--worker-timeout", default=settings.DEFAULT_WORKER_TIMEOUT, show_default=True,
              type=click.IntRange(min=5), envvar="RATIO_WORKER_TIMEOUT",
              help="With --workers: seconds a server process may leave uvicorn's health check unanswered (loading "
                   "its models, say) before uvicorn replaces it.")
@llm_options
@click.pass_obj
def serve_command(ctx: Context, host: str, port: int, api_key: str | None, api_key_from_file: str | None,
                  session_hours: float, forwarded_allow_ips: str, cors_origins: tuple[str, ...],
                  no_pages: bool, reranker: str | None, rerank_weight: float, workers: int, rate_limit: str | None,
                  heavy_timeout: float, answer_timeout: float, llm_kind: str | None, llm_model: str | None,
                  llm_url: str | None, citation_workers: int, worker_timeout: int) -> None:
    """Serve the REST API (/api/v1, OpenAPI at /api/v1/openapi.json) and the search pages."""
    try:
        import uvicorn

        from ratio.web.factory import MAX_REQUEST_HEAD_BYTES  # the web extra is there before anything starts
    except ImportError as exc:
        raise click.ClickException(f"the web extra is missing ({exc.name}): pip install 'ratio[web]'") from exc
    origins = tuple(o.strip() for value in cors_origins for o in value.split(",") if o.strip())
    api_key, sessions_path = _key(api_key, api_key_from_file), None
    if api_key:  # one sessions file for all the workers, private to this start (ratio.web.sessions)
        folder = tempfile.mkdtemp(prefix="ratio-sessions-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        sessions_path = str(Path(folder) / "sessions.db")
    conn = ctx.settings()
    llm = settings.LLMSettings.read(kind=llm_kind, model=llm_model, url=llm_url)
    hooks = settings.WebhookSettings.read()
    settings.ServerSettings(
        url=conn.url, user=conn.user, password=conn.password, verify_certs=conn.verify_certs, prefix=ctx.prefix,
        reranker=reranker, rerank_weight=rerank_weight, llm=dataclasses.asdict(llm), api_key=api_key,
        cors_origins=origins, pages=not no_pages, rate_limit=rate_limit, heavy_timeout=heavy_timeout,
        citation_workers=citation_workers,
        answer_timeout=answer_timeout, webhook_allow=hooks.allow, webhook_secret=hooks.secret,
        sessions_path=sessions_path, session_hours=session_hours).export()
    click.echo(f"Ratio on http://{host}:{port}/ (API docs: /api/v1/docs){' with an API key' if api_key else ''}"
               f"{f', {workers} workers' if workers > 1 else ''}", err=True)
    uvicorn.run("ratio.web.factory:app_from_environment", factory=True, host=host, port=port, workers=workers,
                timeout_worker_healthcheck=worker_timeout,  # models load before a worker answers (uvicorn: 5 s)
                log_level="info", forwarded_allow_ips=forwarded_allow_ips,
                h11_max_incomplete_event_size=MAX_REQUEST_HEAD_BYTES)
