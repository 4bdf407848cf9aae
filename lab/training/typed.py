"""Typed queries mined from a corpus: what lawyers type into a search box, with the judgments that answer them.

The ranker's other training queries are long (fact patterns, whole judgments); nothing in them says that a short
query naming parties wants the judgment with that title. A corpus already holds the answers to the short queries
lawyers type, in each judgment's own metadata:

* ``title``: the title as the corpus spells it (``Sewa Singh v State of Punjab``) → the judgments with those
  parties (:func:`search.query.party_names.name_fit` 1: the same parties in the same order, filler words aside);
* ``short``: the short form a lawyer writes (:func:`short_form`: filler, asides and a trailing place dropped, at
  most four words a side, ``v``/``v.``/``vs``/``vs.``/``versus`` drawn with the seed) → the same judgments;
* ``party``: the first party alone (``Virsa Singh``; a first party whose words are all generic, ``State of
  Punjab``, is not a query anyone types to find one case) → every judgment with a party of those words;
* ``citation``: one of the judgment's own reporter citations (IRLeD's headers carry them) → the judgments
  reported there;
* ``provision``: a provision as typed (``section 304B IPC``, :func:`provision_text`) → the judgments citing it;
* ``topic``: two to four of the judgment's topic words (its summary's ``topics``, the provisions left out:
  ``dowry death cruelty``) → the corpus judgments it cites, the judgment itself left out of every ranking.

Sampling is seeded and independent per kind (:func:`typed_queries`), so the same corpus and seed give the same
queries; ``skip`` keeps chosen judgments and provisions out (a benchmark's, when mining training queries), and
``allowed`` lets the caller refuse a source judgment (one whose text holds a benchmark query).
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from opensearchpy import OpenSearch, helpers

from legal.citations import extract_citations, parse_provision
from search.query.party_names import load_party_rules, name_fit, name_query, party_tokens, split_case_name, title_sides

__all__ = ["KINDS", "KNOWN_ITEM_KINDS", "Record", "TypedQuery", "first_party", "provision_text", "read_records",
           "short_form", "topic_text", "typed_queries"]

KNOWN_ITEM_KINDS = ("title", "short", "party", "citation")
KINDS = (*KNOWN_ITEM_KINDS, "provision", "topic")
CONNECTORS = ("v", "v.", "vs", "vs.", "versus")
MIN_CITING = 3  # a provision becomes a query when at least this many judgments cite it
MAX_SIDE_WORDS = 4
_ASIDE = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_FILLER = re.compile(r"(?:\band|&)\s+(?:ors|others|anr|another)\b\.?|\b(?:ors|anr|etc)\b\.?|\bm/s\.?\s*|^\s*the\s+",
                     re.IGNORECASE)
_GOVERNMENT = re.compile(r"^(?:the\s+)?(?:state|union|government|govt)\b|\bstate$", re.IGNORECASE)
MAX_PARTY_JUDGMENTS = 10  # a party named in more judgments than this is not how one case is looked for
MAX_TOPIC_SHARE = 0.03  # a topic word listed for more than this share of the corpus says nothing (``accused``)
_SOURCE = ["judgment_id", "title", "citations", "cited_provisions", "summary.topics"]


@dataclass(frozen=True)
class Record:
    """What mining reads of one judgment (its metadata only, never its text)."""

    judgment_id: str
    title: str | None = None
    citations: tuple[str, ...] = ()
    provisions: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class TypedQuery:
    """A typed query, its kind, the judgments relevant to it, the judgment (or provision) it was drawn from, and
    judgments left out of every ranking before scoring (a topic's own judgment)."""

    qid: str
    kind: str
    text: str
    relevant: frozenset[str]
    source: str
    exclude: tuple[str, ...] = field(default=())


def read_records(client: OpenSearch, judgments: str) -> list[Record]:
    """Every judgment's title, own citations, cited provisions and topic words (one scroll), in id order."""
    hits = helpers.scan(client, index=judgments, query={"query": {"match_all": {}}}, size=1000,
                        _source_includes=_SOURCE)
    records = []
    for hit in hits:
        source = hit["_source"]
        topics = tuple((source.get("summary") or {}).get("topics") or ())
        records.append(Record(hit["_id"], source.get("title"), tuple(source.get("citations") or ()),
                              tuple(source.get("cited_provisions") or ()), topics))
    return sorted(records, key=lambda r: r.judgment_id)


def _side(side: str) -> str:
    """One side of a title as a lawyer writes it: asides, filler and a trailing place (``, Bombay``) dropped, at
    most :data:`MAX_SIDE_WORDS` words."""
    side = _FILLER.sub(" ", _ASIDE.sub(" ", side)).split(",")[0]
    words = [w for w in (w.strip(" .,;:") for w in side.split()) if w]
    return " ".join(words[:MAX_SIDE_WORDS])


def short_form(title: str, connector: str = "v") -> str | None:
    """``Sewa Singh & Ors v State of Punjab`` → ``Sewa Singh v State of Punjab`` (with ``connector``); None when
    the title has no two sides or a side is left with nothing."""
    sides = split_case_name(title)
    if sides is None:
        return None
    left, right = (_side(side) for side in sides)
    if not party_tokens(left) or not party_tokens(right):
        return None
    return f"{left} {connector} {right}"


def first_party(title: str) -> str | None:
    """The first party as typed alone, or None when it is a government (``State of Punjab``, ``Union of India``)
    or its words are all generic: no one types those to find one case."""
    sides = split_case_name(title)
    if sides is None:
        return None
    party = _side(sides[0])
    if _GOVERNMENT.search(party):
        return None
    return party if party_tokens(party) - load_party_rules().generic else None


def provision_text(canonical: str, rng: random.Random) -> str | None:
    """A canonical provision (``IPC s. 304B``) as a lawyer types it (``section 304B IPC``, ``s. 304B IPC``,
    ``Article 21``), checked to read back as the same provision; None when no spelling does."""
    parsed = parse_provision(canonical)
    if parsed is None:
        return None
    if parsed.unit == "art.":
        spellings = [f"Article {parsed.section}", f"Art. {parsed.section}"]
        if parsed.act != "Constitution":
            spellings = [f"{s} {parsed.act}" for s in spellings]
    else:
        spellings = [f"section {parsed.section} {parsed.act}", f"s. {parsed.section} {parsed.act}",
                     f"Section {parsed.section} of {parsed.act}"]
    rng.shuffle(spellings)
    for text in spellings:
        if any(c.normalized == canonical for c in extract_citations(text, kinds={"provision"})):
            return text
    return None


def topic_text(record: Record, rng: random.Random, common: Collection[str] = ()) -> str | None:
    """Two to four of a judgment's topic words or two-word phrases in their stored order (provisions and the
    ``common`` ones left out), or None."""
    words = [t for t in record.topics if not parse_provision(t) and len(t.split()) <= 2 and t not in common]
    if len(words) < 2:
        return None
    return " ".join(words[: rng.choice((2, 3, 4))])


def _shuffled(items: Sequence[str], seed: int, kind: str) -> list[str]:
    order = sorted(items)
    random.Random(f"{seed}:{kind}").shuffle(order)
    return order


def typed_queries(records: Sequence[Record], cites: Mapping[str, Sequence[str]], *, counts: Mapping[str, int],
                  seed: int = 13, skip: Collection[str] = (),
                  allowed: Callable[[Sequence[str]], Collection[str]] | None = None,
                  prefix: str = "") -> list[TypedQuery]:
    """Up to ``counts[kind]`` queries of each kind, drawn with ``seed``. ``cites`` maps a judgment to the corpus
    judgments it cites (the ranker's citation graph); ``skip`` holds judgment ids and ``provision:<canonical>``
    keys never to draw from; ``allowed`` (given a batch of judgment ids, those that may be a query's source)
    refuses sources, e.g. a judgment whose text holds a benchmark query. Query ids are ``{prefix}{kind}-{n}``."""
    by_id = {r.judgment_id: r for r in records}
    sides = {r.judgment_id: title_sides(r.title) for r in records if r.title}
    citing: dict[str, list[str]] = defaultdict(list)
    own: dict[str, list[str]] = defaultdict(list)
    for r in records:
        for p in dict.fromkeys(r.provisions):
            citing[p].append(r.judgment_id)
        for c in dict.fromkeys(r.citations):
            own[c].append(r.judgment_id)
    listed = Counter(t for r in records for t in set(r.topics))
    common = frozenset(t for t, n in listed.items() if n > max(MIN_CITING, MAX_TOPIC_SHARE * len(records)))
    skipped = set(skip)
    found: list[TypedQuery] = []
    for kind in KINDS:
        wanted = counts.get(kind, 0)
        if wanted <= 0:
            continue
        made = 0
        rng = random.Random(f"{seed}:{kind}:text")
        pool = [p for p, ids in citing.items() if len(ids) >= MIN_CITING] if kind == "provision" else list(by_id)
        for batch in _batches(_shuffled(pool, seed, kind), 50):
            if made >= wanted:
                break
            ok = set(batch) if allowed is None or kind == "provision" else set(allowed(batch))
            for key in batch:
                if made >= wanted:
                    break
                skip_key = f"provision:{key}" if kind == "provision" else key
                if key not in ok or skip_key in skipped:
                    continue
                query = _make(kind, key, by_id, sides, citing, own, cites, rng, common)
                if query is None:
                    continue
                made += 1
                found.append(TypedQuery(f"{prefix}{kind}-{made:03d}", kind, *query))
    return found


def _batches(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _same_parties(text: str, parties: tuple[str, ...], sides: Mapping[str, tuple], exact_side: bool) -> set[str]:
    """The judgments whose titles name ``parties``: both sides in order (``exact_side`` False), or one side equal
    to the lone party (True)."""
    query = name_query(text, parties)
    if exact_side:
        return {d for d, found in sides.items() if query.words in found}
    return {d for d, found in sides.items() if len(found) == 2 and found[0] == query.sides[0]
            and found[1] == query.sides[1]}


def _make(kind: str, key: str, by_id: Mapping[str, Record], sides: Mapping[str, tuple],
          citing: Mapping[str, Sequence[str]], own: Mapping[str, Sequence[str]],
          cites: Mapping[str, Sequence[str]], rng: random.Random,
          common: Collection[str]) -> tuple[str, frozenset[str], str, tuple] | None:
    """(text, relevant, source, exclude) of one query of ``kind`` from judgment (or provision) ``key``."""
    if kind == "provision":
        text = provision_text(key, rng)
        return (text, frozenset(citing[key]), key, ()) if text else None
    record = by_id[key]
    if kind in ("title", "short", "party"):
        if not record.title or split_case_name(record.title) is None:
            return None
        if kind == "party":
            text = first_party(record.title)
            relevant = _same_parties(text, (text,), sides, True) if text else set()
            if text is None or len(relevant) > MAX_PARTY_JUDGMENTS:
                return None
            return text, frozenset({key, *relevant}), key, ()
        text = record.title if kind == "title" else short_form(record.title, rng.choice(CONNECTORS))
        if text is None or name_fit(name_query(text, split_case_name(text) or ()), record.title).fit < 1.0:
            return None  # the short form no longer names the same parties (a side cut to its first words)
        return text, frozenset({key, *_same_parties(text, split_case_name(text) or (), sides, False)}), key, ()
    if kind == "citation":
        if not record.citations:
            return None
        text = rng.choice(sorted(record.citations))
        return text, frozenset({key, *own[text]}), key, ()
    if kind == "topic":
        relevant = frozenset(d for d in cites.get(key, ()) if d != key)
        text = topic_text(record, rng, common) if relevant else None
        return (text, relevant, key, (key,)) if text else None
    raise ValueError(f"typed query kinds are {', '.join(KINDS)}, not {kind!r}")
