"""Filters as state in real headless Chromium over the sample corpus: facet selections and typed filters as chips
that remove their filter, the form's role filter doing what ``role:`` does, the year range picker, and the search
page on a phone-sized screen (results first, facets collapsible)."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from tests.ratio.web.browsing import shot

playwright_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")
expect = playwright_api.expect


def _total(page) -> int:
    return int(page.locator("#summary").inner_text().split()[0])


def _ids(page) -> list[str]:
    return [li.get_attribute("data-judgment") for li in page.locator("ol.hits li.hit").all()]


def _roles(page) -> set[str]:
    return {tag.lower().replace(" ", "_") for tag in page.locator("ol.hits .passage .role-tag").all_inner_texts()}


def test_a_filter_chip_removes_its_filter(page) -> None:
    page.goto("/?q=murder")
    page.wait_for_selector("ol.hits li.hit")
    assert page.locator("#chips").count() == 0
    wide = _total(page)
    # a facet value is a selection: it shows as a chip, is marked in the facet, and narrows the hits
    bar = page.locator("section.facet[data-facet=year] a[data-year]").first
    year = bar.get_attribute("data-year")
    bar.click()
    page.wait_for_selector("ol.hits li.hit")
    chip = page.locator("#chips .chip")
    expect(chip).to_have_count(1)
    assert chip.locator(".chip-label").inner_text() == f"year: {year}"
    assert chip.locator(".chip-source").inner_text() == "selected"
    assert page.locator(f"section.facet[data-facet=year] a.selected[data-year='{year}']").count() == 1
    narrow = _total(page)
    assert narrow < wide
    assert all(year in meta for meta in page.locator("ol.hits .meta").all_inner_texts())
    assert page.get_by_label("Query").input_value() == "murder", "the query text is untouched"
    # a typed filter is a chip too; removing it edits the query, removing the selection drops the field
    page.get_by_label("Query").fill('murder court:"Supreme Court of India"')
    page.get_by_role("button", name="Search").click()
    page.wait_for_selector("#chips .chip-query")
    page.locator("#chips .chip-query .chip-remove").click()
    page.wait_for_selector("ol.hits li.hit")
    assert page.get_by_label("Query").input_value() == "murder"
    expect(page.locator("#chips .chip")).to_have_count(1)
    page.get_by_role("link", name=f"Remove year: {year}").click()
    page.wait_for_selector("ol.hits li.hit")
    expect(page.locator("#chips")).to_have_count(0)
    assert _total(page) == wide
    assert "date_from" not in parse_qs(urlparse(page.url).query)
    # a provision selected from its facet and a court typed: both chips, the provision marked in its facet
    page.locator("section.facet[data-facet=cited_provisions] a", has_text="IPC s. 302").click()
    page.wait_for_selector("#chips")
    assert parse_qs(urlparse(page.url).query)["statute"] == ["IPC s. 302"]
    selected = page.locator("section.facet[data-facet=cited_provisions] li.selected")
    expect(selected).to_have_text(re.compile("IPC s. 302"))
    assert _total(page) < wide
    page.get_by_label("Query").fill('murder court:"Supreme Court of India"')
    page.get_by_role("button", name="Search").click()
    page.wait_for_selector("#chips .chip-query")
    assert page.locator("#chips .chip-label").all_inner_texts() == ["provision: IPC s. 302",
                                                                    "court: Supreme Court of India"]
    shot(page, "filters-chips")


def test_the_year_range_picker_sets_the_date_filters(page) -> None:
    page.goto("/?q=murder")
    page.wait_for_selector("ol.hits li.hit")
    page.get_by_label("From year").fill("1990")
    page.get_by_label("To year").fill("1999")
    page.get_by_role("button", name="Apply").click()
    page.wait_for_selector("#chips")
    query = parse_qs(urlparse(page.url).query)
    assert query["date_from"] == ["1990"] and query["date_to"] == ["1999"] and query["q"] == ["murder"]
    labels = page.locator("#chips .chip-label").all_inner_texts()
    assert labels == ["decided from 1990", "decided to 1999"]
    # the axis runs over the whole range, empty years included
    years = page.locator("section.facet[data-facet=year] [data-year]")
    assert [y.get_attribute("data-year") for y in years.all()] == [str(y) for y in range(1990, 2000)]
    metas = page.locator("ol.hits .meta").all_inner_texts()
    assert metas and all(re.search(r"\b199\d-", meta) for meta in metas)


def test_the_forms_role_filter_equals_role_in_the_box(page) -> None:
    page.goto("/")
    page.get_by_label("Query").fill("murder")
    page.locator("summary", has_text="Filters").click()
    page.get_by_label("Role", exact=True).select_option("ratio")
    assert page.get_by_label("filters: only its passages").is_checked(), "the form's role filters by default"
    page.get_by_role("button", name="Search").click()
    page.wait_for_selector("ol.hits li.hit")
    assert page.locator("#chips .chip-label").inner_text() == "role: ratio (only these passages)"
    from_form = _ids(page)
    assert _roles(page) == {"ratio"}
    shot(page, "filters-role")
    page.goto("/?q=murder+role:ratio")
    page.wait_for_selector("ol.hits li.hit")
    assert page.locator("#chips .chip-query .chip-label").inner_text() == "role: ratio (only these passages)"
    assert _ids(page) == from_form
    # boost ranks the role's passages higher but keeps the others
    page.goto("/?q=murder&role=ratio&mode=boost")
    page.wait_for_selector("ol.hits li.hit")
    assert page.get_by_label("boosts: its passages rank higher").is_checked()
    assert _roles(page) - {"ratio"}


def test_a_phone_screen_shows_results_before_facets(browser, live_server: str) -> None:
    context = browser.new_context(base_url=live_server, viewport={"width": 390, "height": 844},
                                  device_scale_factor=1, is_mobile=True)
    phone = context.new_page()
    errors: list[str] = []
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    phone.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
    try:
        phone.goto("/?q=murder&date_from=1990&date_to=2010")
        phone.wait_for_selector("ol.hits li.hit")
        first_hit = phone.locator("ol.hits li.hit").first.bounding_box()
        facets = phone.locator("aside.facets").bounding_box()
        assert first_hit and facets and first_hit["y"] < facets["y"], "results come before the facets"
        assert phone.locator("#chips").bounding_box()["y"] < first_hit["y"], "the applied filters lead"
        # nothing runs off the screen's right edge
        for part in ("form.search", "#chips", "ol.hits", "aside.facets", "section.facet[data-facet=year] svg"):
            box = phone.locator(part).first.bounding_box()
            assert box and box["x"] + box["width"] <= 390, part
        shot(phone, "filters-mobile")
        # each facet collapses without JavaScript (a <details>)
        court = phone.locator("section.facet[data-facet=court]")
        assert court.locator("ul").is_visible()
        court.locator("summary").click()
        assert court.locator("ul").is_hidden()
    finally:
        context.close()
    assert errors == [], f"JavaScript errors or blocked content on the page: {errors}"
