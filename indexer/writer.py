"""Streaming loaded judgments and provisions into OpenSearch, idempotently, with a report.

Judgments are handled in batches. For each batch the stored ``content_hash`` of every judgment is read
first (one ``mget``); a judgment whose hash matches is counted as unchanged and costs nothing more. A
changed or new judgment is processed, its chunks are written (and chunks left over from a longer earlier
version deleted), and only when all of its chunks were accepted is the judgment document written: the
judgment document, with its hash, is the commit record, so an interrupted or partly failed judgment is
simply processed again next time. Nothing is ever deleted for an item that failed to load.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import OpenSearch, helpers

from indexer.document import Judgment, LoadError, Provision
from indexer.documents import chunk_documents, judgment_document, provision_document
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

    def merge(self, other: IndexReport) -> None:
        """Add a commit's partial report to this one."""
        for name in ("judgments_indexed", "chunks_indexed", "chunks_deleted", "sentences"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.indexed_ids.extend(other.indexed_ids)
        self.failed.extend(other.failed)
        self.times.add(other.times)

    def as_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items()
                if k not in ("failed", "warnings", "times", "indexed_ids", "progress")}
        data["failed"] = [{"item": item, "reason": reason} for item, reason in self.failed]
        data["warnings"] = [{"item": item, "warning": warning} for item, warning in self.warnings]
        data["times"] = self.times.as_dict()
        return data


@dataclass(frozen=True)
class BulkSettings:
    """Bulk request sizing and retries (429s are retried with exponential backoff)."""

    chunk_size: int = 500
    max_chunk_bytes: int = 10 * 1024 * 1024
    max_retries: int = 5
    initial_backoff: float = 2.0
    request_timeout: float = 120.0
    refresh_off: bool = True  # no periodic refresh during a run; one refresh at the end


Progress = Callable[[str, int], None]  # (what, how many) after each judgment or provision


class IndexWriter:
    """Writes judgments to the ``judgments`` and ``chunks`` aliases and provisions to ``provisions``."""

    def __init__(self, client: OpenSearch, aliases: dict[str, str], pipeline: Pipeline, *,
                 batch_size: int = 16, bulk: BulkSettings | None = None, progress: Progress | None = None):
        self.client = client
        self.aliases = aliases
        self.pipeline = pipeline
        self.batch_size = batch_size
        self.bulk = bulk or BulkSettings()
        self.progress = progress or (lambda what, n: None)

    # ------------------------------------------------------------------ bulk plumbing
    def _stream(self, actions: Iterable[dict[str, Any]]) -> Iterator[tuple[bool, dict[str, Any]]]:
        b = self.bulk
        yield from helpers.streaming_bulk(
            self.client, actions, chunk_size=b.chunk_size, max_chunk_bytes=b.max_chunk_bytes,
            max_retries=b.max_retries, initial_backoff=b.initial_backoff, raise_on_error=False,
            raise_on_exception=False, request_timeout=b.request_timeout,
        )

    def _stored(self, alias: str, ids: list[str], fields: list[str]) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        response = self.client.mget(index=alias, body={"ids": ids}, params={"_source_includes": ",".join(fields)})
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
                    report.failed.append((judgment.source_path or judgment.judgment_id,
                                          f"processing failed: {type(exc).__name__}: {exc}"))
                    self.progress("judgment", 1)
        for p in processed:
            report.times.add(p.times)
        return processed

    def _write_judgments(self, batch: list[Judgment], report: IndexReport) -> Callable[[], IndexReport] | None:
        """Process the changed judgments of ``batch`` now; return the bulk write of their chunks and judgment
        documents as a function (run on the writer's thread while the next batch is processed)."""
        stored = self._stored(self.aliases["judgments"], [j.judgment_id for j in batch], ["content_hash", "n_chunks"])
        todo = []
        for judgment in batch:
            old = stored.get(judgment.judgment_id)
            if old and old.get("content_hash") == self.pipeline.hash_of(judgment):
                report.judgments_unchanged += 1
                self.progress("judgment", 1)
            else:
                todo.append(judgment)
        processed = self._process(todo, report) if todo else []
        if not processed:
            return None
        return lambda: self._commit(processed, stored)

    def _commit(self, processed: list[ProcessedJudgment], stored: dict[str, dict[str, Any]]) -> IndexReport:
        """Write chunks, then (for judgments whose chunks were all accepted) the judgment documents: the commit
        records. Returns what it did as a partial report, merged by the caller's thread."""
        report = IndexReport()
        started = time.perf_counter()
        chunk_alias = self.aliases["chunks"]
        actions: list[dict[str, Any]] = []
        for p in processed:
            for doc in chunk_documents(p):
                actions.append({"_op_type": "index", "_index": chunk_alias, "_id": doc["chunk_id"], "_source": doc})
            previous = int(stored.get(p.judgment.judgment_id, {}).get("n_chunks") or 0)
            for ordinal in range(len(p.chunks), previous):
                actions.append({"_op_type": "delete", "_index": chunk_alias,
                                "_id": f"{p.judgment.judgment_id}:{ordinal}"})
        failed_chunks: dict[str, str] = {}
        for ok, item in self._stream(actions):
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
                report.failed.append((p.judgment.source_path or jid, f"chunk rejected: {failed_chunks[jid]}"))
                continue
            judgment_actions.append({"_op_type": "index", "_index": self.aliases["judgments"], "_id": jid,
                                     "_source": judgment_document(p)})
        written = {p.judgment.judgment_id: p for p in processed}
        for ok, item in self._stream(judgment_actions):
            result = next(iter(item.values()))
            p = written[str(result.get("_id"))]
            if ok:
                report.judgments_indexed += 1
                report.indexed_ids.append(p.judgment.judgment_id)
                report.chunks_indexed += len(p.chunks)
                report.sentences += len(p.sentences)
            else:
                report.failed.append((p.judgment.source_path or p.judgment.judgment_id,
                                      f"judgment rejected: {_reason(result)}"))
        report.times.bulk += time.perf_counter() - started
        report.progress = len(processed)
        return report

    # ------------------------------------------------------------------ provisions
    def _write_provisions(self, batch: list[Provision], report: IndexReport) -> None:
        alias = self.aliases["provisions"]
        stored = self._stored(alias, [p.provision_id for p in batch], ["content_hash"])
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
                            "_source": provision_document(provision, vector, digest)})
        started = time.perf_counter()
        for ok, item in self._stream(actions):
            result = next(iter(item.values()))
            if ok:
                report.provisions_indexed += 1
            else:
                report.failed.append((str(result.get("_id")), f"provision rejected: {_reason(result)}"))
        report.times.bulk += time.perf_counter() - started
        self.progress("provision", len(batch))

    # ------------------------------------------------------------------ the run
    def _indices(self) -> str:
        # Only what this writer writes: the saved-search index is absent on a cluster without percolator.
        return ",".join(self.aliases[k] for k in ("judgments", "chunks", "provisions"))

    def _refresh_off(self) -> dict[str, str | None]:
        """Turn periodic refresh off for the load (fewer, larger segments); returns what to restore."""
        current = self.client.indices.get_settings(index=self._indices(), name="index.refresh_interval",
                                                   params={"flat_settings": "true"})
        before = {index: body["settings"].get("index.refresh_interval") for index, body in current.items()}
        self.client.indices.put_settings(index=self._indices(), body={"index": {"refresh_interval": "-1"}})
        return before

    def _restore_refresh(self, before: dict[str, str | None]) -> None:
        for index, interval in before.items():
            # "-1" left by an interrupted earlier run is not worth restoring: back to the index default.
            value = None if interval in (None, "-1") else interval
            self.client.indices.put_settings(index=index, body={"index": {"refresh_interval": value}})

    def run(self, items: Iterable[Judgment | Provision | LoadError]) -> IndexReport:
        """Index everything ``items`` yields; never raises for a bad item.

        While one batch's documents are bulk-written on a second thread, the next batch is read and
        processed; batches are committed in order, one at a time. Periodic refresh is off during the run
        (when ``bulk.refresh_off``) and restored at the end, followed by one refresh.
        """
        report = IndexReport()
        started = time.perf_counter()
        before = self._refresh_off() if self.bulk.refresh_off else {}
        pending: Future[IndexReport] | None = None

        def settle() -> None:
            nonlocal pending
            if pending is not None:
                partial = pending.result()
                report.merge(partial)
                self.progress("judgment", partial.progress)
                pending = None

        try:
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ratio-bulk") as bulk:
                judgments: list[Judgment] = []
                provisions: list[Provision] = []
                iterator = iter(items)
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
                        provisions.append(item)
                        if len(provisions) >= 64:
                            self._write_provisions(provisions, report)
                            provisions = []
                    else:
                        report.warnings.extend((item.source_path or item.judgment_id, w) for w in item.warnings)
                        judgments.append(item)
                        if len(judgments) >= self.batch_size:
                            commit = self._write_judgments(judgments, report)
                            judgments = []
                            settle()
                            if commit is not None:
                                pending = bulk.submit(commit)
                if judgments:
                    commit = self._write_judgments(judgments, report)
                    settle()
                    if commit is not None:
                        pending = bulk.submit(commit)
                settle()
                if provisions:
                    self._write_provisions(provisions, report)
        finally:
            if before:
                self._restore_refresh(before)
        self.client.indices.refresh(index=self._indices())
        report.seconds = time.perf_counter() - started
        return report


def _reason(result: dict[str, Any]) -> str:
    error = result.get("error")
    if isinstance(error, dict):
        return f"{error.get('type')}: {error.get('reason')}"
    return str(error or f"status {result.get('status')}")
