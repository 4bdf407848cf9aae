"""The app factory uvicorn's worker processes call: ``uvicorn ratio.web.factory:app_from_environment --factory``.

``ratio serve --workers N`` cannot hand N processes one app object, so it leaves its settings in the
environment (:meth:`ratio.settings.ServerSettings.export`) and gives uvicorn this import string; each worker
builds its own client and app from them. Running uvicorn (or gunicorn with uvicorn workers) by hand works
the same way once ``RATIO_SERVE_CONFIG`` is set, which is what ``ratio serve`` writes.
"""

from __future__ import annotations

from fastapi import FastAPI

from ratio import settings
from ratio.client import Client
from ratio.web.app import create_app


def app_from_settings(config: settings.ServerSettings) -> FastAPI:
    """The app ``config`` describes, with its own client."""
    client = Client(config.url, user=config.user, password=config.password, verify_certs=config.verify_certs,
                    prefix=config.prefix, reranker=config.reranker, rerank_weight=config.rerank_weight,
                    llm=config.llm_settings())
    return create_app(client, api_key=config.api_key, cors_origins=config.cors_origins, pages=config.pages,
                      rate_limit=config.rate_limit, heavy_timeout=config.heavy_timeout,
                      webhooks=config.webhooks().policy())


def app_from_environment() -> FastAPI:
    """The app for the settings ``ratio serve`` exported (``RATIO_SERVE_CONFIG``)."""
    return app_from_settings(settings.ServerSettings.read())
