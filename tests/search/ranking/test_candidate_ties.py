"""Tied candidates are cut and ordered by judgment id, not by how the index happened to be written.

Two indices hold the same judgments, written one at a time in opposite orders (each write its own segment, so
Lucene's document numbers run opposite ways). Every judgment matches the query alike, so every score ties: the
sources' top 3 and the union's order must still be the same on both, the three smallest ids. Before the
tie-break, each index returned the three it was given first, and the same corpus indexed on two machines trained
two different models.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from opensearchpy import OpenSearch

import mappings
from backends.opensearch import IndexLayout, create_indices
from search.ranking.features import Features, FeatureSettings
from search.ranking.query import profile
from search.retrieval import bodies

IDS = [f"T{n:02d}" for n in range(12)]
TEXT = "The husband demanded dowry and the wife died within seven years of marriage."
CITATION = "(2004) 3 SCC 7"


def _write(client: OpenSearch, ids: list[str]) -> dict[str, str]:
    layout = IndexLayout(f"ratio-test-{uuid.uuid4().hex[:10]}")
    create_indices(client, layout, mappings.IndexOptions(dimension=4))
    aliases = layout.aliases()
    for jid in ids:  # one refresh per judgment: one segment each, in this order
        client.index(index=aliases["judgments"], id=jid, refresh=True,
                     body={"judgment_id": jid, "title": "State v Accused", "year": 2004, "text": TEXT,
                           "citations": [CITATION], "cited_provisions": ["IPC s. 304B"], "n_sentences": 1})
    return aliases


@pytest.fixture(scope="module")
def twins(client: OpenSearch) -> Iterator[tuple[OpenSearch, dict[str, str], dict[str, str]]]:
    forward, backward = _write(client, IDS), _write(client, IDS[::-1])
    yield client, forward, backward
    for aliases in (forward, backward):
        client.indices.delete(index=aliases["judgments"].rsplit("-", 1)[0] + "-*")


def _ids(client: OpenSearch, index: str, body: dict) -> list[str]:
    return [hit["fields"]["judgment_id"][0] for hit in client.search(index=index, body=body)["hits"]["hits"]]


def test_every_ranked_source_cuts_ties_by_judgment_id(twins) -> None:
    client, forward, backward = twins
    sources = {"terms": bodies.terms_body([("dowry", 1.0), ("wife", 0.5)], 3),
               "provisions": bodies.provisions_body(["IPC s. 304B"], [("dowry", 1.0)], 3),
               "title": bodies.title_body("State v Accused", 3),
               "own citations": bodies.own_citations_body([CITATION], 3)}
    for name, body in sources.items():
        assert _ids(client, forward["judgments"], body) == IDS[:3], name
        assert _ids(client, backward["judgments"], body) == IDS[:3], name
    unsorted = {k: v for k, v in sources["terms"].items() if k != "sort"}  # what the bodies asked before
    assert _ids(client, backward["judgments"], unsorted) != IDS[:3]  # the ties really do follow the writing order


def test_the_same_corpus_written_twice_gives_the_same_candidates(twins) -> None:
    client, forward, backward = twins
    settings = FeatureSettings(depth=4, max_candidates=5, name_depth=4, title_depth=2, citation_depth=2)
    text = "dowry death of the wife under Section 304B IPC, State v Accused (2004) 3 SCC 7"
    found = [Features(client, aliases, settings).candidates(profile(client, aliases["judgments"], text))
             for aliases in (forward, backward)]
    assert found[0].ids == found[1].ids
    assert found[0].ids == tuple(IDS[:len(found[0].ids)])
    assert dict(found[0].long) == dict(found[1].long)
