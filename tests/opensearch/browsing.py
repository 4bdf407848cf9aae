"""Shared pieces of the browser tests: headless Chromium through Playwright, and screenshots.

Every browser test file imports :func:`shot` from here and uses the ``browser`` and ``page`` fixtures of
``tests/opensearch/conftest.py``, so each feature can keep its browser tests in its own file. Screenshots go
under ``test-artifacts/screenshots/`` (or ``$RATIO_TEST_ARTIFACTS``), so a reviewer can see what the browser saw.
"""

from __future__ import annotations

import os
import shutil
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
