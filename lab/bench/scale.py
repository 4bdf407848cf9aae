"""One step of the scale curve (issue 30): what the default search costs on one prefix's indices, and what its
server takes to start. Figures, not assertions; ``ratio bench scale`` runs a step per corpus size.

:func:`measure_step` times, in one run, the learned ranker's search (exactly what ``ratio search`` does) and BM25
alone (``bm25``: the body over chunks; ``bm25_page``: a plain engine's page) on the same typed queries and the
same pasted fact patterns, and the document path (a whole judgment as the query) through
:func:`lab.bench.searches.measure`, so the ratio ranker/BM25, which holds across machines, comes from the same
seconds. Where a ranked search's time goes comes from the ranking's own timings (:attr:`Ranking.times`: profile,
candidates, features, score) and the page fetch (:func:`search.page.fetch_page`), as medians over the same
queries. The index size per judgment is the store of the prefix's judgments and chunks (primaries), and the
machine's load average is read before and after, since a busy machine explains a slow step.

:func:`server_figures` starts a server (the caller's command line, ``ratio serve`` on the prefix) in a process
group of its own, times it until it answers a search (it warms the encoder, the ranker and the citation graphs
before it does), reads the group's resident memory (:mod:`backends.processes`) and stops it.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace

from opensearchpy import OpenSearch

from backends.processes import group_memory, stop_group
from lab.bench.searches import Latency, measure
from search.execute import Searcher
from search.page import fetch_page
from search.query.request import SearchRequest
from search.query.syntax import as_plain_text

__all__ = ["STAGES", "ServerFigures", "StepFigures", "document_requests", "measure_step", "server_figures",
           "stage_medians", "store_bytes"]

STAGES = ("profile", "candidates", "features", "score", "page")  # a ranked search's stages, in order
QUERY_MODES = ("ranker", "bm25", "bm25_page")  # timed on the typed queries and on the pasted fact patterns


@dataclass(frozen=True)
class StepFigures:
    """The default search at one corpus size. ``latency`` is by query set (``typed``, ``pasted``, ``document``),
    then by :data:`lab.bench.searches.MODES` name; ``stages`` are median milliseconds per stage (:data:`STAGES`)
    over the typed and pasted queries the ranker ranked (``ranked`` of them)."""

    judgments: int
    chunks: int
    store_bytes: int
    latency: Mapping[str, Mapping[str, Latency]]
    stages: Mapping[str, float]
    ranked: int
    load_before: float
    load_after: float

    @property
    def bytes_per_judgment(self) -> float:
        return round(self.store_bytes / self.judgments, 1) if self.judgments else 0.0

    def ratio(self, queries: str) -> float | None:
        """The ranker's p50 over a plain BM25 page's p50 on the same queries: what holds across machines."""
        modes = self.latency.get(queries, {})
        if "ranker" not in modes or "bm25_page" not in modes or not modes["bm25_page"].p50_ms:
            return None
        return round(modes["ranker"].p50_ms / modes["bm25_page"].p50_ms, 2)

    def as_dict(self) -> dict:
        return {"judgments": self.judgments, "chunks": self.chunks, "store_bytes": self.store_bytes,
                "bytes_per_judgment": self.bytes_per_judgment,
                "latency": {name: {mode: asdict(lat) for mode, lat in modes.items()}
                            for name, modes in self.latency.items()},
                "ranker_per_bm25_page": {name: self.ratio(name) for name in ("typed", "pasted")},
                "stages_ms": dict(self.stages), "ranked": self.ranked,
                "load_before": self.load_before, "load_after": self.load_after}


def store_bytes(client: OpenSearch, aliases: Mapping[str, str]) -> int:
    """Bytes on disk of the judgments and chunks indices behind ``aliases`` (primaries: one copy)."""
    stats = client.indices.stats(index=f"{aliases['judgments']},{aliases['chunks']}", metric="store")
    return int(stats["_all"]["primaries"]["store"]["size_in_bytes"])


def document_requests(client: OpenSearch, judgments: str, count: int, max_words: int = 300) -> list[SearchRequest]:
    """``count`` whole judgments of the index as queries for the ``document`` mode (the first by id, so every run
    at a size reads the same). The mode ranks a request's ``text``, the whole judgment, as
    :meth:`ratio.Client.search_by_document` does; its vector is that of the first ``max_words`` words (a request's
    parsed query is bounded, :data:`search.query.syntax.MAX_TERMS`), which the encoder's input length cuts to anyway."""
    found = client.search(index=judgments, body={"size": count, "sort": [{"judgment_id": "asc"}],
                                                 "_source": ["text"]})["hits"]["hits"]
    texts = [hit["_source"].get("text") or "" for hit in found]
    return [replace(SearchRequest.from_query(as_plain_text(text, max_words), facets=False), text=text)
            for text in texts if text.strip()]


def stage_medians(searcher: Searcher, requests: Sequence[SearchRequest]) -> tuple[dict[str, float], int]:
    """Median milliseconds per ranked-search stage over ``requests`` and how many the ranker ranked (a request the
    ranker does not take, a filter-only one say, is left out): the ranking's own timings, then the page fetch,
    as :meth:`Searcher.search` runs them."""
    times: dict[str, list[float]] = {stage: [] for stage in STAGES}
    for request in requests:
        ranked, _ = searcher.ranking(request)
        if ranked is None:
            continue
        for stage in STAGES[:-1]:
            times[stage].append(float(ranked.times.get(stage, 0.0)))
        ids = [j.judgment_id for j in ranked.judgments[:request.size]]
        started = time.perf_counter()
        fetch_page(searcher.client, searcher.aliases, request, ids, ranked.vector, ranked.profile)
        times["page"].append((time.perf_counter() - started) * 1000)
    ranked_count = len(times["page"])
    return ({stage: round(statistics.median(values), 1) for stage, values in times.items() if values},
            ranked_count)


def measure_step(searcher: Searcher, *, typed: Sequence[SearchRequest], pasted: Sequence[SearchRequest],
                 documents: Sequence[SearchRequest]) -> StepFigures:
    """The default search's figures on the searcher's indices: latency per query set and mode, the stages'
    medians, the size per judgment, the load average around it all."""
    load_before = os.getloadavg()[0]
    latency: dict[str, dict[str, Latency]] = {}
    for name, requests, modes in (("typed", typed, QUERY_MODES), ("pasted", pasted, QUERY_MODES),
                                  ("document", documents, ("document",))):
        if requests:
            latency[name] = {lat.mode: lat for lat in measure(searcher, requests, modes)}
    stages, ranked = stage_medians(searcher, [*typed, *pasted])
    aliases = searcher.aliases
    judgments = searcher.client.count(index=aliases["judgments"])["count"]
    chunks = searcher.client.count(index=aliases["chunks"])["count"]
    return StepFigures(judgments, chunks, store_bytes(searcher.client, aliases), latency, stages, ranked,
                       round(load_before, 2), round(os.getloadavg()[0], 2))


@dataclass(frozen=True)
class ServerFigures:
    """A server's start: seconds until it answered a search, then its resident memory in MB (the leading process's
    current and peak, and the whole group's: uvicorn workers and citation-check workers)."""

    startup_s: float
    rss_mb: float
    hwm_mb: float
    group_rss_mb: float
    processes: int


def _answers(url: str, process: subprocess.Popen, log: str) -> bool:
    """Whether the server answers ``url`` with 200; an exited server ends the wait with its log's tail."""
    if process.poll() is not None:
        raise RuntimeError(f"the server exited with {process.returncode} before answering a search; its log ends:\n"
                           f"{_tail(log)}")
    try:
        with urllib.request.urlopen(url, timeout=300) as response:
            json.load(response)
            return response.status == 200
    except (urllib.error.URLError, ConnectionError):
        return False


def _tail(path: str, lines: int = 20) -> str:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return "".join(handle.readlines()[-lines:])


def server_figures(argv: Sequence[str], base_url: str, query: str, *, env: Mapping[str, str] | None = None,
                   timeout: float = 900.0, interval: float = 0.25) -> ServerFigures:
    """Start ``argv`` (a server that will listen at ``base_url``) in a process group of its own, poll until it
    answers ``GET /api/v1/search?q=query`` (that one search is the first it serves), read its memory, stop it.
    Polls every ``interval`` seconds until ``timeout``; a server that exits or never answers raises
    :class:`RuntimeError` with its log's tail."""
    url = f"{base_url.rstrip('/')}/api/v1/search?{urllib.parse.urlencode({'q': query})}"
    with tempfile.NamedTemporaryFile("w", prefix="ratio-scale-serve-", suffix=".log", delete=False) as log:
        started = time.perf_counter()
        process = subprocess.Popen(list(argv), env=dict(env) if env is not None else None, stdout=log,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while not _answers(url, process, log.name):
            if time.monotonic() >= deadline:
                raise RuntimeError(f"the server did not answer a search within {timeout:g} s; its log ends:\n"
                                   f"{_tail(log.name)}")
            time.sleep(interval)  # the pause between two checks of the condition, not a wait for it
        startup = time.perf_counter() - started
        memory = group_memory(process.pid)
    finally:
        stop_group(process)
        os.unlink(log.name)
    return ServerFigures(round(startup, 2), round(memory.leader_rss_kb / 1024, 1),
                         round(memory.leader_hwm_kb / 1024, 1), round(memory.group_rss_kb / 1024, 1),
                         memory.processes)
