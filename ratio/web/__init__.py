"""Ratio on the web: the REST API (``/api/v1``, OpenAPI at ``/api/v1/openapi.json``) and server-rendered pages.

Needs the ``web`` extra (FastAPI, uvicorn, Jinja2). ``ratio serve`` runs it; ``create_app`` builds it for
any ASGI server. Importing this package loads nothing heavy: ``ratio.remote`` uses the schemas alone.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(*args: Any, **kwargs: Any) -> Any:
    """See :func:`ratio.web.app.create_app` (imported on call, so the schemas work without FastAPI)."""
    from ratio.web.app import create_app as create

    return create(*args, **kwargs)
