"""The REST API's request and response shapes: what the OpenAPI spec publishes and FastAPI validates.

Request options mirror :class:`search.query.options.SearchOptions` (and so the CLI and ``ratio.Client.search``),
with the same enums for the choices (:meth:`SearchParams.options` converts) and the same defaults (read from
:data:`search.query.options.DEFAULTS`, not written again), and the API's own limits on top: ``candidates`` (the depth
of the ranked window) is capped lower than the engine allows, so one anonymous request cannot ask for ten
thousand chunks, and paging goes by an opaque cursor.
The responses are :mod:`ratio.results`' (beside the clients, which return them too), so the API, the Python
client and the CLI's ``--json`` print the same fields.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from search.query.options import (
    DEFAULTS,
    MAX_LLM_RERANK,
    MAX_LLM_RERANK_DEADLINE,
    MAX_PROVISIONS,
    MAX_SIZE,
    ExpansionKind,
    FilterOptions,
    RankingMode,
    RoleMode,
    SearchOptions,
    SortOrder,
)
from search.query.syntax import MAX_CHARS
from search.query.understand import MAX_PASTE_CHARS
from search.retrieval.fusion import FusionMethod

MAX_DEPTH = 1_000  # candidates (chunks) one API search may rank; pages beyond need a narrower query
MAX_EXPLAIN = 10
MAX_RERANK_TOP = 200
MAX_LIST = 20  # values of one repeated filter
MAX_CURSOR = 2_000  # a sorted search's cursor carries a point-in-time id and the sort values of a hit


class SearchParams(BaseModel):
    """A search: the query text with Ratio's syntax, and the options of ``ratio search``."""

    model_config = ConfigDict(extra="forbid")

    q: str = Field("", max_length=MAX_PASTE_CHARS, description="Query text: words, \"phrases\", AND/OR/NOT, -word, "
                   "and filters court: judge: year: from: to: role: cites: statute: (a typed query up to "
                   f"{MAX_CHARS:,} characters), or a pasted text up to {MAX_PASTE_CHARS:,} (a fact pattern, a "
                   "whole judgment or brief: read whole, as /search/document reads a brief).")
    court: list[str] = Field(default_factory=list, max_length=MAX_LIST, description="Only these courts.")
    judge: list[str] = Field(default_factory=list, max_length=MAX_LIST, description="Only with these judges.")
    date_from: str | None = Field(None, max_length=20, description="Decided on or after (YYYY, YYYY-MM-DD).")
    date_to: str | None = Field(None, max_length=20, description="Decided on or before.")
    statute: list[Annotated[str, Field(max_length=200)]] = Field(
        default_factory=list, max_length=MAX_LIST,
        description="Only judgments citing all these provisions (as statute: in q), e.g. \"s. 302 IPC\".")
    role: list[str] = Field(default_factory=list, max_length=MAX_LIST,
                            description="Preferred roles (required with mode=filter).")
    mode: RoleMode | None = Field(None, description="Role handling (default boost; filter when the query "
                                                    "names role:).")
    ranking: RankingMode = Field(DEFAULTS.ranking, description="What orders the judgments: the learned ranker "
                                 "(default) or the chunk fusion it replaced.")
    fusion: FusionMethod = Field(DEFAULTS.fusion, description="How the BM25 and vector lists of chunks are fused "
                                 "(minmax: normalised scores, weighted; rrf: reciprocal rank fusion).")
    sort: SortOrder = Field(DEFAULTS.sort, description="relevance: the best of the ranked window, best first "
                            "(a search with no words, only filters, has nothing to rank by: newest first); newest, "
                            "oldest (by decision date, undated last) or cited_by (most cited in the corpus first): "
                            "every matching judgment in that order, paged by a cursor in a point in time.")
    plain: bool = Field(DEFAULTS.plain, description="Read q as plain words (pasted facts): no operators or filters.")
    size: int = Field(DEFAULTS.size, ge=1, le=MAX_SIZE, description="Judgments per page.")
    candidates: int = Field(DEFAULTS.candidates, ge=1, le=MAX_DEPTH, description="Chunks ranked before rolling up; "
                            "pages stay inside this window.")
    cursor: str | None = Field(None, max_length=MAX_CURSOR, description="next_cursor (or prev_cursor) of the page "
                               "before (or after): opaque; a sorted search's carries its point in time.")
    rerank: bool = Field(DEFAULTS.rerank, description="Rescore the top chunks with the cross-encoder before "
                         "rolling up to judgments (slower).")
    rerank_top: int = Field(DEFAULTS.rerank_top, ge=1, le=MAX_RERANK_TOP, description="How many chunks to rescore "
                            "with rerank.")
    explain: bool = Field(DEFAULTS.explain, description="Add a one-line reason to each hit (the LLM's for the first "
                                             "explain_top when one is configured).")
    explain_top: int = Field(DEFAULTS.explain_top, ge=0, le=MAX_EXPLAIN, description="How many hits the LLM "
                             "explains (the rest get the extractive reason).")
    llm_rerank: int = Field(DEFAULTS.llm_rerank, ge=0, le=MAX_LLM_RERANK, description="Grade the learned ranker's "
                            "top llm_rerank judgments with the LLM (needs one; 0: off) and reorder them by grade and "
                            "ranker score; each graded hit's explanation is the LLM's reason where it is grounded in "
                            "the judgment. See llm_rerank in the answer.")
    llm_rerank_deadline: int = Field(DEFAULTS.llm_rerank_deadline, ge=1, le=MAX_LLM_RERANK_DEADLINE,
                                     description="Seconds to wait for the LLM's grades; past them the ranker's "
                                     "order is kept and a note says so.")
    expand: list[ExpansionKind] = Field(default_factory=list, max_length=len(ExpansionKind), description="LLM "
                                        "expansions (needs an LLM): issues, the legal issues searched as extra "
                                        "queries; provisions, the provisions the LLM names, for the provision list.")
    provisions: int = Field(DEFAULTS.provisions, ge=0, le=MAX_PROVISIONS,
                            description="Also list this many statute provisions.")
    facets: bool = Field(DEFAULTS.facets, description="Count the matching judgments per court, year, role, cited "
                         "provision and judge (the page's facets).")
    highlight: bool = Field(DEFAULTS.highlight, description="Mark the query's words in each passage "
                            "(<mark> in each passage's highlights, HTML-escaped).")

    def options(self, page: int = 1, **changes: Any) -> SearchOptions:
        """These parameters as the engine's :class:`search.query.options.SearchOptions` (``page`` from the cursor)."""
        values: dict[str, Any] = dict(
            courts=self.court, judges=self.judge, date_from=self.date_from, date_to=self.date_to, roles=self.role,
            role_mode=self.mode, ranking=self.ranking, fusion=self.fusion, sort=self.sort, size=self.size, page=page,
            candidates=self.candidates,
            rerank=self.rerank, rerank_top=self.rerank_top, explain=self.explain, explain_top=self.explain_top,
            llm_rerank=self.llm_rerank, llm_rerank_deadline=self.llm_rerank_deadline, expand=self.expand,
            provisions=self.provisions, facets=self.facets, highlight=self.highlight,
            plain=self.plain)
        return SearchOptions(**{**values, **changes})


class ExportParams(SearchParams):
    """A search to export, and how many judgments to write."""

    limit: int = Field(200, ge=1, le=1_000, description="Rows (judgments) to write.")


class ErrorBody(BaseModel):
    """Every error: a machine code and a sentence a person can act on."""

    code: str
    message: str
    detail: list[dict[str, Any]] | None = None


class ErrorResponse(BaseModel):
    error: ErrorBody


class ExplainParams(BaseModel):
    """One hit to explain: the search's query text and filters (as the search took them), and the judgment."""

    model_config = ConfigDict(extra="forbid")

    q: str = Field("", max_length=MAX_CHARS, description="The search's query text (empty for a search of filters "
                   "alone: the hit is explained by them).")
    judgment_id: str = Field(min_length=1, max_length=512, description="The hit to explain: its judgment id.")
    court: list[str] = Field(default_factory=list, max_length=MAX_LIST, description="The search's courts.")
    judge: list[str] = Field(default_factory=list, max_length=MAX_LIST, description="The search's judges.")
    statute: list[Annotated[str, Field(max_length=200)]] = Field(default_factory=list, max_length=MAX_LIST,
                                                                description="The search's provisions.")
    date_from: str | None = Field(None, max_length=20, description="The search's decided on or after.")
    date_to: str | None = Field(None, max_length=20, description="The search's decided on or before.")

    def filters(self) -> dict[str, Any]:
        """The filters as :meth:`ratio.Client.explain` takes them (those given)."""
        given = {"courts": self.court, "judges": self.judge, "statutes": self.statute, "date_from": self.date_from,
                 "date_to": self.date_to}
        return {k: v for k, v in given.items() if v}


class CitationCheckBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=1_000_000, description="A brief, a draft: any text with citations.")


class SavedSearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200, pattern=r"^[\w .:-]+$",
                      description="Its unique name (letters, digits, spaces, . : - _).")
    q: str = Field(min_length=1, max_length=MAX_CHARS, description="Query text, with the search's syntax.")
    court: list[str] = Field(default_factory=list, max_length=MAX_LIST, description="Only these courts.")
    judge: list[str] = Field(default_factory=list, max_length=MAX_LIST, description="Only with these judges.")
    date_from: str | None = Field(None, max_length=20, description="Decided on or after (YYYY, YYYY-MM-DD).")
    date_to: str | None = Field(None, max_length=20, description="Decided on or before.")
    role: list[str] = Field(default_factory=list, max_length=MAX_LIST, description="Only passages of these roles "
                            "(unless mode says boost or off).")
    mode: RoleMode | None = Field(None, description="Role handling: filter (the default with roles) restricts to "
                                  "them; boost and off restrict nothing (an alert is yes or no).")
    webhook: str | None = Field(None, max_length=2000, pattern=r"^https?://\S+$", description="Where alerts are "
                                "POSTed: an http(s) URL of a public host, or one the server's allow-list names.")


    def options(self) -> FilterOptions:
        return FilterOptions(courts=tuple(self.court), judges=tuple(self.judge), date_from=self.date_from,
                             date_to=self.date_to, roles=tuple(self.role), role_mode=self.mode)


class AlertCheckBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    judgment_ids: list[str] = Field(default_factory=list, max_length=1000, description="Judgments to check "
                                    "against every saved search.")
    since: str | None = Field(None, max_length=40, description="ISO date-time: judgments indexed since then.")
    notify: bool = Field(False, description="POST each match to its saved search's webhook.")


__all__ = [
    "MAX_DEPTH",
    "AlertCheckBody",
    "CitationCheckBody",
    "ErrorResponse",
    "ExplainParams",
    "ExportParams",
    "SavedSearchBody",
    "SearchParams",
]
