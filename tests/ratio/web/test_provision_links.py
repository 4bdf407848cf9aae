"""Provisions and judgments linked both ways, on the real node over the sample corpus (issue 26, item 3): a
judgment's cited provisions link to their pages; a provision's page lists the judgments citing it (or a
sub-section of it) with the exact count, pages, newest or most cited first, each with the sentence that cites it,
and says how its Act and section were found; facets and Explore label cited provisions with their titles and count
Acts, then sections; the API serves the same.

The AILA sample statutes carry a title and a text but no Act or section: the corpus mapping
(``indexer/provision_map.py``, run when the session indexes the samples) finds those from the judgments, as far as
its thresholds allow. The ``mapped`` fixture fixes what these tests read, standing in for the mapping: it gives a
few sample statutes the Act, section, citation and mapping the mapping would give them (``Punishment for murder``
is IPC s. 302, ...), marks one ambiguous and one unmapped, adds a provision the samples lack (PC Act s. 5, cited only
by sub-section) and one never mapped, and puts the statutes back as they were afterwards, since the indexed samples
are shared by the session.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from opensearchpy import OpenSearch

from search.graph.citation_graph import load_graph
from search.retrieval.records import stored_date
from search.retrieval.sorting import cited_by_counts

# sample statute -> (Act, section, citation): what the corpus mapping gives them (their titles name the sections)
STAND_IN = {"S2": ("IPC", "302", "IPC s. 302"),  # Punishment for murder
            "S6": ("IPC", "34", "IPC s. 34")}  # Acts done by several persons in furtherance of common intention
MURDER_EVIDENCE = {"judgment_id": "C16", "citation": "IPC s. 302", "kind": "quote",
                   "sentence": "The Sessions Judge, Kolar by his judgment dated March 21, 1981 convicted the appellant "
                               "under s. 302 of the Indian Penal Code for having committed the murder of one Smt. "
                               "Bachamma, wife of P.W. 3 Makrappa and sentenced him to death."}
MAPPINGS = {"S2": {"status": "mapped", "method": "corpus", "citation": "IPC s. 302", "confidence": 0.93,
                   "judgments": 4, "sentences": 5,
                   "evidence": [MURDER_EVIDENCE]},
            "S6": {"status": "given", "method": "source", "citation": "IPC s. 34", "confidence": 1.0},
            # Equality before law: no citation, the mapping could not decide between two
            "S3": {"status": "ambiguous", "method": "corpus", "citation": "Constitution art. 14", "confidence": 0.5,
                   "judgments": 2, "alternatives": [{"citation": "Constitution art. 15", "votes": 2.0}]},
            "S9": {"status": "unmapped", "method": "corpus", "citation": None, "confidence": 0.0, "judgments": 0}}
PC5 = "Ptest-pc-act-5"  # a provision the samples lack: judgments cite only its sub-sections (5(1)(d), 5(2))
NEVER = "Ptest-never-mapped"  # a provision indexed before the mapping existed: no Act, section or mapping
FIELDS = ("act", "section", "citation", "chapter", "mapping")


@pytest.fixture(scope="module")
def mapped(client: OpenSearch, aliases: dict[str, str]):
    """Stands in for the corpus mapping on the session's sample statutes (see the module docstring); restores them."""
    index = aliases["provisions"]
    chosen = {*STAND_IN, *MAPPINGS}
    before = {pid: client.get(index=index, id=pid)["_source"] for pid in chosen}
    for pid in chosen:  # whatever the session's own mapping found for them, these tests say what they hold
        _remove(client, index, pid, FIELDS)
        act, section, citation = STAND_IN.get(pid, (None, None, None))
        doc = {"mapping": MAPPINGS.get(pid)} | ({"act": act, "section": section, "citation": citation} if act else {})
        client.update(index=index, id=pid, body={"doc": {k: v for k, v in doc.items() if v is not None}})
    client.index(index=index, id=PC5, body={
        "provision_id": PC5, "source": "test", "act": "PC Act", "section": "5", "citation": "PC Act s. 5",
        "title": "Criminal misconduct in discharge of official duty",
        "text": "A public servant is said to commit the offence of criminal misconduct in the discharge of his duty."})
    client.index(index=index, id=NEVER, body={"provision_id": NEVER, "source": "test", "title": "Never mapped",
                                              "text": "A provision indexed before the mapping ran."})
    client.indices.refresh(index=index)
    yield index
    for pid, source in before.items():
        _remove(client, index, pid, FIELDS)
        kept = {k: source[k] for k in FIELDS if k in source}
        if kept:
            client.update(index=index, id=pid, body={"doc": kept})
    for pid in (PC5, NEVER):
        client.delete(index=index, id=pid)
    client.indices.refresh(index=index)


def _remove(client: OpenSearch, index: str, pid: str, fields: tuple[str, ...]) -> None:
    client.update(index=index, id=pid, body={
        "script": {"source": "for (k in params.keys) { ctx._source.remove(k) }", "params": {"keys": list(fields)}}})


def _held(client: OpenSearch, index: str) -> set[str]:
    """The citations the provisions index holds."""
    hits = client.search(index=index, body={"size": 1000, "_source": ["citation"],
                                            "query": {"exists": {"field": "citation"}}})["hits"]["hits"]
    return {h["_source"]["citation"] for h in hits}


def _stored(client: OpenSearch, aliases: dict[str, str]) -> dict[str, dict]:
    """Every sample judgment's stored citations and date, read independently of the code under test."""
    hits = client.search(index=aliases["judgments"], body={
        "size": 100, "_source": ["cited_provisions", "decision_date"], "query": {"match_all": {}}})["hits"]["hits"]
    return {h["_id"]: h["_source"] for h in hits}


def _citing(stored: dict[str, dict], citation: str) -> set[str]:
    """The judgments citing ``citation`` or one of its sub-sections."""
    return {jid for jid, source in stored.items()
            if any(c == citation or c.startswith(f"{citation}(") for c in source.get("cited_provisions") or ())}


def _section(page: str, css_class: str) -> str:
    match = re.search(rf'<section class="{css_class}"[^>]*>(.*?)</section>', page, re.DOTALL)
    assert match, f"no section {css_class!r}"
    return match.group(1)


def _listed(page: str) -> list[str]:
    return re.findall(r'<li><a href="/judgments/([^"]+)">', _section(page, "cited-by"))


# ---------------------------------------------------------------- judgment -> provision


def test_a_judgment_links_each_provision_the_corpus_holds(api: TestClient, mapped: str) -> None:
    page = api.get("/judgments/C16")
    assert page.status_code == 200
    cites = page.text.split('class="cited-provisions"', 1)[1].split("</ul>", 1)[0]
    assert '<a href="/provisions/S2">IPC s. 302</a>' in cites and "Punishment for murder" in cites
    assert re.search(r"<li>IPC s\. 411</li>", cites)  # not in the corpus: plain text, no link
    # a sub-section links to its section's provision
    other = api.get("/judgments/C130").text.split('class="cited-provisions"', 1)[1].split("</ul>", 1)[0]
    assert f'<a href="/provisions/{PC5}">PC Act s. 5(2)</a>' in other
    # the API carries the same links: the provision's id per cited provision the corpus holds
    cited = {c["citation"]: c["target_id"] for c in api.get("/api/v1/judgments/C16").json()["cites_provisions"]}
    assert cited["IPC s. 302"] == "S2" and cited["IPC s. 411"] is None


def test_one_request_resolves_every_cited_provision(client: OpenSearch, aliases: dict[str, str], mapped: str) -> None:
    from search.provisions.links import provision_refs

    asked: list[dict] = []

    class Counting:
        def search(self, **kwargs):
            asked.append(kwargs)
            return client.search(**kwargs)

    refs = provision_refs(Counting(), mapped, ["IPC s. 302", "IPC s. 34", "PC Act s. 5(1)(d)", "IPC s. 411"])
    assert len(asked) == 1
    assert {c: r.provision_id for c, r in refs.items()} == {"IPC s. 302": "S2", "IPC s. 34": "S6",
                                                            "PC Act s. 5(1)(d)": PC5}
    assert refs["PC Act s. 5(1)(d)"].citation == "PC Act s. 5"


# ---------------------------------------------------------------- provision -> judgments


def test_a_provision_page_lists_every_citing_judgment_with_its_sentence(api: TestClient, client: OpenSearch,
                                                                        aliases: dict[str, str], mapped: str) -> None:
    stored = _stored(client, aliases)
    expected = _citing(stored, "IPC s. 302")
    assert len(expected) >= 5
    page = api.get("/provisions/S2")
    assert page.status_code == 200
    count = re.search(r'Judgments citing it <span class="count">(\d+)</span>', page.text)
    assert count and int(count.group(1)) == len(expected)
    listed = _listed(page.text)
    assert set(listed) == expected and len(listed) == len(expected)
    dates = [stored_date(stored[j].get("decision_date")) for j in listed]
    known = [d for d in dates if d]
    assert known == sorted(known, reverse=True)  # newest first
    sentences = [html.unescape(s) for s in re.findall(r'<blockquote class="citing-sentence">(.*?)</blockquote>',
                                                      page.text, re.DOTALL)]
    assert len(sentences) == len(expected)  # every sample judgment spells its citation of s. 302
    assert all("302" in s for s in sentences)
    c16 = page.text.split('href="/judgments/C16"', 1)[1].split("</li>", 1)[0]
    assert "convicted the appellant under s. 302 of the Indian Penal Code" in html.unescape(c16)
    # the provision's Act, section and mapping
    facts = html.unescape(re.search(r'<dl class="provision-facts">(.*?)</dl>', page.text, re.DOTALL).group(1))
    assert re.search(r"<dt>Act</dt><dd>IPC</dd>\s*<dt>Section</dt><dd>302</dd>", facts)
    mapping = html.unescape(_section(page.text, "mapping mapping-mapped"))
    assert "mapped from the judgments" in mapping and "confidence 0.93" in mapping
    assert "supported by 4 judgments" in mapping and MURDER_EVIDENCE["sentence"] in mapping


def test_a_sub_section_citation_counts_for_its_section(api: TestClient, client: OpenSearch,
                                                       aliases: dict[str, str], mapped: str) -> None:
    stored = _stored(client, aliases)
    expected = _citing(stored, "PC Act s. 5")
    assert expected and all("PC Act s. 5" not in stored[j]["cited_provisions"] for j in expected)
    page = api.get(f"/provisions/{PC5}")
    assert int(re.search(r'citing it <span class="count">(\d+)</span>', page.text).group(1)) == len(expected)
    assert set(_listed(page.text)) == expected
    assert "cites PC Act s. 5(" in page.text  # says which sub-section each cites
    assert all("5" in s for s in re.findall(r'<blockquote class="citing-sentence">(.*?)</blockquote>', page.text))


def test_the_citing_judgments_page_and_sort(api: TestClient, client: OpenSearch, aliases: dict[str, str],
                                            mapped: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import ratio.web.pages as pages

    monkeypatch.setattr(pages, "CITING_SIZE", 3)
    stored = _stored(client, aliases)
    expected = _citing(stored, "IPC s. 302")
    first = api.get("/provisions/S2").text
    last_page = -(-len(expected) // 3)
    assert f'<a href="/provisions/S2?page={last_page}#citing">{last_page}</a>' in first
    seen: list[str] = []
    for number in range(1, last_page + 1):
        shown = api.get("/provisions/S2", params={"page": number}).text
        assert int(re.search(r'citing it <span class="count">(\d+)</span>', shown).group(1)) == len(expected)
        assert f'<strong aria-current="page">{number}</strong>' in shown
        seen += _listed(shown)
    assert len(seen) == len(expected) and set(seen) == expected  # every one once, across the pages
    # most cited first: by the corpus's citation graph, then newest
    counts = cited_by_counts(load_graph(client, aliases["judgments"]))
    ranked = sorted(expected, key=lambda j: (-counts.get(j, 0), -(stored_date(stored[j].get("decision_date")) or
                                                                     stored_date("0001-01-01")).toordinal(), j))
    most = api.get("/provisions/S2", params={"sort": "cited_by"}).text
    assert '<strong aria-current="true">Most cited</strong>' in most
    assert _listed(most) == ranked[:3]
    assert 'href="/provisions/S2?sort=cited_by&amp;page=2#citing"' in most  # the pages keep the order
    # past the last page: the count stays and the page says so; a stale value reads as page 1
    assert "No judgments on page 99" in api.get("/provisions/S2", params={"page": 99}).text
    assert _listed(api.get("/provisions/S2", params={"page": "x", "sort": "bogus"}).text) == _listed(first)


def test_unmapped_and_ambiguous_provisions_say_so(api: TestClient, mapped: str) -> None:
    ambiguous = html.unescape(api.get("/provisions/S3").text)
    assert "Ambiguous: too few of the judgments quoting it agree on one Act and section" in ambiguous
    assert "Candidates: Constitution art. 14; Constitution art. 15 (2.0 votes)" in ambiguous
    unmapped = html.unescape(api.get("/provisions/S9").text)
    assert "Unmapped: no Act and section could be found" in unmapped
    assert "its source names no Act or section" in unmapped
    never = html.unescape(api.get(f"/provisions/{NEVER}").text)
    assert "Unmapped: no Act and section is known for this provision yet" in never


# ---------------------------------------------------------------- facets and Explore


def test_facets_label_cited_provisions_with_their_titles(api: TestClient, client: OpenSearch, mapped: str) -> None:
    page = api.get("/", params={"q": "murder"}).text
    facet = page.split('data-facet="cited_provisions"', 1)[1].split("</section>", 1)[0]
    assert "IPC s. 302 — Punishment for murder" in html.unescape(facet)
    assert 'href="/provisions/S2"' in facet
    buckets = {b["key"]: b for b in api.get("/api/v1/facets", params={"q": "murder"}).json()["cited_provisions"]}
    assert buckets["IPC s. 302"]["title"] == "Punishment for murder" and buckets["IPC s. 302"]["provision_id"] == "S2"
    assert buckets["IPC s. 302"]["link"] == "/provisions/S2"
    held = _held(client, mapped)
    assert all("title" not in b for k, b in buckets.items() if k not in held and k.split("(")[0] not in held)
    search = api.get("/api/v1/search", params={"q": "murder", "size": 1}).json()
    assert {b["key"]: b.get("provision_id") for b in search["facets"]["cited_provisions"]}["IPC s. 302"] == "S2"


def test_explore_counts_acts_then_sections(api: TestClient, client: OpenSearch, aliases: dict[str, str],
                                           mapped: str) -> None:
    stored = _stored(client, aliases)
    view = api.get("/api/v1/explore").json()
    acts = {a["act"]: a for a in view["acts"]}
    ipc = {j for j, s in stored.items() if any(c.startswith("IPC s. ") for c in s.get("cited_provisions") or ())}
    assert acts["IPC"]["judgments"] == len(ipc)
    sections = {s["key"]: s for s in acts["IPC"]["sections"]}
    assert sections["IPC s. 302"]["judgments"] == len(_citing(stored, "IPC s. 302"))
    assert sections["IPC s. 302"]["title"] == "Punishment for murder"
    pc = {s["key"]: s for s in acts["PC Act"]["sections"]}
    assert "PC Act s. 5(2)" not in pc and pc["PC Act s. 5"]["judgments"] == len(_citing(stored, "PC Act s. 5"))
    assert {b["key"]: b["title"] for b in view["provisions"]}["IPC s. 302"] == "Punishment for murder"
    page = html.unescape(api.get("/explore").text)
    chart = page.split('id="chart-acts"', 1)[1].split("</section>", 1)[0]
    assert "IPC s. 302 — Punishment for murder" in chart and 'href="/provisions/S2"' in chart
    assert re.search(rf"<strong>IPC</strong> <span class=\"count\">{len(ipc)}</span>", chart)
    provisions = page.split('id="chart-provisions"', 1)[1].split("</section>", 1)[0]
    assert "IPC s. 302 — Punishment for murder" in provisions


# ---------------------------------------------------------------- the API


def test_the_provision_api_pages_and_sorts_the_citing_judgments(api: TestClient, client: OpenSearch,
                                                                 aliases: dict[str, str], mapped: str) -> None:
    expected = _citing(_stored(client, aliases), "IPC s. 302")
    body = api.get("/api/v1/provisions/S2").json()
    assert (body["act"], body["section"], body["citation"], body["title"]) == ("IPC", "302", "IPC s. 302",
                                                                              "Punishment for murder")
    assert body["mapping"]["status"] == "mapped" and body["mapping"]["evidence"][0]["judgment_id"] == "C16"
    citing = body["citing"]
    assert citing["total"] == len(expected) and citing["sort"] == "newest" and citing["page"] == 1
    assert {j["judgment_id"] for j in citing["judgments"]} == expected
    assert all(j["sentence"] and "302" in j["sentence"] for j in citing["judgments"])
    paged = [api.get("/api/v1/provisions/S2", params={"size": 2, "page": n}).json()["citing"]
             for n in range(1, -(-len(expected) // 2) + 1)]
    assert all(p["total"] == len(expected) and p["pages"] == len(paged) for p in paged)
    assert sorted(j["judgment_id"] for p in paged for j in p["judgments"]) == sorted(expected)
    most = api.get("/api/v1/provisions/S2", params={"sort": "cited_by"}).json()["citing"]
    assert most["sort"] == "cited_by"
    counts = [j["cited_by"] for j in most["judgments"]]
    assert counts == sorted(counts, reverse=True)
    assert api.get("/api/v1/provisions/S2", params={"sort": "oldest"}).status_code == 422
    assert api.get("/api/v1/provisions/S2", params={"size": 100, "page": 101}).status_code == 400
    missing = api.get(f"/api/v1/provisions/{quote('no such provision')}")
    assert missing.status_code == 404
