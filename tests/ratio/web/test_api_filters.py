"""Filters as state, over the real node and the 18 sample judgments: chips that remove exactly one filter, facet
values as selections, the form's role doing what ``role:`` does, one counting rule for Search and Explore, and a
continuous year axis."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlparse

import pytest
from fastapi.testclient import TestClient

from ratio.web.chips import chips
from ratio.web.schemas import SearchParams

COURT = "Supreme Court of India"
QUERY = "public servant dishonestly misappropriated property entrusted"
CHIP = re.compile(r'<li class="chip chip-(form|query)" data-kind="(\w+)".*?href="([^"]+)"', re.S)


def _state(url: str) -> dict[str, list[str]]:
    return {k: sorted(v) for k, v in parse_qs(urlparse(url).query).items()}


def _chips(html: str) -> list[tuple[str, str, str]]:
    return [(source, kind, unescape(href)) for source, kind, href in CHIP.findall(html)]


def test_each_chip_removes_exactly_its_filter() -> None:
    params = SearchParams(q=f'murder court:"{COURT}" year:1990..2010 role:ratio statute:"s. 302 IPC"',
                          court=["Bombay High Court"], judge=["Ray"], statute=["IPC s. 34"],
                          date_from="1995", date_to="2005", role=["facts"], mode="filter")
    applied = chips(params)
    assert [(c.source, c.kind) for c in applied] == [
        ("form", "court"), ("form", "judge"), ("form", "statute"), ("form", "from"), ("form", "to"),
        ("form", "role"), ("query", "court"), ("query", "year"), ("query", "role"), ("query", "statute")]
    full = {"q": [params.q], "court": ["Bombay High Court"], "judge": ["Ray"], "statute": ["IPC s. 34"],
            "date_from": ["1995"], "date_to": ["2005"], "role": ["facts"], "mode": ["filter"]}
    for chip in applied:
        after = _state(chip.remove)
        changed = {k for k in full.keys() | after.keys() if full.get(k) != after.get(k)}
        field = "q" if chip.source == "query" else {"from": "date_from", "to": "date_to"}.get(chip.kind, chip.kind)
        assert changed == {field}, chip  # one field changed, and only by this filter:
        if field != "q":
            assert field not in after, chip
    typed = [_state(c.remove)["q"][0] for c in applied if c.source == "query"]
    assert typed == ['murder year:1990..2010 role:ratio statute:"s. 302 IPC"',
                     f'murder court:"{COURT}" role:ratio statute:"s. 302 IPC"',
                     f'murder court:"{COURT}" year:1990..2010 statute:"s. 302 IPC"',
                     f'murder court:"{COURT}" year:1990..2010 role:ratio']
    labels = [c.label for c in applied]
    assert labels[0] == "court: Bombay High Court" and labels[5] == "role: facts (only these passages)"
    assert labels[6] == f"court: {COURT}" and labels[7] == "year: 1990..2010"


def test_a_filter_typed_inside_a_phrase_is_no_chip() -> None:
    assert chips(SearchParams(q='"court:Bombay" murder')) == []
    assert chips(SearchParams(q='murder court:"unclosed')) == []  # the page shows the syntax error instead


def test_removing_the_last_role_drops_the_role_mode() -> None:
    """mode=filter with no role left would be an error: the chip takes both away."""
    only = chips(SearchParams(q="murder", role=["ratio"], mode="filter"))
    assert _state(only[0].remove) == {"q": ["murder"]}
    typed = chips(SearchParams(q="murder role:ratio", mode="filter"))
    assert _state(typed[0].remove) == {"q": ["murder"]}
    two = chips(SearchParams(q="murder role:facts", role=["ratio"], mode="filter"))
    assert _state(two[0].remove) == {"q": ["murder role:facts"], "mode": ["filter"]}


def test_a_year_selection_is_one_chip_and_a_facet_click_selects(api: TestClient) -> None:
    words = "murder evidence"  # the facets count judgments with every word: seven samples have both
    page = api.get("/", params={"q": words})
    assert page.status_code == 200 and 'id="chips"' not in page.text
    court = re.search(r'data-facet="court".*?<a href="([^"]+)"', page.text, re.S)
    assert court, "the court facet links to a selection"
    selected_url = unescape(court.group(1))
    assert _state(selected_url) == {"q": [words], "court": [COURT]}  # a selection, not text added to the query
    selected = api.get(selected_url)
    (source, kind, remove), = _chips(selected.text)
    assert (source, kind) == ("form", "court") and _state(remove) == {"q": [words]}
    facet = selected.text.split('data-facet="court"')[1].split("</section>")[0]
    assert 'aria-current="true"' in facet, "the selected value is marked, and its link removes it"
    year = api.get("/", params={"q": QUERY, "date_from": "1997", "date_to": "1997"})
    assert [(s, k) for s, k, _ in _chips(year.text)] == [("form", "year")]
    assert _state(_chips(year.text)[0][2]) == {"q": [QUERY]}


def test_a_facet_selection_narrows_and_its_chip_restores(api: TestClient) -> None:
    wide = api.get("/api/v1/search", params={"q": "murder"}).json()
    years = [b for b in wide["facets"]["year"] if b["judgments"]]
    year = str(years[0]["key"])
    narrow = api.get("/api/v1/search", params={"q": "murder", "date_from": year, "date_to": year}).json()
    assert narrow["total"] == years[0]["judgments"] < wide["total"]
    assert all(h["decision_date"].startswith(year) for h in narrow["hits"])
    html = api.get("/", params={"q": "murder", "date_from": year, "date_to": year}).text
    (_, kind, remove), = _chips(html)
    assert kind == "year"
    again = api.get("/api/v1/search", params=_state(remove) | {"q": "murder"}).json()
    assert again["total"] == wide["total"]


def test_the_forms_role_filter_is_the_query_syntax(api: TestClient) -> None:
    typed = api.get("/api/v1/search", params={"q": "murder role:ratio", "size": 20}).json()
    form = api.get("/api/v1/search", params={"q": "murder", "role": "ratio", "mode": "filter", "size": 20}).json()
    boost = api.get("/api/v1/search", params={"q": "murder", "role": "ratio", "mode": "boost", "size": 20}).json()
    assert [h["judgment_id"] for h in typed["hits"]] == [h["judgment_id"] for h in form["hits"]]
    assert {p["role"] for h in form["hits"] for p in h["passages"]} == {"ratio"}
    assert typed["removed_by_role"] == form["removed_by_role"] is not None
    assert boost["removed_by_role"] is None and boost["ranking"] != form["ranking"]
    # the page's form always says what the role does, and says filter unless told to boost
    page = api.get("/", params={"q": "murder", "role": "ratio", "mode": "filter"}).text
    assert re.search(r'name="mode" value="filter"\s+checked', page)
    assert "role: ratio (only these passages)" in page
    # a mode with no role anywhere is dropped rather than refused
    assert api.get("/", params={"q": "murder", "mode": "filter"}).status_code == 200


@pytest.mark.parametrize("params", [
    {"q": "murder"},
    {"q": '"criminal breach of trust"'},
    {"q": "murder -dowry", "court": COURT},
    {"q": "appeal", "date_from": "1990", "date_to": "2005"},
    {"q": f'court:"{COURT}"'},
    {"q": "murder", "role": "ratio", "mode": "filter"},
    {"q": "murder", "statute": "s. 302 IPC"},
])
def test_explore_and_search_count_the_same(api: TestClient, params: dict[str, str]) -> None:
    search = api.get("/api/v1/search", params=params).json()
    explore = api.get("/api/v1/explore", params=params).json()
    assert search["total"] == explore["judgments"], params
    # the facets count the same judgments: each has one court, and years partition the dated ones
    assert sum(b["judgments"] for b in search["facets"]["court"]) == search["total"]
    assert search["facets"]["court"] == [{"key": b["key"], "judgments": b["judgments"]} for b in explore["courts"]]
    assert [b["judgments"] for b in search["facets"]["year"]] == [b["judgments"] for b in explore["years"]]
    assert sum(b["judgments"] for b in search["facets"]["year"]) <= search["total"]


def test_explore_counts_the_whole_corpus_without_a_query(api: TestClient) -> None:
    everything = api.get("/api/v1/explore").json()
    assert everything["judgments"] == 18
    assert sum(b["judgments"] for b in everything["courts"]) == 18


def test_the_year_axis_is_continuous(api: TestClient) -> None:
    everything = api.get("/api/v1/explore").json()
    years = [int(b["key"]) for b in everything["years"]]
    assert years == list(range(years[0], years[-1] + 1)), "every year between the first and the last"
    assert any(b["judgments"] == 0 for b in everything["years"]), "the sample corpus has gaps; they show"
    # a year filter stretches the axis to its bounds, empty years included
    bounded = api.get("/api/v1/search", params={"q": "murder year:1950..2020"}).json()["facets"]["year"]
    assert [b["key"] for b in bounded] == list(range(1950, 2021))
    # and the search page draws them all, empty ones as ticks, with the range picker
    html = api.get("/", params={"q": "murder", "date_from": "1950", "date_to": "2020"}).text
    assert len(re.findall(r'data-year="\d{4}"', html)) == 71
    assert 'name="date_from" min="1800"' in html and 'class="empty"' in html


def test_the_explore_page_marks_selections_and_shows_chips(api: TestClient) -> None:
    html = api.get("/explore", params={"q": "murder", "court": COURT}).text
    assert _chips(html)[0][:2] == ("form", "court") and _chips(html)[0][2].startswith("/explore?")
    court_chart = html.split('id="chart-courts"')[1].split("</section>")[0]
    assert 'aria-current="true"' in court_chart and "✓" in court_chart
