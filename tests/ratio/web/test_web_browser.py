"""The pages in real headless Chromium (Debian's ``chromium`` driven by Playwright) over the sample corpus.

Each test saves a full-page screenshot (:func:`tests.ratio.web.browsing.shot`), so a reviewer can see what the
browser saw; the ``browser`` and ``page`` fixtures live in ``tests/conftest.py``.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from tests.ratio.web.browsing import shot
from tests.waiting import serve

playwright_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")
QUERY = "public servant dishonestly misappropriated property entrusted"


def test_search_filter_and_explanations(page) -> None:
    page.goto("/")
    page.get_by_label("Query").fill(QUERY)
    page.keyboard.press("Enter")
    page.wait_for_selector("ol.hits li.hit")
    hits = page.locator("ol.hits li.hit")
    assert hits.count() >= 3
    first_title = hits.first.locator("h2 a").inner_text()
    assert first_title
    # passages carry their role, highlights mark the matched words
    assert page.locator("ol.hits .passage .role-tag").count() >= hits.count()
    assert page.locator("ol.hits mark").count() > 0
    # explanations arrive after the list is shown, one per hit
    # (a locator, not wait_for_function: the page's CSP forbids evaluating strings, as it should)
    playwright_api.expect(page.locator(".why:not(.ready)")).to_have_count(0, timeout=60_000)
    assert "Explaining" not in page.locator(".why").first.inner_text()
    shot(page, "search")

    # a facet value is a selection that narrows the search: pick the first year with judgments on the histogram
    # (the facets count the judgments with every word: no sample judgment has "misappropriated", so murder here)
    page.goto("/?q=murder+evidence")
    page.wait_for_selector("ol.hits li.hit")
    year_link = page.locator("section.facet[data-facet=year] a[data-year]").first
    year = year_link.get_attribute("data-year")
    year_link.click()
    page.wait_for_selector("ol.hits li.hit")
    assert page.locator("#chips .chip[data-kind=year] .chip-label").inner_text() == f"year: {year}"
    dates = page.locator("ol.hits .meta").all_inner_texts()
    assert dates and all(year in d for d in dates)
    shot(page, "search-year-facet")


def test_filter_form_and_bad_query(page) -> None:
    page.goto("/")
    page.get_by_label("Query").fill("murder")
    page.locator("summary", has_text="Filters").click()
    page.get_by_label("Decided from").fill("1990")
    page.get_by_label("to", exact=True).fill("1999")
    page.get_by_label("Role", exact=True).select_option("facts")
    page.get_by_role("button", name="Search").click()
    page.wait_for_selector("ol.hits li.hit")
    query = parse_qs(urlparse(page.url).query)
    assert query["date_from"] == ["1990"] and query["role"] == ["facts"]
    assert all(re.search(r"199\d", d) for d in page.locator("ol.hits .meta").all_inner_texts())
    shot(page, "search-filters")

    page.goto("/?q=%22never+closed")
    alert = page.get_by_role("alert")
    assert "never closes" in alert.inner_text()
    shot(page, "search-error")


def test_a_phrase_with_no_match_says_no_judgment_matches(page) -> None:
    """No sample judgment has the phrase "dowry death": the page says so, with the query and the form's filters,
    and lists nothing (the vector half no longer fills the list)."""
    page.goto("/?q=%22dowry+death%22&date_from=1990")
    message = page.locator("#no-match")
    message.wait_for()
    text = message.inner_text()
    assert text.startswith("No judgment matches") and '"dowry death"' in text and "decided from 1990" in text
    assert page.locator("ol.hits li.hit").count() == 0
    assert page.locator("#summary").inner_text().startswith("0 judgments have every word · 0 have any ·")
    shot(page, "search-no-match")

    page.goto("/?q=xyzzyqwerty")
    page.locator("#no-match").wait_for()
    assert page.locator("ol.hits li.hit").count() == 0

    # plain words: none has every word, some have one; each of those says what it lacks, and no hit is labelled
    # wrongly
    page.goto("/?q=dowry+death")
    page.wait_for_selector("ol.hits li.hit")
    summary = page.locator("#summary").inner_text()
    some = re.match(r"0 judgments have every word · (\d+) have any; showing 1–\d+ of the best \d+", summary)
    assert some, summary
    labelled = page.locator("ol.hits li.hit .match-meaning").count()
    assert labelled == page.locator("ol.hits li.hit").count() - int(some.group(1))
    assert page.locator("ol.hits li.hit .match-missing").all_inner_texts() == ["missing: dowry"] * int(some.group(1))
    shot(page, "search-words-count")

    # a role filter runs the fusion path, whose vector half finds murder appeals without the word: labelled
    page.goto("/?q=homicide&role=analysis&mode=filter")
    page.wait_for_selector("ol.hits li.hit")
    assert page.locator("#summary").inner_text().startswith("2 judgments have every word · 2 have any; showing 1–")
    label = page.locator("ol.hits li.hit .match-meaning")
    assert label.count() >= 1 and label.first.inner_text() == "matched by meaning only"
    shot(page, "search-meaning-only")


def test_open_a_judgment_and_filter_roles(page) -> None:
    page.goto(f"/?q={QUERY}")
    link = page.locator("ol.hits li.hit h2 a").first
    title = link.inner_text()
    link.click()
    page.wait_for_selector("#text .sentence")
    assert page.locator("h1").inner_text() == title
    sentences = page.locator("#text .sentence")
    total = sentences.count()
    assert total > 10
    toggles = page.locator(".role-toggle")
    assert toggles.count() >= 2
    role = toggles.first.get_attribute("value")
    shown_of_role = page.locator(f"#text .sentence.role-{role}").count()
    assert shown_of_role > 0
    shot(page, "judgment")
    toggles.first.uncheck()
    assert page.locator(f"#text .sentence.role-{role}").first.is_hidden()
    visible = page.locator("#text .sentence:visible").count()
    assert visible == total - shown_of_role
    assert page.get_by_role("heading", name="Cited by").is_visible()
    assert page.get_by_role("heading", name="Summary").is_visible()
    shot(page, "judgment-role-hidden")


def test_explore_charts_filter_the_search(page) -> None:
    page.goto("/explore")
    page.wait_for_selector("#chart-years svg rect")
    assert "18 judgments" in page.locator("p.summary").inner_text()
    assert page.locator("#chart-courts .bars li").count() >= 1
    assert page.locator("#chart-roles .bars li").count() >= 3
    assert page.locator("#chart-roles .bars a").count() == 0  # roles need words to search with
    shot(page, "explore")
    court_bar = page.locator("#chart-courts .bars a").first
    court = court_bar.locator(".bar-label").inner_text()
    court_bar.click()
    page.wait_for_selector("ol.hits li.hit")
    assert parse_qs(urlparse(page.url).query)["court"] == [court]  # a selection, shown as a chip
    assert page.locator("#chips .chip[data-kind=court] .chip-label").inner_text() == f"court: {court}"
    assert all(court in meta for meta in page.locator("ol.hits .meta").all_inner_texts())
    # the explore view of a query: role bars now search, and the CSV export link
    page.goto("/explore?q=murder")
    summary = page.locator("p.summary").inner_text()
    assert int(summary.split()[0]) < 18
    page.locator("#chart-roles .bars a").first.click()
    page.wait_for_selector("ol.hits li.hit")
    chosen = parse_qs(urlparse(page.url).query)
    assert chosen["q"] == ["murder"] and chosen["mode"] == ["filter"] and len(chosen["role"]) == 1
    page.go_back()
    with page.expect_download() as download:
        page.get_by_role("link", name="CSV of the top results").click()
    csv_text = Path(download.value.path()).read_text()
    assert csv_text.startswith("rank,judgment_id,title")
    shot(page, "explore-query")


def test_keyboard_reaches_the_search_box_and_results(page) -> None:
    page.goto(f"/?q={QUERY}")
    page.keyboard.press("Tab")  # the skip link comes first: past the form, to the results
    assert page.evaluate("document.activeElement.className") == "skip"
    assert page.evaluate("document.activeElement.textContent") == "Skip to results"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "results"
    for _ in range(12):  # from the results, Tab reaches the first hit
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.closest('li.hit') !== null"):
            break
    assert page.evaluate("document.activeElement.closest('li.hit') !== null")
    page.goto(f"/?q={QUERY}")
    for _ in range(12):  # without the skip link, Tab reaches the search box after the header's links
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "q":
            break
    assert page.evaluate("document.activeElement.id") == "q"
    assert page.locator("html").get_attribute("lang") == "en"
    unlabelled = page.evaluate("""Array.from(document.querySelectorAll('input:not([type=hidden]), select'))
        .filter(el => !el.labels || el.labels.length === 0).map(el => el.name)""")
    assert unlabelled == []


def test_with_a_key_a_browser_signs_in_once(browser, ratio_client) -> None:
    """With ``--api-key``, the search page sends a browser to /login; after signing in, the cookie opens the
    pages, the explanations (``/ui/explain``) and the CSV link, under the same CSP."""
    from ratio.web import create_app

    with serve(create_app(ratio_client, api_key="browser-key")) as url:
        context = browser.new_context(base_url=url, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
        try:
            page.goto(f"/?q={QUERY.replace(' ', '+')}")
            assert urlparse(page.url).path == "/login"
            page.get_by_label("API key").fill("wrong")
            page.get_by_role("button", name="Sign in").click()
            assert "not this server's" in page.content()
            page.get_by_label("API key").fill("browser-key")
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_selector("ol.hits li.hit")
            assert parse_qs(urlparse(page.url).query)["q"] == [QUERY]
            playwright_api.expect(page.locator(".why:not(.ready)")).to_have_count(0, timeout=60_000)
            assert "Explaining" not in page.locator(".why").first.inner_text()
            cookie = next(c for c in context.cookies() if c["name"] == "ratio_session")
            assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
            assert page.evaluate("() => document.cookie") == "", "HttpOnly: scripts cannot read the session"
            shot(page, "search-signed-in")
        finally:
            context.close()
    assert errors == [], f"JavaScript errors or blocked content on the page: {errors}"


def test_api_docs_render_offline(page, live_server: str) -> None:
    """Swagger UI renders the spec from this server's files only; the page fixture fails on any CSP report."""
    origins: set[str] = set()
    page.on("request", lambda request: origins.add(urlparse(request.url).netloc))
    page.goto("/api/v1/docs")
    page.locator(".opblock").first.wait_for(timeout=30_000)
    assert page.locator(".opblock").count() >= 5
    assert origins == {urlparse(live_server).netloc}
    shot(page, "api-docs")


def test_provision_page_shows_its_title_and_citing_judgments(page) -> None:
    page.goto("/provisions/S52")
    heading = page.locator("h1").inner_text()
    assert heading == "Criminal breach of trust by public servant, or by banker, merchant or agent"
    assert page.locator(".cited-by h2").inner_text().startswith("Judgments citing it")
    shot(page, "provision")
