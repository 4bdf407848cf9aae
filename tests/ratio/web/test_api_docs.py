"""The API docs page works offline: Swagger UI's files come from this server, and its policy names no other
origin (issue 18: "Swagger UI and all page assets served locally")."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def test_docs_page_loads_swagger_ui_from_this_server(api: TestClient) -> None:
    page = api.get("/api/v1/docs")
    assert page.status_code == 200
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert {a.rsplit("/", 1)[-1] for a in assets} == {"swagger-ui-bundle.js", "swagger-ui.css", "favicon.png"}
    for asset in assets:
        assert asset.startswith("/static/swagger-ui/"), asset
        answer = api.get(asset)
        assert answer.status_code == 200 and len(answer.content) > 1000, asset
    assert "SwaggerUIBundle" in api.get("/static/swagger-ui/swagger-ui-bundle.js").text
    assert "/api/v1/openapi.json" in page.text and api.get("/api/v1/openapi.json").status_code == 200


def test_docs_policy_is_self_only(api: TestClient) -> None:
    policy = api.get("/api/v1/docs").headers["content-security-policy"]
    assert "http" not in policy and "cdn" not in policy
    script_src = next(d for d in policy.split(";") if d.strip().startswith("script-src")).split()
    assert "'unsafe-inline'" not in script_src and "'self'" in script_src
    assert [s for s in script_src[1:] if s != "'self'"] and all(s.startswith("'sha256-") for s in script_src[2:])
    # the other pages keep the strict policy
    strict = api.get("/api/v1/health").headers["content-security-policy"]
    assert strict.startswith("default-src 'none'; script-src 'self';")
