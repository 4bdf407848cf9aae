"""Deleted documents merged away: an index whose documents were updated scores a query differently from the same
live documents written once (BM25 counts the old versions), until ``expunge_deletes`` has merged them away; then
the two score alike. The ranker's training set relies on it (the same corpus indexed twice gives the same set).
About 30 s: the node releases the deleted documents at its next retention-lease sync, which the call waits for."""

from __future__ import annotations

import uuid

from opensearchpy import OpenSearch

from backends.opensearch.indices import deleted_documents, expunge_deletes

TEXTS = {"a": "murder appeal evidence witness", "b": "appeal dismissed", "c": "bail granted murder",
         "d": "evidence of the witness", "e": "land acquisition"}


def _scores(client: OpenSearch, index: str) -> dict[str, float]:
    hits = client.search(index=index, body={"query": {"match": {"text": "murder witness appeal"}}, "size": 10})
    return {hit["_id"]: round(hit["_score"], 5) for hit in hits["hits"]["hits"]}


def test_an_updated_index_scores_as_its_live_documents_once_the_deleted_are_merged(client: OpenSearch) -> None:
    updated, fresh = (f"tmp-expunge-{uuid.uuid4().hex[:8]}-{name}" for name in ("updated", "fresh"))
    body = {"settings": {"number_of_shards": 1, "number_of_replicas": 0}}
    try:
        for index in (updated, fresh):
            client.indices.create(index=index, body=body)
            for doc, text in TEXTS.items():
                client.index(index=index, id=doc, body={"text": text, "count": 0})
        client.indices.refresh(index=fresh)
        client.indices.refresh(index=updated)
        for doc in ("a", "c"):  # as ratio index stores changed cited-by counts: partial updates
            client.update(index=updated, id=doc, body={"doc": {"count": 2}})
        client.indices.refresh(index=updated)
        assert deleted_documents(client, updated) == 2 and deleted_documents(client, fresh) == 0
        assert _scores(client, updated) != _scores(client, fresh)  # the old versions still count

        assert expunge_deletes(client, updated) == 2
        assert deleted_documents(client, updated) == 0
        assert _scores(client, updated) == _scores(client, fresh)
        assert expunge_deletes(client, fresh) == 0  # nothing deleted: nothing to do
    finally:
        client.indices.delete(index=f"{updated},{fresh}", ignore_unavailable=True)
