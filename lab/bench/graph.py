"""The citation graph at a million judgments, without a million judgments: a synthetic corpus's metadata with the
real one's shape, and what building, saving and mapping back its graph costs (``ratio bench graph``).

The synthetic corpus (:func:`synthetic_entries`) gives every judgment a reporter citation and a case name, and
cites as AILA's judgments do: a few strings that name corpus judgments (a Poisson number, mean
:data:`REAL_OUT_DEGREE` by default, the mean out-degree of AILA's graph, party-word resolution) picked with a
power-law in-degree (a few judgments are cited by thousands, most by none), each by its reporter citation or by
its name, and many strings naming judgments outside the corpus (:data:`REAL_UNRESOLVED`, also power-law: a
popular outside case recurs). Resolution runs as it does on a real corpus (:func:`search.graph.citation_graph
.build_graphs`, both resolutions, as :class:`search.graph.cache.GraphCache` builds them).

:func:`measure` times the build, the save, and a load from the snapshot in a fresh process (the server's start;
the page cache is warm, the process is not), and reports resident memory; :func:`measure_dict_graph` is the
structure a server held before the arrays (the entries plus both graphs as dicts of tuples of strings), for
comparison at a smaller size. :func:`dict_graph` is that structure's resolution, kept as the reference the
array graph is tested against.
"""

from __future__ import annotations

import gc
import os
import resource
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from legal.citations import canonical_case_name
from search.graph.citation_graph import GraphEntry, build_graphs, citation_key, exact_key
from search.graph.snapshot import load_snapshot, save_snapshot

__all__ = ["REAL_OUT_DEGREE", "REAL_UNRESOLVED", "DictGraph", "GraphBench", "dict_graph", "measure",
           "measure_dict_graph", "synthetic_entries"]

# Measured on the indexed AILA corpus (ratio-judgments, 2,914 judgments): 1,459 resolved edges by party words
# (0.50 a judgment; 752 exact), and 11.05 cited strings a judgment, the rest naming judgments outside it.
REAL_OUT_DEGREE = 0.50
REAL_UNRESOLVED = 10.5
POWER = 1.1  # the in-degree's power law: the k-th most cited judgment is picked with weight k ** -POWER
ALIAS = "bench-judgments"
STATES = ("Punjab", "Haryana", "Kerala", "Gujarat", "Bihar", "Assam", "Goa", "Orissa", "Rajasthan", "Karnataka")


def _letters(i: int) -> str:
    """A distinct word per number (``Ba``, ``Bb``, ...), so each judgment's name has a party of its own."""
    word = ""
    while True:
        i, r = divmod(i, 26)
        word = chr(ord("a") + r) + word
        if i == 0:
            return "B" + word


def _power_law(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``size`` draws from ``range(n)`` where the rank-k value has weight ``k ** -POWER``, ranks shuffled."""
    weights = np.arange(1, n + 1, dtype=np.float64) ** -POWER
    draws = rng.choice(n, size=size, p=weights / weights.sum())
    return rng.permutation(n)[draws]


def synthetic_entries(nodes: int, edges_per_node: float = REAL_OUT_DEGREE, unresolved_per_node: float = REAL_UNRESOLVED,
                      seed: int = 0) -> list[GraphEntry]:
    """``nodes`` judgments' metadata with the real corpus's shape (see the module's notes)."""
    rng = np.random.default_rng(seed)
    ids = [f"S{i:07d}" for i in range(nodes)]
    reports = [f"({1950 + i % 70}) {i // 70 % 20 + 1} SCC {i + 1}" for i in range(nodes)]
    titles = [f"{_letters(i)} v. State of {STATES[i % len(STATES)]}" for i in range(nodes)]
    names = [f"{_letters(i)} v. The State of {STATES[i % len(STATES)]}" for i in range(nodes)]  # not as titled
    outside = [f"AIR {1950 + k % 70} SC {k + 1}" for k in range(max(nodes, 1))]
    resolved = rng.poisson(edges_per_node, nodes)
    unresolved = rng.poisson(unresolved_per_node, nodes)
    targets = _power_law(rng, nodes, int(resolved.sum())).tolist()
    by_name = (rng.random(len(targets)) < 0.3).tolist()  # a third name the case, not as titled
    others = _power_law(rng, len(outside), int(unresolved.sum())).tolist()
    entries, t, o = [], 0, 0
    for i in range(nodes):
        r, u = int(resolved[i]), int(unresolved[i])
        cited = [names[k] if name else reports[k] for k, name in zip(targets[t:t + r], by_name[t:t + r], strict=True)]
        cited += [outside[k] for k in others[o:o + u]]
        t, o = t + r, o + u
        entries.append(GraphEntry(ids[i], titles[i], (reports[i],), tuple(cited)))
    return entries


@dataclass(frozen=True)
class DictGraph:
    """The graph as a server held it before the arrays: dicts of tuples of judgment ids, and key -> id."""

    cites: dict[str, tuple[str, ...]]
    cited_by: dict[str, tuple[str, ...]]
    targets: dict[str, str]
    by_parties: bool

    def target(self, citation: str) -> str | None:
        key = citation_key(citation) if self.by_parties else exact_key(citation)
        return self.targets.get(key) if key else None


def dict_graph(entries: Iterable[GraphEntry], *, by_parties: bool = True) -> DictGraph:
    """The dict-built resolution, as :func:`search.graph.citation_graph.build_graph` was before its arrays."""
    citation_key_of = citation_key if by_parties else exact_key
    entries = list(entries)
    names: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        name = canonical_case_name(entry.title)
        for citation in (*entry.citations, *((name,) if name else ())):
            if key := citation_key_of(citation):
                names[key].add(entry.judgment_id)
    targets = {key: next(iter(ids)) for key, ids in names.items() if len(ids) == 1}
    cites: dict[str, tuple[str, ...]] = {}
    cited_by: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        keys = (citation_key_of(c) for c in entry.cited)
        found = tuple(dict.fromkeys(t for k in keys if k and (t := targets.get(k)) and t != entry.judgment_id))
        if found:
            cites[entry.judgment_id] = found
            for target in found:
                cited_by[target].append(entry.judgment_id)
    return DictGraph(cites, {k: tuple(v) for k, v in cited_by.items()}, targets, by_parties)


@dataclass(frozen=True)
class GraphBench:
    """What one run measured (seconds, bytes)."""

    nodes: int
    edges_per_node: float
    edges: int  # resolved, by party words
    exact_edges: int
    generate_s: float
    build_s: float  # both resolutions, from the entries
    save_s: float
    load_s: float  # a fresh process mapping the snapshot and reading every node's cited-by count
    arrays_bytes: int  # both resolutions, nodes shared
    snapshot_bytes: int
    load_rss_bytes: int  # what that process's resident memory grew by
    build_peak_rss_bytes: int  # this process at its peak: the entries, the resolution's dicts and the arrays
    dict_nodes: int | None = None
    dict_rss_bytes: int | None = None  # the old state (entries + both dict graphs) at dict_nodes

    def as_dict(self) -> dict[str, float | int | None]:
        return asdict(self)


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _load_in_fresh_process(root: str) -> tuple[float, int]:
    """Seconds to map the snapshot and read every cited-by count, and the resident memory it added."""
    before = _rss()
    started = time.perf_counter()
    saved = load_snapshot(Path(root), ALIAS)
    if saved is None:
        raise ValueError(f"no readable snapshot under {root}")
    graphs = saved[1]
    graphs[True].cited_by_counts()  # every in-degree, and the ids of the judgments cited
    graphs[False].target("(1950) 1 SCC 1")  # a key looked up
    return time.perf_counter() - started, _rss() - before


def _dict_state_rss(nodes: int, edges_per_node: float, unresolved_per_node: float, seed: int) -> int:
    """Resident memory of the old server state at ``nodes``: the entries and both dict graphs."""
    gc.collect()
    before = _rss()
    entries = synthetic_entries(nodes, edges_per_node, unresolved_per_node, seed)
    graphs = [dict_graph(entries, by_parties=b) for b in (True, False)]
    gc.collect()
    grown = _rss() - before
    del graphs, entries
    return grown


def _in_fresh_process(function, *args):
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def measure_dict_graph(nodes: int, edges_per_node: float = REAL_OUT_DEGREE,
                       unresolved_per_node: float = REAL_UNRESOLVED, seed: int = 0) -> int:
    return _in_fresh_process(_dict_state_rss, nodes, edges_per_node, unresolved_per_node, seed)


def measure(nodes: int, edges_per_node: float = REAL_OUT_DEGREE, unresolved_per_node: float = REAL_UNRESOLVED,
            seed: int = 0, dict_nodes: int | None = None, folder: Path | None = None) -> GraphBench:
    """Generate, build, save and load back a graph of ``nodes`` synthetic judgments (a temporary folder unless
    ``folder``); with ``dict_nodes``, also the old dict state's memory at that size (a fresh process each)."""
    started = time.perf_counter()
    entries = synthetic_entries(nodes, edges_per_node, unresolved_per_node, seed)
    generated = time.perf_counter()
    graphs = build_graphs(entries)
    built = time.perf_counter()
    del entries
    with tempfile.TemporaryDirectory(dir=folder) as root:
        stamp = save_snapshot(Path(root), ALIAS, [{"index": "synthetic", "nodes": nodes}], graphs)
        saved = time.perf_counter()
        snapshot_bytes = sum(f.stat().st_size for f in stamp.iterdir())
        load_s, load_rss = _in_fresh_process(_load_in_fresh_process, root)
    dict_rss = measure_dict_graph(dict_nodes, edges_per_node, unresolved_per_node, seed) if dict_nodes else None
    arrays = graphs[True].nodes.nbytes + sum(a.nbytes for g in graphs.values() for a in g.arrays().values())
    return GraphBench(nodes, edges_per_node, len(graphs[True].cites_indices), len(graphs[False].cites_indices),
                      round(generated - started, 3), round(built - generated, 3), round(saved - built, 3),
                      round(load_s, 3), arrays, snapshot_bytes, load_rss, _peak_rss(), dict_nodes, dict_rss)
