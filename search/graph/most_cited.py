"""Explore's most cited judgments: one entry per cited case, named, its parallel citations counted together.

A judgment's ``cited_judgments`` are the strings its text cites a case by, so one case is cited under its name and
each of its reports: on AILA ``State of Karnataka v. Umadevi`` (24 judgments), ``(2006) 4 SCC 1`` (41) and ``2006
Indlaw SC 125`` (44) are one case. :func:`most_cited` reads:

1. the :data:`POOL` strings cited by the most judgments matching the query (one terms aggregation), less the case
   names that are fragments of a sentence (:func:`legal.case_names.plausible_case_name`);
2. how the citing judgments write each of them (the :data:`CITING` shortest citing judgments per string, one
   ``_msearch``): the
   case it opens or sits in, a name with its parallel reports (:func:`legal.cited_cases.cited_cases`, over a window
   of the text around the string, or the whole text where the string is not written as stored);
3. the cases, by joining the strings written together (:func:`join_cases`; names by their parties' words; two
   reports of one series never join: they are two cases, so a grouping slip cannot chain cases together), and the
   cases whose strings name one corpus judgment in the citation graph (:mod:`search.graph.citation_graph`);
4. each case's name: the title of the corpus judgment its citations name in the citation graph
   (:mod:`search.graph.citation_graph`), else its most cited case name, else its most cited report;
5. each case's count, exactly: the judgments matching the query that cite any of its strings (a ``terms`` filter
   per case in one ``filters`` aggregation), so a judgment citing the name and both reports counts once.

Parallels are found from how a few judgments write a case; a report no reader saw next to the case's name stays an
entry of its own. Four requests in all (with the titles of the corpus judgments named).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from opensearchpy import OpenSearch

from legal.case_names import plausible_case_name
from legal.citations import extract_citations
from legal.cited_cases import cited_cases, reporter_series
from search.graph.citation_graph import CitationGraph, citation_key
from search.query.party_names import split_case_name

__all__ = ["CITING", "POOL", "CitedCaseCount", "join_cases", "most_cited"]

Body = dict[str, Any]
POOL = 60  # most cited strings read, to find the cases of the list
CITING = 3  # citing judgments read per string (the shortest): how they write the case
WINDOW = 600  # characters read either side of a cited string
_GLUED_PAGE = re.compile(r"[(\[]?(\d{4})\b.{1,60}\s(\d+)\1")  # the page, then the year again


@dataclass(frozen=True)
class CitedCaseCount:
    """One cited case: its name, every string it is cited by (most cited first), the judgments citing it, the
    string a ``cites:`` filter selects it by (its most cited), and the corpus judgment it is, when the corpus holds
    it."""

    name: str
    citations: tuple[str, ...]
    judgments: int
    cite: str
    judgment_id: str | None = None


def _is_name(citation: str) -> bool:
    return split_case_name(citation) is not None


def _usable(citation: str) -> bool:
    """A case name that reads as one, or a report whose page is not glued to the next year (``1958 Indlaw SC
    821958``: page 82, then the year of the next citation)."""
    if _is_name(citation):
        return plausible_case_name(citation)
    return _GLUED_PAGE.fullmatch(citation) is None


def _same(citation: str) -> str:
    return citation


def join_cases(readings: Iterable[Sequence[str]], key: Callable[[str], str | None] = _same) -> list[tuple[str, ...]]:
    """The cases the readings make: each reading is the strings one text writes together for one case (a name and
    its reports); readings sharing a string (or its ``key``: :func:`search.graph.citation_graph.citation_key` joins
    ``Virsa Singh v. The State of Punjab`` and ``Virsa Singh v. State of Punjab``) are one case, unless joining them
    would put two reports of one series (``(2006) 4 SCC 1``, ``(2006) 5 SCC 493``) in one case: that reading is left
    out. Strings in first-seen order."""
    case_of: dict[str, int] = {}
    cases: list[list[str]] = []
    for reading in readings:
        strings = list(dict.fromkeys(s for s in reading if _usable(s)))
        keys = {s: key(s) or s for s in strings}
        found = sorted({case_of[keys[s]] for s in strings if keys[s] in case_of})
        merged = list(dict.fromkeys([s for i in found for s in cases[i]] + strings))
        series = [reporter_series(s) for s in merged if not _is_name(s)]
        if len(series) != len(set(series)):
            continue
        target = found[0] if found else len(cases)
        if not found:
            cases.append([])
        for i in found[1:]:
            cases[i] = []
        cases[target] = merged
        for s in merged:
            case_of[key(s) or s] = target
    return [tuple(case) for case in cases if case]


def _by_target(cases: Sequence[tuple[str, ...]], targets: Mapping[str, str]) -> list[tuple[str, ...]]:
    """Cases naming one corpus judgment (``targets``: string -> judgment id) joined: the graph says they are one."""
    joined: dict[str, list[str]] = {}
    for i, case in enumerate(cases):
        target = next((targets[c] for c in case if c in targets), f"#{i}")
        joined.setdefault(target, []).extend(case)
    return [tuple(dict.fromkeys(case)) for case in joined.values()]


def _cases_around(text: str, citation: str) -> list[tuple[str, ...]]:
    """The strings written together with ``citation`` in ``text`` (each case it appears in)."""
    at = text.find(citation)
    part = text if at < 0 else text[max(0, at - WINDOW): at + len(citation) + WINDOW]
    found = extract_citations(part, kinds={"judgment", "case_name"})
    return [case.names for case in cited_cases(part, found) if citation in case.names]


def _msearch(client: OpenSearch, index: str, bodies: Sequence[Body]) -> list[Body]:
    if not bodies:
        return []
    lines: list[Body] = []
    for body in bodies:
        lines += [{"index": index}, body]
    responses = client.msearch(body=lines)["responses"]
    for response in responses:
        if "error" in response:
            raise RuntimeError(f"the most cited judgments failed: {response['error']}")
    return responses


def _readings(client: OpenSearch, index: str, citations: Sequence[str]) -> list[tuple[str, ...]]:
    # the shortest citing judgments: any of them shows how the case is written, and their texts are the least to read
    bodies = [{"size": CITING, "_source": ["text"], "query": {"term": {"cited_judgments": c}},
               "sort": [{"n_sentences": {"order": "asc", "missing": "_last"}}, {"judgment_id": "asc"}]}
              for c in citations]
    seen: Counter[tuple[str, ...]] = Counter()
    for citation, response in zip(citations, _msearch(client, index, bodies), strict=True):
        for hit in response["hits"]["hits"]:
            seen.update(_cases_around(str((hit.get("_source") or {}).get("text") or ""), citation))
    # the ways of writing a case seen most first: a slip seen once (a page glued to a year) cannot block them
    return [reading for reading, _ in seen.most_common()] + [(citation,) for citation in citations]


def _name(case: Sequence[str], counts: Mapping[str, int], titles: Mapping[str, str]) -> tuple[str, str | None]:
    """The case's name and corpus judgment: the title of the judgment its strings name, else its most cited name,
    else its most cited string."""
    for citation in case:
        if citation in titles:
            return titles[citation]
    names = [c for c in case if _is_name(c)]
    best = max(names or case, key=lambda c: counts.get(c, 0))
    return best.strip("'\" "), None


def most_cited(client: OpenSearch, index: str, query: Body, graph: CitationGraph | None,
               size: int = 15) -> list[CitedCaseCount]:
    """The ``size`` cases cited by the most judgments matching ``query`` on the judgments ``index`` (see the
    module's notes), each named by the corpus judgment ``graph`` resolves it to where there is one."""
    body = {"size": 0, "query": query, "aggs": {"cited": {"terms": {"field": "cited_judgments", "size": POOL}}}}
    buckets = client.search(index=index, body=body)["aggregations"]["cited"]["buckets"]
    counts = {str(b["key"]): int(b["doc_count"]) for b in buckets if _usable(str(b["key"]))}
    if not counts:
        return []
    cases = join_cases(_readings(client, index, list(counts)), citation_key)
    cases = [case for case in cases if any(c in counts for c in case)]
    targets = {c: t for case in cases for c in case if graph is not None and (t := graph.target(c))}
    cases = [tuple(sorted(case, key=lambda c: -counts.get(c, 0))) for case in _by_target(cases, targets)]
    found = _titles(client, index, sorted(set(targets.values())))
    titles = {c: (found[t], t) for c, t in targets.items() if t in found}
    filters = {str(i): {"terms": {"cited_judgments": list(case)}} for i, case in enumerate(cases)}
    recount = {"size": 0, "query": query, "aggs": {"cases": {"filters": {"filters": filters}}}}
    exact = client.search(index=index, body=recount)["aggregations"]["cases"]["buckets"]
    rows = []
    for i, case in enumerate(cases):
        name, judgment_id = _name(case, counts, titles)
        rows.append(CitedCaseCount(name, case, int(exact[str(i)]["doc_count"]), case[0], judgment_id))
    rows.sort(key=lambda r: (-r.judgments, r.name))
    return rows[:size]


def _titles(client: OpenSearch, index: str, ids: list[str]) -> dict[str, str]:
    if not ids:
        return {}
    docs = client.mget(index=index, body={"ids": ids}, params={"_source_includes": "title"})["docs"]
    return {d["_id"]: str(d["_source"]["title"]) for d in docs
            if d.get("found") and (d.get("_source") or {}).get("title")}

