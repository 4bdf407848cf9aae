"""The saved-searches page in real headless Chromium over the sample corpus: "Save this search" on a results page,
the search listed on ``/saved`` with its alerts, run again from its name, and deleted, all by clicking (so the
forms pass the page's Content-Security-Policy and the browser's own Origin passes the cross-site check)."""

from __future__ import annotations

import uuid

import pytest

from tests.ratio.web.browsing import shot

playwright_api = pytest.importorskip("playwright.sync_api", reason="the dev extra installs playwright")
expect = playwright_api.expect


def test_save_this_search_then_check_run_and_delete_it(page, api) -> None:
    name = f"browser watch {uuid.uuid4().hex[:6]}"
    page.goto("/?q=murder&court=Supreme+Court+of+India")
    page.wait_for_selector("ol.hits li.hit")
    try:
        page.get_by_label("Save this search as").fill(name)
        page.get_by_role("button", name="Save", exact=True).click()
        expect(page.locator("#saved-notice")).to_have_text(f"Saved {name}.")
        item = page.locator(f'li.saved[data-name="{name}"]')
        expect(item).to_contain_text("murder")
        expect(item).to_contain_text("court Supreme Court of India")

        page.fill("#since", "2000-01-01")
        page.get_by_role("button", name="Check").click()
        expect(page.locator("#checked")).to_contain_text("18 judgments indexed since 2000-01-01")
        expect(item.locator(".alerts li").first).to_be_visible()
        shot(page, "saved-searches")

        item.get_by_role("link", name=name).click()
        page.wait_for_selector("ol.hits li.hit")
        assert page.input_value("#q") == "murder" and page.input_value("#f-court") == "Supreme Court of India"

        page.goto("/saved")
        page.get_by_role("button", name=f"Delete {name}").click()
        expect(page.locator("#saved-notice")).to_have_text(f"Deleted {name}.")
        expect(page.locator(f'li.saved[data-name="{name}"]')).to_have_count(0)
    finally:
        api.delete(f"/api/v1/saved-searches/{name}")
