"""The citation graph's storage: judgment ids, edges and resolved citation keys as flat numpy arrays.

A graph of a million judgments held as Python dicts of tuples of strings costs gigabytes and a long scroll at
every start; held as arrays it is a few hundred bytes per judgment, can be saved with ``np.save`` and read back
memory-mapped (:mod:`search.graph.snapshot`), so a server starts by mapping files rather than rebuilding.

- :class:`NodeIds`: every judgment id once, in node order (node ``i`` is the ``i``-th judgment), as one UTF-8
  blob with offsets, and a sorted index of their 64-bit hashes for id -> node. A hash hit is confirmed against
  the blob, so a collision can only cost a miss, never a wrong node.
- :class:`Adjacency`: one direction of the edges as CSR (``indptr``, ``indices``), read through the
  ``Mapping[str, tuple[str, ...]]`` interface the dict graph had (only judgments with an edge are keys).
- :class:`Targets`: the resolved citation keys as sorted 64-bit hashes -> node (:func:`key_hash`), with the
  ``get`` / ``in`` / ``[]`` of the dict it replaces; a key's string is not kept, so it cannot be listed.

Nothing here knows how citations resolve (:mod:`search.graph.citation_graph` does); this module only stores.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Adjacency", "NodeIds", "Targets", "csr", "key_hash", "key_hashes"]

RECENT = 1 << 16  # ids a graph remembers the node of (a few MB); forgotten all at once when full


def key_hash(text: str) -> int:
    """The 64-bit hash the arrays index strings by (blake2b: stable across processes, unlike ``hash``)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


def key_hashes(texts: Iterable[str]) -> np.ndarray:
    return np.fromiter((key_hash(t) for t in texts), dtype=np.uint64)


def _lookup(sorted_hashes: np.ndarray, values: np.ndarray, text: str) -> int | None:
    """The value stored under ``text``'s hash in a sorted hash index, or None."""
    h = np.uint64(key_hash(text))
    i = int(np.searchsorted(sorted_hashes, h))
    if i < len(sorted_hashes) and sorted_hashes[i] == h:
        return int(values[i])
    return None


@dataclass(frozen=True, eq=False)
class NodeIds:
    """Judgment ids by node number, and node numbers by id."""

    blob: np.ndarray  # uint8: every id's UTF-8 bytes, in node order
    offsets: np.ndarray  # int64, n + 1: node i's bytes are blob[offsets[i]:offsets[i + 1]]
    hashes: np.ndarray  # uint64, sorted: key_hash of every id
    order: np.ndarray  # int32: the node whose id has hashes[k]
    # ids looked up lately -> node (or -1): the ranker asks for the same candidates search after search
    recent: dict[str, int] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, ids: Sequence[str]) -> NodeIds:
        encoded = [i.encode("utf-8") for i in ids]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        blob = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
        hashes = key_hashes(ids)
        order = np.argsort(hashes, kind="stable").astype(np.int32)
        return cls(blob, offsets, hashes[order], order)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def id(self, node: int) -> str:
        start, end = self.offsets[node:node + 2].tolist()
        return self.blob[start:end].tobytes().decode("utf-8")

    def ids(self, nodes: Iterable[int]) -> tuple[str, ...]:
        return tuple(self.id(int(n)) for n in nodes)

    def node(self, judgment_id: str) -> int | None:
        """The node of ``judgment_id``, or None when the graph has no such judgment."""
        node = self.recent.get(judgment_id)
        if node is None:
            if len(self.recent) >= RECENT:
                self.recent.clear()
            node = self.recent[judgment_id] = self._search(judgment_id)
        return None if node < 0 else node

    def _search(self, judgment_id: str) -> int:
        h = key_hash(judgment_id)
        i = int(self.hashes.searchsorted(np.uint64(h)))
        while i < len(self.hashes) and int(self.hashes[i]) == h:  # a collision leaves neighbours with one hash
            node = int(self.order[i])
            if self.id(node) == judgment_id:
                return node
            i += 1
        return -1

    def arrays(self) -> dict[str, np.ndarray]:
        return {"ids_blob": self.blob, "ids_offsets": self.offsets, "id_hashes": self.hashes, "id_order": self.order}

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays().values())


def csr(sources: np.ndarray, targets: np.ndarray, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, indices)`` of the edges ``sources[k] -> targets[k]`` grouped by source; a stable sort, so each
    source's targets keep the order the edges were given in."""
    order = np.argsort(sources, kind="stable")
    indptr = np.zeros(nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(sources, minlength=nodes), out=indptr[1:])
    return indptr, targets[order].astype(np.int32)


class Adjacency(Mapping[str, tuple[str, ...]]):
    """One direction of the edges: judgment id -> the ids it links to, in stored order (CSR over nodes)."""

    def __init__(self, nodes: NodeIds, indptr: np.ndarray, indices: np.ndarray) -> None:
        self.nodes, self.indptr, self.indices = nodes, indptr, indices

    def _span(self, judgment_id: str) -> tuple[int, int]:
        node = self.nodes.node(judgment_id) if isinstance(judgment_id, str) else None
        if node is None:
            return 0, 0
        start, end = self.indptr[node:node + 2].tolist()
        return start, end

    def __getitem__(self, judgment_id: str) -> tuple[str, ...]:
        start, end = self._span(judgment_id)
        if start == end:
            raise KeyError(judgment_id)
        return self.nodes.ids(self.indices[start:end].tolist())

    def get(self, judgment_id: str, default: tuple[str, ...] | None = None) -> tuple[str, ...] | None:
        """As ``dict.get``, without the raised and caught ``KeyError`` of ``Mapping.get`` (the ranker asks for
        a thousand judgments a search, most of them cited by none)."""
        start, end = self._span(judgment_id)
        return self.nodes.ids(self.indices[start:end].tolist()) if end > start else default

    def __contains__(self, judgment_id: object) -> bool:
        start, end = self._span(judgment_id) if isinstance(judgment_id, str) else (0, 0)
        return end > start

    def degree(self, judgment_id: str) -> int:
        start, end = self._span(judgment_id)
        return end - start

    def degrees(self) -> np.ndarray:
        """Every node's degree in this direction (node order)."""
        return np.diff(self.indptr)

    def __iter__(self) -> Iterator[str]:
        return (self.nodes.id(int(n)) for n in np.flatnonzero(self.degrees()))

    def __len__(self) -> int:
        return int(np.count_nonzero(self.degrees()))

    def __repr__(self) -> str:
        return f"Adjacency({len(self)} judgments, {len(self.indices)} edges)"


class Targets:
    """Resolved citation key -> the judgment id it names (the dict's ``get``, ``in``, ``[]`` and ``len``)."""

    def __init__(self, nodes: NodeIds, hashes: np.ndarray, values: np.ndarray) -> None:
        self.nodes, self.hashes, self.values = nodes, hashes, values

    def get(self, key: str, default: str | None = None) -> str | None:
        node = _lookup(self.hashes, self.values, key)
        return default if node is None else self.nodes.id(node)

    def __getitem__(self, key: str) -> str:
        if (found := self.get(key)) is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and _lookup(self.hashes, self.values, key) is not None

    def __len__(self) -> int:
        return len(self.hashes)
