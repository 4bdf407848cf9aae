"""What the API and the pages do, in plain Python: one place that turns validated parameters into searches.

Both faces call this module, so a page and ``GET /api/v1/search`` with the same parameters return the same
judgments. Paging uses an opaque cursor that names the page and a fingerprint of the parameters: a cursor
replayed with another query is refused instead of silently returning a page of something else. A sorted
search's cursor also carries its point in time and the sort values of the hit to continue after (next) or
before (previous), each checked against the order's keys; a point in time that expired or that this corpus
did not open is an :class:`search.query.errors.ExpiredPositionError` (the API's 410, asking to start again).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import math
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from opensearchpy.exceptions import NotFoundError as MissingDocument

from legal.statutes import display_label, label_provision
from ratio.client import Client, window_notes
from ratio.errors import IndexNotFoundError, NotFoundError
from ratio.results import SearchPage, to_page
from ratio.web.schemas import SearchParams
from search.explain.extractive import Explanation
from search.pages.browse import ExploreView, JudgmentView
from search.provisions.retrieve import CITING_PAGE_SIZE, CitingJudgments, ProvisionHit, citing_judgments
from search.query.errors import BadValueError
from search.query.options import MAX_CANDIDATES, SortOrder
from search.query.request import SearchRequest
from search.retrieval.sorting import STORED_COUNTS, SortPosition, cited_by_counts, open_point_in_time

EXPORT_LIMIT = 1_000
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_COLUMNS = ("rank", "judgment_id", "title", "court", "decision_date", "judges", "score", "best_role",
               "best_passage", "link")


class BadCursorError(BadValueError):
    """A cursor that was not issued for these parameters (or not by Ratio at all)."""


@dataclass(frozen=True)
class Cursor:
    """Where a page starts: its number and, for a sorted search, the position after (or before) a hit."""

    page: int = 1
    position: SortPosition | None = None


def _fingerprint(params: SearchParams) -> str:
    data = params.model_dump(exclude={"cursor"}, mode="json")
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def encode_cursor(params: SearchParams, page: int, position: SortPosition | None = None) -> str:
    """An opaque cursor for ``page`` of the search ``params`` (a sorted search's carries its position)."""
    data: dict[str, Any] = {"p": page, "k": _fingerprint(params)}
    if position is not None:
        data.update(t=position.pit_id, a=list(position.after or ()), b=position.backwards)
    raw = json.dumps(data, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _sort_values(values: Any, sort: SortOrder) -> tuple[Any, ...]:
    """A cursor's sort values, checked against the order's keys (date or count numbers, then the id)."""
    kinds: tuple[tuple[type, ...], ...] = ((int,), (str,))
    if sort is SortOrder.CITED_BY:
        kinds = ((int, float), (int,), (str,))
    if not isinstance(values, list) or len(values) != len(kinds):
        raise TypeError("the sort values do not fit the order")
    for value, kind in zip(values, kinds, strict=True):
        if type(value) not in kind or (type(value) is float and not math.isfinite(value)) or (
                type(value) is str and not 0 < len(value) <= 512):
            raise TypeError("a sort value does not fit the order")
    return tuple(values)


def decode_cursor(params: SearchParams, sort: SortOrder | None = None) -> Cursor:
    """The page a cursor points at (page 1 without one); refuses cursors made for other parameters. ``sort``: the
    order the search runs in (default ``params.sort``; a filter-only search asked in relevance order is sorted
    newest first: :attr:`search.query.request.SearchRequest.sort`)."""
    sort = sort or params.sort
    if not params.cursor:
        return Cursor()
    try:
        padded = params.cursor + "=" * (-len(params.cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        page, key = data["p"], data["k"]
        if type(page) is not int or not isinstance(key, str):  # not 2.0, true, Infinity or 1e400
            raise TypeError("p must be an integer and k a string")
        position = None
        if "a" in data:
            pit, backwards = data.get("t"), data.get("b")
            if not (pit is None or (isinstance(pit, str) and 0 < len(pit) <= 1_000)) or type(backwards) is not bool:
                raise TypeError("t must be a point-in-time id and b a boolean")
            position = SortPosition(pit, _sort_values(data["a"], sort), backwards)
    except (ValueError, KeyError, TypeError, OverflowError, RecursionError, AttributeError) as exc:
        raise BadCursorError("the cursor is not one Ratio issued: pass next_cursor from the previous page "
                             "unchanged") from exc
    if key != _fingerprint(params) or page < 1:
        raise BadCursorError("the cursor belongs to another search: keep the query and options of the "
                             "previous page, or drop the cursor to start again")
    if sort is SortOrder.RELEVANCE:
        if position is not None:
            raise BadCursorError("the cursor is not one Ratio issued: pass next_cursor from the previous page "
                                 "unchanged")
        if (page - 1) * params.size >= params.candidates:
            raise BadCursorError(f"the cursor points past the ranked window of {params.candidates} chunks: drop "
                                 "it to start again")
    elif position is None:
        raise BadCursorError("the cursor is not one Ratio issued: pass next_cursor from the previous page unchanged")
    return Cursor(page, position)


def csv_cell(value: str) -> str:
    """``value`` made inert for spreadsheets (OWASP's CSV injection rule): a cell that starts with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return gets a leading single quote, so it is text, not a formula.
    Judgment text is the uploader's, and a spreadsheet runs a formula when the CSV is opened."""
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def build_request(params: SearchParams, page: int = 1, **overrides: Any) -> SearchRequest:
    """The validated ``SearchRequest`` for API parameters (raises ``QueryError`` with a message to act on)."""
    return SearchRequest.from_options(params.q, params.options(page, **overrides), statutes=tuple(params.statute))


@dataclass
class Service:
    """The operations behind the API and the pages, over one :class:`ratio.Client`."""

    client: Client

    def search(self, params: SearchParams) -> SearchPage:
        first = build_request(params)  # says the order: a filter-only search in relevance order is sorted
        cursor = decode_cursor(params, first.sort)
        if first.sort is not SortOrder.RELEVANCE:
            return self._sorted(params, first, cursor)
        page = cursor.page
        request = build_request(params, page)
        result = self.client.searcher.search(request)
        more, notes = window_notes(result, page, params.size, params.candidates)
        return to_page(params.q, result, page, encode_cursor(params, page + 1) if more else None, notes,
                       size=params.size, prev_cursor=encode_cursor(params, page - 1) if page > 1 else None)

    def _sorted(self, params: SearchParams, request: SearchRequest, cursor: Cursor) -> SearchPage:
        """A page of a sorted search (``request``: its first page). The first page is read from the live index; when
        more pages follow, a point in time is opened for them, and every cursor carries it with the sort values to
        continue from."""
        page, position = cursor.page, cursor.position
        result = self.client.searcher.search(request, position)
        notes: list[str] = []
        pit = result.pit_id
        more = result.judgments_found > page * params.size and bool(result.hits)
        if more and position is None:
            pit = open_point_in_time(self.client.client, self.client.aliases["judgments"])
            if pit is None:
                notes.append("the cluster could not keep a point in time for these pages: they follow the live "
                             "index, so a judgment indexed meanwhile may shift them")
        next_cursor = prev_cursor = None
        if more:
            next_cursor = encode_cursor(params, page + 1, SortPosition(pit, result.sort_values[-1]))
        if page > 1 and result.hits:
            prev_cursor = encode_cursor(params, page - 1, SortPosition(pit, result.sort_values[0], backwards=True))
        return to_page(params.q, result, page, next_cursor, notes, size=params.size, prev_cursor=prev_cursor)

    def judgment(self, judgment_id: str) -> JudgmentView | None:
        """The judgment's view, None for an id the corpus does not hold (a missing index raises)."""
        try:
            return self.client.judgment(judgment_id)
        except IndexNotFoundError:
            raise
        except NotFoundError:
            return None

    def judgment_exists(self, judgment_id: str) -> bool:
        return bool(self.client.client.exists(index=self.client.aliases["judgments"], id=judgment_id))

    def provision(self, provision_id: str) -> dict[str, Any] | None:
        """A provision's stored fields (act, section, citation, title, text) and its display ``label``, or None.

        A provision indexed without an Act and section gets them here from its title or text when those open
        with one (:func:`legal.statutes.label_provision`), so indices built before the loader stored them read
        the same as new ones."""
        try:
            found = self.client.client.get(index=self.client.aliases["provisions"], id=provision_id,
                                           params={"_source_excludes": "vector"})
        except MissingDocument:
            return None
        provision = {"provision_id": provision_id, **found["_source"]}
        if not provision.get("act"):
            parsed = label_provision(provision.get("title"), provision.get("text") or "")
            if parsed is not None:
                provision.update(act=parsed.act, section=parsed.section,
                                 citation=provision.get("citation") or parsed.citation)
        provision["label"] = display_label(provision.get("act"), provision.get("section"), provision.get("title"),
                                           provision_id, provision.get("citation"))
        return provision

    def citing(self, provision: dict[str, Any], page: int = 1, size: int = CITING_PAGE_SIZE,
               sort: SortOrder = SortOrder.NEWEST) -> CitingJudgments:
        """Page ``page`` of the corpus's judgments citing ``provision`` (by its canonical citation, a sub-section
        of it, or its id), newest first or most cited first, with the exact total and the sentence of each that
        cites it."""
        keys = [provision.get("citation") or "", provision["provision_id"]]
        counts = cited_by_counts(self.client.graphs.graph())
        order = STORED_COUNTS if sort is SortOrder.CITED_BY and self.client.graphs.counts_current() else None
        return citing_judgments(self.client.client, self.client.aliases["judgments"], keys, size, page, sort, counts,
                                order)

    def explore(self, params: SearchParams) -> ExploreView:
        extras = {"statutes": tuple(params.statute)} if params.statute else {}
        return self.client.explore(params.q, params.options(), **extras)

    def explain(self, query: str, judgment_id: str, **filters: Any) -> Explanation:
        """Why ``judgment_id`` is a hit of ``query`` with ``filters`` (``courts``, ``judges``, ``statutes``,
        ``date_from``, ``date_to``); a filter-only search's hit is explained by its filters."""
        return self.client.explain(query, judgment_id, **filters)

    def provisions(self, query: str, size: int) -> list[ProvisionHit]:
        return self.client.provisions(query, size)

    def export_csv(self, params: SearchParams, limit: int, base_url: str = "") -> str:
        """The ranked judgments of a search as CSV, up to ``limit`` rows (pages of 100 inside one window); each
        ``link`` is ``base_url`` (the server's, without a trailing slash) and the judgment page's path."""
        size = min(100, limit)
        window = params.model_copy(update={"size": size, "candidates": max(params.candidates, min(limit * 3, 1000)),
                                           "explain": False, "facets": False, "highlight": False, "cursor": None})
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(CSV_COLUMNS)
        rank, page = 0, 1
        depth = window.candidates if build_request(window).sort is SortOrder.RELEVANCE else MAX_CANDIDATES
        while rank < limit and page * size <= depth:
            result = self.client.searcher.search(build_request(window, page))
            for hit in result.hits:
                rank += 1
                best = hit.passages[0]
                date = hit.decision_date.isoformat() if hit.decision_date else ""
                writer.writerow([rank] + [csv_cell(v) for v in (
                    hit.judgment_id, hit.title or "", hit.court or "", date, "; ".join(hit.judges))]
                    + [f"{hit.score:.4f}", csv_cell(best.role), csv_cell(" ".join(best.text.split())[:300]),
                       csv_cell(f"{base_url}/judgments/{quote(hit.judgment_id, safe='')}")])
                if rank >= limit:
                    break
            if len(result.hits) < size:
                break
            page += 1
        return out.getvalue()

    def health(self) -> dict[str, Any]:
        return self.client.health().model_dump()
