"""Each judgment's cited-by count stored on its document (``cited_by_count``), so that the cited-by sort is a
plain field sort instead of a script whose parameters carry every cited judgment's count in each request (at a
million judgments about 700k entries, ~15 MB per sorted request: docs/capacity.md).

What is stored: the in-degree in the by-parties graph (:mod:`search.graph.citation_graph`), the resolution the
judgment page's "cited by" and the sorts use. ``ratio index`` writes the counts at its end, right after the graph
snapshot (:meth:`search.graph.cache.GraphCache.store_counts`): one scroll reads the counts already stored, and
partial updates go only to the judgments whose count changed (an incremental run that adds a few judgments writes
a few counts; a judgment whose count falls to zero is written 0). The mapping gains the field additively, so an
index created before it needs no re-index.

When a stored count can be trusted. A count goes stale whenever the index changes: a newer judgment citing an
older one, or a judgment written again by some other writer (a whole-document write drops its count). So the
counts are marked, in the judgments index's mapping ``_meta`` (:data:`MARK`), with the index state
(:func:`search.graph.snapshot.index_state`) they are exact for, and the sort reads them only while the index is
at that state and the server holds the graph of that state (:meth:`search.graph.cache.GraphCache.counts_current`).
Otherwise (an old index, a corpus written by other means, a run under way) the sort is the script over the held
graph's counts, as before: the order is always the graph's.

The updates themselves raise the index's ``max_seq_no``, which would make the snapshot saved just before them
stale (a server's start would scroll again) and leave nothing to mark. Each update that changes a document raises
its shard's ``max_seq_no`` by exactly one, and a partial update changes no document count, so the state after the
updates is predicted from the state before plus the bulk response's ``updated`` items per index
(:func:`write_counts`). When the state read afterwards is exactly that, nothing else wrote in between and the
graph (the counts are none of its inputs) is the graph of the new state: the caller re-keys the snapshot and
writes the mark. Any other state leaves no mark, and the next run catches up.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import AuthorizationException, NotFoundError

from search.graph.citation_graph import CitationGraph
from search.graph.snapshot import index_state

__all__ = ["FIELD", "MARK", "CountsWritten", "read_mark", "stored_counts", "write_counts", "write_mark"]

FIELD = "cited_by_count"  # the judgments' integer field (mappings/judgments.json)
MARK = "cited_by_counts"  # the key in the judgments index's mapping _meta: {"state": the index state}
State = list[dict[str, Any]]


@dataclass(frozen=True)
class CountsWritten:
    """What :func:`write_counts` did: how many judgments' counts it changed, how many updates failed, and the index
    state the stored counts are exact for afterwards (None: something else wrote meanwhile, or an update failed)."""

    updated: int
    failed: int
    state: State | None


def stored_counts(client: OpenSearch, judgments: str) -> dict[str, int]:
    """The counts stored on the judgments behind ``judgments`` that have one (one scroll over doc values)."""
    hits = helpers.scan(client, index=judgments, size=5000,
                        query={"query": {"exists": {"field": FIELD}}, "_source": False, "docvalue_fields": [FIELD]})
    return {h["_id"]: int(h["fields"][FIELD][0]) for h in hits}


def _changes(graph: CitationGraph, stored: dict[str, int]) -> dict[str, int]:
    """The judgments whose stored count is not the graph's, with the graph's count (0 for one no longer cited)."""
    degrees = np.diff(graph.cited_by_indptr)
    cited = np.flatnonzero(degrees)
    counts = dict(zip(graph.nodes.ids(cited), degrees[cited].tolist(), strict=True))
    changed = {judgment: n for judgment, n in counts.items() if stored.get(judgment, 0) != n}
    changed.update({judgment: 0 for judgment, n in stored.items() if n and judgment not in counts})
    return changed


def write_counts(client: OpenSearch, judgments: str, graph: CitationGraph, state: State) -> CountsWritten:
    """Store ``graph``'s cited-by counts on the judgments behind ``judgments`` (partial updates of the changed ones
    only), ``graph`` being the graph of the index at ``state``. Nothing is written when the index is no longer at
    ``state`` (the counts would be an older graph's). The index is refreshed afterwards, so a sort sees them."""
    if index_state(client, judgments) != state:
        return CountsWritten(0, 0, None)
    client.indices.put_mapping(index=judgments, body={"properties": {FIELD: {"type": "integer"}}})  # additive
    changed = _changes(graph, stored_counts(client, judgments))
    actions = ({"_op_type": "update", "_index": judgments, "_id": judgment, "doc": {FIELD: n}}
               for judgment, n in changed.items())
    per_index: Counter[str] = Counter()
    failed = 0
    for ok, item in helpers.streaming_bulk(client, actions, chunk_size=2000, raise_on_error=False,
                                           max_retries=3):
        result = item.get("update", {})
        if not ok:
            failed += 1
        elif result.get("result") == "updated":
            per_index[result["_index"]] += 1
    client.indices.refresh(index=judgments)
    expected = [{**entry, "max_seq_no": entry["max_seq_no"] + per_index[entry["index"]]} if "max_seq_no" in entry
                else entry for entry in state]
    after = index_state(client, judgments)
    return CountsWritten(sum(per_index.values()), failed, after if not failed and after == expected else None)


def write_mark(client: OpenSearch, judgments: str, state: State | None) -> None:
    """Mark the stored counts as exact for the index at ``state`` (None: remove the mark), in the ``_meta`` of
    every index behind ``judgments`` (a mapping update: it raises no ``max_seq_no``)."""
    for index, body in client.indices.get_mapping(index=judgments).items():
        meta = dict(body["mappings"].get("_meta") or {})
        if state is None:
            meta.pop(MARK, None)
        else:
            meta[MARK] = {"state": state}
        client.indices.put_mapping(index=index, body={"_meta": meta})


def read_mark(client: OpenSearch, judgments: str) -> State | None:
    """The index state the stored counts are exact for; None when an index behind ``judgments`` has no mark (or
    they disagree, or the user may not read mappings): the caller sorts by the graph's counts instead."""
    try:
        found = client.indices.get_mapping(index=judgments)
    except (AuthorizationException, NotFoundError):
        return None
    marks = [(body["mappings"].get("_meta") or {}).get(MARK, {}).get("state") for body in found.values()]
    if not marks or any(mark is None or mark != marks[0] for mark in marks):
        return None
    return marks[0]
