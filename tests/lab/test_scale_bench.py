"""One step of the scale curve measured on the sample corpus (lab.bench.scale): the figures are there, in the
units they claim, and the server is started, measured and stopped."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest
import requests

from lab.bench.scale import STAGES, document_requests, measure_step, server_figures, store_bytes
from search.execute import Searcher
from search.query.request import SearchRequest

TYPED = ("murder", "dowry death section 304B", "anticipatory bail")
PASTED = ("The appellant was convicted of murder on the evidence of one eye witness who saw him strike the "
          "deceased with an axe after a quarrel over the boundary of their fields; the High Court upheld it.",)


def test_a_step_is_measured_on_the_sample_corpus(client, aliases, encoder) -> None:
    searcher = Searcher(client, aliases, encoder)
    typed = [SearchRequest.from_query(text, facets=False) for text in TYPED]
    pasted = [SearchRequest.from_query(text, facets=False) for text in PASTED]
    documents = document_requests(client, aliases["judgments"], 2)
    assert len(documents) == 2 and all(len(d.text.split()) > 300 for d in documents)  # whole judgments
    figures = measure_step(searcher, typed=typed, pasted=pasted, documents=documents)
    assert (figures.judgments, figures.chunks > 18) == (18, True)
    assert figures.store_bytes == store_bytes(client, aliases) > 0
    assert figures.bytes_per_judgment == round(figures.store_bytes / 18, 1)
    assert {name: set(modes) for name, modes in figures.latency.items()} == {
        "typed": {"ranker", "bm25", "bm25_page"}, "pasted": {"ranker", "bm25", "bm25_page"}, "document": {"document"}}
    counts = {"typed": len(TYPED), "pasted": len(PASTED), "document": 2}
    for name, modes in figures.latency.items():
        assert all(lat.queries == counts[name] and 0 < lat.p50_ms <= lat.p95_ms for lat in modes.values()), name
    assert figures.ranked == len(TYPED) + len(PASTED)  # every one went through the ranker
    assert set(figures.stages) == set(STAGES) and all(ms > 0 for ms in figures.stages.values())
    assert figures.ratio("typed") == round(figures.latency["typed"]["ranker"].p50_ms
                                           / figures.latency["typed"]["bm25_page"].p50_ms, 2)
    assert figures.load_before >= 0 and figures.load_after >= 0
    row = figures.as_dict()
    assert row["latency"]["document"]["document"]["queries"] == 2 and row["stages_ms"] == dict(figures.stages)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_server_is_timed_to_its_first_search_measured_and_stopped(opensearch_settings, aliases) -> None:
    port = _free_port()
    prefix = aliases["judgments"].removesuffix("-judgments")
    env = {k: v for k, v in os.environ.items() if k not in ("RATIO_SERVE_CONFIG", "RATIO_API_KEY")}
    env.update(PYTHONPATH=str(Path(__file__).resolve().parents[2]), RATIO_LLM="none")
    argv = [sys.executable, "-m", "ratio.cli", "--url", opensearch_settings.url, "--prefix", prefix, "serve",
            "--port", str(port), "--rate-limit", "off"]
    figures = server_figures(argv, f"http://127.0.0.1:{port}", "murder", env=env, timeout=300)
    assert figures.startup_s > 0
    assert 200 < figures.rss_mb <= figures.hwm_mb  # an encoder and the ranker are loaded (a bare Python: 10 MB)
    assert figures.group_rss_mb > figures.rss_mb and figures.processes >= 2  # its citation workers count too
    with pytest.raises(requests.ConnectionError):  # stopped: nothing answers on its port
        requests.get(f"http://127.0.0.1:{port}/api/v1/health", timeout=5)


def test_a_server_that_exits_is_reported_with_its_log() -> None:
    argv = [sys.executable, "-c", "import sys; print('no index under that prefix'); sys.exit(3)"]
    with pytest.raises(RuntimeError, match=r"exited with 3(.|\n)*no index under that prefix"):
        server_figures(argv, f"http://127.0.0.1:{_free_port()}", "murder", timeout=60)
