"""The app factory uvicorn's worker processes call: ``uvicorn ratio.web.factory:app_from_environment --factory``.

``ratio serve --workers N`` cannot hand N processes one app object, so it leaves its settings in the
environment (:meth:`ratio.settings.ServerSettings.export`) and gives uvicorn this import string; each worker
builds its own client and app from them. Running uvicorn (or gunicorn with uvicorn workers) by hand works
the same way once ``RATIO_SERVE_CONFIG`` is set, which is what ``ratio serve`` writes.

Each worker loads its models here, before uvicorn binds the port (:meth:`ratio.Client.load_models`), saying on
stderr what it loads: the first search then costs what any search does, not a model load.
"""

from __future__ import annotations

import sys

from fastapi import FastAPI

from ratio import settings
from ratio.client import Client
from ratio.errors import RatioError
from ratio.web.app import create_app
from ratio.web.sessions import SessionStore

# The longest request line and headers uvicorn reads (its h11 parser's ``h11_max_incomplete_event_size``; 16 KiB by
# default): a GET search of a whole pasted judgment (search.query.understand.MAX_PASTE_CHARS characters,
# percent-encoded)
# and the page's links that repeat it. ``ratio serve`` passes it; so does a test's server.
MAX_REQUEST_HEAD_BYTES = 4 * 1024 * 1024


def _say(message: str) -> None:
    print(f"ratio: {message}", file=sys.stderr, flush=True)


def app_from_settings(config: settings.ServerSettings, *, load_models: bool = True) -> FastAPI:
    """The app ``config`` describes, with its own client, its models loaded (``load_models``; an index that is
    missing is said and left to the health check, so the server still starts and can report it)."""
    client = Client(config.url, user=config.user, password=config.password, verify_certs=config.verify_certs,
                    prefix=config.prefix, reranker=config.reranker, rerank_weight=config.rerank_weight,
                    llm=config.llm_settings(), graphs_dir=settings.graphs_dir())
    if load_models:
        try:
            seconds = client.load_models(_say)
        except RatioError as exc:
            _say(f"models not loaded ({exc.message}); they load on the first search")
        else:
            _say(f"models loaded in {seconds:.1f} s")
    return create_app(client, api_key=config.api_key, cors_origins=config.cors_origins, pages=config.pages,
                      rate_limit=config.rate_limit, heavy_timeout=config.heavy_timeout,
                      citation_workers=config.citation_workers,
                      webhooks=config.webhooks().policy(), answer_timeout=config.answer_timeout,
                      sessions=SessionStore(config.sessions_path, lifetime=config.session_hours * 3600))


def app_from_environment() -> FastAPI:
    """The app for the settings ``ratio serve`` exported (``RATIO_SERVE_CONFIG``)."""
    return app_from_settings(settings.ServerSettings.read())
