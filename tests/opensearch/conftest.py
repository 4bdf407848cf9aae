"""The bundled sample judgments indexed once per session on the real node, for the search tests."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from opensearchpy import OpenSearch

import mappings
from backends.encoders import load_encoder
from backends.opensearch import IndexLayout, create_indices, install_pipelines
from indexer.loaders import load
from indexer.pipeline import Pipeline
from indexer.roles.labeller import RoleLabeller
from indexer.writer import IndexWriter

SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "aila-2019"


@pytest.fixture(scope="session")
def encoder():
    return load_encoder()


@pytest.fixture(scope="session")
def aliases(client: OpenSearch, encoder, embedding_cache) -> dict[str, str]:
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=384))
    install_pipelines(client)
    aliases = {kind: layout.alias(kind) for kind in mappings.INDEX_KINDS}
    labeller = RoleLabeller.load(encoder, cache_dir=embedding_cache)
    report = IndexWriter(client, aliases, Pipeline(labeller)).run(load([str(SAMPLES)]))
    assert report.failed == [] and report.judgments_indexed == 18
    yield aliases
    client.indices.delete(index=f"{layout.prefix}-*")


# ---------------------------------------------------------------- the web app over the sample corpus


@pytest.fixture(scope="session")
def ratio_client(opensearch_settings, aliases: dict[str, str], encoder):
    """A ``ratio.Client`` on the session's sample indices (the prefix is the one ``aliases`` was built with)."""
    from ratio.client import Client

    prefix = aliases["judgments"].removesuffix("-judgments")
    return Client(opensearch_settings.url, prefix=prefix, encoder=encoder, llm=None)


@pytest.fixture(scope="session")
def web_app(ratio_client):
    from ratio.web import create_app

    return create_app(ratio_client)


@pytest.fixture(scope="session")
def api(web_app):
    """A TestClient over the app (in-process ASGI, real OpenSearch and encoder behind it)."""
    from fastapi.testclient import TestClient

    with TestClient(web_app) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def live_server(web_app):
    """The app served by uvicorn on a free loopback port, for the browser and the remote client."""
    import socket
    import threading
    import time

    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(web_app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start the test server within 30 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (one per test module)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")
    from tests.opensearch.browsing import chromium

    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser, live_server: str):
    """A fresh desktop-sized page on the live server; any JavaScript error or CSP block fails the test."""
    from tests.opensearch.browsing import checked_page

    with checked_page(browser, live_server) as new_page:
        yield new_page
