"""The corpus side of citation lookup: batched OpenSearch requests and the verdict for each citation.

Kept apart from :mod:`search.graph.citecheck` (input checks, the report) so each reads in one sitting. Every
function takes a list of canonical citations and answers them all in one or a few requests; the verdicts
are keyed by the canonical string.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from opensearchpy import OpenSearch

from legal.citations import CitationRules, ProvisionCitation, canonical_act, parse_provision
from search.query.party_names import Fit, case_fit, search_words, split_case_name

__all__ = ["MAX_MATCHES", "CitationLookupError", "CorpusMatch", "Verdict", "cited_by_counts",
           "lookup_case_names", "lookup_provisions", "lookup_reporters"]

MAX_MATCHES = 10  # corpus items listed per citation; an ambiguous one says how many there were in all
CANDIDATES = 50  # judgments whose titles are compared with one cited case name
_MSEARCH_BATCH = 100
_JUDGMENT_SOURCE = ["judgment_id", "title", "parties", "citations"]
_PROVISION_SOURCE = ["provision_id", "title", "act", "section", "citation"]
_UNIT_WORDS = {"s.": ("s.", "s. ", "sec. ", "section "), "art.": ("art.", "art. ", "article ")}
_FIT_HOW = {Fit.EXACT: "parties", Fit.SWAPPED: "parties (other order)", Fit.PARTIAL: "parties (in part)"}
_FIT_REASON = {
    Fit.EXACT: ("one judgment in the corpus has these parties",
                "{n} judgments in the corpus have these parties: add the reporter citation or the year"),
    Fit.SWAPPED: ("one judgment in the corpus has these parties, named the other way round",
                  "{n} judgments in the corpus have these parties, named the other way round"),
    Fit.PARTIAL: ("one judgment in the corpus has parties that match these only in part: check it is the one meant",
                  "{n} judgments in the corpus have parties that match these in part: name the parties in full "
                  "or add the reporter citation"),
}


class CitationLookupError(RuntimeError):
    """OpenSearch refused one of the lookups (a missing index, a broken mapping): not the user's input."""


@dataclass(frozen=True)
class CorpusMatch:
    """A judgment or provision of the corpus that a citation points to, with the link the UI and API serve.

    ``match`` says how it was matched: ``citation``, ``parties``, ``parties (other order)``,
    ``parties (in part)``, ``act and section`` or ``section (sub-section cited)``.
    """

    kind: str
    judgment_id: str | None
    provision_id: str | None
    title: str | None
    link: str
    match: str


@dataclass(frozen=True)
class Verdict:
    """The status of one citation, the corpus items behind it and a short reason."""

    status: str
    matches: tuple[CorpusMatch, ...]
    reason: str


def _judgment(source: Mapping[str, Any], how: str) -> CorpusMatch:
    jid = str(source["judgment_id"])
    return CorpusMatch("judgment", jid, None, source.get("title"), f"/judgments/{jid}", how)


def _provision(source: Mapping[str, Any], how: str) -> CorpusMatch:
    pid = str(source["provision_id"])
    return CorpusMatch("provision", None, pid, source.get("title"), f"/provisions/{pid}", how)


def _verdict(matches: Sequence[CorpusMatch], one: str, many: str) -> Verdict:
    status = "found" if len(matches) == 1 else "ambiguous"
    return Verdict(status, tuple(matches[:MAX_MATCHES]), (one if len(matches) == 1 else many).format(n=len(matches)))


def _search(client: OpenSearch, index: str, body: dict[str, Any]) -> dict[str, Any]:
    return client.search(index=index, body=body)


def _msearch(client: OpenSearch, index: str, bodies: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The responses to ``bodies`` in order, a hundred per request."""
    responses: list[dict[str, Any]] = []
    for start in range(0, len(bodies), _MSEARCH_BATCH):
        lines: list[dict[str, Any]] = []
        for body in bodies[start:start + _MSEARCH_BATCH]:
            lines += [{"index": index}, body]
        for response in client.msearch(body=lines)["responses"]:
            if "error" in response:
                error = response["error"]
                reason = error.get("reason") if isinstance(error, dict) else error
                raise CitationLookupError(f"OpenSearch refused a citation lookup on {index!r}: {reason}")
            responses.append(response)
    return responses


# ---------------------------------------------------------------- reporter citations
def lookup_reporters(client: OpenSearch, index: str, canonicals: Sequence[str]) -> dict[str, Verdict]:
    """Reporter citations by exact term on the judgments' own ``citations``."""
    wanted = set(canonicals)
    body = {"size": min(10_000, len(wanted) * MAX_MATCHES), "_source": _JUDGMENT_SOURCE,
            "sort": [{"judgment_id": "asc"}], "query": {"terms": {"citations": sorted(wanted)}}}
    holders: dict[str, list[CorpusMatch]] = defaultdict(list)
    for hit in _search(client, index, body)["hits"]["hits"]:
        for citation in set(hit["_source"].get("citations") or ()) & wanted:
            holders[citation].append(_judgment(hit["_source"], "citation"))
    verdicts = {}
    for canonical in canonicals:
        if holders[canonical]:
            verdicts[canonical] = _verdict(holders[canonical], "a judgment in the corpus is reported as this",
                                           "{n} judgments in the corpus carry this citation")
        else:
            verdicts[canonical] = Verdict("unknown", (), "no judgment in the corpus carries this citation")
    return verdicts


# ---------------------------------------------------------------- case names
def _case_body(sides: tuple[str, str]) -> dict[str, Any]:
    """Candidates: judgments whose title matches a word of each side (as written or expanded)."""
    must = [{"match": {"title": {"query": search_words(side)}}} for side in sides]
    return {"size": CANDIDATES, "_source": _JUDGMENT_SOURCE, "query": {"bool": {"must": must}}}


def _parties(source: Mapping[str, Any]) -> tuple[str, str] | None:
    parties = [p for p in source.get("parties") or () if p]
    if len(parties) == 2:
        return parties[0], parties[1]
    return split_case_name(source.get("title") or "")


def lookup_case_names(client: OpenSearch, index: str, canonicals: Sequence[str]) -> dict[str, Verdict]:
    """Case names (``A v. B``) by comparing their parties with the parties of title-matched candidates."""
    split = {c: split_case_name(c) for c in canonicals}
    readable = [c for c in canonicals if split[c]]
    responses = _msearch(client, index, [_case_body(split[c]) for c in readable])  # type: ignore[arg-type]
    verdicts = {c: Verdict("unknown", (), "cannot be read as 'A v. B'") for c in canonicals if not split[c]}
    for canonical, response in zip(readable, responses, strict=True):
        fits: dict[Fit, list[CorpusMatch]] = defaultdict(list)
        for hit in response["hits"]["hits"]:
            parties = _parties(hit["_source"])
            fit = case_fit(split[canonical], parties) if parties else None  # type: ignore[arg-type]
            if fit is not None:
                fits[fit].append(_judgment(hit["_source"], _FIT_HOW[fit]))
        best = next((fit for fit in Fit if fits[fit]), None)
        if best is None:
            verdicts[canonical] = Verdict("unknown", (), "no judgment in the corpus has these parties")
        else:
            verdict = _verdict(fits[best], *_FIT_REASON[best])
            if best is Fit.PARTIAL:  # a guard against invented citations must not call a near miss "found"
                verdict = Verdict("ambiguous", verdict.matches, verdict.reason)
            verdicts[canonical] = verdict
    return verdicts


# ---------------------------------------------------------------- provisions
def _section_body(raw_acts: Sequence[str], cited: ProvisionCitation, section: str) -> dict[str, Any]:
    variants = [section] + [f"{word}{section}" for word in _UNIT_WORDS[cited.unit]]
    return {"size": MAX_MATCHES, "_source": _PROVISION_SOURCE, "sort": [{"provision_id": "asc"}],
            "query": {"bool": {"filter": [{"terms": {"act": list(raw_acts)}}, {"terms": {"section": variants}}]}}}


def _act_count_body(raw_acts: Sequence[str], act: str) -> dict[str, Any]:
    should: list[dict[str, Any]] = [{"prefix": {"citation": f"{act} {unit} "}} for unit in _UNIT_WORDS]
    if raw_acts:
        should.append({"terms": {"act": list(raw_acts)}})
    return {"size": 0, "track_total_hits": True, "query": {"bool": {"should": should}}}


def _corpus_acts(client: OpenSearch, index: str, rules: CitationRules | None) -> tuple[dict[str, list[str]], int, int]:
    """Canonical Act name → the ``act`` values stored for it; and how many provisions, how many labelled."""
    body = {"size": 0, "track_total_hits": True,
            "aggs": {"acts": {"terms": {"field": "act", "size": 1000}},
                     "labelled": {"filter": {"bool": {"should": [{"exists": {"field": "act"}},
                                                                 {"exists": {"field": "citation"}}]}}}}}
    response = _search(client, index, body)
    acts: dict[str, list[str]] = defaultdict(list)
    for bucket in response["aggregations"]["acts"]["buckets"]:
        acts[canonical_act(bucket["key"], rules)].append(bucket["key"])
    return acts, response["hits"]["total"]["value"], response["aggregations"]["labelled"]["doc_count"]


def lookup_provisions(client: OpenSearch, index: str, canonicals: Sequence[str],
                      rules: CitationRules | None = None) -> dict[str, Verdict]:
    """Provisions by exact ``citation``, else by Act and section; unknown ones say what the corpus holds."""
    parsed = {c: parse_provision(c) for c in canonicals}
    terms = sorted({c for c in canonicals} | {p.citation(p.base) for p in parsed.values() if p and p.base})
    body = {"size": min(10_000, len(terms) * MAX_MATCHES), "_source": _PROVISION_SOURCE,
            "sort": [{"provision_id": "asc"}], "query": {"terms": {"citation": terms}}}
    by_citation: dict[str, list[CorpusMatch]] = defaultdict(list)
    for hit in _search(client, index, body)["hits"]["hits"]:
        by_citation[hit["_source"].get("citation")].append(_provision(hit["_source"], "citation"))
    verdicts: dict[str, Verdict] = {}
    rest = []
    for canonical in canonicals:
        if by_citation[canonical]:
            verdicts[canonical] = _verdict(by_citation[canonical], "the corpus holds this provision",
                                           "{n} provisions in the corpus carry this citation")
        elif parsed[canonical] is None:
            verdicts[canonical] = Verdict("unknown", (), "cannot be read as '<Act> s. <section>'")
        else:
            rest.append(canonical)
    if rest:
        verdicts.update(_by_act_and_section(client, index, rest, parsed, by_citation, rules))  # type: ignore[arg-type]
    return verdicts


def _by_act_and_section(client: OpenSearch, index: str, canonicals: Sequence[str],
                        parsed: Mapping[str, ProvisionCitation], by_citation: Mapping[str, list[CorpusMatch]],
                        rules: CitationRules | None) -> dict[str, Verdict]:
    acts, total, labelled = _corpus_acts(client, index, rules)
    bodies: list[dict[str, Any]] = []
    for canonical in canonicals:
        cited = parsed[canonical]
        raw = acts.get(cited.act, [])
        bodies.append(_act_count_body(raw, cited.act))
        if raw:
            bodies.append(_section_body(raw, cited, cited.section))
            if cited.base:
                bodies.append(_section_body(raw, cited, cited.base))
    responses = iter(_msearch(client, index, bodies))
    verdicts = {}
    for canonical in canonicals:
        cited = parsed[canonical]
        raw = acts.get(cited.act, [])
        in_act = next(responses)["hits"]["total"]["value"]
        exact = [_provision(h["_source"], "act and section") for h in next(responses)["hits"]["hits"]] if raw else []
        base = [_provision(h["_source"], "section (sub-section cited)")
                for h in (next(responses)["hits"]["hits"] if raw and cited.base else [])]
        if cited.base and by_citation.get(cited.citation(cited.base)):
            base = [CorpusMatch(**{**m.__dict__, "match": "section (sub-section cited)"})
                    for m in by_citation[cited.citation(cited.base)]]
        if exact:
            verdicts[canonical] = _verdict(exact, "the corpus holds this provision (by Act and section)",
                                           "{n} provisions in the corpus have this Act and section")
        elif base:
            whole = cited.citation(cited.base or "")
            verdicts[canonical] = _verdict(base, f"the corpus holds {whole}, of which this is a part",
                                           f"{{n}} provisions in the corpus are {whole}, of which this is a part")
        elif in_act:
            verdicts[canonical] = Verdict("unknown", (), f"the corpus holds {in_act} provision"
                                          f"{'s' if in_act != 1 else ''} of {cited.act} but not {cited.unit} "
                                          f"{cited.section}")
        elif total and not labelled:
            verdicts[canonical] = Verdict("unknown", (), f"the corpus's {total} provisions are not labelled with "
                                          "an Act and section, so none can be matched to a citation")
        elif not total:
            verdicts[canonical] = Verdict("unknown", (), "the corpus holds no provisions")
        else:
            verdicts[canonical] = Verdict("unknown", (), f"the corpus holds no provision of {cited.act}")
    return verdicts


# ---------------------------------------------------------------- cited by
def cited_by_counts(client: OpenSearch, index: str, judgments: Sequence[str],
                    provisions: Sequence[str]) -> dict[tuple[str, str], int]:
    """How many corpus judgments cite each citation: ``("judgment"|"provision", canonical)`` → count."""
    should: list[dict[str, Any]] = []
    aggs: dict[str, Any] = {}
    for name, field, values in (("judgment", "cited_judgments", judgments),
                                ("provision", "cited_provisions", provisions)):
        if values:
            should.append({"terms": {field: list(values)}})
            aggs[name] = {"terms": {"field": field, "include": list(values), "size": len(values)}}
    if not should:
        return {}
    response = _search(client, index, {"size": 0, "query": {"bool": {"should": should}}, "aggs": aggs})
    return {(name, bucket["key"]): bucket["doc_count"]
            for name in aggs for bucket in response["aggregations"][name]["buckets"]}
