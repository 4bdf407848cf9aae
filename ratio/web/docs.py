"""The API docs page (``/api/v1/docs``): Swagger UI served from this server, so it works offline.

FastAPI's default page loads Swagger UI from a CDN, which leaves it blank without the internet and makes the
page's Content-Security-Policy allow a third-party origin. The files come from the ``fastapi-offline``
package instead (Swagger UI 5, which renders the OpenAPI 3.1 that FastAPI writes; ``swagger-ui-bundle``
carries Swagger UI 4, which refuses 3.1), mounted at :data:`ASSETS`. Only its files are used, not its app
class. The page's one inline script (FastAPI's call that starts Swagger UI) is allowed by its hash
(:func:`ratio.web.security.docs_csp`), so the policy names no other origin and no ``'unsafe-inline'`` script.
"""

from __future__ import annotations

import re
from importlib.resources import files

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from ratio.web.security import docs_csp

DOCS_PATH = "/api/v1/docs"
ASSETS = "/static/swagger-ui"
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def install_docs(app: FastAPI) -> None:
    """Serve the docs page at :data:`DOCS_PATH` and Swagger UI's files under :data:`ASSETS` (create the app
    with ``docs_url=None``; call this before mounting anything else at ``/static``)."""
    page = get_swagger_ui_html(openapi_url=app.openapi_url or "/api/v1/openapi.json", title=f"{app.title} API",
                               swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
                               swagger_css_url=f"{ASSETS}/swagger-ui.css",
                               swagger_favicon_url=f"{ASSETS}/favicon.png")
    body = bytes(page.body)
    policy = docs_csp(_INLINE_SCRIPT.findall(body.decode()))

    @app.get(DOCS_PATH, include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(body, headers={"Content-Security-Policy": policy})

    app.mount(ASSETS, StaticFiles(directory=str(files("fastapi_offline") / "static")), name="swagger-ui")
