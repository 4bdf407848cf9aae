"""Sort, count and page on the search page, in real headless Chromium over the sample corpus: the sort control
orders the hits by date, the summary says how many match and which of them the page shows, and the previous
link after the next one gives the first page back. Screenshots: ``sortpage-*``.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.ratio.web.browsing import shot

playwright_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")
QUERY = "appeal"  # most sample judgments: two pages of ten


def _hits(page) -> list[str]:
    return page.locator("ol.hits li.hit").evaluate_all("els => els.map(e => e.dataset.judgment)")


def _dates(page) -> list[str]:
    """The hits' decision dates (YYYY-MM-DD) as the page shows them; an undated hit gives ''."""
    metas = page.locator("ol.hits li.hit .meta").all_inner_texts()
    return [(re.search(r"\d{4}-\d{2}-\d{2}", m) or [""])[0] for m in metas]


def test_sort_by_date_orders_by_date(page) -> None:
    page.goto("/")
    page.get_by_label("Query").fill(QUERY)
    page.get_by_label("Sort").select_option("newest")
    page.keyboard.press("Enter")
    page.wait_for_selector("ol.hits li.hit")
    assert parse_qs(urlparse(page.url).query)["sort"] == ["newest"]
    assert page.get_by_label("Sort").input_value() == "newest"
    dates = _dates(page)
    known = [d for d in dates if d]
    assert len(known) >= 5 and known == sorted(known, reverse=True)
    summary = page.locator("#summary").inner_text()
    found = re.match(r"(\d+) judgments match; showing 1–10, newest first", summary)
    assert found and int(found.group(1)) > 10, summary
    shot(page, "sortpage-newest")

    page.get_by_label("Sort").select_option("oldest")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url(re.compile(r"sort=oldest"))
    page.wait_for_selector("ol.hits li.hit")
    oldest = [d for d in _dates(page) if d]
    assert oldest == sorted(oldest) and oldest[0] <= known[-1]
    assert "oldest first" in page.locator("#summary").inner_text()


def test_next_then_previous_gives_the_first_page(page) -> None:
    page.goto(f"/?q={QUERY}&sort=newest")
    page.wait_for_selector("ol.hits li.hit")
    first = _hits(page)
    assert len(first) == 10 and page.locator("a.prev").count() == 0
    page.locator("a.next").click()
    page.wait_for_selector("ol.hits li.hit")
    second = _hits(page)
    assert second and not set(second) & set(first)
    summary = page.locator("#summary").inner_text()
    assert re.search(rf"showing 11–{10 + len(second)}, newest first", summary), summary
    assert page.locator("ol.hits").get_attribute("start") == "11"
    later = [d for d in _dates(page) if d]
    shot(page, "sortpage-page-two")
    page.locator("a.prev").click()
    page.wait_for_selector("ol.hits li.hit")
    assert _hits(page) == first
    assert "; showing 1–10, newest first" in page.locator("#summary").inner_text()
    assert later and min(d for d in _dates(page) if d) >= later[0], "page two continues where page one ends"

    # the ranked order pages both ways too
    page.goto(f"/?q={QUERY}")
    page.wait_for_selector("ol.hits li.hit")
    ranked = _hits(page)
    page.locator("a.next").click()
    page.wait_for_selector("a.prev")
    assert "showing 11–" in page.locator("#summary").inner_text()
    page.locator("a.prev").click()
    page.wait_for_selector("ol.hits li.hit")
    assert _hits(page) == ranked
