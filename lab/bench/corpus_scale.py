"""A larger corpus made from an indexed one, for measuring the default search at scale (issue 30). Lab code.

The NLP is not run again: the processed judgment and chunk documents of a source prefix (``ratio``) are copied
under a prefix of their own (``scale-a``), whose indices are made by the product's own definitions
(:func:`backends.opensearch.create_indices`, with the source's vector settings) and written by the product's bulk
machinery (:meth:`indexer.writer.BulkWriter.write_documents`: streaming bulk, retries, refresh paused).

The corpus grows by calls: the ``k``-th judgment of the scale corpus is copy ``n = k // N`` of the ``i = k % N``-th
source judgment (source ids sorted, ``N`` of them). Copy 0 is the source judgment itself, unchanged, so the first
call to the source's size gives the source corpus under the new prefix; later calls add copies until the size
asked for (3k, then 30k, then 100k on the same indices). Copy ``n`` of ``J`` has the id ``J.s<n>``
(:mod:`indexer.document` allows ``_.:-`` in an id, not ``~``) and, drawn from a random generator seeded by the
seed, ``n`` and ``i`` only:

- its last party (the respondent) replaced by another source judgment's, so title matching sees a new title;
- its decision date shifted by up to ten years either way (kept within 1950 and 2025), the year with it;
- its own reporter citations with that year and, where that citation is taken, a page moved on, so each
  citation and each case name of the scale corpus names one judgment (a key that would be taken is never given
  out: the exact-string resolution of :mod:`search.graph.citation_graph` links one string to one judgment, and a
  second holder would unlink the first);
- its ``cited_judgments``: the original's strings that name no source judgment (kept, as the unresolved rest of
  a real list), and as many corpus judgments as the original cites (``source_edges``: its out-degree), drawn
  with probability proportional to the in-degree of each candidate's source judgment among every judgment the
  corpus holds after this call (a configuration-model draw), each cited by its own citation or case name.

So the degree distributions of the source are kept, the resolved graph is known by construction
(:attr:`ScaleGrowth.edges`), and every chunk carries its copy's id, title, date and citations. A copy is
deterministic given the seed, its number and the corpus size of the call that made it; the seed and the source
are kept in each scale index's mapping ``_meta`` (``ratio_scale``), and a later call with another refuses.

Guard: the prefix must start with ``scale``, differ from the source's, and every index under it must carry that
mark; :func:`drop_scale_corpus` deletes only such indices of exactly that prefix.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import re
import shutil
import time
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

from opensearchpy import OpenSearch, helpers

import mappings
from backends.opensearch.indices import IndexLayout, create_indices, describe, fit_to_cluster
from indexer.writer import BulkWriter
from legal.citations import canonical_case_name

__all__ = ["MARK", "ScaleGrowth", "ScalePlan", "ScalePrefixError", "copy_id", "drop_scale_corpus",
           "grow_scale_corpus", "plan_scale", "watermark_margin"]

MARK = "ratio_scale"  # the key in a scale index's mapping _meta: {"source": prefix, "seed": seed}
SIZE = "ratio_scale_size"  # the judgments index's _meta: the size the last complete call reached
KINDS = ("judgments", "chunks", "provisions")
WATERMARK = "cluster.routing.allocation.disk.watermark.low"  # the free space a plan leaves the node
HEADROOM = 1.3  # merges and translog need room beyond the store
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(b|kb?|mb?|gb?|tb?|pb?)\s*$", re.IGNORECASE)
_UNITS = {"b": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}
_SHIFT_DAYS = 3650
_FIRST, _LAST = dt.date(1950, 1, 1), dt.date(2025, 12, 31)
_META_FIELDS = ["judgment_id", "title", "parties", "citations", "decision_date", "cited_judgments"]
_YEAR = re.compile(r"(?<!\d)(19|20)\d\d(?!\d)")
_LAST_NUMBER = re.compile(r"(\d+)(?!.*\d)")


class ScalePrefixError(ValueError):
    """The prefix is not one a scale corpus may use (not ``scale...``, the source's own, or holding indices that
    are not this scale corpus's)."""


@dataclass(frozen=True)
class ScalePlan:
    """Whether a scale corpus of ``judgments`` fits on the disk of ``data_path``."""

    source_prefix: str
    prefix: str
    judgments: int  # target size
    bytes_per_judgment: float  # the source's judgments and chunks stores (primaries) per judgment
    needed_bytes: int  # for the judgments the prefix does not hold yet
    free_bytes: int
    fits: bool  # needed * HEADROOM + margin <= free
    reason: str
    existing: int = 0  # judgments the prefix holds already
    margin_bytes: int = 0  # the free space the node's low disk watermark holds back on that disk


@dataclass(frozen=True)
class ScaleGrowth:
    """What a call of :func:`grow_scale_corpus` left and did."""

    prefix: str
    judgments: int  # what the scale indices hold afterwards
    chunks: int
    added_judgments: int  # this call
    added_chunks: int
    seconds: float
    edges: int  # citation edges among the scale corpus's judgments (exact-string resolution)
    failed: tuple[tuple[str, str], ...] = ()  # documents the cluster refused, with its reason
    stopped: str | None = None  # the cluster went away: re-run the same call to finish


def copy_id(judgment_id: str, n: int) -> str:
    """The id of copy ``n`` of a judgment (copy 0 is the judgment itself)."""
    return judgment_id if n == 0 else f"{judgment_id}.s{n}"


# ---------------------------------------------------------------- guard, indices, plan

def _layout(prefix: str, source_prefix: str) -> IndexLayout:
    if not prefix.startswith("scale"):
        raise ScalePrefixError(f"a scale corpus's prefix starts with 'scale' ({prefix!r} does not): its indices "
                               "are deleted afterwards, and no other prefix's may be")
    if prefix == source_prefix:
        raise ScalePrefixError(f"the scale prefix {prefix!r} is the source's own")
    return IndexLayout(prefix)


def _own_indices(client: OpenSearch, prefix: str) -> dict[str, dict[str, Any]]:
    """``{index: its mapping _meta}`` for the versioned indices of exactly ``prefix`` (``scale-a-judgments-v1``,
    not ``scale-a-b-judgments-v1``)."""
    pattern = re.compile(re.escape(prefix) + r"-(" + "|".join(mappings.INDEX_KINDS) + r")-v\d+")
    found = client.indices.get_mapping(index=f"{prefix}-*", allow_no_indices=True, ignore_unavailable=True)
    return {name: dict(body.get("mappings", {}).get("_meta") or {})
            for name, body in found.items() if pattern.fullmatch(name)}


def _check_marks(client: OpenSearch, prefix: str, mark: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The prefix's indices, after refusing any without the scale mark (or, with ``mark``, with another one)."""
    own = _own_indices(client, prefix)
    for name, meta in sorted(own.items()):
        found = meta.get(MARK)
        if not isinstance(found, dict):
            raise ScalePrefixError(f"{name} is not a scale corpus's index (no {MARK} in its _meta): left alone")
        if mark is not None and found != mark:
            raise ScalePrefixError(f"{name} was grown from {found}, not {mark}: drop it first or use its source "
                                   "and seed")
    return own


def _source_options(client: OpenSearch, source: IndexLayout) -> tuple[mappings.IndexOptions, str]:
    """The source's vector settings as index options (fitted to the cluster), and its language."""
    info = describe(client, source)["chunks"]
    if info["index"] is None:
        raise ValueError(f"the source {source.prefix!r} has no chunks index")
    vector = client.indices.get_mapping(index=info["index"])[info["index"]]["mappings"]["properties"]["vector"]
    parameters = vector.get("method", {}).get("parameters", {})
    options = mappings.IndexOptions(
        dimension=int(info["dimension"]), engine=str(info["engine"]), encoder=str(info["encoder"]),
        quantisation=str(info["quantisation"] or "none"), hnsw_m=int(parameters.get("m", 16)),
        hnsw_ef_construction=int(parameters.get("ef_construction", 100)))
    return fit_to_cluster(client, options), str(info["language"] or "en")


def _ensure_indices(client: OpenSearch, layout: IndexLayout, source: IndexLayout, mark: dict[str, Any],
                    shards: int = 1) -> bool:
    """Create the missing scale indices like ``ratio indices create`` does, with ``shards`` primaries (no saved
    searches: nothing percolates a scale corpus) and mark them; True when any was created now."""
    options, language = _source_options(client, source)
    options = dataclasses.replace(options, shards=shards)
    report = create_indices(client, layout, options, language=language, kinds=KINDS)
    created = [row["index"] for row in report.values() if row.get("created")]
    for index in created:
        meta = client.indices.get_mapping(index=index)[index]["mappings"].get("_meta") or {}
        client.indices.put_mapping(index=index, body={"_meta": {**meta, MARK: mark}})
    return bool(created)


def _count(client: OpenSearch, alias: str) -> int:
    return int(client.count(index=alias)["count"])


def watermark_margin(setting: str, total_bytes: int) -> int:
    """The free space a disk watermark holds back on a disk of ``total_bytes``: an absolute value (``2gb``, Ratio's
    own nodes) as it is, a used share (``85%`` or ``0.85``, OpenSearch's default) as the rest of the disk."""
    text = setting.strip()
    if text.endswith("%"):
        return max(round(total_bytes * (1 - float(text[:-1]) / 100)), 0)
    match = _SIZE.match(text)
    if match:
        return int(float(match.group(1)) * _UNITS[match.group(2)[0].lower()])
    try:
        share = float(text)
    except ValueError:
        raise ValueError(f"disk watermark {setting!r} is neither a size nor a share of the disk") from None
    return max(round(total_bytes * (1 - share)), 0)


def _node_margin(client: OpenSearch, total_bytes: int) -> tuple[int, str]:
    """The margin a plan keeps free, and the watermark it comes from: past the low watermark the node places no
    more replicas or new shards, so a scale corpus that crossed it would change the cluster it measures. It is the
    node's setting, not a fixed size, so a small disk with room for a small step is not refused."""
    settings = client.cluster.get_settings(include_defaults=True, flat_settings=True)
    value = next((settings.get(part, {}).get(WATERMARK) for part in ("transient", "persistent", "defaults")
                  if settings.get(part, {}).get(WATERMARK) is not None), "85%")
    return watermark_margin(str(value), total_bytes), str(value)


def plan_scale(client: OpenSearch, *, source_prefix: str, prefix: str, judgments: int, data_path: Path) -> ScalePlan:
    """Size a scale corpus before growing it: the source's store per judgment times the judgments still to add,
    against the free disk of ``data_path`` (the node's data folder), with headroom for merges and the free space
    the node's low disk watermark holds back."""
    _layout(prefix, source_prefix)
    source = IndexLayout(source_prefix)
    stats = client.indices.stats(index=f"{source.alias('judgments')},{source.alias('chunks')}", metric="store")
    store = int(stats["_all"]["primaries"]["store"]["size_in_bytes"])
    count = _count(client, source.alias("judgments"))
    per = store / count if count else 0.0
    existing = 0
    if _check_marks(client, prefix, None):
        existing = _count(client, IndexLayout(prefix).alias("judgments"))
    needed = int(per * max(judgments - existing, 0))
    disk = shutil.disk_usage(data_path)
    free = disk.free
    margin, watermark = _node_margin(client, disk.total)
    want = int(needed * HEADROOM) + margin
    fits = count > 0 and want <= free
    gib = 1024**3
    if count == 0:
        reason = f"the source {source_prefix!r} holds no judgments"
    else:
        reason = (f"{judgments:,} judgments ({existing:,} there) need {needed / gib:.1f} GiB at "
                  f"{per / 1024:.0f} KiB a judgment; with x{HEADROOM} and {margin / gib:.1f} GiB kept free (the "
                  f"node's low disk watermark, {watermark}): {want / gib:.1f} GiB of {free / gib:.1f} GiB free at "
                  f"{data_path}: "
                  + ("fits" if fits else "does not fit"))
    return ScalePlan(source_prefix, prefix, judgments, per, needed, free, fits, reason, existing, margin)


def drop_scale_corpus(client: OpenSearch, prefix: str) -> list[str]:
    """Delete the scale indices of exactly ``prefix`` (their aliases go with them) and return their names; an index
    of that prefix without the scale mark stops it before anything is deleted."""
    if not prefix.startswith("scale"):
        raise ScalePrefixError(f"{prefix!r} is not a scale corpus's prefix (they start with 'scale')")
    names = sorted(_check_marks(client, prefix, None))
    if names:
        client.indices.delete(index=",".join(names))
    return names


# ---------------------------------------------------------------- the copies' metadata

@dataclass(frozen=True)
class _Source:
    """What a copy needs of one source judgment."""

    judgment_id: str
    title: str | None
    parties: tuple[str, ...]
    citations: tuple[str, ...]
    decision_date: dt.date | None
    cited: tuple[str, ...]


@dataclass(frozen=True)
class _Copy:
    judgment_id: str
    n: int
    i: int
    title: str | None
    parties: tuple[str, ...]
    citations: tuple[str, ...]
    decision_date: dt.date | None
    cited: tuple[str, ...] = ()


def _read_sources(client: OpenSearch, alias: str) -> list[_Source]:
    sources = []
    for hit in helpers.scan(client, index=alias, _source_includes=_META_FIELDS, size=1000):
        doc = hit["_source"]
        date = doc.get("decision_date")
        sources.append(_Source(hit["_id"], doc.get("title"), tuple(doc.get("parties") or ()),
                               tuple(doc.get("citations") or ()),
                               dt.date.fromisoformat(date[:10]) if date else None,
                               tuple(doc.get("cited_judgments") or ())))
    return sorted(sources, key=lambda s: s.judgment_id)


def _keys(title: str | None, citations: Sequence[str]) -> list[str]:
    """The strings that name a judgment under exact resolution: its citations and its title's case name."""
    name = canonical_case_name(title)
    return [*citations, *([name] if name else [])]


def _rng(seed: int, n: int, i: int) -> random.Random:
    return random.Random(f"ratio-scale:{seed}:{n}:{i}")


def _new_date(date: dt.date | None, rng: random.Random) -> dt.date | None:
    if date is None:
        return None
    return min(max(date + dt.timedelta(days=rng.randint(-_SHIFT_DAYS, _SHIFT_DAYS)), _FIRST), _LAST)


def _new_title(src: _Source, others: Sequence[str], n: int, rng: random.Random, taken: set[str]
               ) -> tuple[str | None, tuple[str, ...], str | None]:
    """Title, parties and case name of a copy: the respondent replaced by another judgment's last party (two of
    them joined, after many tries), until the case name is one no judgment holds; past that, a numeral after
    the respondent (``... v. State II``). A title that reads as no case name is kept: it names no one."""
    name = canonical_case_name(src.title)
    if not name or not src.title:
        return src.title, src.parties, None
    if len(src.parties) >= 2:
        petitioner, respondent = src.parties[0], src.parties[-1]
    else:
        petitioner, _, respondent = name.partition(" v. ")

    def titled(new: str) -> tuple[str, tuple[str, ...]]:
        title = str(src.title)
        title = title.replace(respondent, new) if respondent and respondent in title else f"{petitioner} v {new}"
        return title, ((*src.parties[:-1], new) if len(src.parties) >= 2 else src.parties)

    for attempt in range(64):
        if not others:
            break
        new = rng.choice(others) if attempt < 48 else f"{rng.choice(others)} and {rng.choice(others)}"
        if new != respondent:
            title, parties = titled(new)
            fresh = canonical_case_name(title)
            if fresh and fresh not in taken:
                return title, parties, fresh
    for extra in range(n + 1, n + 10_000):
        title, parties = titled(f"{respondent} {_roman(extra)}")
        fresh = canonical_case_name(title)
        if fresh and fresh not in taken:
            return title, parties, fresh
    raise RuntimeError(f"no free case name for copy {n} of {src.judgment_id}")


def _roman(number: int) -> str:
    out = []
    for value, letters in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
                           (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def _new_citations(citations: Sequence[str], year: int | None, taken: set[str]) -> tuple[str, ...]:
    out = []
    for citation in citations:
        new = _YEAR.sub(str(year), citation) if year else citation
        step = 0
        while new in taken or new in out:
            step += 1
            moved = _LAST_NUMBER.sub(lambda m, s=step: str(int(m.group(1)) + 1000 * s), citation)
            new = (_YEAR.sub(str(year), moved) if year else moved) if moved != citation else f"{citation} ({step})"
        out.append(new)
    return tuple(out)


def _metadata(sources: Sequence[_Source], size: int, seed: int) -> Iterator[tuple[int, _Copy, str | None]]:
    """Every judgment of a corpus of ``size``, in order: its copy (cited strings not yet drawn) and the string
    that cites it uniquely (None when none does). Titles and citations never take a key already given out,
    nor a string any source judgment cites (that would link a citing judgment to a copy)."""
    source_keys = Counter(key for s in sources for key in set(_keys(s.title, s.citations)))
    taken = set(source_keys) | {c for s in sources for c in s.cited}
    total = len(sources)
    others = [s.parties[-1] for s in sources if s.parties]  # the respondents a copy's title may take
    for k in range(size):
        n, i = divmod(k, total)
        src = sources[i]
        if n == 0:
            unique = [key for key in _keys(src.title, src.citations) if source_keys[key] == 1]
            yield k, _Copy(src.judgment_id, 0, i, src.title, src.parties, src.citations, src.decision_date,
                           src.cited), (unique[0] if unique else None)
            continue
        rng = _rng(seed, n, i)
        date = _new_date(src.decision_date, rng)
        title, parties, name = _new_title(src, others, n, rng, taken)
        citations = _new_citations(src.citations, date.year if date else None, taken)
        keys = [*citations, *([name] if name else [])]
        taken.update(keys)
        yield k, _Copy(copy_id(src.judgment_id, n), n, i, title, parties, citations, date), (keys[0] if keys else None)


def _draw(rng: random.Random, pool: Sequence[int], cumulative: Sequence[float], count: int, me: int) -> list[int]:
    """``count`` distinct members of ``pool`` (not ``me``), each drawn with probability proportional to its weight
    (``cumulative`` weights); when rejections pile up, the rest in a weighted order of what is left."""
    chosen: dict[int, None] = {}
    if not pool or count <= 0:
        return []
    total = cumulative[-1]
    for _ in range(20 * count + 50):
        if len(chosen) == count:
            return list(chosen)
        k = pool[min(bisect_right(cumulative, rng.random() * total), len(pool) - 1)]
        if k != me:
            chosen[k] = None
    weights = {k: cumulative[j] - (cumulative[j - 1] if j else 0.0) for j, k in enumerate(pool)}
    rest = sorted((k for k in pool if k != me and k not in chosen),
                  key=lambda k: rng.random() ** (1.0 / weights[k]), reverse=True)  # Efraimidis-Spirakis keys
    return [*chosen, *rest[: count - len(chosen)]]


# ---------------------------------------------------------------- growing

def grow_scale_corpus(client: OpenSearch, *, source_prefix: str, prefix: str, judgments: int,
                      source_edges: Mapping[str, Sequence[str]], seed: int = 0,
                      progress: Callable[[int], None] | None = None, batch: int = 1000, shards: int = 1,
                      ) -> ScaleGrowth:
    """Grow the scale corpus of ``prefix`` to ``judgments`` copies of the source's (see the module docstring);
    ``source_edges`` is the source's resolved graph (``judgment id -> cited judgment ids``, from
    ``search.graph.citation_graph.load_graph(..., by_parties=False).cites``). ``progress`` hears the judgment
    documents sent
    so far this call (after all chunks). Nothing is removed when the corpus is already larger. ``shards``: the
    primaries of indices this call creates (a long query's shards are searched in parallel; docs/capacity.md)."""
    started = time.perf_counter()
    layout, source = _layout(prefix, source_prefix), IndexLayout(source_prefix)
    mark = {"source": source_prefix, "seed": seed}
    _check_marks(client, prefix, mark)
    created = _ensure_indices(client, layout, source, mark, shards)
    aliases = layout.aliases(KINDS)
    writer = BulkWriter(client, aliases)
    if created or _count(client, aliases["provisions"]) == 0:
        writer.write_documents({"_op_type": "index", "_index": aliases["provisions"], "_id": hit["_id"],
                                "_source": hit["_source"]}
                               for hit in helpers.scan(client, index=source.alias("provisions"), size=500))
    have, have_chunks = _recorded_size(client, aliases["judgments"]), _count(client, aliases["chunks"])
    sources = _read_sources(client, source.alias("judgments"))
    if judgments <= have or not sources:
        return ScaleGrowth(prefix, _count(client, aliases["judgments"]), have_chunks, 0, 0,
                           time.perf_counter() - started, _edges(sources, source_edges, have))
    added = _plan_copies(sources, source_edges, judgments, have, seed)
    by_source: dict[str, list[_Copy]] = defaultdict(list)
    for copy in added:
        by_source[sources[copy.i].judgment_id].append(copy)
    chunks = writer.write_documents(_chunk_actions(client, source.alias("chunks"), aliases["chunks"], by_source),
                                    batch=batch)
    written = writer.write_documents(_judgment_actions(client, source.alias("judgments"), aliases["judgments"],
                                                       by_source, progress), batch=batch)
    if not (chunks.failed or written.failed or chunks.stopped or written.stopped):
        _record_size(client, aliases["judgments"], judgments)
    return ScaleGrowth(prefix, _count(client, aliases["judgments"]), _count(client, aliases["chunks"]),
                       written.judgments_indexed, chunks.chunks_indexed, time.perf_counter() - started,
                       _edges(sources, source_edges, judgments), tuple(chunks.failed + written.failed),
                       chunks.stopped or written.stopped)


def _recorded_size(client: OpenSearch, alias: str) -> int:
    """The size the last complete call reached: judgment documents are written in the source's scan order, so after
    a call that stopped the count is not a prefix of the corpus; the next call starts again from this size (writes
    are idempotent, and a copy rewritten gets the same id)."""
    found = client.indices.get_mapping(index=alias)
    return int(next(iter(found.values()))["mappings"].get("_meta", {}).get(SIZE) or 0)


def _record_size(client: OpenSearch, alias: str, size: int) -> None:
    for index, body in client.indices.get_mapping(index=alias).items():
        meta = dict(body["mappings"].get("_meta") or {})
        client.indices.put_mapping(index=index, body={"_meta": {**meta, SIZE: size}})


def _plan_copies(sources: Sequence[_Source], source_edges: Mapping[str, Sequence[str]], size: int, have: int,
                 seed: int) -> list[_Copy]:
    """The judgments ``have .. size - 1`` of the corpus, their citations drawn among all ``size`` judgments."""
    in_degree = Counter(t for targets in source_edges.values() for t in set(targets))
    strings: dict[int, str] = {}
    pool: list[int] = []
    added: list[_Copy] = []
    for k, copy, cite in _metadata(sources, size, seed):
        if cite is not None and in_degree[sources[copy.i].judgment_id] > 0:
            pool.append(k)
            strings[k] = cite
        if k >= have:
            added.append(copy)
    cumulative = list(accumulate(float(in_degree[sources[k % len(sources)].judgment_id]) for k in pool))
    source_keys = {key for s in sources for key in _keys(s.title, s.citations)}
    out = []
    for copy in added:
        if copy.n == 0:
            out.append(copy)
            continue
        src = sources[copy.i]
        degree = len(set(source_edges.get(src.judgment_id, ())))
        k = copy.n * len(sources) + copy.i
        targets = _draw(_rng(seed, copy.n, copy.i), pool, cumulative, degree, k)
        unresolved = tuple(c for c in src.cited if c not in source_keys)
        out.append(_Copy(copy.judgment_id, copy.n, copy.i, copy.title, copy.parties, copy.citations,
                         copy.decision_date, (*unresolved, *(strings[t] for t in targets))))
    return out


def _edges(sources: Sequence[_Source], source_edges: Mapping[str, Sequence[str]], size: int) -> int:
    """The resolved edges of a corpus of ``size``: the source's among the originals it holds, and each copy's
    drawn targets (as many as its original's out-degree, fewer only when the pool is too small)."""
    total = len(sources)
    if not total:
        return 0
    held = {s.judgment_id for s in sources[: min(size, total)]}
    edges = sum(len(set(t for t in source_edges.get(j, ()) if t in held)) for j in held)
    copies = max(size - total, 0)
    for i, src in enumerate(sources):
        rounds = copies // total + (1 if i < copies % total else 0)
        edges += rounds * len(set(source_edges.get(src.judgment_id, ())))
    return edges


def _changes(copy: _Copy) -> dict[str, Any]:
    date = copy.decision_date
    return {"judgment_id": copy.judgment_id, "title": copy.title,
            "decision_date": date.isoformat() if date else None, "year": date.year if date else None,
            "cited_judgments": list(copy.cited)}


def _chunk_actions(client: OpenSearch, source: str, target: str, by_source: Mapping[str, list[_Copy]]
                   ) -> Iterator[dict[str, Any]]:
    """Copies of the source's chunks, read with a scroll (vectors included) and written as they come."""
    for hit in helpers.scan(client, index=source, size=500):
        doc = hit["_source"]
        for copy in by_source.get(str(doc.get("judgment_id")), ()):
            chunk_id = f"{copy.judgment_id}:{doc.get('ordinal')}"
            yield {"_op_type": "index", "_index": target, "_id": chunk_id,
                   "_source": {**doc, **_changes(copy), "chunk_id": chunk_id}}


def _judgment_actions(client: OpenSearch, source: str, target: str, by_source: Mapping[str, list[_Copy]],
                      progress: Callable[[int], None] | None) -> Iterator[dict[str, Any]]:
    """Copies of the source's judgment documents, after all chunks (the judgment document is the commit record)."""
    done = 0
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    for hit in helpers.scan(client, index=source, size=200):
        doc = hit["_source"]
        for copy in by_source.get(hit["_id"], ()):
            if copy.n == 0:
                body = doc
            else:
                body = {**doc, **_changes(copy), "parties": list(copy.parties), "citations": list(copy.citations),
                        "source_path": f"{doc.get('source_path')}#s{copy.n}", "indexed_at": now}
            yield {"_op_type": "index", "_index": target, "_id": copy.judgment_id, "_source": body}
            done += 1
            if progress and done % 500 == 0:
                progress(done)
    if progress:
        progress(done)
