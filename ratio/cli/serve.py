"""``ratio serve``: the REST API and the web pages on one port (uvicorn).

The API key and CORS origins come from options or the environment (``RATIO_API_KEY``,
``RATIO_CORS_ORIGINS``, comma-separated); without them the API is open on the bound address and not readable
cross-origin, which suits the default loopback binding.
"""

from __future__ import annotations

import click

from ratio import settings
from ratio.cli.common import Context
from ratio.cli.options import api_key_option, llm_options, rerank_weight_option, reranker_option


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (0.0.0.0: all interfaces).")
@click.option("--port", default=8000, show_default=True)
@api_key_option(help="Require this key (X-API-Key header) on /api/ routes.")
@click.option("--cors-origin", "cors_origins", multiple=True, envvar="RATIO_CORS_ORIGINS",
              help="Allow this origin to call the API from a browser (repeatable; default: none).")
@click.option("--no-pages", is_flag=True, help="Serve the API only.")
@reranker_option(help="A CrossEncoder for rerank=true (default: bi-encoder).")
@rerank_weight_option(help="The reranker's share of a reranked score; the rest is the fused score.")
@click.option("--workers", default=1, show_default=True, help="Thread-pool size is uvicorn's; this is processes.")
@llm_options
@click.pass_obj
def serve_command(ctx: Context, host: str, port: int, api_key: str | None, cors_origins: tuple[str, ...],
                  no_pages: bool, reranker: str | None, rerank_weight: float, workers: int, llm_kind: str | None,
                  llm_model: str | None,
                  llm_url: str | None) -> None:
    """Serve the REST API (/api/v1, OpenAPI at /api/v1/openapi.json) and the search pages."""
    try:
        import uvicorn

        from ratio.client import Client
        from ratio.web import create_app
    except ImportError as exc:
        raise click.ClickException(f"the web extra is missing ({exc.name}): pip install 'ratio[web]'") from exc
    origins = tuple(o.strip() for value in cors_origins for o in value.split(",") if o.strip())
    conn = ctx.settings()
    llm = settings.LLMSettings.read(kind=llm_kind, model=llm_model, url=llm_url)
    client = Client(conn.url, user=conn.user, password=conn.password, verify_certs=conn.verify_certs,
                    prefix=ctx.prefix, reranker=reranker, rerank_weight=rerank_weight, llm=llm)
    app = create_app(client, api_key=api_key, cors_origins=origins, pages=not no_pages)
    click.echo(f"Ratio on http://{host}:{port}/ (API docs: /api/v1/docs){' with an API key' if api_key else ''}",
               err=True)
    uvicorn.run(app, host=host, port=port, workers=1 if workers < 2 else workers, log_level="info")
