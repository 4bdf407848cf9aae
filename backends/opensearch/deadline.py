"""A deadline for the OpenSearch requests a piece of work makes, wherever in the stack it makes them.

A server gives a request's work a deadline, but the work runs in a thread, which cannot be stopped, and its
searches run on the node, which goes on until they finish. Under :func:`opensearch_deadline` every request
the client's transport sends (:class:`backends.opensearch.client.NodeLossTransport`) honours the deadline:

* a ``_search`` or ``_msearch`` carries ``cancel_after_time_interval`` set to the time left, so the node
  cancels it (its shard tasks too) when the deadline passes;
* every request carries ``X-Opaque-Id: <label>``, which the node's tasks API and slow logs show;
* a request begun after the deadline, or answered after it, raises :class:`DeadlinePassedError` (a
  ``TimeoutError``): the abandoned work stops at its next request instead of running to its end.

The deadline lives in a context variable, so it covers the calls made by the code running inside the block
(one thread's) and no other.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

__all__ = ["Deadline", "DeadlinePassedError", "current_deadline", "opensearch_deadline"]

_CANCELLABLE = re.compile(r"/_(?:search|msearch)$")  # requests that take cancel_after_time_interval


class DeadlinePassedError(TimeoutError):
    """An OpenSearch request was begun, or answered, after its work's deadline."""


@dataclass(frozen=True)
class Deadline:
    """When the work must end (``time.monotonic()`` seconds) and the label its requests carry."""

    at: float
    label: str

    def remaining(self) -> float:
        return self.at - time.monotonic()

    def check(self, what: str) -> None:
        if self.remaining() <= 0:
            raise DeadlinePassedError(f"{what} after the work's deadline ({self.label}): not sent")

    def apply(self, url: str, params: Mapping[str, Any] | None,
              headers: Mapping[str, str] | None) -> tuple[dict[str, Any], dict[str, str]]:
        """``params`` and ``headers`` for a request to ``url`` under this deadline (DeadlinePassedError when it
        has passed already)."""
        self.check(f"a request to {url.split('?')[0]}")
        params = dict(params or {})
        if _CANCELLABLE.search(url.split("?")[0]) and "scroll_id" not in params:
            params.setdefault("cancel_after_time_interval", f"{max(math.ceil(self.remaining() * 1000), 1)}ms")
        return params, {**(headers or {}), "X-Opaque-Id": self.label}


_CURRENT: ContextVar[Deadline | None] = ContextVar("ratio_opensearch_deadline", default=None)


def current_deadline() -> Deadline | None:
    """The deadline of the code running now (None outside :func:`opensearch_deadline`)."""
    return _CURRENT.get()


@contextmanager
def opensearch_deadline(seconds: float, label: str) -> Iterator[Deadline]:
    """OpenSearch requests made inside the block end within ``seconds`` (see the module docstring); an
    enclosing deadline that ends sooner stays in force."""
    deadline = Deadline(time.monotonic() + seconds, label)
    outer = _CURRENT.get()
    if outer is not None and outer.at < deadline.at:
        deadline = Deadline(outer.at, label)
    token = _CURRENT.set(deadline)
    try:
        yield deadline
    finally:
        _CURRENT.reset(token)
