"""POSTing JSON to a webhook, with retries, a timeout and a result instead of an exception.

Webhooks are other people's servers: they go away, time out and answer 502 while they restart. A delivery
is retried (exponential backoff, by tenacity) on a refused or dropped connection, a timeout, 429 and 5xx;
other answers are final (a 4xx will not change by asking again). Whatever happens, :func:`post_json`
returns a :class:`WebhookResult` saying what did, so a caller sending many alerts can report one failure
and carry on with the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import requests
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

__all__ = ["WebhookResult", "post_json"]

USER_AGENT = "ratio-alerts/1"


@dataclass(frozen=True)
class WebhookResult:
    """The outcome of one delivery: ``status`` is the last HTTP status (None if no answer came)."""

    ok: bool
    status: int | None
    attempts: int
    error: str | None = None


class _Retryable(Exception):
    """An answer worth asking again for (429, 5xx)."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(f"HTTP {status}: {text[:200]}")
        self.status = status


_TRANSIENT = (requests.ConnectionError, requests.Timeout, _Retryable)


def post_json(url: str, payload: dict[str, Any], *, timeout: float = 10.0, attempts: int = 3,
              backoff: float = 0.5, session: requests.Session | None = None) -> WebhookResult:
    """POST ``payload`` as JSON to ``url``; never raises for a network or HTTP failure.

    ``timeout`` bounds each attempt (connect and read); ``attempts`` counts the first try; waits between
    tries grow from ``backoff`` seconds. Redirects are not followed: a webhook that moved should be saved again.
    """
    if attempts < 1:
        raise ValueError(f"attempts must be at least 1, not {attempts}")
    http = session or requests.Session()
    tries = 0
    last_status: int | None = None

    def attempt() -> requests.Response:
        nonlocal tries, last_status
        tries += 1
        response = http.post(url, json=payload, timeout=timeout, allow_redirects=False,
                             headers={"User-Agent": USER_AGENT})
        last_status = response.status_code
        if response.status_code == 429 or response.status_code >= 500:
            raise _Retryable(response.status_code, response.text)
        return response

    retrying = Retrying(stop=stop_after_attempt(attempts), wait=wait_exponential(multiplier=backoff, max=30),
                        retry=retry_if_exception_type(_TRANSIENT), reraise=True)
    try:
        response = retrying(attempt)
    except _TRANSIENT as exc:
        return WebhookResult(False, last_status, tries, f"{type(exc).__name__}: {exc}")
    except (requests.RequestException, RetryError) as exc:  # an invalid URL, too many redirects, ...
        return WebhookResult(False, last_status, tries, f"{type(exc).__name__}: {exc}")
    finally:
        if session is None:
            http.close()
    if 200 <= response.status_code < 300:
        return WebhookResult(True, response.status_code, tries)
    return WebhookResult(False, response.status_code, tries, f"HTTP {response.status_code}: {response.text[:200]}")
