"""The citation graph a server keeps: read from a snapshot at start, rebuilt in the background when the corpus
changes, so neither a start nor a page view waits for a scroll over every judgment once one graph exists.

:class:`GraphCache` holds both resolutions of :func:`search.graph.citation_graph.build_graph` (by parties for the pages
and sorts, exact for the learned ranker), built from one scroll and sharing their node ids. With a snapshot
folder (:mod:`search.graph.snapshot`; the ``ratio`` layer passes one under its data folder) the first call maps
a saved graph instead of scrolling. When the index state differs from the held graph's (a write, a delete, a
re-index: :func:`search.graph.snapshot.index_state`), the cache keeps answering with the graph it holds while one
background thread scrolls, builds and saves the new one (stale-while-revalidate); only a cache with no graph at
all, and no snapshot, makes its first caller wait.

The cache also says whether the cited-by counts stored on the judgments (:mod:`search.graph.store`) are those
of the graph it holds (:meth:`GraphCache.counts_current`), so the cited-by sort can read the field instead of
sending the graph's counts, and writes them at index time (:meth:`GraphCache.store_counts`).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from opensearchpy import OpenSearch
from opensearchpy.exceptions import OpenSearchException

from search.graph.citation_graph import CitationGraph, build_graphs, load_entries
from search.graph.snapshot import index_state, load_snapshot, rekey_snapshot, save_snapshot
from search.graph.store import CountsWritten, read_mark, write_counts, write_mark

__all__ = ["GraphCache", "save_graph_state"]

State = list[dict[str, Any]]


class GraphCache:
    """The graph of one ``judgments`` alias, kept between page views. The index state is read at most once per
    ``check_every`` seconds (one ``_stats`` request). ``background=False`` rebuilds in the caller's thread
    instead (``ratio index`` writing a snapshot, tests that want the new graph at once). Thread-safe: pages are
    served from a thread pool."""

    def __init__(self, client: OpenSearch, judgments: str, snapshots: Path | None = None, *,
                 check_every: float = 1.0, background: bool = True) -> None:
        self.client, self.judgments, self.snapshots = client, judgments, snapshots
        self.check_every, self.background = check_every, background
        self._graphs: dict[bool, CitationGraph] = {}
        self._state: State | None = None  # the index state the held graph was built at
        self._seen: State | None = None  # the index state last read
        self._mark: tuple[float, State | None] | None = None  # when the counts' mark was read, and the mark
        self._checked = float("-inf")
        self._building = threading.Lock()  # one build at a time; held through the first load
        self._starting = threading.Lock()  # one background thread at a time
        self._thread: threading.Thread | None = None
        self.source: str | None = None  # where the held graph came from: "snapshot" or "scroll"
        self.error: Exception | None = None  # why the last background rebuild failed (the old graph stays)

    def graph(self, by_parties: bool = True) -> CitationGraph:
        if self._graphs and time.monotonic() - self._checked < self.check_every:
            return self._graphs[by_parties]
        state = index_state(self.client, self.judgments)
        self._checked, self._seen = time.monotonic(), state
        if not self._graphs:
            with self._building:
                if not self._graphs:
                    self._first_load(state)
        if state != self._state:
            self._refresh(state)
        return self._graphs[by_parties]

    @property
    def state(self) -> State | None:
        """The index state the held graph was built at (None before the first load)."""
        return self._state

    def counts_current(self) -> bool:
        """Whether the cited-by counts stored on the judgments are exactly the held graph's (by parties): their
        mark names the state of the held graph, and the index is still at it when last read. The mark is read at
        most once per ``check_every`` seconds (one mapping request)."""
        self.graph()
        now = time.monotonic()
        if self._mark is None or now - self._mark[0] >= self.check_every:
            self._mark = (now, read_mark(self.client, self.judgments))
        mark = self._mark[1]
        return mark is not None and mark == self._state == self._seen

    def store_counts(self) -> CountsWritten:
        """Store the held graph's cited-by counts on the judgments (:func:`search.graph.store.write_counts`).
        When nothing else wrote meanwhile, the graph is held, and its snapshot re-keyed, as the graph of the state
        after the updates (they change none of its inputs), and the counts are marked current for that state; else
        the mark is removed (the sort then falls back to the graph's counts)."""
        self.graph()
        with self._building:
            before = self._state
            written = write_counts(self.client, self.judgments, self._graphs[True], before or [])
            if written.state is not None and before is not None:
                self._state = self._seen = written.state
                if self.snapshots is not None:
                    rekey_snapshot(self.snapshots, self.judgments, before, written.state)
            write_mark(self.client, self.judgments, written.state)
            self._mark = None
        return written

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a background rebuild to end; True when none is running."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def _first_load(self, state: State) -> None:
        saved = load_snapshot(self.snapshots, self.judgments) if self.snapshots is not None else None
        if saved is not None:  # fresh, or stale and refreshed next (by _refresh)
            self._state, self._graphs = saved[0], saved[1]
            self.source = "snapshot"
            if set(self._graphs) == {True, False}:
                return
        self._rebuild(state)

    def _refresh(self, state: State) -> None:
        if not self.background:
            with self._building:
                if state != self._state:
                    self._rebuild(state)
            return
        with self._starting:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._rebuild_quietly, args=(state,), daemon=True,
                                            name=f"graph-{self.judgments}")
            self._thread.start()

    def _rebuild_quietly(self, state: State) -> None:
        try:
            with self._building:
                self._rebuild(state)
            self.error = None
        except (OpenSearchException, OSError, ValueError) as exc:  # the held graph stays; the next check retries
            self.error = exc

    def _rebuild(self, state: State) -> None:
        """Scroll, build both resolutions, hold them, and save them (``state``: read before the scroll, so a
        write during it leaves the graph stale rather than marked fresh)."""
        graphs = build_graphs(load_entries(self.client, self.judgments))
        self._graphs, self._state, self.source = graphs, state, "scroll"
        if self.snapshots is not None:
            try:
                save_snapshot(self.snapshots, self.judgments, state, graphs)
            except OSError as exc:  # a read-only or full disk costs the next start a scroll, not this answer
                self.error = exc


def save_graph_state(client: OpenSearch, judgments: str, snapshots: Path) -> dict[str, float | int]:
    """What a corpus's writer leaves for its servers, after it wrote judgments: the citation graph's snapshot
    (mapped at a server's start instead of a scroll over every judgment) and the judgments' changed cited-by counts
    (the cited-by sort reads them). One home for ``ratio index`` and ``ratio bench scale``, so the benchmark
    measures the production path. The seconds each took and the counts written."""
    started = time.perf_counter()
    client.indices.refresh(index=judgments)
    cache = GraphCache(client, judgments, snapshots, background=False)
    cache.graph()
    seconds = time.perf_counter() - started
    written = cache.store_counts()
    return {"graph_snapshot_seconds": round(seconds, 2), "cited_by_counts_written": written.updated,
            "cited_by_counts_seconds": round(time.perf_counter() - started - seconds, 2)}
