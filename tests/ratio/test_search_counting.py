"""A search of filters alone through ``ratio.Client``, ``RemoteClient`` and ``ratio search`` on the real node and the
18 sample judgments: every judgment passing the filters, paged (past the ranked window), newest first because
there are no words to rank by, each hit explained by its filters; and a typed query's counts in the CLI."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from opensearchpy import OpenSearch

import ratio
from ratio.cli import cli
from ratio.remote import RemoteClient

STATUTE = "s. 302 IPC"  # cited by 7 sample judgments


def _citing(client: OpenSearch, aliases) -> list[str]:
    """The judgments citing IPC s. 302, newest first (the undated last, ties by id), asked of the node directly."""
    body = {"query": {"term": {"cited_provisions": "IPC s. 302"}}, "size": 100, "_source": False,
            "sort": [{"decision_date": {"order": "desc", "missing": "_last"}}, {"judgment_id": "asc"}]}
    return [hit["_id"] for hit in client.search(index=aliases["judgments"], body=body)["hits"]["hits"]]


def test_both_clients_page_every_judgment_of_a_filter_only_search(ratio_client, live_server: str,
                                                                  client: OpenSearch, aliases) -> None:
    citing = _citing(client, aliases)
    assert len(citing) == 7
    remote = RemoteClient(live_server)
    local_ids, remote_ids = [], []
    for page in (1, 2, 3, 4):  # pages of 2 with a window of 2 candidates: a ranked search would stop at page 1
        local = ratio_client.search("", statutes=[STATUTE], size=2, page=page, candidates=2)
        far = remote.search("", statutes=[STATUTE], size=2, page=page, candidates=2)
        assert local.sort == far.sort == "newest" and local.count_rule == far.count_rule == "filters"
        assert local.total == far.total == local.judgments_found == 7 and not local.notes
        assert "no words to rank by" in (local.ranking_note or "") and far.ranking_note == local.ranking_note
        local_ids += [h.judgment_id for h in local.hits]
        remote_ids += [h.judgment_id for h in far.hits]
    assert local_ids == remote_ids == citing
    with pytest.raises(ratio.QueryError, match="needs 4 candidates"):
        ratio_client.search("murder", size=2, page=2, candidates=2)  # words: the ranked window still bounds pages
    with pytest.raises(ratio.QueryError, match="needs 4 candidates"):
        remote.search("murder", size=2, page=2, candidates=2)
    # each hit is explained by its filters, the same by both clients
    why = ratio_client.explain("", citing[0], statutes=[STATUTE])
    assert why.text.startswith("Cites IPC s. 302; Supreme Court of India; decided ")
    assert remote.explain("", citing[0], statutes=[STATUTE]) == why


def test_ratio_search_pages_a_filter_only_search(opensearch_settings, client: OpenSearch, aliases) -> None:
    citing = _citing(client, aliases)
    base = ["--url", opensearch_settings.url, "--prefix", aliases["chunks"].removesuffix("-chunks"), "search"]
    runner = CliRunner()
    shown = runner.invoke(cli, [*base, "--statute", STATUTE, "--size", "3", "--page", "2"], catch_exceptions=False)
    assert shown.exit_code == 0, shown.output
    assert "7 judgments match the filters; showing 4-6, newest first (no words to rank by)" in shown.stdout
    pages = []
    for page in (1, 2, 3):
        out = runner.invoke(cli, [*base, f'statute:"{STATUTE}"', "--size", "3", "--page", str(page), "--json"],
                            catch_exceptions=False)
        assert out.exit_code == 0, out.output
        pages.append(json.loads(out.stdout))
    assert [h["judgment_id"] for p in pages for h in p["hits"]] == citing
    assert all(p["sort"] == "newest" and p["total"] == 7 and p["count_rule"] == "filters" for p in pages)
    assert all(h["judgment_id"] in shown.stdout for h in pages[1]["hits"])
    explained = runner.invoke(cli, [*base, "--statute", STATUTE, "--size", "2", "--explain"], catch_exceptions=False)
    assert explained.stdout.count(": Cites IPC s. 302; Supreme Court of India; decided ") == 2
    nothing = runner.invoke(cli, base)
    assert nothing.exit_code == 2 and "give a QUERY or a filter" in nothing.output


def test_a_typed_provision_counts_every_judgment_citing_it(ratio_client, client: OpenSearch, aliases) -> None:
    """``section 302 IPC`` typed in the box is met by the judgments citing it, however they wrote it (``s. 302``,
    ``Section 302 of the Indian Penal Code``, ``302/34 IPC``), not only by those writing the typed words."""
    citing = set(_citing(client, aliases))
    written = {hit["_id"] for hit in client.search(index=aliases["judgments"], body={
        "size": 100, "_source": False,
        "query": {"match": {"text": {"query": "section 302 IPC", "operator": "and"}}}})["hits"]["hits"]}
    assert citing - written, "the samples should hold a judgment citing s. 302 without writing 'section 302 IPC'"
    found = ratio_client.search("section 302 IPC", size=50)
    assert found.count_rule == "every_word" and found.total == len(citing | written)
    assert citing <= {hit.judgment_id for hit in found.hits}
