"""The REST API against the real node and the 18 bundled sample judgments: answers, limits and errors."""

from __future__ import annotations

import csv
import io

import pytest
from fastapi.testclient import TestClient

from ratio.errors import NotFoundError
from ratio.remote import RemoteClient
from ratio.web import create_app
from search.hits import JudgmentHit
from search.pages.browse import JudgmentView
from search.query.errors import QueryError

QUERY = "public servant dishonestly misappropriated property entrusted"


def test_health_counts_the_indices(api: TestClient) -> None:
    body = api.get("/api/v1/health").json()
    assert body["status"] == "ok" and body["cluster_status"] in ("green", "yellow")
    counts = {alias.rsplit("-", 1)[-1]: n for alias, n in body["indices"].items()}
    assert counts["judgments"] == 18 and counts["chunks"] > 18


def test_search_returns_judgments_with_highlighted_role_passages(api: TestClient) -> None:
    response = api.get("/api/v1/search", params={"q": QUERY, "size": 5})
    assert response.status_code == 200
    page = response.json()
    assert 1 <= len(page["hits"]) <= 5 and page["judgments_found"] >= len(page["hits"])
    best = page["hits"][0]
    assert best["title"] and best["passages"][0]["role"]
    assert any("<mark>" in h for hit in page["hits"] for p in hit["passages"] for h in p["highlights"])
    assert {"court", "year", "role"} <= set(page["facets"])
    # the same search as a JSON body gives the same ranking
    posted = api.post("/api/v1/search", json={"q": QUERY, "size": 5}).json()
    assert [h["judgment_id"] for h in posted["hits"]] == [h["judgment_id"] for h in page["hits"]]


def test_filters_and_role_filter_apply(api: TestClient) -> None:
    page = api.get("/api/v1/search", params={"q": "murder", "date_from": "1990", "date_to": "1999"}).json()
    assert page["hits"] and all(h["decision_date"][:4].startswith("199") for h in page["hits"])
    ratio_only = api.get("/api/v1/search", params={"q": "murder role:ratio", "size": 10}).json()
    assert ratio_only["removed_by_role"] is not None
    assert all(p["role"] == "ratio" for h in ratio_only["hits"] for p in h["passages"])


def test_cursor_pages_do_not_overlap_and_belong_to_their_search(api: TestClient) -> None:
    first = api.get("/api/v1/search", params={"q": "appeal", "size": 3}).json()
    assert first["next_cursor"] and first["page"] == 1
    second = api.get("/api/v1/search", params={"q": "appeal", "size": 3, "cursor": first["next_cursor"]}).json()
    assert second["page"] == 2
    assert not {h["judgment_id"] for h in first["hits"]} & {h["judgment_id"] for h in second["hits"]}
    replayed = api.get("/api/v1/search", params={"q": "theft", "size": 3, "cursor": first["next_cursor"]})
    assert replayed.status_code == 400 and "another search" in replayed.json()["error"]["message"]
    forged = api.get("/api/v1/search", params={"q": "appeal", "size": 3, "cursor": "not-a-cursor"})
    assert forged.status_code == 400 and forged.json()["error"]["code"] == "bad_query"


def test_the_window_ends_with_a_note_not_a_cursor(api: TestClient) -> None:
    page = api.get("/api/v1/search", params={"q": "appeal", "size": 5, "candidates": 5}).json()
    assert page["next_cursor"] is None
    if page["judgments_found"] > 5:
        assert any("window" in note for note in page["notes"])


@pytest.mark.parametrize(("params", "status", "needle"), [
    ({"q": '"never closed'}, 400, "never closes"),
    ({"q": "murder (of"}, 400, "never closed"),
    ({"q": "role:nonsense murder"}, 400, "role"),
    ({"q": "murder", "mode": "filter"}, 400, "needs roles"),
    ({"q": "murder", "date_from": "31-31-2001"}, 400, "date"),
    ({"q": "murder", "date_from": "2010", "date_to": "2001"}, 400, ""),
    ({"q": "unknownfield:x murder"}, 400, "unknownfield"),
    ({"q": "murder", "size": 0}, 422, "size"),
    ({"q": "murder", "size": 101}, 422, "size"),
    ({"q": "murder", "candidates": 5000}, 422, "candidates"),
    ({"q": "murder", "mode": "sideways"}, 422, "mode"),
    ({"q": "murder", "surprise": "1"}, 422, "surprise"),
    ({"q": "x" * 10_001}, 400, "shorten it to 10000"),  # a typed query's limit (a pasted text may hold more)
    ({"q": ""}, 400, "empty"),
])
def test_malformed_searches_get_a_4xx_that_says_why(api: TestClient, params, status, needle) -> None:
    response = api.get("/api/v1/search", params=params)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] in ("bad_query", "invalid_request") and error["message"]
    assert needle.lower() in error["message"].lower()


def test_malformed_json_bodies(api: TestClient) -> None:
    assert api.post("/api/v1/search", content=b"{not json", headers={"content-type": "application/json"}
                    ).status_code == 422
    assert api.post("/api/v1/search", json={"q": "murder", "size": "ten"}).status_code == 422
    assert api.post("/api/v1/search", json=["murder"]).status_code == 422
    assert api.delete("/api/v1/search").status_code == 405


def test_judgment_has_sentences_roles_summary_and_citations(api: TestClient) -> None:
    hit = api.get("/api/v1/search", params={"q": QUERY, "size": 1}).json()["hits"][0]
    view = api.get(f"/api/v1/judgments/{hit['judgment_id']}").json()
    assert view["title"] == hit["title"] and view["sentences"]
    numbers = [s["number"] for s in view["sentences"]]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    assert all(s["text"] and s["end"] > s["start"] for s in view["sentences"])
    assert sum(view["role_counts"].values()) == len(view["sentences"])
    assert view["summary"] and "provenance" not in view["summary"]
    assert api.get("/api/v1/judgments/no-such-judgment").status_code == 404


def test_explain_provisions_facets_and_explore(api: TestClient) -> None:
    hit = api.get("/api/v1/search", params={"q": QUERY, "size": 1}).json()["hits"][0]
    explained = api.get("/api/v1/explain", params={"q": QUERY, "judgment_id": hit["judgment_id"]}).json()
    assert explained["explanation"]["text"] and explained["explanation"]["method"] == "extractive"
    assert api.get("/api/v1/explain", params={"q": QUERY, "judgment_id": "nope"}).status_code == 404
    provisions = api.get("/api/v1/provisions", params={"q": "criminal breach of trust by a public servant"}).json()
    assert provisions["provisions"] and provisions["provisions"][0]["provision_id"].startswith("S")
    facets = api.get("/api/v1/facets", params={"q": "murder"}).json()
    assert facets["court"][0]["judgments"] >= 1
    everything = api.get("/api/v1/explore").json()
    assert everything["judgments"] == 18 and sum(b["judgments"] for b in everything["courts"]) >= 18
    narrowed = api.get("/api/v1/explore", params={"q": "murder"}).json()
    assert 0 < narrowed["judgments"] < 18
    # every bucket's filter is a query the search accepts and that finds judgments
    year = everything["years"][0]
    filtered = api.get("/api/v1/search", params={"q": year["filter"]}).json()
    assert filtered["hits"] and all(h["decision_date"].startswith(year["key"]) for h in filtered["hits"])
    if everything["provisions"]:
        statute = api.get("/api/v1/search", params={"q": everything["provisions"][0]["filter"]}).json()
        assert statute["judgments_found"] >= 1


def test_csv_export_matches_the_ranking(api: TestClient) -> None:
    response = api.get("/api/v1/export.csv", params={"q": QUERY, "limit": 4})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert 1 <= len(rows) <= 4 and rows[0]["rank"] == "1"
    top = api.get("/api/v1/search", params={"q": QUERY, "size": 4}).json()["hits"]
    assert [r["judgment_id"] for r in rows] == [h["judgment_id"] for h in top][:len(rows)]
    assert api.get("/api/v1/export.csv", params={"q": QUERY, "limit": 0}).status_code == 422


def test_api_key_guards_the_api_but_not_health(ratio_client) -> None:
    with TestClient(create_app(ratio_client, api_key="s3cret")) as guarded:
        assert guarded.get("/api/v1/search", params={"q": "murder"}).status_code == 401
        assert guarded.get("/api/v1/search", params={"q": "murder"}, headers={"X-API-Key": "wrong"}).status_code == 401
        assert guarded.get("/api/v1/search", params={"q": "murder"}, headers={"X-API-Key": "s3cret"}).status_code == 200
        assert guarded.get("/api/v1/search", params={"q": "murder"},
                           headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert guarded.get("/api/v1/health").status_code == 200
        spec = guarded.get("/api/v1/openapi.json", headers={"X-API-Key": "s3cret"}).json()
        assert spec["components"]["securitySchemes"]["ApiKey"]["name"] == "X-API-Key"


def test_cors_is_off_unless_origins_are_named(api: TestClient, ratio_client) -> None:
    preflight = {"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"}
    assert "access-control-allow-origin" not in api.options("/api/v1/search", headers=preflight).headers
    assert "access-control-allow-origin" not in api.get("/api/v1/health", headers={"Origin": "https://x.example"}
                                                        ).headers
    with TestClient(create_app(ratio_client, cors_origins=["https://app.example"])) as open_app:
        allowed = open_app.get("/api/v1/health", headers={"Origin": "https://app.example"})
        assert allowed.headers["access-control-allow-origin"] == "https://app.example"
        other = open_app.get("/api/v1/health", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in other.headers


def test_openapi_spec_publishes_every_route(api: TestClient) -> None:
    spec = api.get("/api/v1/openapi.json").json()
    paths = set(spec["paths"])
    assert {"/api/v1/search", "/api/v1/judgments/{judgment_id}", "/api/v1/facets", "/api/v1/explore",
            "/api/v1/explain", "/api/v1/provisions", "/api/v1/health", "/api/v1/export.csv"} <= paths
    assert not any(p.startswith("/ui") or p == "/" for p in paths)


def test_remote_client_returns_the_same_objects(live_server: str, ratio_client) -> None:
    remote = RemoteClient(live_server)
    page = remote.search(QUERY, size=3)
    local = ratio_client.search(QUERY, size=3)
    assert isinstance(page.hits[0], JudgmentHit)
    assert [h.judgment_id for h in page.hits] == [h.judgment_id for h in local.hits]
    pages = list(remote.search_pages("appeal", size=5, max_pages=2))
    assert len(pages) == 2 and pages[1].page == 2
    view = remote.judgment(page.hits[0].judgment_id)
    assert isinstance(view, JudgmentView) and view.sentences
    assert remote.explain(QUERY, page.hits[0].judgment_id).text
    assert remote.health().status == "ok"
    with pytest.raises(QueryError, match="never closes"):
        remote.search('"open quote')
    with pytest.raises(NotFoundError) as missing:  # tests/ratio/test_client_parity.py: the same as Client's
        remote.judgment("does-not-exist")
    assert missing.value.status == 404


def test_citation_check_endpoint(api: TestClient) -> None:
    brief = ("As held in State of U.P. v. Anil Singh, and in the invented (2019) 17 SCC 777, the accused "
             "must be acquitted.")
    report = api.post("/api/v1/citations/check", json={"text": brief}).json()
    statuses = {c["text"]: c["status"] for c in report["checks"]}
    assert statuses["State of U.P. v. Anil Singh"] == "found"
    assert statuses["(2019) 17 SCC 777"] == "unknown"
    found = next(c for c in report["checks"] if c["status"] == "found")
    assert found["matches"][0]["link"].startswith("/judgments/") and report["ok"] is False
    assert api.post("/api/v1/citations/check", json={"text": "no citations here"}).json()["checks"] == []
    binary = api.post("/api/v1/citations/check", json={"text": "abc\u0000\u0001def"})
    assert binary.status_code == 400 and binary.json()["error"]["message"]
    assert api.post("/api/v1/citations/check", json={"text": ""}).status_code == 422
    assert api.post("/api/v1/citations/check", json={}).status_code == 422


def test_saved_search_lifecycle_and_alerts(api: TestClient) -> None:
    hits = api.get("/api/v1/search", params={"q": "servant", "size": 10}).json()["hits"]
    # a judgment that holds the word (hybrid search also ranks judgments by meaning alone)
    hit = next(h for h in hits if any("<mark>" in x for p in h["passages"] for x in p["highlights"]))
    name = "servant watch"
    api.delete(f"/api/v1/saved-searches/{name}")
    created = api.post("/api/v1/saved-searches", json={"name": name, "q": "servant"})
    assert created.status_code == 201, created.text
    assert created.json()["name"] == name
    assert api.post("/api/v1/saved-searches", json={"name": name, "q": "x"}).status_code == 409
    assert api.post("/api/v1/saved-searches", json={"name": "bad", "q": '"open'}).status_code == 400
    assert api.post("/api/v1/saved-searches", json={"name": "bad", "q": "x", "webhook": "ftp://x"}
                    ).status_code == 422
    assert name in [s["name"] for s in api.get("/api/v1/saved-searches").json()]
    checked = api.post("/api/v1/alerts/check", json={"judgment_ids": [hit["judgment_id"]]}).json()
    assert checked["checked"] == 1
    matched = {a["search"]["name"]: [j["judgment_id"] for j in a["judgments"]] for a in checked["alerts"]}
    assert name in matched, (checked, hit["judgment_id"], api.get("/api/v1/saved-searches").json())
    assert matched[name] == [hit["judgment_id"]]
    recent = api.post("/api/v1/alerts/check", json={"since": "2000-01-01T00:00:00"}).json()
    assert recent["checked"] == 18 and name in {a["search"]["name"] for a in recent["alerts"]}
    assert api.post("/api/v1/alerts/check", json={"since": "yesterday"}).status_code == 400
    assert api.post("/api/v1/alerts/check", json={}).status_code == 400
    assert api.delete(f"/api/v1/saved-searches/{name}").status_code == 204
    assert api.delete(f"/api/v1/saved-searches/{name}").status_code == 404


def test_client_searches_by_a_whole_document(ratio_client) -> None:
    from pathlib import Path

    from search.query.errors import EmptyQueryError

    text = (Path(__file__).resolve().parents[3] / "samples" / "aila-2019" / "judgments" / "C12.txt").read_text()
    assert len(text.split()) > 2_000  # past the typed query's 1,000-term limit
    found = ratio_client.search_by_document(text, size=3).hits
    assert found[0].judgment_id == "C12" and len(found) == 3
    others = ratio_client.search_by_document(text, size=3, exclude="C12").hits
    assert "C12" not in [r.judgment_id for r in others] and others[0].title
    with pytest.raises(EmptyQueryError):
        ratio_client.search_by_document("  \n ")


def test_search_says_what_each_hit_matched_and_how_many_match(api: TestClient) -> None:
    """Match semantics through the API: an absent phrase and gibberish are an empty answer with a true count of
    zero; plain words count the judgments that have every one of them beside those with any, and every hit says
    what it matched and which words it lacks."""
    for q in ('"dowry death"', "xyzzyqwerty"):
        page = api.get("/api/v1/search", params={"q": q}).json()
        assert page["hits"] == [] and page["total"] == 0 and page["judgments_found"] == 0, q
    page = api.get("/api/v1/search", params={"q": "dowry death", "size": 20}).json()
    assert page["total"] == 0 and page["total_any"] >= 1 and page["meaning_floor"] > 0  # no sample has "dowry"
    assert {hit["match"] for hit in page["hits"]} <= {"words", "meaning"}
    words = [hit for hit in page["hits"] if hit["match"] == "words"]
    assert len(words) == page["total_any"]  # every judgment with a word is in the window (18 judgments in all)
    assert all(hit["missing"] == ["dowry"] for hit in words)
    for hit in page["hits"]:
        if hit["match"] == "meaning":
            assert hit["similarity"] >= page["meaning_floor"]
        else:
            assert hit["similarity"] is None
    fused = api.get("/api/v1/search", params={"q": "homicide", "ranking": "fusion", "size": 20}).json()
    assert fused["total"] == 2 and fused["below_floor"] > 0
    assert any(hit["match"] == "meaning" for hit in fused["hits"])
