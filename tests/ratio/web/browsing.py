"""Shared pieces of the browser tests: headless Chromium through Playwright, and screenshots.

Every browser test file imports :func:`shot` from here and uses the ``browser`` and ``page`` fixtures of
``tests/conftest.py``, so each feature can keep its browser tests in its own file. Screenshots go
under ``test-artifacts/screenshots/`` (or ``$RATIO_TEST_ARTIFACTS``), so a reviewer can see what the browser saw.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import REPO

ARTIFACTS = Path(os.environ.get("RATIO_TEST_ARTIFACTS") or REPO / "test-artifacts") / "screenshots"


def chromium() -> str:
    """The Chromium binary Playwright drives (Debian's, not a downloaded one: there is no CDN here)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("no Chromium for the browser tests: apt-get install chromium (scripts/setup.sh does it as root)")


def shot(page, name: str) -> Path:
    """A full-page screenshot named ``name``; a blank page (a tiny file) fails the test."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000
    return path


@contextmanager
def checked_page(browser, base_url: str) -> Iterator[object]:
    """A fresh desktop-sized page on ``base_url``; any JavaScript error or anything the Content-Security-Policy
    blocks (reported on the console) fails the test when the page closes."""
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 900})
    new_page = context.new_page()
    errors: list[str] = []
    new_page.on("pageerror", lambda exc: errors.append(str(exc)))
    new_page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
    yield new_page
    context.close()
    assert errors == [], f"JavaScript errors or blocked content on the page: {errors}"
