"""Settings read from the environment: the only place (with the CLI's click options) that does so.

Lower layers take explicit arguments; this module turns environment variables into those arguments.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs

if TYPE_CHECKING:
    from backends.webhooks import WebhookPolicy


def _flag(value: str | None, default: bool) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() not in ("0", "false", "no", "off")


def home_dir() -> Path:
    """Where the local node, its data and Ratio's models live.

    ``RATIO_HOME`` wins; as root the default is ``/var/lib/ratio`` (the node runs as a system user that
    cannot enter ``/root``); otherwise the user's data directory.
    """
    if os.environ.get("RATIO_HOME"):
        return Path(os.environ["RATIO_HOME"]).expanduser()
    if os.geteuid() == 0:
        return Path("/var/lib/ratio")
    return Path(platformdirs.user_data_dir("ratio"))


def graphs_dir() -> Path:
    """Where ``ratio index`` and a server keep each corpus's citation graph snapshot (:mod:`search.graph.snapshot`):
    ``$RATIO_GRAPHS``, else ``graphs`` in the data directory. The test suite points it at a folder of its own, so
    its throwaway corpora leave no snapshots in the user's data directory."""
    if os.environ.get("RATIO_GRAPHS"):
        return Path(os.environ["RATIO_GRAPHS"]).expanduser()
    return home_dir() / "graphs"


def cache_dir() -> Path:
    """Downloads (OpenSearch artifacts) and computed caches (embeddings)."""
    if os.environ.get("RATIO_CACHE"):
        return Path(os.environ["RATIO_CACHE"]).expanduser()
    return Path(platformdirs.user_cache_dir("ratio"))


def java_home(choice: str | None = None) -> str | None:
    """The JDK the user asked for: ``choice`` (``--java-home``), else ``RATIO_JAVA_HOME``, else ``JAVA_HOME``."""
    return choice or os.environ.get("RATIO_JAVA_HOME") or os.environ.get("JAVA_HOME") or None


def maven_repository() -> str | None:
    """The Maven repository base URL used when no ``mvn`` is installed."""
    from backends.opensearch.artifacts import maven_mirror_from_settings  # requests: not for every command line

    return os.environ.get("RATIO_MAVEN_REPOSITORY") or maven_mirror_from_settings(Path.home() / ".m2" / "settings.xml")


@dataclass(frozen=True)
class Environment:
    """A snapshot of the environment variables Ratio understands."""

    opensearch_url: str | None
    opensearch_user: str | None
    opensearch_password: str | None
    opensearch_verify_certs: bool
    index_prefix: str
    knn_engine: str
    ranker: str | None = "default"  # RATIO_RANKER: a model folder, "default" (shipped) or "off" (None)

    @classmethod
    def read(cls) -> Environment:
        return cls(
            opensearch_url=os.environ.get("OPENSEARCH_URL") or None,
            opensearch_user=os.environ.get("OPENSEARCH_USER") or None,
            opensearch_password=os.environ.get("OPENSEARCH_PASSWORD") or None,
            opensearch_verify_certs=_flag(os.environ.get("OPENSEARCH_VERIFY_CERTS"), True),
            index_prefix=os.environ.get("RATIO_INDEX_PREFIX", "ratio"),
            knn_engine=os.environ.get("RATIO_KNN_ENGINE", "lucene"),
            ranker=None if os.environ.get("RATIO_RANKER", "default") == "off" else os.environ.get("RATIO_RANKER",
                                                                                                 "default"),
        )


LLM_KINDS = ("none", "local", "http")


@dataclass(frozen=True)
class LLMSettings:
    """Which LLM to use, if any: ``kind`` is ``none`` (default: every LLM step falls back), ``local`` (a GGUF
    file or known id run in-process) or ``http`` (an OpenAI-compatible server at ``url``)."""

    kind: str = "none"
    model: str | None = None
    url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 120.0
    context: int = 4096
    threads: int | None = None  # in-process model: CPU threads (default all; 1 beside another busy process)

    @classmethod
    def read(cls, **overrides: object) -> LLMSettings:
        """From ``RATIO_LLM``, ``RATIO_LLM_MODEL``, ``RATIO_LLM_URL``, ``RATIO_LLM_API_KEY`` (or
        ``OPENAI_API_KEY``), ``RATIO_LLM_TIMEOUT``, ``RATIO_LLM_CONTEXT``, ``RATIO_LLM_THREADS``; ``overrides`` that
        are not None win. (llama.cpp's threads wait for each other by spinning: on a machine busy with other
        work, fewer threads than cores run much faster than all of them.)"""
        values: dict[str, object] = {
            "kind": os.environ.get("RATIO_LLM") or "none",
            "model": os.environ.get("RATIO_LLM_MODEL") or None,
            "url": os.environ.get("RATIO_LLM_URL") or None,
            "api_key": os.environ.get("RATIO_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY") or None,
            "timeout": float(os.environ.get("RATIO_LLM_TIMEOUT") or 120.0),
            "context": int(os.environ.get("RATIO_LLM_CONTEXT") or 4096),
            "threads": int(os.environ["RATIO_LLM_THREADS"]) if os.environ.get("RATIO_LLM_THREADS") else None,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        settings = cls(**values)  # type: ignore[arg-type]
        if settings.kind not in LLM_KINDS:
            raise ValueError(f"RATIO_LLM must be one of {', '.join(LLM_KINDS)}, not {settings.kind!r}")
        if settings.kind == "http" and not settings.url:
            raise ValueError("an http LLM needs a URL: set RATIO_LLM_URL (e.g. http://127.0.0.1:8080/v1)")
        return settings


def _list(value: str | None) -> tuple[str, ...]:
    return tuple(v.strip() for v in (value or "").split(",") if v.strip())


@dataclass(frozen=True)
class WebhookSettings:
    """Where webhooks may go and how they are signed: ``RATIO_WEBHOOK_ALLOW`` (comma-separated host names,
    addresses or CIDR networks allowed besides public hosts, for internal hooks) and ``RATIO_WEBHOOK_SECRET``
    (signs each payload with HMAC-SHA256 in ``X-Ratio-Signature``)."""

    allow: tuple[str, ...] = ()
    secret: str | None = field(default=None, repr=False)

    @classmethod
    def read(cls) -> WebhookSettings:
        return cls(allow=_list(os.environ.get("RATIO_WEBHOOK_ALLOW")),
                   secret=os.environ.get("RATIO_WEBHOOK_SECRET") or None)

    def policy(self) -> WebhookPolicy:
        from backends.webhooks import WebhookPolicy

        return WebhookPolicy.from_entries(self.allow, self.secret)


DEFAULT_RATE_LIMIT = "600/minute"  # a search page is 1 + up to 10 explanation requests
DEFAULT_HEAVY_TIMEOUT = 30.0
DEFAULT_CITATION_WORKERS = 2  # processes per server process for citation checks (ratio.web.pool)
DEFAULT_WORKER_TIMEOUT = 60  # seconds a server process may take to answer uvicorn's health check (model loading)
DEFAULT_SESSION_HOURS = 12.0  # a browser's sign-in (ratio serve --session-hours)
DEFAULT_ANSWER_TIMEOUT = 180.0  # an answer is several LLM calls a round, up to three rounds, on a CPU


@dataclass(frozen=True)
class ServerSettings:
    """What ``ratio serve`` hands each worker process: the connection, the models and the web policies.

    ``ratio serve`` writes it as JSON to ``RATIO_SERVE_CONFIG`` and uvicorn's workers rebuild the app from it
    (:func:`ratio.web.factory.app_from_environment`); a worker cannot share the parent's objects.
    ``rate_limit`` is per client in the ``limits`` notation (``120/minute``; None: no limit);
    ``heavy_timeout`` the seconds a CPU-heavy request may run before a 503; ``answer_timeout`` the seconds an
    answer (``/api/v1/ask``, the ask page) may run; ``sessions_path`` the SQLite file where every worker finds
    the browser sessions and failed keys (:mod:`ratio.web.sessions`; None: each worker's memory) and
    ``session_hours`` how long a sign-in lasts.
    """

    url: str
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    verify_certs: bool = True
    prefix: str = "ratio"
    reranker: str | None = None
    rerank_weight: float = 0.5
    llm: dict[str, object] = field(default_factory=dict, repr=False)
    api_key: str | None = field(default=None, repr=False)
    cors_origins: tuple[str, ...] = ()
    pages: bool = True
    rate_limit: str | None = DEFAULT_RATE_LIMIT
    heavy_timeout: float = DEFAULT_HEAVY_TIMEOUT
    citation_workers: int = DEFAULT_CITATION_WORKERS
    answer_timeout: float = DEFAULT_ANSWER_TIMEOUT
    webhook_allow: tuple[str, ...] = ()
    webhook_secret: str | None = field(default=None, repr=False)
    sessions_path: str | None = None
    session_hours: float = DEFAULT_SESSION_HOURS

    ENV = "RATIO_SERVE_CONFIG"

    def export(self) -> None:
        """Leave these settings in this process's environment, where the workers it starts find them."""
        os.environ[self.ENV] = json.dumps(asdict(self))

    @classmethod
    def read(cls) -> ServerSettings:
        """The settings ``ratio serve`` left in ``RATIO_SERVE_CONFIG`` (ValueError when there are none)."""
        raw = os.environ.get(cls.ENV)
        if not raw:
            raise ValueError(f"{cls.ENV} is not set: start the server with 'ratio serve'")
        data = json.loads(raw)
        for key in ("cors_origins", "webhook_allow"):
            data[key] = tuple(data.get(key) or ())
        return cls(**data)

    def llm_settings(self) -> LLMSettings:
        return LLMSettings(**self.llm)  # type: ignore[arg-type]

    def webhooks(self) -> WebhookSettings:
        return WebhookSettings(self.webhook_allow, self.webhook_secret)
