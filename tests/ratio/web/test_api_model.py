"""Every page asset is served by Ratio itself (the pages and the API docs work offline), and the API's error
answers carry the Ratio error's code (the sample corpus on the real node)."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from fastapi.testclient import TestClient

PAGES = ["/", "/?q=murder+appeal", "/judgments/C7", "/explore?q=murder", "/api/v1/docs"]
ASSET = re.compile(r"""<(?:script|link|img|iframe|source)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']""", re.I)
CSS_URL = re.compile(r"""url\(\s*["']?([^"')]+)""")


@pytest.mark.parametrize("path", PAGES)
def test_pages_load_nothing_from_another_origin(api: TestClient, path: str) -> None:
    page = api.get(path)
    assert page.status_code == 200, page.text[:300]
    assets = ASSET.findall(page.text)
    assert assets, "a page with no script or stylesheet: the pattern no longer finds them"
    for url in assets:
        parsed = urlparse(url)
        assert not parsed.scheme and not parsed.netloc, f"{path} loads {url} from elsewhere"
        if url.startswith("/static/"):
            asset = api.get(url)
            assert asset.status_code == 200, url
            if url.endswith(".css"):
                assert all(not urlparse(u).netloc for u in CSS_URL.findall(asset.text)), url
    policy = page.headers["content-security-policy"]
    assert "http" not in policy.replace("'self'", ""), policy  # no origin but the page's own


def test_an_unknown_judgment_is_the_not_found_error(api: TestClient) -> None:
    answer = api.get("/api/v1/judgments/does-not-exist")
    assert answer.status_code == 404
    assert answer.json() == {"error": {"code": "not_found", "message": "the corpus has no judgment 'does-not-exist'"}}
    assert api.get("/api/v1/explain", params={"q": "murder", "judgment_id": "nope"}).status_code == 404
