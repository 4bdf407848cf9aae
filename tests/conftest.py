"""Shared fixtures: one real OpenSearch for the whole session, the shared data folder, and the bundled sample
corpus indexed once on that node with a ``ratio.Client``, the web app, a live server and a browser over it (for
the search, web, client and CLI tests wherever they live).

The cluster is chosen in this order: ``OPENSEARCH_URL`` (an existing cluster), a Docker engine (the
pinned official image through testcontainers), the local node Ratio manages (installed and started
if needed, stopped again at the end if this session started it). A test never skips because
OpenSearch is missing: the fixture fails and says how to get one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from opensearchpy import OpenSearch

from backends.opensearch import ConnectionSettings, IndexLayout, LocalNode, connect
from backends.opensearch.install import Manifest
from ratio import settings
from tests.waiting import WaitTimeout, serve, wait_for

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SAMPLES = REPO / "samples" / "aila-2019"

HOW_TO_GET_ONE = (
    "no OpenSearch for the tests. Either set OPENSEARCH_URL to a cluster, run a Docker engine, or let the "
    "tests start the local node (needs Java 17-23 and Maven or RATIO_MAVEN_REPOSITORY): "
    "'ratio opensearch install' shows what fails."
)


def _docker_available() -> bool:
    if not shutil.which("docker"):
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=10, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# ---------------------------------------------------------------- test tiers

# The fixtures that bring in something heavier than this process, and the marker each gives its tests. A
# test gets a tier's marker when it uses one of these fixtures, directly or through another fixture, so the
# marker cannot be forgotten. A test that needs a node, an LLM or a browser without such a fixture carries
# the marker itself (``pytestmark`` in its module). The fast tier is everything else:
#     pytest -m "not opensearch and not llm and not browser"
# The daily loop leaves out only what costs minutes a test (LLM generations; nodes a failover test starts and
# kills) and keeps the session's node and the browser:
#     pytest -m "not llm and not cluster"
# tests/test_tiers.py checks that every failover test that starts or kills a node is in the cluster tier.
FIXTURE_TIERS: dict[str, str] = {
    "local_node": "opensearch",  # the local node (every cluster fixture below starts from it)
    "opensearch_settings": "opensearch",
    "client": "opensearch",
    "layout": "opensearch",
    "installation": "opensearch",  # tests/failover: an OpenSearch installation for nodes they start
    "cluster": "cluster",  # tests/failover: a three-node cluster the test module starts, kills and restarts
    "own_node": "cluster",  # tests/failover: a node of the test module's own, killed and started again
    "small_gguf": "llm",  # the small GGUF (every in-process or served LLM starts from it)
    "small_llm": "llm",
    "uncached_llm": "llm",
    "llm_server": "llm",
    "browser": "browser",  # tests/ratio/web/test_web_browser.py: headless Chromium through Playwright
}


def pytest_configure(config: pytest.Config) -> None:
    """Graph snapshots of the suite's throwaway corpora go to a folder of the run's own (servers the tests start
    inherit it), not the user's data directory (:func:`ratio.settings.graphs_dir`)."""
    if not os.environ.get("RATIO_GRAPHS"):
        os.environ["RATIO_GRAPHS"] = _RUN_GRAPHS = tempfile.mkdtemp(prefix="ratio-test-graphs-")
        config.add_cleanup(lambda: shutil.rmtree(_RUN_GRAPHS, ignore_errors=True))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with the tiers its fixtures need (see ``FIXTURE_TIERS``)."""
    for item in items:
        for name in sorted({FIXTURE_TIERS[f] for f in getattr(item, "fixturenames", ()) if f in FIXTURE_TIERS}):
            item.add_marker(getattr(pytest.mark, name))


# ---------------------------------------------------------------- LLM tests: the same prompt fences every run

# The modules that call backends.llm.guard.nonce, each through a name of its own (``from ... import nonce``).
_NONCE_HOMES = ("backends.llm.base", "search.llm.rerank")
_SEEDED_NONCES = pytest.StashKey[pytest.MonkeyPatch]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Every test in the llm tier draws its prompts' fence nonces from a generator seeded afresh for it, so a
    temperature-0 model sees the same tokens and the test checks one answer, not a new one per run (a fresh
    random nonce made the grounded-answer test fail on one CI run and pass on the next). A hook, not a fixture:
    it runs before any of the test's fixtures are set up, so the answers a module-scoped fixture generates for
    the module's first test are seeded too, the same whichever test comes first. Tests outside the tier (the
    guard's own tests among them) keep the real random nonce."""
    if item.get_closest_marker("llm") is None:
        return
    import importlib
    import random

    draws = random.Random(0)
    patch = pytest.MonkeyPatch()
    for home in _NONCE_HOMES:
        patch.setattr(importlib.import_module(home), "nonce", lambda: f"{draws.getrandbits(48):012x}")
    item.stash[_SEEDED_NONCES] = patch


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    """The real nonce again once the test and the fixtures it closed are torn down."""
    patch = item.stash.get(_SEEDED_NONCES, None)
    if patch is not None:
        patch.undo()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The read-only ``shared/data`` folder beside the repository."""
    data = SHARED / "data"
    if not data.is_dir():
        pytest.fail(f"shared data not found at {data}: clone the repository next to 'shared/'")
    return data


@pytest.fixture(scope="session")
def embedding_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One sentence-embedding cache for the session: the sample judgments that several modules index are
    embedded (by the real encoder) once, by whichever comes first."""
    return tmp_path_factory.mktemp("session-embeddings")


@pytest.fixture(scope="session")
def local_node() -> LocalNode:
    """The local node as the CLI would manage it (same home, same cache)."""
    return LocalNode(home=settings.home_dir() / "opensearch", cache_dir=settings.cache_dir() / "maven",
                     repository_url=settings.maven_repository(), java_home=settings.java_home())


@pytest.fixture(scope="session")
def opensearch_settings(local_node: LocalNode) -> Iterator[ConnectionSettings]:
    """Connection settings of the session's cluster."""
    env = settings.Environment.read()
    if env.opensearch_url:
        yield ConnectionSettings(env.opensearch_url, env.opensearch_user, env.opensearch_password,
                                 env.opensearch_verify_certs)
        return
    if _docker_available():
        from testcontainers.opensearch import OpenSearchContainer

        with OpenSearchContainer(Manifest.load().docker_image, security_enabled=False) as container:
            config = container.get_config()
            yield ConnectionSettings(f"http://{config['host']}:{config['port']}")
        return
    started_here = local_node.state() is None
    try:
        state = local_node.start()
    except Exception as exc:
        pytest.fail(f"{HOW_TO_GET_ONE}\nstarting the local node failed: {exc}")
    try:
        yield ConnectionSettings(state["url"])
    finally:
        if started_here and not os.environ.get("RATIO_TEST_KEEP_NODE"):
            local_node.stop()


@pytest.fixture(scope="session")
def client(opensearch_settings: ConnectionSettings) -> OpenSearch:
    client = connect(opensearch_settings)
    try:
        client.cluster.health(wait_for_status="yellow")
    except Exception as exc:
        pytest.fail(f"{HOW_TO_GET_ONE}\n{opensearch_settings.url} did not answer: {exc}")
    return client


@pytest.fixture
def layout(client: OpenSearch) -> Iterator[IndexLayout]:
    """A fresh index prefix per test; every index and alias under it is deleted afterwards."""
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    yield layout
    client.indices.delete(index=f"{layout.prefix}-*", ignore_unavailable=True)


# ---------------------------------------------------------------- LLMs: a real small model, in-process and served


@pytest.fixture(scope="session")
def small_gguf(tmp_path_factory) -> Path:
    """The packaged Qwen2.5-Coder-0.5B GGUF, assembled from its part packages and verified by sha256."""
    from backends.llm import SMALL_LLM, LLMError, resolve_gguf

    try:
        return resolve_gguf(SMALL_LLM, settings.home_dir() / "models")
    except LLMError as exc:
        pytest.fail(f"the small test LLM is missing ({exc}): scripts/setup.sh embed,llm,llm-small,dev")


@pytest.fixture(scope="session")
def uncached_llm(small_gguf: Path):
    """The small model run in-process by llama-cpp-python (deterministic: temperature 0, fixed seed), every call
    generated: for the tests of the product's own answer cache, deadlines, cancellation and timings."""
    from backends.llm import SMALL_LLM, LlamaCppLLM

    return LlamaCppLLM(small_gguf, name=SMALL_LLM, context=4096, threads=_llm_threads())


class SessionAnswers:
    """The real small model behind a cache that lives for the test session: a temperature-0 call is generated
    once per session per prompt (the full messages, their nonces aside, the token limit and the schema: the
    key of the product's ``CachedLLM``), and a repeat gets the model's own earlier answer. The first call of a
    prompt always runs the model; a call at a higher temperature always does."""

    def __init__(self, llm) -> None:
        import threading

        self.llm, self.name = llm, llm.name
        self.generated = self.repeated = 0
        self._answers: dict[str, str] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"SessionAnswers({self.llm!r})"

    def chat(self, messages, *, max_tokens: int = 256, temperature: float = 0.0, schema=None) -> str:
        from backends.llm import CachedLLM

        if temperature != 0.0:
            return self.llm.chat(messages, max_tokens=max_tokens, temperature=temperature, schema=schema)
        key = CachedLLM.key(self.name, messages, max_tokens, temperature, schema)
        with self._lock:
            if key in self._answers:
                self.repeated += 1
                return self._answers[key]
        answer = self.llm.chat(messages, max_tokens=max_tokens, temperature=temperature, schema=schema)
        with self._lock:
            self.generated += 1
            self._answers.setdefault(key, answer)
            return self._answers[key]


_SESSION_ANSWERS: list[SessionAnswers] = []


@pytest.fixture(scope="session")
def small_llm(uncached_llm) -> SessionAnswers:
    """The small model, each prompt generated once per session (:class:`SessionAnswers`): what most LLM tests
    ask. A test of a cache, a deadline or a timing asks for ``uncached_llm``."""
    answers = SessionAnswers(uncached_llm)
    _SESSION_ANSWERS.append(answers)
    return answers


def pytest_terminal_summary(terminalreporter) -> None:
    """How many generations the session's answer cache saved (in every CI log, beside the durations)."""
    for answers in _SESSION_ANSWERS:
        terminalreporter.write_line(f"small LLM in-process: {answers.generated} prompts generated, "
                                    f"{answers.repeated} repeats answered from the session's cache")


def _llm_threads() -> int:
    """All cores, or ``RATIO_LLM_THREADS`` (1 keeps llama.cpp from spinning against other busy processes)."""
    return settings.LLMSettings.read().threads or os.cpu_count() or 1


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def llm_server(small_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``python -m llama_cpp.server`` serving the small model on loopback; yields its ``/v1`` base URL. Its log
    goes to the test session's temporary folder, not beside the user's models."""
    import sys

    import requests

    port = _free_port()
    log = tmp_path_factory.mktemp("llama-server") / f"llama-server-{port}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(small_gguf), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "4096", "--n_threads", str(_llm_threads()), "--model_alias", "qwen-small"],
            stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"

    def answers() -> bool:
        if process.poll() is not None:
            pytest.fail(f"llama_cpp.server exited with {process.returncode}: {log.read_text()[-2000:]}")
        try:
            return requests.get(f"{url}/models", timeout=2).ok
        except requests.ConnectionError:
            return False

    try:
        try:
            wait_for(answers, 120, f"llama_cpp.server to answer {url}/models", interval=0.5)
        except WaitTimeout as exc:
            pytest.fail(f"{exc}: {log.read_text()[-2000:]}")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


# ---------------------------------------------------------------- the fast indexer's static encoder


@pytest.fixture(scope="session")
def static_encoder():
    """The static encoder, distilled offline from the packaged MiniLM into the user's models folder on first
    use (one to three minutes once per machine), checked on every load against the stamp of the weights
    accepted then."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from backends.encoders import STATIC_ENCODER, load_encoder

    return load_encoder(STATIC_ENCODER, models_dir=settings.home_dir() / "models")


# ---------------------------------------------------------------- the sample corpus on the session's node


@pytest.fixture(scope="session")
def encoder():
    """The default encoder (MiniLM), loaded once for the session."""
    from backends.encoders import load_encoder

    return load_encoder()


@pytest.fixture(scope="session")
def aliases(client: OpenSearch, encoder, embedding_cache) -> dict[str, str]:
    """The 18 bundled sample judgments and their statutes, indexed once for the session on the real node."""
    import mappings
    from backends.opensearch import create_indices, install_pipelines
    from indexer.loaders import load
    from indexer.pipeline import Pipeline
    from indexer.roles.labeller import RoleLabeller
    from indexer.writer import IndexWriter

    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=384))
    install_pipelines(client)
    aliases = layout.aliases()
    labeller = RoleLabeller.load(encoder, cache_dir=embedding_cache)
    report = IndexWriter(client, aliases, Pipeline(labeller)).run(load([str(SAMPLES)]))
    assert report.failed == [] and report.judgments_indexed == 18
    from indexer.provision_map import map_provisions, write_mappings

    write_mappings(client, aliases["provisions"], map_provisions(client, aliases))  # as `ratio index` ends
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
    with serve(web_app) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (one per test module)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")
    from tests.ratio.web.browsing import chromium

    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser, live_server: str):
    """A fresh desktop-sized page on the live server; any JavaScript error or CSP block fails the test."""
    from tests.ratio.web.browsing import checked_page

    with checked_page(browser, live_server) as new_page:
        yield new_page
