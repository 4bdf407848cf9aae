"""The web app's guards: the API key (header or browser session), per-client rate limits, security headers.

* **API key.** With a key set, every route needs it except ``/api/v1/health``, ``/static/`` and the login
  page. Programs send ``X-API-Key`` (or ``Authorization: Bearer``). A browser signs in once with the form at
  ``/login`` (POST only: a ``key`` in a GET's address is refused, since addresses end up in logs and browser
  history); the answer sets the cookie ``ratio_session``, HttpOnly, SameSite=Strict, Secure over https,
  holding a random session token that expires (:mod:`ratio.web.sessions`) and that ``/logout`` revokes on
  every worker. The cookie opens the pages, ``/ui/`` fragments and the API's GET routes (the CSV link on a
  page); writes through the API (saved searches, alerts) need the header, so no other site can make a
  signed-in browser change anything. A page asked for without the key redirects to ``/login``; anything
  else gets 401. Keys compare in constant time. Wrong keys (form or header) slow their client down: from
  the third on, 429 with ``Retry-After`` for 2, 4, 8, ... seconds (:class:`ratio.web.sessions.SessionStore`).
* **Access log.** uvicorn's access log line for ``/login`` leaves out the query string, and a parameter
  named like a secret (``key``, ``api_key``, ``token``, ``password``) has its value replaced anywhere
  (:class:`RedactSecrets`, put on the ``uvicorn.access`` logger when the app is built).
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
import logging
import math
import re
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

from ratio.web.sessions import Locked, SessionStore

COOKIE = "ratio_session"
OPEN_PATHS = frozenset({"/api/v1/health", "/login", "/logout", "/favicon.ico"})
OPEN_PREFIXES = ("/static/",)
UNCOUNTED = frozenset({"/api/v1/health"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PAGE_PREFIXES = ("/", "/judgments/", "/explore", "/provisions/", "/brief", "/ask", "/saved")

CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
DOCS_CSP = ("default-src 'none'; script-src 'self' {scripts}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            "connect-src 'self'; base-uri 'none'; frame-ancestors 'none'")
HEADERS = {"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"}

Handler = Callable[[Request], Awaitable[Response]]


def _error(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


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
    """Checks the key on each request and serves ``/login`` and ``/logout`` (see the module docstring);
    ``sessions`` holds the browser sessions and the failed-key counts (default: in this process's memory)."""

    def __init__(self, api_key: str, sessions: SessionStore | None = None) -> None:
        self.api_key = api_key
        self.sessions = sessions or SessionStore()

    def _header_key(self, request: Request) -> str:
        given = request.headers.get("x-api-key") or ""
        bearer = request.headers.get("authorization") or ""
        if not given and bearer.lower().startswith("bearer "):
            given = bearer[7:].strip()
        return given

    def _checked(self, client: str, given: str) -> Locked | bool:
        """``given`` compared with the key, unless ``client`` is locked out (then the lock, not compared)."""
        locked = self.sessions.locked(client)
        if locked:
            return locked
        if _same(given, self.api_key):
            self.sessions.succeeded(client)
            return True
        return self.sessions.failed(client) or False

    def _signed_in(self, request: Request, next_url: str) -> Response:
        response = RedirectResponse(next_url, status_code=303)
        response.set_cookie(COOKIE, self.sessions.open(), max_age=int(self.sessions.lifetime), httponly=True,
                            samesite="strict", path="/", secure=request.url.scheme == "https")
        return response

    async def login(self, request: Request) -> Response:
        if request.method != "POST":
            next_url = _safe_next(request.query_params.get("next"))
            if "key" in request.query_params:  # a sign-in link: the key would sit in logs and history
                return HTMLResponse(_login_form(next_url, "A key in the address is not accepted: addresses end "
                                                          "up in logs and browser history. Type the key here."),
                                    status_code=400)
            return HTMLResponse(_login_form(next_url))
        body = (await request.body())[:10_000].decode("utf-8", "replace")
        form = parse_qs(body)
        key, next_url = (form.get("key") or [""])[0], _safe_next((form.get("next") or [""])[0])
        if not key:
            return HTMLResponse(_login_form(next_url))
        checked = self._checked(_client(request), key)
        if checked is True:
            return self._signed_in(request, next_url)
        if isinstance(checked, Locked):  # locked out, or this wrong key earned the lock
            return HTMLResponse(_login_form(next_url, _wait_message(checked)), status_code=429,
                                headers={"Retry-After": str(checked.retry_after)})
        return HTMLResponse(_login_form(next_url, "That key is not this server's."), status_code=401)

    def logout(self, request: Request) -> Response:
        self.sessions.close(request.cookies.get(COOKIE) or "")
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    async def __call__(self, request: Request, call_next: Handler) -> Response:
        path = request.url.path
        if path == "/login":
            return await self.login(request)
        if path == "/logout":
            return self.logout(request)
        if path in OPEN_PATHS or path.startswith(OPEN_PREFIXES) or request.method == "OPTIONS":
            return await call_next(request)
        given = self._header_key(request)
        if given:
            checked = self._checked(_client(request), given)
            if checked is True:
                return await call_next(request)
            if isinstance(checked, Locked):
                return _error(429, "too_many_wrong_keys", _wait_message(checked),
                              headers={"Retry-After": str(checked.retry_after)})
            return _error(401, "unauthorized", "that key is not this server's", headers={"WWW-Authenticate": "Bearer"})
        cookie = request.cookies.get(COOKIE) or ""
        writing = request.url.path.startswith("/api/") and request.method not in SAFE_METHODS
        if cookie and not writing and self.sessions.valid(cookie):  # writes need the header: a cookie rides along
            return await call_next(request)                          # with cross-site requests
        if request.method in ("GET", "HEAD") and _is_page(path):
            target = path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
        return _error(401, "unauthorized", "this server needs a key: send it in the X-API-Key header, or sign "
                      "in at /login in a browser", headers={"WWW-Authenticate": "Bearer"})


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _wait_message(locked: Locked) -> str:
    return (f"too many wrong keys from this address ({locked.failures}): try again in {locked.retry_after} s")


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


_SECRET_PARAM = re.compile(r"([?&][^=&#\s]*(?:key|token|password|secret)=)[^&#\s]*", re.IGNORECASE)
LOGIN_PATHS = ("/login", "/logout")


def redact(path: str) -> str:
    """A request path as the access log may show it: ``/login``'s query string left out, and the value of a
    parameter named like a secret (``key=``, ``api_key=``, ``token=``, ``password=``) replaced anywhere."""
    base, sep, _ = path.partition("?")
    if not sep:
        return path
    if base.rstrip("/") in LOGIN_PATHS:
        return f"{base}?[redacted]"
    return _SECRET_PARAM.sub(r"\1[redacted]", path)


class RedactSecrets(logging.Filter):
    """On uvicorn's access log: the request line's path through :func:`redact` (the record is changed, never
    dropped)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) and "?" in a else a for a in record.args)
        return True


def redact_access_log() -> None:
    """Put :class:`RedactSecrets` on the ``uvicorn.access`` logger once (uvicorn, or gunicorn with uvicorn
    workers, logs each request there, with its query string)."""
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactSecrets) for f in logger.filters):
        logger.addFilter(RedactSecrets())


def install(app: FastAPI, *, api_key: str | None, rate_limit: str | None,
            sessions: SessionStore | None = None) -> None:
    """Add the guards to ``app`` (the headers outermost, so a 401 or 429 carries them too); ``sessions``:
    where browser sessions and failed keys are kept (default: this process's memory)."""
    redact_access_log()
    if api_key:
        app.middleware("http")(KeyGuard(api_key, sessions))
    if rate_limit:
        app.middleware("http")(RateLimit(rate_limit))
    app.middleware("http")(security_headers)
