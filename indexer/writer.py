"""Streaming loaded judgments and provisions into OpenSearch, idempotently, with a report.

Judgments are handled in batches. For each batch the stored ``content_hash`` of every judgment is read
first (one ``mget``); a judgment whose hash matches is counted as unchanged and costs nothing more. A
changed or new judgment is processed, its chunks are written (and chunks left over from a longer earlier
version deleted), and only when all of its chunks were accepted is the judgment document written: the
judgment document, with its hash, is the commit record, so an interrupted or partly failed judgment is
simply processed again next time. Nothing is ever deleted for an item that failed to load.

A cluster that cannot be reached (connection refused or reset, timeouts, 502/503/504) is asked again with
exponential backoff for at most ``BulkSettings.retry_seconds``: reads and bulk writes alike, and a bulk
request that broke half-way is resumed with the actions that got no answer (writes are idempotent: every
document has a fixed id). When that time is spent the run stops and still returns its report: what was
written, which judgments of the batches in flight were not, and ``stopped`` saying why. Re-running the same
command resumes, since written judgments are skipped by their stored hash.

One bad item never fails another. An id OpenSearch would refuse (over 512 bytes, empty) fails its item
before anything is sent, and a bulk request the cluster refuses as a whole (400, 413) is split in halves until
the item it cannot take is alone: that item fails with the cluster's reason, the others are written. An id
claimed twice in a run, or held in the index by another source file, fails the later item with a reason naming
the holder (:mod:`indexer.identity`), so the report's counts are what the index holds.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import re
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import TransportError
from tenacity import Retrying, retry_if_exception, stop_after_delay, wait_exponential, wait_random

from indexer import bulk_settings
from indexer.document import Judgment, LoadError, Provision, id_problem
from indexer.documents import chunk_documents, judgment_document, provision_document, source_json
from indexer.identity import RunIds, conflict_reason, same_source
from indexer.pipeline import Pipeline, ProcessedJudgment, StageTimes


@dataclass
class IndexReport:
    """What a run did: counts, failures with reasons, and where the time went."""

    judgments_indexed: int = 0
    judgments_unchanged: int = 0
    provisions_indexed: int = 0
    provisions_unchanged: int = 0
    chunks_indexed: int = 0
    chunks_deleted: int = 0
    sentences: int = 0
    indexed_ids: list[str] = field(default_factory=list)  # judgments written this run (for saved-search alerts)
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    times: StageTimes = field(default_factory=StageTimes)
    seconds: float = 0.0
    progress: int = 0  # judgments a partial report (one commit) finished, for the progress callback
    retries: int = 0  # requests asked again after a connection error or a 502/503/504
    stopped: str | None = None  # why the run ended before its input did (the cluster could not be reached)
    # what the start found of an earlier run's bulk settings (a leftover put back, a run in progress left alone)
    leftovers: list[str] = field(default_factory=list)

    def merge(self, other: IndexReport) -> None:
        """Add a commit's partial report to this one (its ``stopped`` is the caller's to act on)."""
        for name in ("judgments_indexed", "chunks_indexed", "chunks_deleted", "sentences", "retries"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.indexed_ids.extend(other.indexed_ids)
        self.failed.extend(other.failed)
        self.times.add(other.times)

    def add(self, other: IndexReport) -> None:
        """Add the whole report of another run (one block of a distributed job) to this one."""
        self.merge(other)
        for name in ("judgments_unchanged", "provisions_indexed", "provisions_unchanged"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.warnings.extend(other.warnings)
        self.leftovers.extend(other.leftovers)
        self.stopped = self.stopped or other.stopped

    def as_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items()
                if k not in ("failed", "warnings", "times", "indexed_ids", "progress")}
        data["failed"] = [{"item": item, "reason": reason} for item, reason in self.failed]
        data["warnings"] = [{"item": item, "warning": warning} for item, warning in self.warnings]
        data["times"] = self.times.as_dict()
        return data


@dataclass(frozen=True)
class BulkSettings:
    """Bulk request sizing and retries: 429s per document (``max_retries`` times, backing off from
    ``initial_backoff``), and an unreachable cluster for up to ``retry_seconds`` before the run stops."""

    chunk_size: int = 500
    max_chunk_bytes: int = 10 * 1024 * 1024
    max_retries: int = 5
    initial_backoff: float = 2.0
    request_timeout: float = 120.0
    refresh_off: bool = True  # no periodic refresh during a run; one refresh at the end
    retry_seconds: float = 60.0
    # False for a run that is one block of a larger job (a Ray block): the job's driver pauses refresh and
    # refreshes once for all blocks (see indexer.ray_ingest).
    refresh_at_end: bool = True

    def __post_init__(self) -> None:
        if self.retry_seconds < 0:
            raise ValueError(f"retry seconds must be >= 0, not {self.retry_seconds}")


RETRY_STATUSES = (502, 503, 504)
_LONG_TOKEN = re.compile(r"\S{61,}")
SPLIT_STATUSES = (400, 413)  # a bulk request refused whole: one of its items (or its size) is the cause


class ClusterUnreachable(RuntimeError):
    """The cluster did not answer within ``BulkSettings.retry_seconds``; the message says what it last said."""


def _transient(exc: BaseException) -> bool:
    if isinstance(exc, OpenSearchConnectionError):  # also ConnectionTimeout
        return True
    return isinstance(exc, TransportError) and exc.status_code in RETRY_STATUSES


Progress = Callable[[str, int], None]  # (what, how many) after each judgment or provision


class BulkWriter:
    """The bulk machinery every load shares: streaming bulk sized by :class:`BulkSettings`, 429s retried per document,
    an unreachable cluster asked again, a refused request split to its culprit, and refresh paused for the load
    and put back (:mod:`indexer.bulk_settings`). :class:`IndexWriter` builds its documents with the pipeline;
    :meth:`write_documents` takes documents already made (copies of indexed ones, :mod:`lab.bench.corpus_scale`)."""

    def __init__(self, client: OpenSearch, aliases: dict[str, str], *, bulk: BulkSettings | None = None):
        self.client = client
        self.aliases = aliases
        self.bulk = bulk or BulkSettings()

    # ------------------------------------------------------------------ bulk plumbing
    def _retrying(self, report: IndexReport, what: str, call: Callable[[], Any]) -> Any:
        """``call()``, asked again while the cluster is unreachable, for at most ``retry_seconds``."""
        def count(_state: Any) -> None:
            report.retries += 1

        retrying = Retrying(retry=retry_if_exception(_transient), stop=stop_after_delay(self.bulk.retry_seconds),
                            wait=wait_exponential(multiplier=0.5, max=10.0) + wait_random(0, 0.5),
                            before_sleep=count, reraise=True)
        try:
            return retrying(call)
        except TransportError as exc:
            if not _transient(exc):
                raise
            raise ClusterUnreachable(f"OpenSearch did not answer {what} for {self.bulk.retry_seconds:g} s "
                                     f"({type(exc).__name__}: {_short(exc)})") from exc

    def _stream(self, actions: Iterable[dict[str, Any]]) -> Iterator[tuple[bool, dict[str, Any]]]:
        b = self.bulk
        yield from helpers.streaming_bulk(
            self.client, actions, chunk_size=b.chunk_size, max_chunk_bytes=b.max_chunk_bytes,
            max_retries=b.max_retries, initial_backoff=b.initial_backoff, raise_on_error=False,
            raise_on_exception=True, request_timeout=b.request_timeout,
        )

    def _bulk(self, actions: list[dict[str, Any]], results: list[tuple[bool, dict[str, Any]]],
              report: IndexReport) -> None:
        """Send ``actions``, appending one ``(ok, item)`` per answered action to ``results``.

        A request that fails for want of a cluster is resumed with the actions not yet answered, so
        ``results`` keeps what was answered even when :class:`ClusterUnreachable` ends the attempts. A request
        the cluster refuses outright (400: an item fails validation; 413: too large) is sent again in halves
        until the culprit is alone, which then fails with that reason; any other refusal fails each unanswered
        action of the request with its reason.
        """
        answered: set[str] = set()

        def send(batch: list[dict[str, Any]]) -> None:
            try:
                for ok, item in self._stream(batch):
                    results.append((ok, item))
                    answered.add(str(next(iter(item.values())).get("_id")))
            except TransportError as exc:
                if _transient(exc):
                    raise
                left = [a for a in batch if a["_id"] not in answered]
                if len(left) > 1 and exc.status_code in SPLIT_STATUSES:
                    half = len(left) // 2
                    send(left[:half])
                    send(left[half:])
                    return
                for action in left:
                    answered.add(str(action["_id"]))
                    results.append((False, {action["_op_type"]: {
                        "_id": action["_id"], "status": exc.status_code, "error": _short(exc)}}))

        def attempt() -> None:
            send([a for a in actions if a["_id"] not in answered])

        if actions:
            self._retrying(report, "a bulk write", attempt)

    # ------------------------------------------------------------------ a load
    def _indices(self) -> str:
        return written_indices(self.aliases)

    def _load(self, work: Callable[[IndexReport], None]) -> IndexReport:
        """Run ``work(report)`` as one load: periodic refresh off (when ``bulk.refresh_off``) and restored at the
        end, also when it raises (an error, Ctrl-C), followed by one refresh; a load killed before that leaves a
        note the next load's start acts on (:mod:`indexer.bulk_settings`; the report's ``leftovers`` say what it
        found). An unreachable cluster ends the load with ``stopped`` set rather than raising."""
        report = IndexReport()
        started = time.perf_counter()
        paused: bulk_settings.Pause | None = None
        try:
            if self.bulk.refresh_off:
                holder = bulk_settings.Holder.this_process()
                paused = self._retrying(report, "a settings change",
                                        lambda: bulk_settings.pause(self.client, self._indices(), holder))
                report.leftovers.extend(paused.found)
            try:
                work(report)
            except BaseException:
                if paused:  # one try, no waiting: the note left on a failure is the next run's to act on
                    with contextlib.suppress(TransportError):
                        bulk_settings.restore(self.client, paused)
                raise
            if paused:
                self._retrying(report, "a settings change", lambda: bulk_settings.restore(self.client, paused))
            if self.bulk.refresh_at_end:
                self._retrying(report, "a refresh", lambda: self.client.indices.refresh(index=self._indices()))
        except ClusterUnreachable as exc:
            report.stopped = (f"{report.stopped or exc}; what the counts say was written is there, the items "
                              "listed as 'not written' got no acknowledgement (one written as the cluster went away "
                              "may be there) and any later input was not read: re-run the same command to resume")
        report.seconds = time.perf_counter() - started
        return report

    def write_documents(self, actions: Iterable[dict[str, Any]], *, batch: int = 1000) -> IndexReport:
        """Write ready bulk ``actions`` (``_op_type``, ``_index``, ``_id``, ``_source``) as one load, ``batch`` at a
        time so an endless iterable is written in bounded memory. Written documents are counted by the kind of
        alias they went to (``judgments_indexed``, ``chunks_indexed``, ``provisions_indexed``), a refused one is
        in ``failed`` with the cluster's reason; nothing is read back or hashed (no pipeline runs)."""
        kinds = {alias: kind for kind, alias in self.aliases.items()}

        def work(report: IndexReport) -> None:
            iterator = iter(actions)
            while chunk := list(itertools.islice(iterator, batch)):
                kind_of = {str(a["_id"]): kinds.get(str(a["_index"]), "") for a in chunk}
                results: list[tuple[bool, dict[str, Any]]] = []
                try:
                    self._bulk(chunk, results, report)
                finally:
                    for ok, item in results:
                        result = next(iter(item.values()))
                        if not ok:
                            report.failed.append((str(result.get("_id")), _reason(result)))
                        elif (kind := kind_of.get(str(result.get("_id")))) in _COUNTED:
                            setattr(report, _COUNTED[kind], getattr(report, _COUNTED[kind]) + 1)

        return self._load(work)


_COUNTED = {"judgments": "judgments_indexed", "chunks": "chunks_indexed", "provisions": "provisions_indexed"}


class IndexWriter(BulkWriter):
    """Writes judgments to the ``judgments`` and ``chunks`` aliases and provisions to ``provisions``."""

    def __init__(self, client: OpenSearch, aliases: dict[str, str], pipeline: Pipeline, *,
                 batch_size: int = 16, bulk: BulkSettings | None = None, progress: Progress | None = None,
                 replace: bool = False):
        super().__init__(client, aliases, bulk=bulk)
        self.replace = replace  # a judgment from another file may replace the stored one of its id
        self.pipeline = pipeline
        self.batch_size = batch_size
        self.progress = progress or (lambda what, n: None)

    def _stored(self, alias: str, ids: list[str], fields: list[str], report: IndexReport) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        response = self._retrying(report, "a read of stored hashes", lambda: self.client.mget(
            index=alias, body={"ids": ids}, params={"_source_includes": ",".join(fields)}))
        return {d["_id"]: d.get("_source", {}) for d in response["docs"] if d.get("found")}

    # ------------------------------------------------------------------ judgments
    def _process(self, batch: list[Judgment], report: IndexReport) -> list[ProcessedJudgment]:
        """Process the batch together; if that fails, judgment by judgment, so one bad judgment is
        reported alone and never stops the batch."""
        try:
            processed = self.pipeline.process_many(batch)
        except Exception:  # find the culprit below
            processed = []
            for judgment in batch:
                try:
                    processed.extend(self.pipeline.process_many([judgment]))
                except Exception as exc:
                    report.failed.append((judgment.item,
                                          f"processing failed: {type(exc).__name__}: {exc}"))
                    self.progress("judgment", 1)
        for p in processed:
            report.times.add(p.times)
        return processed

    def _write_judgments(self, batch: list[Judgment], report: IndexReport) -> partial[IndexReport] | None:
        """Process the changed judgments of ``batch`` now; return the bulk write of their chunks and judgment
        documents as a function (run on the writer's thread while the next batch is processed; its first
        argument is the processed judgments)."""
        try:
            stored = self._stored(self.aliases["judgments"], [j.judgment_id for j in batch],
                                  ["content_hash", "n_chunks", "source_path"], report)
        except ClusterUnreachable as exc:
            _not_written([j.item for j in batch], exc, report)
            raise
        todo = []
        for judgment in batch:
            old = stored.get(judgment.judgment_id)
            item = judgment.item
            owner = str(old.get("source_path") or "") if old else ""
            mine = same_source(owner, judgment.source_path)
            if old and old.get("content_hash") == self.pipeline.hash_of(judgment):
                report.judgments_unchanged += 1
                if not mine:
                    report.warnings.append((item, f"the same judgment is already indexed from {owner}; left as it is"))
                self.progress("judgment", 1)
            elif old and not mine and not self.replace:
                report.failed.append((item, conflict_reason(judgment.judgment_id, owner)))
                self.progress("judgment", 1)
            else:
                if old and not mine:
                    report.warnings.append((item, f"replaced {judgment.judgment_id!r}, indexed from {owner}"))
                todo.append(judgment)
        processed = self._process(todo, report) if todo else []
        if not processed:
            return None
        return partial(self._commit, processed, stored)

    def _commit(self, processed: list[ProcessedJudgment], stored: dict[str, dict[str, Any]]) -> IndexReport:
        """Write chunks, then (for judgments whose chunks were all accepted) the judgment documents: the commit
        records. Returns what it did as a partial report, merged by the caller's thread; when the cluster could
        not be reached, the judgments without a commit record are listed as not written and ``stopped`` is set."""
        report = IndexReport()
        started = time.perf_counter()
        try:
            pending, results, unreachable = self._write_processed(processed, stored, report)
        finally:
            report.times.bulk += time.perf_counter() - started
        written = {p.judgment.judgment_id: p for p in processed if p.judgment.judgment_id in pending}
        for ok, item in results:
            result = next(iter(item.values()))
            p = written.pop(str(result.get("_id")))
            if ok:
                report.judgments_indexed += 1
                report.indexed_ids.append(p.judgment.judgment_id)
                report.chunks_indexed += len(p.chunks)
                report.sentences += len(p.sentences)
            else:
                report.failed.append((p.judgment.item,
                                      f"judgment rejected: {_reason(result)}"))
        if unreachable:  # no answer for these commit records: not written (their chunks may be)
            _not_written([p.judgment.item for p in written.values()], unreachable,
                         report)
            report.stopped = str(unreachable)
        report.progress = len(processed)
        return report

    def _write_processed(
        self, processed: list[ProcessedJudgment], stored: dict[str, dict[str, Any]], report: IndexReport,
    ) -> tuple[set[str], list[tuple[bool, dict[str, Any]]], ClusterUnreachable | None]:
        """Chunks first, then the judgment documents of the judgments whose chunks were all accepted (a rejected
        chunk is reported here). Returns the ids still to be committed, the judgment documents' results and
        the error that ended the writes early, if any."""
        chunk_alias = self.aliases["chunks"]
        actions: list[dict[str, Any]] = []
        for p in processed:
            for doc in chunk_documents(p):
                actions.append({"_op_type": "index", "_index": chunk_alias, "_id": doc["chunk_id"],
                                "_source": source_json(doc)})
            previous = int(stored.get(p.judgment.judgment_id, {}).get("n_chunks") or 0)
            for ordinal in range(len(p.chunks), previous):
                actions.append({"_op_type": "delete", "_index": chunk_alias,
                                "_id": f"{p.judgment.judgment_id}:{ordinal}"})
        chunk_results: list[tuple[bool, dict[str, Any]]] = []
        try:
            self._bulk(actions, chunk_results, report)
        except ClusterUnreachable as exc:
            return {p.judgment.judgment_id for p in processed}, [], exc
        failed_chunks: dict[str, str] = {}
        for ok, item in chunk_results:
            op, result = next(iter(item.items()))
            judgment_id = str(result.get("_id", "")).rsplit(":", 1)[0]
            if ok or (op == "delete" and result.get("status") == 404):
                if op == "delete":
                    report.chunks_deleted += 1 if ok else 0
                continue
            failed_chunks.setdefault(judgment_id, _reason(result))
        judgment_actions = []
        for p in processed:
            jid = p.judgment.judgment_id
            if jid in failed_chunks:
                report.failed.append((p.judgment.item, f"chunk rejected: {failed_chunks[jid]}"))
                continue
            judgment_actions.append({"_op_type": "index", "_index": self.aliases["judgments"], "_id": jid,
                                     "_source": source_json(judgment_document(p))})
        pending = {str(a["_id"]) for a in judgment_actions}
        results: list[tuple[bool, dict[str, Any]]] = []
        try:
            self._bulk(judgment_actions, results, report)
        except ClusterUnreachable as exc:
            return pending, results, exc
        return pending, results, None

    # ------------------------------------------------------------------ provisions
    def _write_provisions(self, batch: list[Provision], report: IndexReport) -> None:
        alias = self.aliases["provisions"]
        try:
            stored = self._stored(alias, [p.provision_id for p in batch], ["content_hash"], report)
        except ClusterUnreachable as exc:
            report.failed.extend((p.provision_id, f"not written: {exc}") for p in batch)
            raise
        actions = []
        for provision in batch:
            text = f"{provision.title}. {provision.text}" if provision.title else provision.text
            digest = hashlib.sha256(f"{self.pipeline.fingerprint}\x00{text}".encode()).hexdigest()
            if stored.get(provision.provision_id, {}).get("content_hash") == digest:
                report.provisions_unchanged += 1
                continue
            started = time.perf_counter()
            vector = self.pipeline.labeller.embed([text])[0]
            report.times.embed += time.perf_counter() - started
            actions.append({"_op_type": "index", "_index": alias, "_id": provision.provision_id,
                            "_source": source_json(provision_document(provision, vector, digest))})
        started = time.perf_counter()
        results: list[tuple[bool, dict[str, Any]]] = []
        unreachable = None
        try:
            self._bulk(actions, results, report)
        except ClusterUnreachable as exc:
            unreachable = exc
        unanswered = {str(a["_id"]) for a in actions}
        for ok, item in results:
            result = next(iter(item.values()))
            unanswered.discard(str(result.get("_id")))
            if ok:
                report.provisions_indexed += 1
            else:
                report.failed.append((str(result.get("_id")), f"provision rejected: {_reason(result)}"))
        report.failed.extend((provision_id, f"not written: {unreachable}") for provision_id in sorted(unanswered))
        report.times.bulk += time.perf_counter() - started
        self.progress("provision", len(batch))
        if unreachable:
            raise unreachable

    # ------------------------------------------------------------------ the run
    def run(self, items: Iterable[Judgment | Provision | LoadError]) -> IndexReport:
        """Index everything ``items`` yields; never raises for a bad item, nor when the cluster is gone (the
        report's ``stopped`` says so, and the items not yet read are left for a re-run).

        While one batch's documents are bulk-written on a second thread, the next batch is read and
        processed; batches are committed in order, one at a time. Periodic refresh is off during the run
        (when ``bulk.refresh_off``) and restored at the end, also when the run raises (an error, Ctrl-C), followed
        by one refresh; a run killed before that leaves a note the next run's start acts on
        (:mod:`indexer.bulk_settings`; the report's ``leftovers`` say what it found).
        """
        return self._load(lambda report: self._run(iter(items), report))

    def _run(self, iterator: Iterator[Judgment | Provision | LoadError], report: IndexReport) -> None:
        pending: Future[IndexReport] | None = None

        def settle() -> None:
            """Merge the commit in flight; a commit that met an unreachable cluster stops the run."""
            nonlocal pending
            if pending is not None:
                done, pending = pending.result(), None
                report.merge(done)
                self.progress("judgment", done.progress)
                if done.stopped:
                    report.stopped = done.stopped
                    raise ClusterUnreachable(done.stopped)

        def submit(commit: partial[IndexReport] | None) -> None:
            nonlocal pending
            try:
                settle()
            except ClusterUnreachable as exc:
                if commit is not None:  # processed, never sent
                    _not_written([p.judgment.item for p in commit.args[0]], exc,
                                 report)
                raise
            if commit is not None:
                pending = bulk.submit(commit)

        ids = RunIds()

        def refused(kind: str, item_id: str, item: str) -> bool:
            """Whether the item fails before any work: an id the cluster would refuse, or one already claimed."""
            reason = id_problem(item_id) or ids.claim(kind, item_id, item)
            if reason is not None:
                report.failed.append((item, reason))
                self.progress("error", 1)
            return reason is not None

        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ratio-bulk") as bulk:
            try:
                judgments: list[Judgment] = []
                provisions: list[Provision] = []
                while True:
                    loading = time.perf_counter()  # reading, decoding, metadata and citations count as parsing
                    item = next(iterator, None)
                    report.times.parse += time.perf_counter() - loading
                    if item is None:
                        break
                    if isinstance(item, LoadError):
                        report.failed.append((item.item, item.reason))
                        self.progress("error", 1)
                    elif isinstance(item, Provision):
                        if refused("provision", item.provision_id, item.source_path or item.provision_id):
                            continue
                        provisions.append(item)
                        if len(provisions) >= 64:
                            self._write_provisions(provisions, report)
                            provisions = []
                    else:
                        if refused("judgment", item.judgment_id, item.item):
                            continue
                        report.warnings.extend((item.item, w) for w in item.warnings)
                        judgments.append(item)
                        if len(judgments) >= self.batch_size:
                            batch, judgments = judgments, []
                            submit(self._write_judgments(batch, report))
                if judgments:
                    submit(self._write_judgments(judgments, report))
                settle()
                if provisions:
                    self._write_provisions(provisions, report)
            except ClusterUnreachable:
                if pending is not None:  # the commit in flight tells what it wrote before the run stops
                    done = pending.result()
                    report.merge(done)
                    self.progress("judgment", done.progress)
                raise


def written_indices(aliases: dict[str, str]) -> str:
    """The aliases a run writes, comma-separated (the saved-search index is absent on a cluster without
    percolator, and never written here)."""
    return ",".join(aliases[k] for k in ("judgments", "chunks", "provisions"))


def _not_written(items: list[str], exc: ClusterUnreachable, report: IndexReport) -> None:
    report.failed.extend((item, f"not written: {exc}") for item in items)


def _short(exc: TransportError) -> str:
    """The gist of a transport error: the operating system's words for a connection error ("[Errno 111]
    Connection refused") rather than urllib3's nested repr, the cluster's type and reason for a refusal, each
    long unbroken token (a 600-byte id) cut to its start, and at most 200 characters."""
    info = exc.info if isinstance(exc.info, dict) else {}
    error = info.get("error")
    if isinstance(error, dict) and error.get("reason"):
        text = f"{error.get('type')}: {error.get('reason')}"
    else:
        text = str(exc.error if isinstance(exc.error, str) else exc)
    errno = text.find("[Errno ")
    if errno >= 0:
        text = text[errno:].split("'")[0].split(")")[0]
    text = _LONG_TOKEN.sub(lambda match: match.group()[:40] + "...", text)
    return text if len(text) <= 200 else text[:200] + "..."


def _reason(result: dict[str, Any]) -> str:
    error = result.get("error")
    if isinstance(error, dict):
        return f"{error.get('type')}: {error.get('reason')}"
    return str(error or f"status {result.get('status')}")
