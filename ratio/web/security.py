"""The web app's guards: the API key (header or browser cookie), per-client rate limits, security headers.

* **API key.** With a key set, every route needs it except ``/api/v1/health``, ``/static/`` and the login
  page. Programs send ``X-API-Key`` (or ``Authorization: Bearer``). A browser signs in once at ``/login``
  (a form, or ``/login?key=...`` from a link); the answer sets the cookie ``ratio_session``, HttpOnly,
  SameSite=Strict, Secure over https, holding an HMAC of the key (not the key). The cookie opens the pages,
  ``/ui/`` fragments and the API's GET routes (the CSV link on a page); writes through the API (saved
  searches, alerts) need the header, so no other site can make a signed-in browser change anything. A page
  asked for without the key redirects to ``/login``; anything else gets 401. Keys compare in constant time.
* **Rate limit.** Per client address, a moving window in the ``limits`` notation (``120/minute``;
  several separated by ``;``), counted in each worker process; over it, 429 with ``Retry-After``.
  ``/api/v1/health`` and ``/static/`` are not counted.
* **Headers** on every answer: a Content-Security-Policy that allows the pages' own scripts and styles
  and nothing from elsewhere (the API docs page, :mod:`ratio.web.docs`, sets its own: Swagger UI's files from
  this server and its starting script by hash), frame-ancestors 'none'
  and X-Frame-Options DENY, X-Content-Type-Options nosniff, Referrer-Policy same-origin.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import secrets
import time
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs, quote

from fastapi import FastAPI, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from markupsafe import escape

COOKIE = "ratio_session"
OPEN_PATHS = frozenset({"/api/v1/health", "/login", "/logout", "/favicon.ico"})
OPEN_PREFIXES = ("/static/",)
UNCOUNTED = frozenset({"/api/v1/health"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PAGE_PREFIXES = ("/", "/judgments/", "/explore", "/provisions/", "/brief", "/ask")

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
DOCS_CSP = ("default-src 'none'; script-src 'self' {scripts}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            "connect-src 'self'; base-uri 'none'; frame-ancestors 'none'")
HEADERS = {"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"}

Handler = Callable[[Request], Awaitable[Response]]


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def session_token(api_key: str) -> str:
    """The cookie's value: an HMAC of the key, so the cookie never holds the key itself."""
    return hmac.new(api_key.encode(), b"ratio-session-v1", hashlib.sha256).hexdigest()


def _same(given: str, expected: str) -> bool:
    return secrets.compare_digest(given.encode(), expected.encode())


def _safe_next(value: str | None) -> str:
    """Where to go after signing in: a path on this site only (no ``//host`` or scheme)."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value


def _login_form(next_url: str, message: str = "") -> str:
    note = f'<p class="error" role="alert">{escape(message)}</p>' if message else ""
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in · Ratio</title>'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="stylesheet" href="/static/ratio.css"></head><body><main>'
            f'<h1>Ratio</h1><p>This server needs its key.</p>{note}'
            '<form method="post" action="/login">'
            f'<input type="hidden" name="next" value="{escape(next_url)}">'
            '<label for="key">API key</label> <input id="key" name="key" type="password" autocomplete="off" '
            'required autofocus> <button type="submit">Sign in</button></form></main></body></html>')


class KeyGuard:
    """Checks the key on each request and serves ``/login`` and ``/logout`` (see the module docstring)."""

    def __init__(self, api_key: str) -> None:
        self.api_key = api_key
        self.token = session_token(api_key)

    def _header_key(self, request: Request) -> str:
        given = request.headers.get("x-api-key") or ""
        bearer = request.headers.get("authorization") or ""
        if not given and bearer.lower().startswith("bearer "):
            given = bearer[7:].strip()
        return given

    def allowed(self, request: Request) -> bool:
        given = self._header_key(request)
        if given:
            return _same(given, self.api_key)
        cookie = request.cookies.get(COOKIE) or ""
        if not cookie:
            return False
        if request.url.path.startswith("/api/") and request.method not in SAFE_METHODS:
            return False  # writes need the header: a cookie rides along with cross-site requests
        return _same(cookie, self.token)

    def _signed_in(self, request: Request, next_url: str) -> Response:
        response = RedirectResponse(next_url, status_code=303)
        response.set_cookie(COOKIE, self.token, httponly=True, samesite="strict", path="/",
                            secure=request.url.scheme == "https")
        return response

    async def login(self, request: Request) -> Response:
        if request.method == "POST":
            body = (await request.body())[:10_000].decode("utf-8", "replace")
            form = parse_qs(body)
            key, next_url = (form.get("key") or [""])[0], _safe_next((form.get("next") or [""])[0])
        else:
            key, next_url = request.query_params.get("key", ""), _safe_next(request.query_params.get("next"))
        if key and _same(key, self.api_key):
            return self._signed_in(request, next_url)
        status = 401 if key else 200
        return HTMLResponse(_login_form(next_url, "That key is not this server's." if key else ""),
                            status_code=status)

    async def __call__(self, request: Request, call_next: Handler) -> Response:
        path = request.url.path
        if path == "/login":
            return await self.login(request)
        if path == "/logout":
            response = RedirectResponse("/login", status_code=303)
            response.delete_cookie(COOKIE, path="/")
            return response
        if (path in OPEN_PATHS or path.startswith(OPEN_PREFIXES) or request.method == "OPTIONS"
                or self.allowed(request)):
            return await call_next(request)
        if request.method in ("GET", "HEAD") and _is_page(path):
            target = path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
        return _error(401, "unauthorized", "this server needs a key: send it in the X-API-Key header, or sign "
                      "in at /login in a browser", headers={"WWW-Authenticate": "Bearer"})


def _is_page(path: str) -> bool:
    return path == "/" or any(path.startswith(p) for p in PAGE_PREFIXES[1:])


class RateLimit:
    """A moving-window limit per client address (``limits``, in memory: each worker counts its own)."""

    def __init__(self, spec: str) -> None:
        self.items: list[RateLimitItem] = parse_many(spec)
        self.limiter = MovingWindowRateLimiter(MemoryStorage())

    async def __call__(self, request: Request, call_next: Handler) -> Response:
        path = request.url.path
        if path in UNCOUNTED or path.startswith(OPEN_PREFIXES):
            return await call_next(request)
        client = request.client.host if request.client else "unknown"
        for item in self.items:
            if not self.limiter.hit(item, client):
                reset = self.limiter.get_window_stats(item, client).reset_time
                wait = max(1, math.ceil(reset - time.time()))
                return _error(429, "rate_limited", f"too many requests from {client}: at most {item} (this "
                              f"server's limit); try again in {wait} s", headers={"Retry-After": str(wait)})
        return await call_next(request)


def docs_csp(inline_scripts: list[str]) -> str:
    """The API docs page's policy: Swagger UI's files from this server only, the page's inline scripts (the
    call that starts Swagger UI) allowed by their SHA-256 hashes rather than by ``'unsafe-inline'``, and
    inline styles (Swagger UI sets them on its elements)."""
    hashes = " ".join("'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
                      for s in inline_scripts)
    return DOCS_CSP.format(scripts=hashes).replace("'self' ;", "'self';")


async def security_headers(request: Request, call_next: Handler) -> Response:
    """The headers above on every answer; a route that sets its own policy (the API docs page) keeps it."""
    response = await call_next(request)
    response.headers.setdefault("Content-Security-Policy", CSP)
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def install(app: FastAPI, *, api_key: str | None, rate_limit: str | None) -> None:
    """Add the guards to ``app`` (the headers outermost, so a 401 or 429 carries them too)."""
    if api_key:
        app.middleware("http")(KeyGuard(api_key))
    if rate_limit:
        app.middleware("http")(RateLimit(rate_limit))
    app.middleware("http")(security_headers)
