"""Which Act and section each statute provision is, read from the judgments that quote it.

A statute collection often names a provision by its title alone (AILA 2019's 197 provisions: "Dowry death",
with its text, and no Act or section), while judgments cite provisions as ``Section 304B IPC``. Judgments also
quote the provisions they apply, next to the citation (``Section 304B IPC reads: "(1) Where the death of a woman
is caused ..."``). So each provision is matched against the corpus:

1. **Quotes.** Runs of ``SHINGLE`` words of the provision's text are searched as phrases in the chunks; a run
   that other provisions of the collection share, or that too many chunks hold (``shall be punished with
   imprisonment of either description for a term``), is boilerplate and is not asked. A chunk quotes the
   provision when it holds two of its runs (or the only one a short text has).
2. **Citations beside the quote.** The provision citations of the legal layer's parser
   (:func:`legal.citations.extract_citations`) nearest before the quote (within ``BEFORE`` characters), else
   just after it (``AFTER``), else in the tail of the chunk before; a bare ``Section 304B`` there counts when
   the judgment cites exactly one provision with that section. Sub-sections vote for their section.
3. **Titles.** A distinctive title written next to a citation (``dowry death under Section 304B``) is weaker
   evidence: half a vote, and only from judgments that gave no quote vote.
4. **The vote.** Each judgment votes once per provision. The winner is *mapped* when at least ``SUPPORT``
   judgments (quote votes, or a quote and titles) support it and it holds ``SHARE`` of all votes; otherwise the
   provision is *ambiguous* (votes, no clear winner) or *unmapped* (no votes). Two provisions claiming one citation: the
   better-supported keeps it, the other is ambiguous. A provision whose source gave its Act and section
   (``Section 302 IPC: ...`` titles, bare Acts) is *given* and not voted on.

The result is stored on the provision (``act``, ``section``, ``citation`` and the ``mapping`` object: status,
confidence, supporting judgments and sentences, evidence, alternatives), so judgments' ``cited_provisions``
link to it. Nothing here depends on a table of section headings: :mod:`legal.headings` checks the result
(docs/statutes.md reports the agreement).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import OpenSearch, helpers

from backends.opensearch.indices import add_new_fields
from legal.citations import Citation, extract_citations, parse_provision, section_of

__all__ = ["MappingReport", "ProvisionMapping", "map_provisions", "vote", "write_mappings"]

SHINGLE = 8  # words per quoted run (6 for texts under SHORT words)
SHORT = 40
RUNS = 12  # runs asked per provision, spread over its text
COMMON_CHUNKS = 40  # a run found in more chunks than this is boilerplate
BEFORE, AFTER = 400, 200  # characters before the quote / after it in which its citation is looked for
TITLE_NEAR = 80  # characters between a title phrase and its citation
SHARE = 0.6  # the winner's share of all votes for a mapping
SUPPORT = 2  # judgments that must back a mapping (one judgment alone mapped AILA's "Punishment for voluntarily
# causing hurt" to IPC s. 338: it quoted s. 323's words next to a citation of s. 338)
TITLE_WEIGHT = 0.5
EVIDENCE = 5  # evidence sentences kept per provision
_HITS = 40  # quoting chunks read per provision
_WORD = re.compile(r"[A-Za-z0-9]+")
_BARE = re.compile(r"(?<![\w.])(?:[Ss]ections?|[Ss]ecs?\.|[Ss]\.|[Aa]rticles?|[Aa]rts?\.)\s*(\d{1,4}[A-Z]{0,2})\b")
_SOURCE = ["judgment_id", "chunk_id", "ordinal", "text", "char_start", "sentence_offsets", "cited_provisions"]


@dataclass(frozen=True, slots=True)
class Evidence:
    """One judgment's vote: the citation it gave and the sentence it was read from."""

    judgment_id: str
    citation: str
    sentence: str
    kind: str  # "quote" or "title"


@dataclass(frozen=True)
class ProvisionMapping:
    """A provision's Act and section as the corpus says (``status``: given, mapped, ambiguous or unmapped)."""

    provision_id: str
    status: str
    citation: str | None = None
    confidence: float = 0.0
    judgments: int = 0  # judgments voting for the winner
    sentences: int = 0  # quoting or title sentences read for this provision
    evidence: tuple[Evidence, ...] = ()
    alternatives: tuple[tuple[str, float], ...] = ()  # the runners-up with their votes

    @property
    def act(self) -> str | None:
        parsed = parse_provision(self.citation) if self.citation else None
        return parsed.act if parsed else None

    @property
    def section(self) -> str | None:
        parsed = parse_provision(self.citation) if self.citation else None
        return parsed.section if parsed else None

    def document(self) -> dict[str, Any]:
        """The fields written on the provision (a mapping that found nothing clears act, section, citation)."""
        mapping = {"status": self.status, "citation": self.citation,
                   "method": "source" if self.status == "given" else "corpus",
                   "confidence": round(self.confidence, 3), "judgments": self.judgments,
                   "sentences": self.sentences,
                   "evidence": [{"judgment_id": e.judgment_id, "citation": e.citation, "sentence": e.sentence,
                                 "kind": e.kind} for e in self.evidence],
                   "alternatives": [{"citation": c, "votes": v} for c, v in self.alternatives]}
        if self.status == "given":
            return {"mapping": mapping}
        mapped = self.status == "mapped"
        return {"act": self.act if mapped else None, "section": self.section if mapped else None,
                "citation": self.citation if mapped else None, "mapping": mapping}


@dataclass
class MappingReport:
    """How many provisions each status holds, and the mappings themselves."""

    mappings: list[ProvisionMapping] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        found = Counter(m.status for m in self.mappings)
        return {status: found.get(status, 0) for status in ("given", "mapped", "ambiguous", "unmapped")}


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def runs(text: str) -> list[str]:
    """Up to ``RUNS`` word runs spread over the first 300 words of ``text`` (the whole text when shorter)."""
    words = _words(text)[:300]
    size = SHINGLE if len(words) > SHORT else 6
    if len(words) < size:
        return [" ".join(words)] if len(words) >= 4 else []
    step = max(1, (len(words) - size) // (RUNS - 1))
    return list(dict.fromkeys(" ".join(words[i:i + size]) for i in range(0, len(words) - size + 1, step)))[:RUNS]


def _all_runs(text: str) -> set[str]:
    words = _words(text)[:300]
    size = SHINGLE if len(words) > SHORT else 6
    return {" ".join(words[i:i + size]) for i in range(max(len(words) - size + 1, 1))}


def phrase_query(phrases: Sequence[str], size: int, slop: int = 2) -> dict[str, Any]:
    """Chunks holding any of ``phrases``, each a named clause (``matched_queries`` says which)."""
    return {"size": size, "_source": _SOURCE, "track_total_hits": False,
            "query": {"bool": {"should": [{"match_phrase": {"text.exact": {"query": p, "slop": slop,
                                                                             "_name": str(n)}}}
                                          for n, p in enumerate(phrases)], "minimum_should_match": 1}}}


def _span(text: str, phrase: str) -> tuple[int, int] | None:
    """Where ``phrase`` (lower-case words) is written in ``text``, punctuation and case aside."""
    pattern = r"\W+".join(re.escape(w) for w in phrase.split())
    match = re.search(pattern, text, flags=re.IGNORECASE)
    return (match.start(), match.end()) if match else None


@dataclass(frozen=True, slots=True)
class Own:
    """What a provision's own text cites: a citation of one of these beside its quote is the quoted text's
    content, not its label (Article 226 opens "Notwithstanding anything in Article 32")."""

    citations: frozenset[str] = frozenset()
    sections: frozenset[str] = frozenset()

    @classmethod
    def of(cls, text: str) -> Own:
        return cls(frozenset(section_of(c.normalized) for c in extract_citations(text, kinds={"provision"})),
                   frozenset(m.group(1) for m in _BARE.finditer(text)))


def nearest_citation(text: str, start: int, end: int, cited: Sequence[str],
                     before: int = BEFORE, after: int = AFTER, own: Own = Own()) -> Citation | str | None:
    """The provision citation nearest before ``text[start:end]`` (within ``before`` characters), else the
    nearest after it (within ``after``); a bare ``Section N`` counts when ``cited`` (the judgment's own
    provisions) holds exactly one provision with section N. Citations the provision's own text makes
    (``own``) are passed over. None when there is none."""
    found = [c for c in extract_citations(text, kinds={"provision"}) if section_of(c.normalized) not in own.citations]
    preceding = [c for c in found if c.end <= start + 5 and start - c.end <= before]
    if preceding:
        return max(preceding, key=lambda c: c.end)
    following = [c for c in found if c.start >= end - 5 and c.start - end <= after]
    if following:
        return min(following, key=lambda c: c.start)
    bare = [m for m in _BARE.finditer(text)
            if m.end() <= start + 5 and start - m.end() <= before and m.group(1) not in own.sections]
    if bare:
        section = bare[-1].group(1)
        matches = {section_of(c) for c in cited if (p := parse_provision(c)) and (p.base or p.section) == section}
        if len(matches) == 1:
            return matches.pop()
    return None


def _sentence(source: Mapping[str, Any], position: int) -> str:
    """The sentence of a chunk holding character ``position`` of its text (chunks keep sentence offsets)."""
    text, base = source["text"], int(source.get("char_start") or 0)
    offsets = source.get("sentence_offsets") or []
    for start, end in zip(offsets[::2], offsets[1::2], strict=False):
        if start - base <= position < end - base:
            return " ".join(text[start - base:end - base].split())[:600]
    return " ".join(text[max(0, position - 200):position + 200].split())


def _act_key(citation: str) -> str:
    """Citations that differ only in how the Act is written (``Land Acquisition Act, 1894 s. 4``, ``Land
    Acquisition Act s. 4``) vote together."""
    parsed = parse_provision(citation)
    if parsed is None:
        return citation
    act = re.sub(r",?\s*(1[89]|20)\d{2}$", "", parsed.act).lower()
    return f"{re.sub(r'[^a-z0-9]', '', act)} {parsed.unit} {parsed.section}"


def vote(provision_id: str, evidence: Sequence[Evidence], sentences: int, support: int = SUPPORT) -> ProvisionMapping:
    """The mapping the evidence supports (one vote per judgment; quotes before titles): mapped when ``support``
    judgments back the winner, one of them by a quote, and it holds ``SHARE`` of the votes."""
    per_judgment: dict[str, Evidence] = {}
    for item in sorted(evidence, key=lambda e: e.kind != "quote"):
        per_judgment.setdefault(item.judgment_id, item)
    if not per_judgment:
        return ProvisionMapping(provision_id, "unmapped", sentences=sentences)
    scores: dict[str, float] = defaultdict(float)
    spelled: dict[str, Counter[str]] = defaultdict(Counter)
    quotes: Counter[str] = Counter()
    for item in per_judgment.values():
        key = _act_key(item.citation)
        scores[key] += 1.0 if item.kind == "quote" else TITLE_WEIGHT
        spelled[key][item.citation] += 1
        quotes[key] += item.kind == "quote"
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    best, top = ranked[0]
    citation = spelled[best].most_common(1)[0][0]
    share = top / sum(scores.values())
    supporters = [e for e in per_judgment.values() if _act_key(e.citation) == best]
    enough = quotes[best] >= 1 and len(supporters) >= support
    status = "mapped" if enough and share >= SHARE else "ambiguous"
    # the runners-up; for an ambiguous provision the leader too, since nothing is written in act/section for it
    alternatives = tuple((spelled[k].most_common(1)[0][0], v) for k, v in ranked[status == "mapped":4])
    return ProvisionMapping(provision_id, status, citation,
                            share, len(supporters), sentences,
                            tuple(sorted(supporters, key=lambda e: (e.kind != "quote", e.judgment_id))[:EVIDENCE]),
                            alternatives)


def _provisions(client: OpenSearch, index: str) -> list[dict[str, Any]]:
    fields = ["provision_id", "title", "text", "citation", "mapping"]
    return [{**hit["_source"], "_id": hit["_id"]}
            for hit in helpers.scan(client, index=index, query={"_source": fields, "query": {"match_all": {}}})]


def _given(source: Mapping[str, Any]) -> bool:
    """The source named the provision (a title such as ``Section 302 IPC: ...``, a bare Act), not the corpus."""
    return bool(source.get("citation")) and (source.get("mapping") or {}).get("method") != "corpus"


def _common_runs(client: OpenSearch, chunks: str, asked: Mapping[str, Sequence[str]],
                 collection: Counter[str]) -> set[str]:
    """The runs that are boilerplate: shared by two provisions of the collection, or held by many chunks."""
    common = {run for run, n in collection.items() if n > 1}
    pending = sorted({r for rs in asked.values() for r in rs} - common)
    for start in range(0, len(pending), 200):
        batch = pending[start:start + 200]
        lines: list[dict[str, Any]] = []
        for run in batch:
            lines += [{"index": chunks}, {"size": 0, "track_total_hits": COMMON_CHUNKS + 1,
                                          "query": {"match_phrase": {"text.exact": {"query": run, "slop": 2}}}}]
        for run, response in zip(batch, client.msearch(body=lines)["responses"], strict=True):
            if int(response.get("hits", {}).get("total", {}).get("value", 0)) > COMMON_CHUNKS:
                common.add(run)
    return common


def _previous_tails(client: OpenSearch, chunks: str, hits: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The chunk before each quoting chunk (its citation may end the chunk before the quote starts)."""
    ids = [f"{h['judgment_id']}:{int(h['ordinal']) - 1}" for h in hits if int(h.get("ordinal") or 0) > 0]
    if not ids:
        return {}
    docs = client.mget(index=chunks, body={"ids": list(dict.fromkeys(ids))}, _source=_SOURCE)["docs"]
    return {d["_id"]: d["_source"] for d in docs if d.get("found")}


def _quote_evidence(client: OpenSearch, chunks: str, asked: Sequence[str],
                    own: Own = Own()) -> tuple[list[Evidence], int]:
    """The votes of chunks quoting a provision through ``asked`` runs, and how many quoting chunks were read."""
    if not asked:
        return [], 0
    hits = [h for h in client.search(index=chunks, body=phrase_query(asked, _HITS))["hits"]["hits"]
            if len(h.get("matched_queries", ())) >= min(2, len(asked))]
    sources = [h["_source"] for h in hits]
    previous = _previous_tails(client, chunks, sources) if sources else {}
    found: list[Evidence] = []
    for hit, source in zip(hits, sources, strict=True):
        text = source["text"]
        spans = [s for s in (_span(text, asked[int(n)]) for n in hit["matched_queries"]) if s]
        if not spans:
            continue
        start, end = min(s[0] for s in spans), max(s[1] for s in spans)
        cited = source.get("cited_provisions") or []
        citation = nearest_citation(text, start, end, cited, own=own)
        where = None
        if citation is None:
            before = previous.get(f"{source['judgment_id']}:{int(source.get('ordinal') or 0) - 1}")
            if before:
                tail = before["text"][-BEFORE:]
                citation = nearest_citation(tail, len(tail), len(tail), cited, before=BEFORE - start, own=own)
        else:
            where = citation.start if isinstance(citation, Citation) else None
        if citation is None:
            continue
        normalized = citation.normalized if isinstance(citation, Citation) else citation
        found.append(Evidence(source["judgment_id"], section_of(normalized),
                              _sentence(source, where if where is not None else start), "quote"))
    return found, len(hits)


def _title_evidence(client: OpenSearch, chunks: str, title: str, own: Own = Own()) -> tuple[list[Evidence], int]:
    """The votes of chunks writing the provision's title beside a citation (``dowry death under s. 304B``)."""
    hits = client.search(index=chunks, body=phrase_query([title.lower()], _HITS, slop=0))["hits"]["hits"]
    found: list[Evidence] = []
    for hit in hits:
        source = hit["_source"]
        span = _span(source["text"], " ".join(_words(title)))
        if span is None:
            continue
        citation = nearest_citation(source["text"], span[0], span[1], source.get("cited_provisions") or [],
                                    before=TITLE_NEAR, after=TITLE_NEAR, own=own)
        if isinstance(citation, Citation):
            found.append(Evidence(source["judgment_id"], section_of(citation.normalized),
                                  _sentence(source, span[0]), "title"))
    return found, len(hits)


def _distinctive_title(title: str | None, titles: Counter[str]) -> str | None:
    """A title worth looking for beside citations: two or more words, and no other provision's title."""
    words = _words(title or "")
    if len(words) < 2 or titles[" ".join(words)] > 1:
        return None
    return title


def _settle(mappings: list[ProvisionMapping]) -> list[ProvisionMapping]:
    """One provision per citation: the better-supported keeps it, the others become ambiguous."""
    owners: dict[str, ProvisionMapping] = {}
    for m in sorted((m for m in mappings if m.status in ("mapped", "given") and m.citation),
                    key=lambda m: (m.status != "given", -m.judgments, -m.confidence, m.provision_id)):
        owners.setdefault(_act_key(m.citation or ""), m)
    settled = []
    for m in mappings:
        owner = owners.get(_act_key(m.citation or ""))
        if m.status == "mapped" and owner is not None and owner.provision_id != m.provision_id:
            m = ProvisionMapping(m.provision_id, "ambiguous", m.citation, m.confidence, m.judgments, m.sentences,
                                 m.evidence, ((m.citation or "", float(m.judgments)), *m.alternatives))
        settled.append(m)
    return settled


def map_provisions(client: OpenSearch, aliases: Mapping[str, str], support: int = SUPPORT) -> MappingReport:
    """Map every provision of ``aliases['provisions']`` that its source did not name, from the judgments in
    ``aliases['chunks']`` (see the module docstring), and return the mappings (not yet written). ``support``:
    the judgments a mapping needs (a corpus of a handful of judgments rarely has two quoting one provision)."""
    provisions = _provisions(client, aliases["provisions"])
    collection: Counter[str] = Counter(r for p in provisions for r in _all_runs(p.get("text") or ""))
    titles: Counter[str] = Counter(" ".join(_words(p.get("title") or "")) for p in provisions)
    todo = [p for p in provisions if not _given(p)]
    asked = {p["_id"]: runs(p.get("text") or "") for p in todo}
    common = _common_runs(client, aliases["chunks"], asked, collection)
    mappings = [ProvisionMapping(p["_id"], "given", p["citation"], 1.0) for p in provisions if _given(p)]
    for p in todo:
        own = Own.of(p.get("text") or "")
        quotes, read = _quote_evidence(client, aliases["chunks"], [r for r in asked[p["_id"]] if r not in common], own)
        title = _distinctive_title(p.get("title"), titles)
        named, read_titles = _title_evidence(client, aliases["chunks"], title, own) if title else ([], 0)
        mappings.append(vote(p["_id"], quotes + named, read + read_titles, support))
    return MappingReport(_settle(mappings))


def write_mappings(client: OpenSearch, index: str, report: MappingReport) -> None:
    """Write each mapping's fields on its provision (partial updates), then refresh; an index made before the
    mapping fields existed gets them first."""
    add_new_fields(client, index, "provisions", ("chapter", "mapping"))
    actions = ({"_op_type": "update", "_index": index, "_id": m.provision_id, "doc": m.document()}
               for m in report.mappings)
    helpers.bulk(client, actions, chunk_size=200)
    client.indices.refresh(index=index)
