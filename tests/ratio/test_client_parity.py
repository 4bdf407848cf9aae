"""One object model: ``ratio.Client`` (over OpenSearch) and ``ratio.RemoteClient`` (over a live ``ratio serve``
app) return equal objects for the same calls and raise the same Ratio errors; the sample corpus on the real node."""

from __future__ import annotations

import datetime as dt

import pytest

import ratio
from ratio.client import Client
from ratio.remote import RemoteClient
from ratio.results import ExploreView, Health, JudgmentView, SearchPage
from search.query.options import SearchOptions

QUERY = "public servant dishonestly misappropriated property entrusted"
VOLATILE = {"took_ms", "next_cursor", "prev_cursor", "next"}  # timing; the API's cursors and links


@pytest.fixture(scope="module")
def remote(live_server: str) -> RemoteClient:
    return RemoteClient(live_server)


def test_search_pages_are_equal(ratio_client: Client, remote: RemoteClient) -> None:
    options = SearchOptions(size=4, courts=("Supreme Court of India",), provisions=2)
    local, far = ratio_client.search(QUERY, options), remote.search(QUERY, options)
    assert type(local) is type(far) is SearchPage and local.hits
    assert local.model_dump(exclude=VOLATILE) == far.model_dump(exclude=VOLATILE)
    assert local == far.model_copy(update={k: getattr(local, k) for k in VOLATILE})
    assert all(isinstance(hit.decision_date, dt.date) for hit in local.hits + far.hits)
    # keywords are the same options: equal to the SearchOptions above, and page 2 of either client is page 2
    same = remote.search(QUERY, size=4, courts=["Supreme Court of India"], provisions=2)
    assert same.model_dump(exclude=VOLATILE) == far.model_dump(exclude=VOLATILE)
    second = SearchOptions(size=3, page=2)
    assert (ratio_client.search("appeal", second).model_dump(exclude=VOLATILE)
            == remote.search("appeal", second).model_dump(exclude=VOLATILE))


def test_a_statute_filter_is_the_same_keyword_on_both_clients(ratio_client: Client, remote: RemoteClient) -> None:
    """``statutes=[...]`` (``statute:`` in the syntax) filters on both; before, the remote client refused it."""
    local = ratio_client.search("murder", statutes=["s. 302 IPC"], size=5)
    far = remote.search("murder", statutes=["s. 302 IPC"], size=5)
    assert local.hits and local.model_dump(exclude=VOLATILE) == far.model_dump(exclude=VOLATILE)
    spelled = remote.search('murder statute:"s. 302 IPC"', size=5)
    assert [h.judgment_id for h in far.hits] == [h.judgment_id for h in spelled.hits]
    assert far.total < remote.search("murder", size=5).total  # it filters: fewer judgments than the words alone
    assert remote.facets("murder", statutes=["s. 302 IPC"]) == ratio_client.facets("murder", statutes=["s. 302 IPC"])
    with pytest.raises(ratio.QueryError, match=r"statutes takes a list"):
        remote.search("murder", statutes="s. 302 IPC")


def test_judgment_explain_provisions_facets_explore_and_health_are_equal(ratio_client: Client,
                                                                          remote: RemoteClient) -> None:
    view = ratio_client.judgment("C7")
    assert isinstance(view, JudgmentView) and view == remote.judgment("C7")
    assert isinstance(view.decision_date, dt.date) and view.sentences
    assert all(c.decision_date is None or isinstance(c.decision_date, dt.date) for c in view.cited_by)
    assert ratio_client.explain(QUERY, "C7") == remote.explain(QUERY, "C7")
    provisions = ratio_client.provisions("punishment for criminal breach of trust", size=3)
    assert provisions and provisions == remote.provisions("punishment for criminal breach of trust", size=3)
    # the facets count judgments with every word (no sample has "misappropriated": murder here)
    assert ratio_client.facets("murder evidence") == remote.facets("murder evidence")
    assert ratio_client.facets("murder evidence")["court"] and ratio_client.facets(QUERY) == remote.facets(QUERY)
    explored = ratio_client.explore("murder", courts=["Supreme Court of India"])
    assert isinstance(explored, ExploreView) and explored.judgments
    assert explored == remote.explore("murder", courts=["Supreme Court of India"])
    health = ratio_client.health()
    assert isinstance(health, Health) and health.status == "ok"
    assert health.model_dump(exclude={"indices"}) == remote.health().model_dump(exclude={"indices"})


@pytest.mark.parametrize("client_kind", ["local", "remote"])
def test_both_clients_raise_the_same_ratio_errors(ratio_client: Client, remote: RemoteClient,
                                                  client_kind: str) -> None:
    client = ratio_client if client_kind == "local" else remote
    with pytest.raises(ratio.NotFoundError, match="no judgment 'does-not-exist'") as missing:
        client.judgment("does-not-exist")
    assert missing.value.status == 404 and missing.value.code == "not_found"
    with pytest.raises(ratio.NotFoundError):
        client.explain(QUERY, "does-not-exist")
    with pytest.raises(ratio.QueryError, match="never closes") as malformed:
        client.search('"open quote')
    assert malformed.value.status == 400 and isinstance(malformed.value, ratio.RatioError)
    # a string where a list belongs was 0 hits (its characters as court names); now it is said
    with pytest.raises(ratio.QueryError, match=r"courts takes a list .* courts=\['x'\]"):
        client.search(QUERY, courts="x")
    with pytest.raises(ratio.QueryError, match="did you mean 'courts'"):
        client.search(QUERY, court=["Supreme Court of India"])
    with pytest.raises(ratio.QueryError, match="size must be a whole number"):
        client.search(QUERY, size="3")
    with pytest.raises(ratio.QueryError, match="size must be between"):
        client.search(QUERY, size=0)


def test_a_missing_index_and_a_node_that_is_down_are_ratio_errors(opensearch_settings, encoder) -> None:
    nowhere = Client(opensearch_settings.url, prefix="ratio-test-nosuch", encoder=encoder, llm=None)
    with pytest.raises(ratio.IndexNotFoundError, match="no index ratio-test-nosuch-judgments"):
        nowhere.search(QUERY)
    with pytest.raises(ratio.NotFoundError):  # IndexNotFoundError is one
        nowhere.judgment("C7")
    assert nowhere.health().status == "degraded"
    down = Client("http://127.0.0.1:9", prefix="ratio", encoder=encoder, llm=None)
    with pytest.raises(ratio.UnavailableError, match="did not answer") as caught:
        down.judgment("C7")
    assert isinstance(caught.value, ConnectionError) and caught.value.status == 503
    assert down.health().status == "unavailable"
    with pytest.raises(ratio.UnavailableError, match="no Ratio server answers"):
        RemoteClient("http://127.0.0.1:9").judgment("C7")


def test_the_api_answers_a_missing_index_with_its_code(opensearch_settings, encoder) -> None:
    from fastapi.testclient import TestClient

    from ratio.web import create_app

    app = create_app(Client(opensearch_settings.url, prefix="ratio-test-nosuch", encoder=encoder, llm=None))
    with TestClient(app) as api:
        answer = api.get("/api/v1/search", params={"q": QUERY})
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "index_not_found"
        assert api.get("/api/v1/judgments/C7").json()["error"]["code"] == "index_not_found"


def test_serve_loads_its_models_before_it_takes_requests(opensearch_settings, aliases, capsys) -> None:
    """The app factory ``ratio serve`` runs loads the query encoder, the learned ranker and its citation graph
    and says so on stderr; the app's client has them before any request."""
    from ratio import settings
    from ratio.web.factory import app_from_settings

    prefix = aliases["judgments"].removesuffix("-judgments")
    config = settings.ServerSettings(url=opensearch_settings.url, prefix=prefix, llm={"kind": "none"})
    app = app_from_settings(config)
    client = app.state.service.client
    assert "_encoders" in vars(client) and "searcher" in vars(client)
    # the ranker reads its graph from the searcher's cache on every ranking, so the cache is what must be loaded
    assert client.searcher._ranker is not None and client.searcher._ranker.features._source is not None
    # the judgment pages' citation graph and the ranker's, both from the one scroll of the searcher's GraphCache
    assert client.searcher.graphs is client.graphs and set(client.graphs._graphs) == {True, False}
    said = capsys.readouterr().err
    assert "loading the query encoder sentence-transformers/all-MiniLM-L6-v2" in said
    assert "loading the learned ranker" in said and "models loaded in" in said
    lazy = app_from_settings(config, load_models=False).state.service.client
    assert "_encoders" not in vars(lazy)
