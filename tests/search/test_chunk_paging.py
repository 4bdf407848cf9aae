"""The chunk path pages in one order: a ``search_after`` key taken from a page's last chunk continues exactly the
list that page began, even where scores tie (a filter-only chunk search scores every chunk alike), so paging
never skips or repeats a chunk at a page boundary."""

from __future__ import annotations

import dataclasses

import pytest

from search.query.request import SearchRequest
from search.retrieval.chunk_search import ChunkSearch


def test_search_after_continues_the_first_page_where_every_score_ties(ratio_client) -> None:
    searcher = ratio_client.searcher
    request = SearchRequest.from_query("role:facts year:1900..", role_mode="filter", facets=False, candidates=12)
    whole, _, _ = searcher.chunks(request)
    assert len(whole) == 12 and len({hit.score for hit in whole}) == 1  # all tied: the tie-break decides
    for size in range(1, 12):  # every boundary: the corpus's index order is not its chunk id order
        first, _, _ = searcher.chunks(dataclasses.replace(request, candidates=size))
        assert [h.chunk_id for h in first] == [h.chunk_id for h in whole[:size]]
        last = first[-1]
        after, _, _ = searcher.chunks(dataclasses.replace(request, candidates=12 - size,
                                                          search_after=(last.score, last.chunk_id)))
        assert [h.chunk_id for h in first + after] == [h.chunk_id for h in whole], size


@pytest.mark.parametrize("server_fusion", [True, False], ids=["server-fusion", "client-fusion"])
def test_search_after_pages_a_fused_window_to_its_end(ratio_client, server_fusion: bool) -> None:
    """A fused list is a window (``candidates`` chunks of each sub-query, fused): a key from any of its hits gives
    the hits after it in that window, the first page's tail first, then the rest, and none twice. The hybrid query
    takes no tie-break sort on the server (it refuses ``_score`` beside another criterion), so this is the path
    that once answered a search_after with a 400."""
    searcher = ratio_client.searcher
    chunks = ChunkSearch(searcher.client, searcher.aliases, searcher.vector, server_fusion=server_fusion)
    request = SearchRequest.from_query("dowry death", role_mode="off", facets=False, candidates=6, size=6)
    first, fusion, _ = chunks.chunks(request)
    assert fusion.startswith("server" if server_fusion else "client") and len(first) == 6
    last = first[-1]
    rest, _, _ = chunks.chunks(dataclasses.replace(request, search_after=(last.score, last.chunk_id)))
    window = [h.chunk_id for h in first + rest]
    assert rest and len(set(window)) == len(window) <= 12
    for k, hit in enumerate(first):
        page, _, _ = chunks.chunks(dataclasses.replace(request, search_after=(hit.score, hit.chunk_id)))
        assert [h.chunk_id for h in page] == window[k + 1:k + 7], k
