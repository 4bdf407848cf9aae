"""API routes for citation checks and saved searches with alerts (:mod:`search.graph.citecheck`, :mod:`search.alerts`).

Saved searches live in a percolator index; the first save creates it. Alerts are checked on demand
(``POST /api/v1/alerts/check`` with judgment ids or a time) — ``ratio index`` reports matches itself when it
writes judgments — and, with ``notify``, each match is POSTed to its search's webhook.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from ratio.web.api import ERRORS, NOT_FOUND, ServiceDep
from ratio.web.schemas import AlertCheckBody, CitationCheckBody, ErrorResponse, SavedSearchBody
from search import alerts
from search.graph.citecheck import CitationCheck, check_citations
from search.query.errors import BadValueError

router = APIRouter(prefix="/api/v1", responses=ERRORS)
UNAVAILABLE = {503: {"model": ErrorResponse, "description": "The cluster cannot hold saved searches (no "
                                                             "percolator module)."}}


class CitationReportOut(BaseModel):
    """What the corpus says about each citation in the text: found (with links), ambiguous, or unknown."""

    checks: list[CitationCheck]
    found: int
    ambiguous: int
    unknown: int
    characters: int
    ok: bool


class AlertsOut(BaseModel):
    checked: int
    alerts: list[alerts.Alert]
    deliveries: list[alerts.Delivery]


@router.post("/citations/check", response_model=CitationReportOut, tags=["citations"])
def citations_check(body: CitationCheckBody, svc: ServiceDep, request: Request) -> CitationReportOut:
    """Find the judgment and provision citations in a text (a brief, a draft) and say for each whether the
    corpus holds it, is ambiguous about it, or does not know it: a guard against invented citations.

    The citations are found in a child process under the server's deadline (503 ``deadline_exceeded``
    past it), so a long text does not hold up other requests."""
    report = check_citations(svc.client.client, svc.client.aliases, body.text,
                             extract=request.app.state.extract_citations)
    return CitationReportOut(**report.as_dict())


def _unavailable(exc: Exception) -> JSONResponse:
    return JSONResponse({"error": {"code": "alerts_unavailable", "message": str(exc)}}, status_code=503)


@router.get("/saved-searches", response_model=list[alerts.SavedSearch], tags=["alerts"])
def saved_searches(svc: ServiceDep) -> list[alerts.SavedSearch]:
    """Every saved search, by name (empty before the first save)."""
    return alerts.list_searches(svc.client.client, svc.client.aliases)


@router.post("/saved-searches", response_model=alerts.SavedSearch, status_code=201, tags=["alerts"],
             responses={409: {"model": ErrorResponse, "description": "The name is taken."}, **UNAVAILABLE})
def save(body: SavedSearchBody, svc: ServiceDep, request: Request,
         replace: Annotated[bool, Query(description="Replace a saved search of the same name (else a taken "
                                                "name is a 409).")] = False) -> alerts.SavedSearch | JSONResponse:
    """Save a search (Ratio's query syntax and filters); new judgments matching it are reported by the alerts
    check, and POSTed to ``webhook`` when one is given. A webhook must be an http(s) URL without credentials
    whose host resolves to public addresses only, unless the server's allow-list names it (else 400)."""
    options = body.options()
    client, aliases = svc.client.client, svc.client.aliases
    try:
        alerts.ensure_index(client, svc.client.layout)
        return alerts.save_search(client, aliases, body.name, body.q, options=options, webhook=body.webhook,
                                  replace=replace, policy=request.app.state.webhooks)
    except alerts.AlertsUnavailableError as exc:
        return _unavailable(exc)
    except alerts.DuplicateSearchError as exc:
        return JSONResponse({"error": {"code": "conflict", "message": str(exc)}}, status_code=409)


@router.delete("/saved-searches/{name}", status_code=204, responses=NOT_FOUND, tags=["alerts"])
def delete(name: Annotated[str, Path(min_length=1, max_length=200, description="The saved search's name.")],
           svc: ServiceDep) -> Response:
    """Delete a saved search."""
    try:
        alerts.delete_search(svc.client.client, svc.client.aliases, name)
    except alerts.UnknownSearchError as exc:
        return JSONResponse({"error": {"code": "not_found", "message": str(exc)}}, status_code=404)
    return Response(status_code=204)


@router.post("/alerts/check", response_model=AlertsOut, tags=["alerts"], responses=UNAVAILABLE)
def check(body: AlertCheckBody, svc: ServiceDep, request: Request) -> AlertsOut:
    """Which saved searches match the given judgments (or those indexed since a time); with ``notify``, POST
    each match to its webhook and report the deliveries (status and a short reason, never the hook's
    answer). The address is checked again as each delivery connects."""
    client, aliases = svc.client.client, svc.client.aliases
    ids = list(body.judgment_ids)
    if body.since:
        try:
            since = dt.datetime.fromisoformat(body.since)
            since = since.astimezone(dt.UTC) if since.tzinfo else since  # OpenSearch takes offsets up to 18 h
        except (ValueError, OverflowError):
            raise BadValueError(f"since must be an ISO date-time such as 2026-11-30T08:00:00, not "
                                f"{body.since!r}") from None
        ids += alerts.judgments_since(client, aliases, since)
    if not ids:
        raise BadValueError("name the judgments to check (judgment_ids) or a time (since)")
    found = alerts.check(client, aliases, list(dict.fromkeys(ids)))
    deliveries = alerts.notify(found, policy=request.app.state.webhooks) if body.notify else []
    return AlertsOut(checked=len(set(ids)), alerts=found, deliveries=deliveries)

