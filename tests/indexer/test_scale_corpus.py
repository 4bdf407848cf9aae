"""The scale corpus (issue 30) on the real node, grown from the indexed sample corpus: counts, ids, the rewired
citation graph as the search side resolves it, determinism, the prefix guard, the disk plan and the drop."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch, helpers

import mappings
from backends.opensearch import IndexLayout, create_indices
from lab.bench.corpus_scale import (
    MARK,
    SIZE,
    ScaleGrowth,
    ScalePrefixError,
    copy_id,
    drop_scale_corpus,
    grow_scale_corpus,
    plan_scale,
    watermark_margin,
)
from legal.citations import canonical_case_name
from search.graph.citation_graph import load_graph


@pytest.fixture(scope="module")
def source(client: OpenSearch, aliases: dict[str, str]) -> Iterator[dict[str, Any]]:
    """A scale source with citations among its judgments: the sample corpus (whose 18 judgments cite none of each
    other) copied under a throwaway prefix, each judgment then citing ``i % 4`` others by case name, the way real
    judgments cite (judgment and chunk documents alike); its size, chunk count and resolved graph."""
    sample = aliases["judgments"].removesuffix("-judgments")
    prefix = f"scale-test-src-{uuid.uuid4().hex[:8]}"
    try:
        grow_scale_corpus(client, source_prefix=sample, prefix=prefix,
                          judgments=client.count(index=aliases["judgments"])["count"], source_edges={})
        docs = _docs(client, f"{prefix}-judgments")
        names = Counter(canonical_case_name(d["title"]) for d in docs.values())
        citable = sorted(j for j, d in docs.items() if names[canonical_case_name(d["title"])] == 1)
        actions = []
        for i, judgment in enumerate(citable):
            targets = [citable[(i + d) % len(citable)] for d in range(1, i % 4 + 1)]
            cited = [*docs[judgment]["cited_judgments"], *(canonical_case_name(docs[t]["title"]) for t in targets)]
            actions.append({"_op_type": "update", "_index": f"{prefix}-judgments", "_id": judgment,
                            "doc": {"cited_judgments": cited}})
            actions += [{"_op_type": "update", "_index": f"{prefix}-chunks", "_id": f"{judgment}:{n}",
                         "doc": {"cited_judgments": cited}} for n in range(docs[judgment]["n_chunks"])]
        helpers.bulk(client, actions, refresh=True)
        yield {"prefix": prefix,
               "judgments": client.count(index=f"{prefix}-judgments")["count"],
               "chunks": client.count(index=f"{prefix}-chunks")["count"],
               "provisions": client.count(index=f"{prefix}-provisions")["count"],
               "edges": load_graph(client, f"{prefix}-judgments", by_parties=False).cites}
    finally:
        client.indices.delete(index=f"{prefix}-*", ignore_unavailable=True)


@pytest.fixture
def prefixes(client: OpenSearch) -> Iterator[list[str]]:
    """Throwaway ``scale-test-...`` prefixes; whatever a test left under them is deleted afterwards."""
    made: list[str] = []
    yield made
    for prefix in made:
        client.indices.delete(index=f"{prefix}-*", ignore_unavailable=True)


def _new(prefixes: list[str], tag: str = "") -> str:
    prefixes.append(f"scale-test-{uuid.uuid4().hex[:8]}{tag}")
    return prefixes[-1]


def _grow(client: OpenSearch, source: dict[str, Any], prefix: str, judgments: int, seed: int = 0) -> ScaleGrowth:
    return grow_scale_corpus(client, source_prefix=source["prefix"], prefix=prefix, judgments=judgments,
                             source_edges=source["edges"], seed=seed)


def _docs(client: OpenSearch, alias: str) -> dict[str, dict[str, Any]]:
    return {h["_id"]: h["_source"] for h in helpers.scan(client, index=alias, _source_excludes=["vector", "text"])}


def test_grows_in_steps_keeping_counts_ids_and_the_graph(client: OpenSearch, source: dict[str, Any],
                                                         prefixes: list[str]) -> None:
    prefix, size = _new(prefixes), source["judgments"]
    assert sum(map(len, source["edges"].values())) > 0, "the sample corpus has resolved citations to rewire"
    seen = []
    first = grow_scale_corpus(client, source_prefix=source["prefix"], prefix=prefix, judgments=size,
                              source_edges=source["edges"], progress=seen.append)
    assert (first.judgments, first.chunks, first.added_judgments, first.added_chunks) == (
        size, source["chunks"], size, source["chunks"])
    assert seen and seen[-1] == size
    assert client.count(index=f"{prefix}-provisions")["count"] == source["provisions"]
    originals = _docs(client, f"{source['prefix']}-judgments")
    assert _docs(client, f"{prefix}-judgments") == originals  # copy 0 is the source itself, as indexed

    _grow(client, source, prefix, 2 * size)
    third = _grow(client, source, prefix, 3 * size)
    assert (third.judgments, third.chunks, third.added_judgments, third.added_chunks) == (
        3 * size, 3 * source["chunks"], size, source["chunks"])
    assert third.failed == () and third.stopped is None

    judgments = _docs(client, f"{prefix}-judgments")
    assert sorted(judgments) == sorted(copy_id(j, n) for j in originals for n in range(3))
    names = Counter(d["title"] for d in judgments.values())
    assert all(judgments[copy_id(j, n)]["title"] != originals[j]["title"] for j in originals for n in (1, 2)
               if canonical_case_name(originals[j]["title"]))
    assert max(names.values()) <= 3  # titles varied, not the originals' three times over
    citations = Counter(c for d in judgments.values() for c in d.get("citations") or ())
    assert all(count == 1 for c, count in citations.items() if c in {x for d in originals.values()
                                                                       for x in d.get("citations") or ()})

    graph = load_graph(client, f"{prefix}-judgments", by_parties=False)
    edges = sum(map(len, graph.cites.values()))
    assert edges == third.edges == 3 * sum(len(set(t)) for t in source["edges"].values()) > 0
    original_degrees = Counter(len(set(source["edges"].get(j, ()))) for j in originals)
    for n in (1, 2):
        assert Counter(len(graph.cites.get(copy_id(j, n), ())) for j in originals) == original_degrees
    in_copies = sum(1 for targets in graph.cites.values() for t in targets if ".s" in t)
    assert in_copies > 0  # copies are cited, not only the originals

    chunks = _docs(client, f"{prefix}-chunks")
    for chunk in chunks.values():
        judgment = judgments[chunk["judgment_id"]]
        assert chunk["chunk_id"] == f"{chunk['judgment_id']}:{chunk['ordinal']}"
        for field in ("title", "decision_date", "year", "cited_judgments"):
            assert chunk.get(field) == judgment.get(field), (chunk["chunk_id"], field)
    assert Counter(c["judgment_id"] for c in chunks.values()) == Counter(
        {j: d["n_chunks"] for j, d in judgments.items()})

    again = _grow(client, source, prefix, 2 * size)  # never shrinks, never rewrites
    assert (again.judgments, again.added_judgments) == (3 * size, 0)

    # a call that stopped half-way left judgment documents in scan order, not a prefix of the corpus, and recorded
    # no size: the next call starts from the last size recorded and fills the holes
    index, body = next(iter(client.indices.get_mapping(index=f"{prefix}-judgments").items()))
    client.indices.put_mapping(index=index, body={"_meta": {**body["mappings"]["_meta"], SIZE: 2 * size}})
    holes = [copy_id(j, 2) for j in sorted(originals)[::2]]
    helpers.bulk(client, ({"_op_type": "delete", "_index": index, "_id": j} for j in holes), refresh=True)
    assert client.count(index=f"{prefix}-judgments")["count"] == 3 * size - len(holes)
    resumed = _grow(client, source, prefix, 3 * size)
    assert (resumed.judgments, resumed.added_judgments) == (3 * size, size)
    assert _docs(client, f"{prefix}-judgments").keys() == judgments.keys()


def test_copies_are_deterministic_for_a_seed(client: OpenSearch, source: dict[str, Any],
                                             prefixes: list[str]) -> None:
    size = source["judgments"]
    a, b, c = _new(prefixes), _new(prefixes), _new(prefixes)
    _grow(client, source, a, size)
    _grow(client, source, a, 2 * size)  # in two calls
    _grow(client, source, b, 2 * size)  # in one
    _grow(client, source, c, 2 * size, seed=1)

    def copies(prefix: str) -> dict[str, dict[str, Any]]:
        return {k: {f: v for f, v in d.items() if f != "indexed_at"}
                for k, d in _docs(client, f"{prefix}-judgments").items() if ".s" in k}

    assert copies(a) == copies(b)
    assert copies(a) != copies(c)
    with pytest.raises(ScalePrefixError, match="seed"):  # a corpus is grown with one seed
        _grow(client, source, a, 3 * size, seed=1)


def test_the_guard_refuses_prefixes_that_are_not_a_scale_corpus(client: OpenSearch, source: dict[str, Any],
                                                                 prefixes: list[str]) -> None:
    with pytest.raises(ScalePrefixError, match="starts with 'scale'"):
        _grow(client, source, f"ratio-test-{uuid.uuid4().hex[:8]}", 2 * source["judgments"])
    with pytest.raises(ScalePrefixError, match="source's own"):
        _grow(client, source, source["prefix"], 2 * source["judgments"])
    with pytest.raises(ScalePrefixError):
        drop_scale_corpus(client, "ratio")
    plain = _new(prefixes)  # a scale-looking prefix holding an ordinary index
    create_indices(client, IndexLayout(plain), mappings.IndexOptions(dimension=384), kinds=("judgments",))
    with pytest.raises(ScalePrefixError, match="not a scale corpus"):
        _grow(client, source, plain, source["judgments"])
    with pytest.raises(ScalePrefixError, match="not a scale corpus"):
        drop_scale_corpus(client, plain)
    assert client.indices.exists(index=f"{plain}-judgments-v1")


def test_drop_deletes_only_that_prefix(client: OpenSearch, source: dict[str, Any], prefixes: list[str]) -> None:
    prefix = _new(prefixes)
    longer = prefix + "-b"  # matches 'prefix-*' but is another prefix
    prefixes.append(longer)
    other = f"ratio-test-{uuid.uuid4().hex[:8]}"
    prefixes.append(other)
    real = {alias: client.count(index=alias)["count"] for alias in ("ratio-judgments", "ratio-chunks")
            if client.indices.exists_alias(name=alias)}
    _grow(client, source, prefix, source["judgments"])
    _grow(client, source, longer, source["judgments"])
    create_indices(client, IndexLayout(other), mappings.IndexOptions(dimension=384), kinds=("judgments",))
    marked = client.indices.get_mapping(index=f"{prefix}-judgments")
    assert MARK in next(iter(marked.values()))["mappings"]["_meta"]

    before = sorted(name for name in client.indices.get(index=f"{prefix}-*") if not name.startswith(f"{longer}-"))
    assert len(before) >= 3
    dropped = drop_scale_corpus(client, prefix)
    assert sorted(dropped) == before
    assert not client.indices.exists(index=f"{prefix}-judgments-v1")
    assert client.count(index=f"{longer}-judgments")["count"] == source["judgments"]
    assert client.indices.exists(index=f"{other}-judgments-v1")
    assert client.count(index=f"{source['prefix']}-judgments")["count"] == source["judgments"]
    assert {alias: client.count(index=alias)["count"] for alias in real} == real
    assert drop_scale_corpus(client, prefix) == []


def test_plan_refuses_a_size_that_does_not_fit(client: OpenSearch, source: dict[str, Any], prefixes: list[str],
                                               tmp_path: Path) -> None:
    prefix = _new(prefixes)
    huge = plan_scale(client, source_prefix=source["prefix"], prefix=prefix, judgments=10**9, data_path=tmp_path)
    assert not huge.fits and "does not fit" in huge.reason
    assert huge.bytes_per_judgment > 0 and huge.needed_bytes == int(huge.bytes_per_judgment * 10**9)
    assert huge.free_bytes > 0 and huge.needed_bytes > huge.free_bytes
    small = plan_scale(client, source_prefix=source["prefix"], prefix=prefix, judgments=2, data_path=tmp_path)
    assert small.needed_bytes < huge.needed_bytes
    assert small.margin_bytes == 2 * 1024**3  # the low watermark of the node Ratio starts (2gb), not a fixed size
    assert small.fits == (small.needed_bytes * 1.3 + small.margin_bytes <= small.free_bytes)
    with pytest.raises(ScalePrefixError):
        plan_scale(client, source_prefix=source["prefix"], prefix="ratio-x", judgments=2, data_path=tmp_path)


@pytest.mark.parametrize(("setting", "margin"), [
    ("2gb", 2 * 1024**3), ("512mb", 512 * 1024**2), ("1.5g", int(1.5 * 1024**3)), ("100B", 100),
    ("85%", 150 * 1024**3), ("0.9", 100 * 1024**3), ("100%", 0),
])
def test_the_margin_is_what_the_low_watermark_keeps_free(setting: str, margin: int) -> None:
    assert watermark_margin(setting, 1000 * 1024**3) == margin  # a share of a 1000 GiB disk leaves the rest


def test_a_watermark_that_is_no_size_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'lots'"):
        watermark_margin("lots", 1024)
