"""The saved-searches page (``/saved``): save a search, see every saved search with its alerts, delete one.

The page is the browser's face of the API's saved searches and alerts (:mod:`ratio.web.api_extras`,
:mod:`search.alerts`), over the same percolator index. It sits behind the server's key like the other pages (the
key guard in :mod:`ratio.web.security` signs a browser in once; ``/saved`` is one of its pages), and its forms
POST to the page itself, which the session cookie may do since it is SameSite=Strict.

* ``GET /saved`` lists the saved searches by name: the query, its filters in words, the webhook (masked), when
  it was saved, a link that runs it and a delete button. ``?since=YYYY-MM-DD`` (the page's "Check for new
  judgments" form) adds each search's alerts: the judgments indexed since then that it matches (the API's
  ``POST /api/v1/alerts/check`` with ``since``, without notifying webhooks), under the server's deadline.
* ``POST /saved`` saves a search (the search page's "Save this search" form sends its query and filters; a
  ``statute`` filter is written into the query as ``statute:"..."``, which is what a saved search holds). A name
  left empty is made from the query. Then 303 back to the list (a reload does not save twice).
* ``POST /saved/delete`` deletes one by name; 303 back to the list.

**Cross-site forms.** A POST whose ``Origin`` (or, without it, ``Referer``) names another host is refused with
403, so another site cannot make a browser save or delete searches on a server without a key (with a key, the
SameSite cookie already stays home). Programs that send neither header (curl) are not browsers and pass.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from ratio.web.offload import DeadlineExceededError, with_deadline
from ratio.web.pages import _render
from ratio.web.schemas import SavedSearchBody
from search import alerts
from search.query.errors import QueryError

router = APIRouter(include_in_schema=False)
MAX_FORM_BYTES = 40_000
SAVE_FIELDS = ("name", "q", "court", "judge", "statute", "date_from", "date_to", "role", "mode", "webhook")
_NOT_IN_NAME = re.compile(r"[^\w .:-]+")
ALERT_DAYS = 7  # the check form's starting date: a week back


def _form(raw: bytes) -> dict[str, list[str]]:
    values = parse_qs(raw[:MAX_FORM_BYTES].decode("utf-8", "replace"), keep_blank_values=True)
    return {key: [v.strip() for v in values.get(key, []) if v.strip()] for key in SAVE_FIELDS}


def name_for(query: str) -> str:
    """A saved search's name made from its query when none is typed: the characters a name allows, 80 at most."""
    words = " ".join(_NOT_IN_NAME.sub(" ", query).split())[:80].strip(" .:-")
    return words or "search"


def _body(form: dict[str, list[str]]) -> SavedSearchBody:
    """The form as the API's body (raises ``ValidationError``); ``statute`` filters go into the query text."""
    query = " ".join([*form["q"][:1], *(f'statute:"{s}"' for s in form["statute"] if '"' not in s)])
    raw: dict[str, Any] = {"name": (form["name"] or [name_for((form["q"] or [query])[0])])[0], "q": query,
                           "court": form["court"],
                           "judge": form["judge"], "role": form["role"]}
    for key in ("date_from", "date_to", "mode", "webhook"):
        if form[key]:
            raw[key] = form[key][0]
    return SavedSearchBody(**raw)


def same_site(request: Request) -> bool:
    """Whether a form POST comes from this server's own pages (``Origin``, else ``Referer``; neither: not a
    browser, so no cross-site form)."""
    source = request.headers.get("origin") or request.headers.get("referer")
    if source is None:
        return True
    return urlsplit(source).netloc.lower() == request.url.netloc.lower()


def run_url(search: alerts.SavedSearch) -> str:
    """The search page for a saved search: its query and filters as the page's fields."""
    options = search.options
    pairs = [("q", search.query), *(("court", c) for c in options.courts), *(("judge", j) for j in options.judges),
             *(("date_from", d) for d in [options.date_from] if d), *(("date_to", d) for d in [options.date_to] if d),
             *(("role", r) for r in options.roles)]
    if options.role_mode is not None and options.roles:
        pairs.append(("mode", options.role_mode.value))
    return "/?" + urlencode(pairs)


def filters_said(search: alerts.SavedSearch) -> list[str]:
    options = search.options
    said = [f"court {c}" for c in options.courts] + [f"judge {j}" for j in options.judges]
    said += [f"decided from {options.date_from}"] if options.date_from else []
    said += [f"decided to {options.date_to}"] if options.date_to else []
    mode = f" ({options.role_mode.value})" if options.role_mode is not None else ""
    return said + [f"role {r.replace('_', ' ')}{mode}" for r in options.roles]


def _since(value: str) -> dt.datetime:
    try:
        day = dt.datetime.fromisoformat(value)
    except ValueError:
        raise QueryError(f"check since a date such as {dt.date.today().isoformat()}, not {value[:40]!r}") from None
    return day.astimezone(dt.UTC) if day.tzinfo else day.replace(tzinfo=dt.UTC)


def _listed(svc: Any, since: dt.datetime | None) -> tuple[list[alerts.SavedSearch], dict[str, Any] | None]:
    """Every saved search and, with ``since``, how many judgments were indexed since then and which of them each
    search matches."""
    client, aliases = svc.client.client, svc.client.aliases
    searches = alerts.list_searches(client, aliases)
    if since is None:
        return searches, None
    ids = alerts.judgments_since(client, aliases, since)
    found = {a.search.name: list(a.judgments) for a in alerts.check(client, aliases, ids)}
    return searches, {"judgments": len(ids), "found": found}


async def _page(request: Request, *, error: str | None = None, status: int = 200,
                form: dict[str, str] | None = None) -> HTMLResponse:
    svc, timeout = request.app.state.service, request.app.state.heavy_timeout
    since_text = request.query_params.get("since", "").strip()[:40]
    searches: list[alerts.SavedSearch] = []
    checked: dict[str, Any] | None = None
    try:
        since = _since(since_text) if since_text and error is None else None
        searches, checked = await with_deadline(timeout, _listed, svc, since)
    except QueryError as exc:
        error, status = str(exc), 400
        searches, _ = await with_deadline(timeout, _listed, svc, None)
    except DeadlineExceededError as exc:
        error, status = str(exc), 503
    default_since = (dt.date.today() - dt.timedelta(days=ALERT_DAYS)).isoformat()
    return _render(request, "saved.html", {
        "searches": [{"search": s, "run": run_url(s), "filters": filters_said(s)} for s in searches],
        "checked": checked, "since": since_text or default_since, "error": error,
        "saved": request.query_params.get("saved", "")[:100], "deleted": request.query_params.get("deleted", "")[:100],
        "form": form or {}}, status)


@router.get("/saved", response_class=HTMLResponse)
async def saved_page(request: Request) -> HTMLResponse:
    """Every saved search with a link that runs it and a delete button; ``since``: with its alerts."""
    return await _page(request)


def _save(svc: Any, body: SavedSearchBody, policy: Any) -> alerts.SavedSearch:
    client = svc.client.client
    alerts.ensure_index(client, svc.client.layout)
    return alerts.save_search(client, svc.client.aliases, body.name, body.q, options=body.options(),
                              webhook=body.webhook, policy=policy)


def _refused() -> HTMLResponse:
    return HTMLResponse("This form was sent from another site.", status_code=403)


@router.post("/saved", response_class=HTMLResponse, response_model=None)
async def save(request: Request) -> Response:
    """Save the form's search; back to the list, or the list with what went wrong and the form refilled."""
    if not same_site(request):
        return _refused()
    form = _form(await request.body())
    shown = {key: (form[key] or [""])[0] for key in ("name", "q", "webhook")}
    try:
        body = _body(form)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'form'}: {e['msg']}" for e in exc.errors()[:3])
        return await _page(request, error=problems, status=422, form=shown)
    try:
        saved = await with_deadline(request.app.state.heavy_timeout, _save, request.app.state.service, body,
                                    request.app.state.webhooks)
    except alerts.DuplicateSearchError as exc:
        return await _page(request, error=str(exc), status=409, form=shown)
    except (alerts.AlertsUnavailableError, DeadlineExceededError) as exc:
        return await _page(request, error=str(exc), status=503, form=shown)
    except QueryError as exc:
        return await _page(request, error=str(exc), status=400, form=shown)
    return RedirectResponse(f"/saved?saved={quote(saved.name, safe='')}", status_code=303)


@router.post("/saved/delete", response_class=HTMLResponse, response_model=None)
async def delete(request: Request) -> Response:
    """Delete the saved search the form names; back to the list."""
    if not same_site(request):
        return _refused()
    name = (_form(await request.body())["name"] or [""])[0]
    svc = request.app.state.service
    try:
        await with_deadline(request.app.state.heavy_timeout, alerts.delete_search, svc.client.client,
                            svc.client.aliases, name)
    except alerts.UnknownSearchError as exc:
        return await _page(request, error=str(exc), status=404)
    except DeadlineExceededError as exc:
        return await _page(request, error=str(exc), status=503)
    return RedirectResponse(f"/saved?deleted={quote(name, safe='')}", status_code=303)
