"""The index settings a load switches for speed, put back after every run (also after an error or Ctrl-C), and a
leftover of an earlier run found and put back at the start of the next one.

A load turns periodic refresh off (``refresh_interval: -1``, :data:`SWITCHED`): fewer, larger segments. Before it
switches an index it writes a note in the index's mapping ``_meta`` (``bulk_load``: the values it changes, and the
run that changed them: host, process id, start); :func:`restore` puts the values back and removes the note. A run
killed before that (``kill -9``, a lost machine, a node that went away during the restore) leaves the note, and the
next run's :func:`pause` finds it and decides by the note's run:

- a process of this host that is gone: a leftover, put back to the note's values, and said in the report;
- a live process of this host, or a process of another host (this one cannot see it): a run in progress, left to
  it (the report says so: if that run is gone, re-running on its host, or ``PUT INDEX/_settings
  {"index": {"refresh_interval": null}}``, ends the pause; a note on an index no longer switched is stale);
- no note, but a switched value (a run of a Ratio before the note, or a hand): put back to the index default.

The note lives on the index itself, so every machine writing to the cluster sees it; the node's state is the only
record. A new index version (``indices upgrade``) starts from its definition, without a note.
"""

from __future__ import annotations

import itertools
import os
import socket
import time
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import OpenSearch
from opensearchpy.exceptions import NotFoundError

__all__ = ["NOTE", "SWITCHED", "Holder", "Pause", "pause", "restore"]

# What a load switches, as flat index settings with the value it sets (number_of_replicas and translog durability
# are left as they are: replicas keep a multi-node cluster's copies, and an async translog loses acknowledged writes).
SWITCHED: dict[str, str] = {"index.refresh_interval": "-1"}
NOTE = "bulk_load"  # the key in the index's mapping _meta

_runs = itertools.count()
_ACTIVE: set[str] = set()  # the runs of this process holding a pause now (a process can run writers in turn)


@dataclass(frozen=True)
class Holder:
    """The run that switched an index's settings: where it runs and since when."""

    host: str
    pid: int
    started: str
    run: str

    @classmethod
    def this_process(cls) -> Holder:
        return cls(socket.gethostname(), os.getpid(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   f"{os.getpid()}-{next(_runs)}-{time.time_ns()}")

    @classmethod
    def from_note(cls, note: dict[str, Any]) -> Holder:
        return cls(str(note.get("host", "?")), int(note.get("pid", 0)), str(note.get("started", "?")),
                   str(note.get("run", "")))

    def alive(self) -> bool | None:
        """Whether the run is still going; None when it runs on another host (its processes cannot be seen)."""
        if self.host != socket.gethostname():
            return None
        if self.pid == os.getpid():
            return self.run in _ACTIVE
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # a process of another user
            return True
        return True

    def __str__(self) -> str:
        return f"process {self.pid} on {self.host}, started {self.started}"


@dataclass
class Pause:
    """What a run switched (``changed``: index -> setting -> the value before, None for the index default) and what
    its start found of earlier runs (``found``: one sentence each, for the run's report)."""

    holder: Holder
    changed: dict[str, dict[str, str | None]] = field(default_factory=dict)
    found: list[str] = field(default_factory=list)


def pause(client: OpenSearch, indices: str, holder: Holder | None = None) -> Pause:
    """Switch :data:`SWITCHED` on ``indices`` (comma-separated names or aliases) for a load, noting on each index
    the values to put back; a leftover of an earlier run is put back first (see the module docstring)."""
    holder = holder or Holder.this_process()
    done = Pause(holder)
    settings = client.indices.get_settings(index=indices, params={"flat_settings": "true"})
    metas = client.indices.get_mapping(index=indices)
    _ACTIVE.add(holder.run)
    try:
        _pause(client, settings, metas, done)
    except BaseException:  # what was switched is noted: a retry with the same holder, or the next run, puts it back
        _ACTIVE.discard(holder.run)
        raise
    return done


def _pause(client: OpenSearch, settings: dict[str, Any], metas: dict[str, Any], done: Pause) -> None:
    holder = done.holder
    for index in sorted(settings):
        current = settings[index]["settings"]
        meta = dict(metas.get(index, {}).get("mappings", {}).get("_meta") or {})
        values: dict[str, str | None] = {name: current.get(name) for name in SWITCHED}
        switched = [name for name, value in SWITCHED.items() if values[name] == value]
        note = meta.get(NOTE)
        if isinstance(note, dict) and note.get("run") == holder.run:  # this run's own, from a try that failed
            values = {name: note.get("settings", {}).get(name) for name in SWITCHED}
        elif isinstance(note, dict):
            other = Holder.from_note(note)
            alive = other.alive()
            if alive or (alive is None and switched):  # another host's note on an index set back by hand: stale
                where = "" if alive else " (on another host; if it is gone, re-run there, or set the values back)"
                done.found.append(f"{index}: {_names(switched or list(SWITCHED))} switched by a run in progress, "
                                  f"{other}{where}: left to it")
                continue
            recorded = {name: note.get("settings", {}).get(name) for name in SWITCHED}
            back = {name: recorded[name] for name in switched}
            if back:
                client.indices.put_settings(index=index, body=back)
                done.found.append(f"{index}: {_values(back)} put back, left switched by an interrupted run ({other})")
            values.update(back)
        elif switched:
            back = {name: None for name in switched}
            client.indices.put_settings(index=index, body=back)
            done.found.append(f"{index}: {_names(switched)} found switched with no run recorded: back to the index "
                              "default")
            values.update(back)
        meta[NOTE] = {"settings": values, "host": holder.host, "pid": holder.pid, "started": holder.started,
                      "run": holder.run}
        client.indices.put_mapping(index=index, body={"_meta": meta})  # the note first: a kill now leaves it
        client.indices.put_settings(index=index, body=dict(SWITCHED))
        done.changed[index] = values


def restore(client: OpenSearch, paused: Pause) -> None:
    """Put back what :func:`pause` switched and remove its notes (an index deleted meanwhile is skipped)."""
    try:
        for index, values in list(paused.changed.items()):
            try:
                client.indices.put_settings(index=index, body=values)
                meta = dict(client.indices.get_mapping(index=index)[index]["mappings"].get("_meta") or {})
                note = meta.get(NOTE)
                if isinstance(note, dict) and note.get("run") == paused.holder.run:  # another run's note stays
                    del meta[NOTE]
                    client.indices.put_mapping(index=index, body={"_meta": meta})
            except NotFoundError:
                pass
            del paused.changed[index]
    finally:  # a restore that failed leaves the note: the next run (of any process) puts the values back
        _ACTIVE.discard(paused.holder.run)


def _names(names: list[str]) -> str:
    return ", ".join(name.removeprefix("index.") for name in names)


def _values(values: dict[str, str | None]) -> str:
    return ", ".join(f"{name.removeprefix('index.')} {value if value is not None else '(default)'}"
                     for name, value in values.items())
