"""Judgment -> provision -> citing judgments in headless Chromium, over the sample corpus with the stand-in mapping
of :mod:`tests.ratio.web.test_provision_links` (issue 26, item 3). Saves screenshots like the other browser tests."""

from __future__ import annotations

import re

import pytest

from tests.ratio.web.browsing import shot
from tests.ratio.web.test_provision_links import _citing, _stored, mapped  # noqa: F401  (the stand-in fixture)

playwright_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")


def test_judgment_to_provision_to_citing_judgments(page, client, aliases, mapped) -> None:  # noqa: F811
    expected = _citing(_stored(client, aliases), "IPC s. 302")
    page.goto("/judgments/C16")
    link = page.locator("ul.cited-provisions a", has_text="IPC s. 302")
    playwright_api.expect(link).to_have_attribute("href", "/provisions/S2")
    shot(page, "provision-links-judgment")
    link.click()
    page.wait_for_url(re.compile(r"/provisions/S2$"))
    assert page.locator("h1").inner_text() == "IPC, section 302 — Punishment for murder"
    assert page.locator("#citing h2 .count").inner_text() == str(len(expected))
    items = page.locator("#citing ol.citing > li")
    playwright_api.expect(items).to_have_count(len(expected))
    assert page.locator("#citing blockquote.citing-sentence").count() == len(expected)
    assert "Mapped" in page.locator("#mapping").inner_text() or "mapped" in page.locator("#mapping").inner_text()
    shot(page, "provision-links-provision")
    # most cited first, then back to a citing judgment, which links the provision again
    page.locator("#citing .citing-sort a", has_text="Most cited").click()
    page.wait_for_url(re.compile(r"sort=cited_by"))
    playwright_api.expect(page.locator("#citing .citing-sort strong")).to_have_text("Most cited")
    first = page.locator("#citing ol.citing > li > a").first
    target = first.get_attribute("href")
    first.click()
    page.wait_for_url(re.compile(re.escape(target) + "$"))
    playwright_api.expect(page.locator('ul.cited-provisions a[href="/provisions/S2"]')).to_have_count(1)


def test_a_facet_names_the_provision_and_links_its_page(page, mapped) -> None:  # noqa: F811
    page.goto("/?q=murder")
    facet = page.locator("section.facet[data-facet=cited_provisions]")
    playwright_api.expect(facet.get_by_text("IPC s. 302 — Punishment for murder")).to_be_visible()
    facet.locator('a.provision-page[href="/provisions/S2"]').click()
    page.wait_for_url(re.compile(r"/provisions/S2$"))
    assert "Punishment for murder" in page.locator("h1").inner_text()
    shot(page, "provision-links-facet")
