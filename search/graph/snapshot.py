"""The citation graph on disk: its arrays saved with ``np.save`` and mapped back read-only, keyed by the index
state they were built from, so a server starts by mapping files instead of scrolling every judgment.

A snapshot is fresh while the index behind the alias is the same one (name and uuid), holds the same number of
documents and has the same sum of its primaries' ``max_seq_no``: every write, delete or re-index raises that
sum, where the count alone misses a judgment indexed again (:func:`index_state`).

Layout under the snapshot folder: ``<alias>/<stamp>/<array>.npy`` for each saved graph, and
``<alias>/current.json`` naming the stamp, the state and every array's dtype and shape. The arrays go into a
folder no reader knows yet and ``current.json`` is replaced last (temp file + rename), so a reader sees the old
snapshot or the new one, never half of one. A snapshot that does not match its ``current.json`` (a truncated
or missing file, another version) is ignored: the caller rebuilds it (:class:`search.graph.cache.GraphCache`).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
from opensearchpy import OpenSearch
from opensearchpy.exceptions import AuthorizationException

from search.graph.arrays import NodeIds
from search.graph.citation_graph import EDGE_ARRAYS, CitationGraph

__all__ = ["VERSION", "index_state", "load_snapshot", "rekey_snapshot", "save_snapshot", "snapshot_folder"]

VERSION = 1
RESOLUTIONS = {True: "parties", False: "exact"}  # by_parties -> the prefix of that graph's arrays
KEEP_OLD = 600.0  # seconds an unused stamp folder is kept: a writer in another process may still be filling it


def index_state(client: OpenSearch, alias: str) -> list[dict[str, Any]]:
    """What makes a snapshot of ``alias`` fresh: per concrete index behind it, its name, uuid, primary document
    count and the sum of its primary shards' ``max_seq_no`` (one ``_stats`` request). A user allowed to search
    but not to read index statistics gets the document count alone (a re-indexed judgment then goes unseen)."""
    try:
        stats = client.indices.stats(index=alias, metric="docs", level="shards")["indices"]
    except AuthorizationException:
        return [{"index": alias, "docs": int(client.count(index=alias)["count"])}]
    state = []
    for name, index in sorted(stats.items()):
        shards = [copy for copies in index.get("shards", {}).values() for copy in copies]
        seq_no = sum(int(s.get("seq_no", {}).get("max_seq_no", -1)) for s in shards if s["routing"]["primary"])
        state.append({"index": name, "uuid": index.get("uuid"), "docs": int(index["primaries"]["docs"]["count"]),
                      "max_seq_no": seq_no})
    return state


def snapshot_folder(root: Path, alias: str) -> Path:
    return root / quote(alias, safe="")


def save_snapshot(root: Path, alias: str, state: list[dict[str, Any]], graphs: dict[bool, CitationGraph]) -> Path:
    """Write ``graphs`` (one or both resolutions, sharing their nodes) as the snapshot of ``alias`` at ``state``;
    returns the stamp folder."""
    folder = snapshot_folder(root, alias)
    stamp = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
    target = folder / stamp
    target.mkdir(parents=True)
    nodes = next(iter(graphs.values())).nodes
    arrays = dict(nodes.arrays())
    for by_parties, graph in graphs.items():
        arrays.update({f"{RESOLUTIONS[by_parties]}_{name}": a for name, a in graph.arrays().items()})
    for name, array in arrays.items():
        np.save(target / f"{name}.npy", np.ascontiguousarray(array), allow_pickle=False)
    meta = {"version": VERSION, "alias": alias, "stamp": stamp, "state": state, "nodes": len(nodes),
            "resolutions": sorted(RESOLUTIONS[b] for b in graphs),
            "arrays": {name: {"dtype": str(a.dtype), "shape": list(a.shape)} for name, a in arrays.items()}}
    temporary = folder / f".current-{stamp}.json"
    temporary.write_text(json.dumps(meta), encoding="utf-8")
    os.replace(temporary, folder / "current.json")
    _remove_old(folder, keep=stamp)
    return target


def rekey_snapshot(root: Path, alias: str, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> bool:
    """Name the saved snapshot of ``alias`` at ``before`` the graph of ``after`` too, after writes that change no
    graph input but raise the index's ``max_seq_no`` (the stored cited-by counts, :mod:`search.graph.store`):
    without it a server's next start would scroll again. False when the saved snapshot is not of ``before``."""
    folder = snapshot_folder(root, alias)
    try:
        meta = json.loads((folder / "current.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(meta, dict) or meta.get("state") != before:
        return False
    temporary = folder / f".current-{meta.get('stamp')}-{uuid.uuid4().hex[:8]}.json"
    temporary.write_text(json.dumps({**meta, "state": after}), encoding="utf-8")
    os.replace(temporary, folder / "current.json")
    return True


def _remove_old(folder: Path, keep: str) -> None:
    for old in folder.iterdir():
        if old.is_dir() and old.name != keep and time.time() - old.stat().st_mtime > KEEP_OLD:
            shutil.rmtree(old, ignore_errors=True)  # a process mapping its files keeps reading them (POSIX)


def load_snapshot(root: Path, alias: str) -> tuple[list[dict[str, Any]], dict[bool, CitationGraph]] | None:
    """The saved state and graphs of ``alias``, memory-mapped; None when there is none or it is unreadable or
    inconsistent (the caller rebuilds)."""
    folder = snapshot_folder(root, alias)
    try:
        meta = json.loads((folder / "current.json").read_text(encoding="utf-8"))
        if meta.get("version") != VERSION:
            return None
        arrays = {name: _mapped(folder / meta["stamp"] / f"{name}.npy", spec)
                  for name, spec in meta["arrays"].items()}
        nodes = NodeIds(arrays["ids_blob"], arrays["ids_offsets"], arrays["id_hashes"], arrays["id_order"])
        graphs = {}
        for by_parties, prefix in RESOLUTIONS.items():
            if prefix in meta["resolutions"]:
                edges = {name: arrays[f"{prefix}_{name}"] for name in EDGE_ARRAYS}
                graphs[by_parties] = CitationGraph(nodes, **edges, by_parties=by_parties)
        if not graphs or not all(_consistent(g, int(meta["nodes"])) for g in graphs.values()):
            return None
        return meta["state"], graphs
    except (OSError, ValueError, KeyError, TypeError):  # missing, truncated or foreign files
        return None


def _mapped(path: Path, spec: dict[str, Any]) -> np.ndarray:
    array = np.load(path, mmap_mode="r", allow_pickle=False)
    if str(array.dtype) != spec["dtype"] or list(array.shape) != spec["shape"]:
        raise ValueError(f"{path} is not the array its snapshot names")
    return array


def _consistent(graph: CitationGraph, n: int) -> bool:
    """The arrays fit together (a file replaced by another snapshot's would not)."""
    nodes = graph.nodes
    return (len(nodes) == n and len(nodes.hashes) == len(nodes.order) == n and int(nodes.offsets[-1]) == len(nodes.blob)
            and len(graph.cites_indptr) == len(graph.cited_by_indptr) == n + 1
            and int(graph.cites_indptr[-1]) == len(graph.cites_indices) == len(graph.cited_by_indices)
            and int(graph.cited_by_indptr[-1]) == len(graph.cited_by_indices)
            and len(graph.key_hashes) == len(graph.key_nodes))
