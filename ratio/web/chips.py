"""Filters as state on the pages: each applied filter as a chip that says it in words and removes exactly it, and
facet values as selections.

A filter reaches a search two ways, and a chip says which: from the form's fields and facet clicks (``court=``,
``judge=``, ``statute=``, ``date_from=``/``date_to=``, ``role=`` with ``mode=``), or typed in the query box
(``court:"..."``, ``year:``, ``from:``/``to:``, ``role:``, ``statute:``, ``judge:``, ``cites:``). Removing a form
filter drops its one value from the URL; removing a typed filter cuts its ``name:value`` out of the query text
(:func:`search.query.syntax.filter_spans` says where it stands), the rest of the text untouched.

A facet click selects its value as a form field rather than appending text to the query, so it shows as a chip
and the facet list marks it; clicking a selected value removes it. A year is a date range of one year
(``date_from=1995&date_to=1995``), the same fields the date range picker sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from ratio.web.schemas import SearchParams
from search.query.errors import QueryError
from search.query.options import DEFAULTS, RoleMode
from search.query.syntax import (
    FilterSpan,
    filter_spans,
    normalise_roles,
    normalise_statute,
    parse_year_range,
    without_span,
)

__all__ = ["Chip", "FacetLink", "chips", "clear_all", "facet_links", "hidden_fields", "query_roles", "search_query"]

URL_FIELDS = ("q", "court", "judge", "statute", "date_from", "date_to", "role", "mode", "sort")
URL_DEFAULTS = {"sort": DEFAULTS.sort.value}  # left out of URLs when they hold it: the search's own default
# facet name -> (the chip kind that selects it, the form field a click sets)
FACETS = {"court": ("court", "court"), "year": ("year", "date_from"), "role": ("role", "role"),
          "cited_provisions": ("statute", "statute"), "judges": ("judge", "judge")}
_WORDS = {"court": "court", "judge": "judge", "statute": "provision", "cites": "cites", "role": "role",
          "year": "year", "from": "decided from", "to": "decided to"}


@dataclass(frozen=True)
class Chip:
    """One applied filter: ``label`` in words, ``source`` ``form`` (a field or a facet selection) or ``query``
    (typed in the box), ``remove`` the query string of the same search without it, and ``selects`` the facet keys
    it stands for (lower-cased), so the facet list can mark them."""

    kind: str
    label: str
    source: str
    remove: str
    selects: tuple[str, ...] = ()


@dataclass(frozen=True)
class FacetLink:
    """One facet value: its key and label, the judgments counted, the link that selects it (or, when
    ``selected``, removes it); a cited provision the corpus holds also links to its page (``page``) and is
    labelled with its title (``IPC s. 302 — Punishment for murder``)."""

    key: str
    label: str
    count: int
    url: str | None
    selected: bool = False
    page: str | None = None


def search_query(params: SearchParams, **changes: Any) -> str:
    """A query string for ``params`` changed by ``changes`` (None or [] removes a field); the cursor never
    carries, and neither do the API's other options (the pages use their defaults)."""
    data = params.model_dump(include=set(URL_FIELDS), mode="json")
    data.update({k: getattr(v, "value", v) for k, v in changes.items()})
    return "?" + urlencode(_pairs(data))


def _pairs(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The fields of ``data`` that a URL carries, in :data:`URL_FIELDS` order, repeated fields repeated."""
    return [(k, str(v)) for k in URL_FIELDS for value in [data.get(k)]
            if value not in (None, "", []) and value != URL_DEFAULTS.get(k)
            for v in (value if isinstance(value, list) else [value])]


def hidden_fields(params: SearchParams, *leave_out: str) -> list[tuple[str, str]]:
    """``(name, value)`` pairs of the current filters, for a small form (the year range picker) that changes
    some fields and must keep the others."""
    return _pairs(params.model_dump(include=set(URL_FIELDS) - set(leave_out), mode="json"))


def _spans(query: str) -> list[FilterSpan]:
    try:
        return filter_spans(query) if query.strip() else []
    except QueryError:
        return []


def query_roles(query: str) -> tuple[str, ...]:
    """The canonical roles named by ``role:`` in the query text (none when it does not read)."""
    roles: tuple[str, ...] = ()
    for span in _spans(query):
        if span.name == "role":
            try:
                roles += normalise_roles(span.value)
            except QueryError:
                continue
    return roles


def _statutes(value: str) -> tuple[str, ...]:
    try:
        return tuple(s.casefold() for s in normalise_statute(value))
    except QueryError:
        return (value.casefold(),)


def _roles(value: str) -> tuple[str, ...]:
    try:
        return normalise_roles(value)
    except QueryError:
        return ()


def _years(value: str) -> tuple[str, ...]:
    try:
        span = parse_year_range(value)
    except QueryError:
        return ()
    return (str(span.start),) if span.start is not None and span.start == span.end else ()


def _mode_word(params: SearchParams, query_named: bool) -> str:
    mode = params.mode or (RoleMode.FILTER if query_named else RoleMode.BOOST)
    return {RoleMode.FILTER: "only these passages", RoleMode.BOOST: "ranked higher"}.get(mode, "ignored")


def _role_removal(params: SearchParams, remaining: int, **changes: Any) -> str:
    """Removing a role; with no role left the role mode goes too (``filter`` without roles is an error)."""
    return search_query(params, **changes, **({} if remaining else {"mode": None}))


def chips(params: SearchParams) -> list[Chip]:
    """Every filter applied to the search, form fields first, then those typed in the query, each removable."""
    spans = _spans(params.q)
    query_role_spans = [s for s in spans if s.name == "role"]
    roles_in_all = len(params.role) + len(query_role_spans)
    out: list[Chip] = []

    def drop(field: str, index: int) -> list[str]:
        values = list(getattr(params, field))
        return values[:index] + values[index + 1:]

    for i, court in enumerate(params.court):
        out.append(Chip("court", f"court: {court}", "form", search_query(params, court=drop("court", i)),
                        (court.casefold(),)))
    for i, judge in enumerate(params.judge):
        out.append(Chip("judge", f"judge: {judge}", "form", search_query(params, judge=drop("judge", i)),
                        (judge.casefold(),)))
    for i, statute in enumerate(params.statute):
        out.append(Chip("statute", f"provision: {statute}", "form", search_query(params, statute=drop("statute", i)),
                        _statutes(statute)))
    one_year = (params.date_from and params.date_from == params.date_to and len(params.date_from) == 4
                and params.date_from.isdigit())
    if one_year:
        out.append(Chip("year", f"year: {params.date_from}", "form",
                        search_query(params, date_from=None, date_to=None), (str(params.date_from),)))
    else:
        if params.date_from:
            out.append(Chip("from", f"decided from {params.date_from}", "form", search_query(params, date_from=None)))
        if params.date_to:
            out.append(Chip("to", f"decided to {params.date_to}", "form", search_query(params, date_to=None)))
    word = _mode_word(params, bool(query_role_spans))
    for i, role in enumerate(params.role):
        out.append(Chip("role", f"role: {role.replace('_', ' ')} ({word})", "form",
                        _role_removal(params, roles_in_all - 1, role=drop("role", i)), _roles(role)))
    for span in spans:
        remove = without_span(params.q, span.start, span.end)
        label = f"{_WORDS[span.name]}: {span.value}" if span.name not in ("from", "to") else \
            f"{_WORDS[span.name]} {span.value}"
        if span.name == "role":
            out.append(Chip("role", f"{label.replace('_', ' ')} ({word})", "query",
                            _role_removal(params, roles_in_all - 1, q=remove), _roles(span.value)))
            continue
        selects = {"court": (span.value.casefold(),), "judge": (span.value.casefold(),),
                   "statute": _statutes(span.value) if span.name == "statute" else (),
                   "year": _years(span.value) if span.name == "year" else ()}.get(span.name, ())
        out.append(Chip(span.name, label, "query", search_query(params, q=remove), selects))
    return out


def clear_all(params: SearchParams) -> str:
    """The same words with no filter at all."""
    query = params.q
    for span in reversed(_spans(query)):
        query = without_span(query, span.start, span.end)
    return search_query(SearchParams(), q=query)


def _selection(params: SearchParams, facet: str, key: str) -> str:
    if facet == "year":
        return search_query(params, date_from=key, date_to=key)
    if facet == "role":
        return search_query(params, role=[*params.role, key], mode=params.mode or RoleMode.FILTER)
    field = FACETS[facet][1]
    return search_query(params, **{field: [*getattr(params, field), key]})


def facet_links(params: SearchParams, facet: str, buckets: Iterable[dict[str, Any]], applied: Sequence[Chip],
                limit: int | None = 10, link: bool = True) -> list[FacetLink]:
    """A facet's values as selections: each links to the search with it selected, or, when one of ``applied``
    already selects it, to the search without that filter. ``link`` False leaves unselected values unlinked."""
    kind = FACETS[facet][0]
    chosen = {key: chip.remove for chip in applied if chip.kind == kind for key in chip.selects}
    rows = list(buckets)
    out = []
    for bucket in rows[:limit] if limit else rows:
        key = str(bucket["key"])
        removal = chosen.get(key.casefold())
        label = key.replace("_", " ") if facet == "role" else key
        if bucket.get("title"):
            label = f"{key} — {bucket['title']}"
        url = removal if removal is not None else (_selection(params, facet, key) if link else None)
        out.append(FacetLink(key, label, int(bucket["judgments"]), url, removal is not None, bucket.get("link")))
    return out
