"""Queries to train the learned ranker on: benchmark tuning queries, and queries mined from the citation graph.

Labelled queries are scarce (AILA's odd half: 15; IRLeD's tuning split: 60), so most training queries are
self-supervised, built the way the benchmarks themselves were built. A corpus judgment J that cites corpus
judgments T1..Tn (resolved by :mod:`search.graph.citation_graph`) gives:

* a **document** query: J's text with every citation of a judgment replaced by ``[?CITATION?]`` (FIRE IRLeD's
  construction), whose relevant judgments are T1..Tn;
* a **facts** query: J's facts (its chunks in the ``facts`` role group, citations removed), the shape of AILA's
  fact descriptions, with the same relevant judgments;
* a **facts-anon** query: the same facts with each person's name replaced as AILA writes it (``P1``, ``P2``:
  :mod:`lab.training.anonymise`), made for exactly the judgments that got a facts query, so the two are pairs.
  Its source is :data:`ANON_SOURCE`: the plain training path leaves it out until it is chosen.

J itself is excluded from its query's candidates (it is the query). No training query may be a benchmark's
query in disguise, and no label may point at one: a judgment holding a fifth (and at least 30) of the 12-word
runs of any guarded query text (:class:`Guard`; AILA_Q21's text sits verbatim in C113; IRLeD's query judgments
sit in AILA's corpus) is a *holder* (:func:`holders`), never mined, never a training label nor a candidate. The
guard holds every query of every benchmark's query files, judged here or not, tuning or reported: a query
without relevance judgments in this checkout is still someone's unseen test query.
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from opensearchpy import OpenSearch, helpers

from lab.training.anonymise import ANON_SOURCE, anonymise, person_names
from legal.citations import extract_citations
from search.graph.citation_graph import CitationGraph
from search.ranking.features import role_groups
from search.ranking.query import CITATION_MASK

__all__ = ["ANON_SOURCE", "MINED_STYLES", "Guard", "TrainingQuery", "holders", "mask_citations", "mine_queries",
           "shingles"]

SHINGLE_WORDS = 12
_WORD = re.compile(r"[a-z0-9]+")
MAX_QUERY_CHARS = 400_000
MINED_STYLES = ("document", "facts", "facts-anon")  # ``--mined N`` is N queries of each


@dataclass(frozen=True)
class TrainingQuery:
    """A query, the judgments relevant to it, the corpus (index prefix) it runs on, and where it came from."""

    qid: str
    text: str
    relevant: frozenset[str]
    corpus: str
    source: str
    exclude: tuple[str, ...] = ()


def shingles(text: str, size: int = SHINGLE_WORDS, step: int = 1) -> set[int]:
    """Hashes of the text's runs of ``size`` lower-cased words (every ``step``-th run)."""
    words = _WORD.findall(text.lower())
    return {hash(" ".join(words[i:i + size])) for i in range(0, max(len(words) - size + 1, 0), step)}


def mask_citations(text: str) -> str:
    """``text`` with every citation of a judgment (reporter or case name) replaced by the IRLeD mask."""
    spans = [(c.start, c.end) for c in extract_citations(text, kinds={"judgment", "case_name"})]
    out, last = [], 0
    for start, end in sorted(spans):
        if start < last:
            continue
        out += [text[last:start], CITATION_MASK]
        last = end
    out.append(text[last:])
    return "".join(out)


def _strip_citations(text: str) -> str:
    return " ".join(mask_citations(text).replace(CITATION_MASK, " ").split())


def _facts(client: OpenSearch, chunks: str, judgment_id: str, max_words: int) -> str:
    roles = role_groups().get("facts", ("facts", "issue"))
    body = {"size": 50, "query": {"bool": {"filter": [{"term": {"judgment_id": judgment_id}},
                                                      {"terms": {"role": list(roles)}}]}},
            "sort": [{"ordinal": "asc"}], "_source": ["text"]}
    texts = [h["_source"]["text"] for h in client.search(index=chunks, body=body)["hits"]["hits"]]
    words = _strip_citations(" ".join(texts)).split()
    return " ".join(words[:max_words])


def mine_queries(client: OpenSearch, aliases: dict[str, str], graph: CitationGraph, corpus: str, *,
                 count: int, styles: Sequence[str] = MINED_STYLES, seed: int = 13, min_facts_words: int = 80,
                 max_facts_words: int = 600, min_relevant: int = 1,
                 skip: Collection[str] = ()) -> list[TrainingQuery]:
    """Up to ``count`` queries per style from judgments of ``corpus`` that cite other judgments of it, citing
    judgments sampled with ``seed``; a judgment ``skip`` names (one holding a guarded benchmark query, see
    :func:`holders`, or a typed benchmark's) is skipped. A ``facts-anon`` query is its judgment's ``facts`` query
    anonymised, made whenever that one is (asked for or not), so with both styles asked for they come in pairs."""
    citing = sorted(j for j, cited in graph.cites.items() if len(cited) >= min_relevant and j not in skip)
    random.Random(seed).shuffle(citing)
    found: dict[str, list[TrainingQuery]] = {style: [] for style in styles}
    for start in range(0, len(citing), 50):
        if all(len(v) >= count for v in found.values()):
            break
        batch = citing[start:start + 50]
        docs = client.mget(index=aliases["judgments"], body={"ids": batch},
                           params={"_source_includes": "text,title,parties"})
        for doc in docs["docs"]:
            source = doc.get("_source") or {}
            text = str(source.get("text") or "")[:MAX_QUERY_CHARS]
            jid = doc["_id"]
            if not text:
                continue
            relevant = frozenset(graph.cites[jid])
            facts: str | None = None
            for style in styles:
                if len(found[style]) >= count:
                    continue
                if style == "document":
                    query = mask_citations(text)
                elif style in ("facts", "facts-anon"):
                    facts = _facts(client, aliases["chunks"], jid, max_facts_words) if facts is None else facts
                    if len(facts.split()) < min_facts_words:
                        continue
                    query = facts if style == "facts" else anonymise(
                        facts, person_names(text, source.get("parties") or (), str(source.get("title") or "")))
                else:
                    raise ValueError(f"mined query styles are {', '.join(MINED_STYLES)}, not {style!r}")
                found[style].append(TrainingQuery(f"{corpus}:{style}:{jid}", query, relevant, corpus,
                                                  f"mined-{style}", (jid,)))
    return [q for style in styles for q in found[style]]


class Guard:
    """Texts no training query may contain: a judgment sharing at least ``share`` of a guarded text's 12-word runs
    (and at least ``minimum`` of them) holds that text. A few shared runs are legal boilerplate (a quoted statute,
    "the appeal is accordingly dismissed"), not a copy, so single overlaps do not count. ``texts`` maps a name
    (``aila-2019:AILA_Q21``) to a text; a plain sequence is named by position."""

    def __init__(self, texts: Mapping[str, str] | Iterable[str], share: float = 0.2, minimum: int = 30) -> None:
        named = texts.items() if isinstance(texts, Mapping) else ((str(i), t) for i, t in enumerate(texts))
        self.names: list[str] = []
        self.owners: dict[int, list[int]] = {}
        self.needed: list[int] = []
        for number, (name, text) in enumerate(named):
            runs = shingles(text)
            self.names.append(name)
            self.needed.append(max(minimum, int(share * len(runs))))
            for run in runs:
                self.owners.setdefault(run, []).append(number)

    def __len__(self) -> int:
        return len(self.names)

    def owner(self, text: str) -> str | None:
        """The name of the first guarded text ``text`` contains (in the guard's order), or None."""
        counts: dict[int, int] = {}
        found: list[int] = []
        for run in shingles(text):
            for owner in self.owners.get(run, ()):
                counts[owner] = counts.get(owner, 0) + 1
                if counts[owner] == self.needed[owner]:
                    found.append(owner)
        return self.names[min(found)] if found else None

    def holds(self, text: str) -> bool:
        """True when ``text`` contains one of the guarded texts."""
        return self.owner(text) is not None


def holders(client: OpenSearch, judgments: str, guard: Guard) -> dict[str, str]:
    """Every judgment of the ``judgments`` index whose text holds a guarded text, with that text's name, in id
    order. One scan of the corpus (a few seconds per thousand judgments): done once per training run, so mining,
    labels and candidates all read the same answer."""
    if not len(guard):
        return {}
    found: dict[str, str] = {}
    for hit in helpers.scan(client, index=judgments, query={"query": {"match_all": {}}, "_source": ["text"]},
                            size=200, preserve_order=False):
        name = guard.owner(str((hit.get("_source") or {}).get("text") or "")[:MAX_QUERY_CHARS])
        if name is not None:
            found[hit["_id"]] = name
    return dict(sorted(found.items()))
