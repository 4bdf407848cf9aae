"""Counts that mean what was asked, in real headless Chromium over the sample corpus: a typed query's summary
states the judgments with every word beside those with any and a hit says what it lacks; a search of filters alone
(the form's court field, no words) pages through every judgment passing it, newest first, each hit explained by
its filters. Screenshots: ``counting-every-word.png``, ``counting-filters-page-two.png``.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.ratio.web.browsing import shot

playwright_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")
COURT = "Supreme Court of India"  # all 18 sample judgments: two pages of ten


def _hits(page) -> list[str]:
    return page.locator("ol.hits li.hit").evaluate_all("els => els.map(e => e.dataset.judgment)")


def test_a_filter_only_search_pages_to_page_two_newest_first(page, client, aliases) -> None:
    passing = int(client.count(index=aliases["judgments"], body={"query": {"term": {"court": COURT}}})["count"])
    assert passing == 18
    page.goto("/")
    page.locator("summary", has_text="Filters").click()
    page.get_by_label("Court", exact=True).fill(COURT)
    page.get_by_role("button", name="Search").click()
    page.wait_for_selector("ol.hits li.hit")
    assert parse_qs(urlparse(page.url).query)["court"] == [COURT]
    first = _hits(page)
    summary = page.locator("#summary").inner_text()
    assert summary.startswith(f"{passing} judgments match the filters; showing 1–10, newest first (no words to rank "
                              "by)"), summary
    page.locator("a.next").click()
    page.wait_for_selector("ol.hits li.hit")
    second = _hits(page)
    assert len(first) == 10 and len(second) == passing - 10 and not set(first) & set(second)
    assert page.locator("#summary").inner_text().startswith(f"{passing} judgments match the filters; showing "
                                                              f"11–{passing}, newest first")
    assert page.locator("ol.hits").get_attribute("start") == "11"
    # every explanation is the hit's filters, none "No explanation."
    playwright_api.expect(page.locator(".why:not(.ready)")).to_have_count(0, timeout=60_000)
    explanations = page.locator("ol.hits li.hit .why").all_inner_texts()
    assert len(explanations) == len(second)
    assert all(text.startswith(COURT) and "No explanation" not in text for text in explanations), explanations
    dated = [t for t in explanations if "decided" in t]
    assert dated and all(re.search(r"decided \d{1,2} [A-Z][a-z]+ \d{4}$", t) for t in dated)
    shot(page, "counting-filters-page-two")
    page.locator("a.prev").click()
    page.wait_for_selector("ol.hits li.hit")
    assert _hits(page) == first


def test_a_typed_query_says_every_word_and_any_and_what_a_hit_lacks(page, client, aliases) -> None:
    words = "conviction acquittal witness"
    every = int(client.count(index=aliases["judgments"], body={"query": {"match": {"text": {
        "query": words, "operator": "and"}}}})["count"])
    some = int(client.count(index=aliases["judgments"], body={"query": {"match": {"text": words}}})["count"])
    page.goto("/")
    page.get_by_label("Query").fill(words)
    page.keyboard.press("Enter")
    page.wait_for_selector("ol.hits li.hit")
    summary = page.locator("#summary").inner_text()
    assert summary.startswith(f"{every} judgments have every word · {some} have any; showing 1–"), summary
    missing = page.locator("ol.hits li.hit .match-missing")
    assert missing.count() >= 1
    assert all(re.fullmatch(r"missing: \w+(, \w+)*", t) and set(t[9:].split(", ")) <= set(words.split())
               for t in missing.all_inner_texts())
    shot(page, "counting-every-word")
