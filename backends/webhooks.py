"""POSTing JSON to a webhook, with retries, a timeout, an address policy and a result instead of an exception.

Webhooks are other people's servers: they go away, time out and answer 502 while they restart. A delivery
is retried (exponential backoff, by tenacity) on a refused or dropped connection, a timeout, 429 and 5xx;
other answers are final (a 4xx will not change by asking again). Whatever happens, :func:`post_json`
returns a :class:`WebhookResult` saying what did, so a caller sending many alerts can report one failure
and carry on with the rest.

A webhook URL is also a way to make the server send requests where its caller cannot (SSRF): the cloud's
metadata service, OpenSearch on localhost, the private network. :class:`WebhookPolicy` says which addresses
a hook may reach: public addresses only, unless the operator allows hosts or networks by name. It is
checked twice: when a URL is accepted (:func:`check_url` resolves the host) and when a delivery connects
(the socket's peer address, so a name that resolves elsewhere the second time, DNS rebinding, is refused
too). Error messages never carry the hook's response body, and URLs with credentials are refused.
With a secret, each delivery carries ``X-Ratio-Signature: sha256=<hex HMAC-SHA256 of the body>``.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
from requests.adapters import HTTPAdapter
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

__all__ = ["SIGNATURE_HEADER", "UnsafeWebhookError", "WebhookPolicy", "WebhookResult", "check_url", "mask_url",
           "post_json", "sign"]

USER_AGENT = "ratio-alerts/1"
SIGNATURE_HEADER = "X-Ratio-Signature"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class UnsafeWebhookError(ValueError):
    """A webhook URL the policy refuses (private address, credentials, not http(s)); the message says why."""


@dataclass(frozen=True)
class WebhookPolicy:
    """Where webhooks may go: public addresses, plus the ``hosts`` (exact names) and ``networks`` allowed.

    ``secret``, when set, signs every payload (see :func:`sign`).
    """

    hosts: frozenset[str] = frozenset()
    networks: tuple[Network, ...] = ()
    secret: str | None = field(default=None, repr=False)

    @classmethod
    def from_entries(cls, entries: Iterable[str], secret: str | None = None) -> WebhookPolicy:
        """From allow-list entries: an address or CIDR network (``127.0.0.1``, ``10.0.0.0/8``) or a host name."""
        hosts, networks = set(), []
        for entry in (e.strip() for e in entries):
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
            except ValueError:
                hosts.add(entry.lower().rstrip("."))
        return cls(frozenset(hosts), tuple(networks), secret or None)

    def refusal(self, address: Address, host: str = "") -> str | None:
        """Why ``address`` (reached through ``host``) is refused, or None when a hook may go there."""
        if host.lower().rstrip(".") in self.hosts:
            return None
        for candidate in _embedded(address):
            if any(candidate.version == n.version and candidate in n for n in self.networks):
                return None
            kind = _non_public(candidate)
            if kind:
                return f"{candidate} ({kind})"
        return None


def _embedded(address: Address) -> list[Address]:
    """The address and any IPv4 address it carries (IPv4-mapped, 6to4, Teredo), so none hides another."""
    found: list[Address] = []
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped:
            found.append(address.ipv4_mapped)
        if address.sixtofour:
            found.append(address.sixtofour)
        if address.teredo:
            found.extend(address.teredo)
    return [*found, address]


def _non_public(address: Address) -> str | None:
    checks = (("loopback", address.is_loopback), ("link-local (cloud metadata)", address.is_link_local),
              ("multicast", address.is_multicast), ("unspecified", address.is_unspecified),
              ("reserved", address.is_reserved), ("private", address.is_private),
              ("non-public", not address.is_global))
    return next((kind for kind, hit in checks if hit), None)


def mask_url(url: str) -> str:
    """``url`` with any ``user:password@`` replaced by ``***@`` (for showing a stored URL)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]))


def _resolve(host: str, port: int) -> list[Address]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UnsafeWebhookError(f"the webhook host {host!r} does not resolve ({exc})") from None
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


def check_url(url: str, policy: WebhookPolicy) -> str:
    """``url`` stripped, when it is an http(s) URL without credentials whose host resolves only to addresses
    ``policy`` allows; raises :class:`UnsafeWebhookError` saying why not. (Numeric forms such as
    ``0x7f000001`` or ``2130706433`` resolve like the address they stand for, and are judged as that.)"""
    url = url.strip()
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise UnsafeWebhookError(f"a webhook is an http:// or https:// URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UnsafeWebhookError("a webhook is an http:// or https:// URL with a host")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise UnsafeWebhookError("a webhook URL may not carry credentials (user:password@): use a token in "
                                 "the path, or sign payloads with the webhook secret")
    for address in _resolve(parts.hostname, port):
        reason = policy.refusal(address, parts.hostname)
        if reason:
            raise UnsafeWebhookError(f"webhooks may only reach public hosts: {parts.hostname} resolves to "
                                     f"{reason} (allow it with RATIO_WEBHOOK_ALLOW)")
    return url


def sign(body: bytes, secret: str) -> str:
    """The signature header's value: ``sha256=`` and the hex HMAC-SHA256 of ``body`` under ``secret``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


# ---------------------------------------------------------------- connections checked at connect time

class _RefusedPeer(Exception):
    """The connection reached an address the policy refuses (it is closed before anything is sent)."""


def _guarded(base: type[HTTPConnection], policy: WebhookPolicy) -> type[HTTPConnection]:
    class Guarded(base):  # type: ignore[valid-type, misc]
        def _new_conn(self) -> socket.socket:
            sock = super()._new_conn()
            peer = ipaddress.ip_address(str(sock.getpeername()[0]).split("%", 1)[0])
            reason = policy.refusal(peer, self.host)
            if reason:
                sock.close()
                raise _RefusedPeer(f"refused to connect to {self.host}: it now resolves to {reason}")
            return sock

    return Guarded


class _GuardedAdapter(HTTPAdapter):
    """A transport whose every connection checks the address it reached against the policy."""

    def __init__(self, policy: WebhookPolicy) -> None:
        self._policy = policy
        super().__init__(max_retries=0)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        policy = self._policy
        http = type("GuardedHTTPPool", (HTTPConnectionPool,), {"ConnectionCls": _guarded(HTTPConnection, policy)})
        https = type("GuardedHTTPSPool", (HTTPSConnectionPool,),
                     {"ConnectionCls": _guarded(HTTPSConnection, policy)})
        self.poolmanager.pool_classes_by_scheme = {"http": http, "https": https}


def guarded_session(policy: WebhookPolicy) -> requests.Session:
    """A requests session that ignores proxy variables and refuses peers ``policy`` refuses."""
    session = requests.Session()
    session.trust_env = False  # a proxy would hide the peer address
    adapter = _GuardedAdapter(policy)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


# ---------------------------------------------------------------- delivery

@dataclass(frozen=True)
class WebhookResult:
    """The outcome of one delivery: ``status`` is the last HTTP status (None if no answer came)."""

    ok: bool
    status: int | None
    attempts: int
    error: str | None = None


class _Retryable(Exception):
    """An answer worth asking again for (429, 5xx). The body is not kept: it is the hook's, not ours to show."""

    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status


_TRANSIENT = (requests.ConnectionError, requests.Timeout, _Retryable)


def post_json(url: str, payload: dict[str, Any], *, policy: WebhookPolicy | None = None, timeout: float = 10.0,
              attempts: int = 3, backoff: float = 0.5, session: requests.Session | None = None) -> WebhookResult:
    """POST ``payload`` as JSON to ``url``; never raises for a network, HTTP or policy failure.

    ``policy`` (default: public addresses only) is checked on the URL and again on every connection;
    ``timeout`` bounds each attempt (connect and read); ``attempts`` counts the first try; waits between
    tries grow from ``backoff`` seconds. Redirects are not followed: a webhook that moved should be saved again.
    """
    if attempts < 1:
        raise ValueError(f"attempts must be at least 1, not {attempts}")
    policy = policy or WebhookPolicy()
    try:
        url = check_url(url, policy)
    except UnsafeWebhookError as exc:
        return WebhookResult(False, None, 0, f"refused: {exc}")
    body = json.dumps(payload, separators=(",", ":")).encode()
    headers = {"User-Agent": USER_AGENT, "Content-Type": "application/json"}
    if policy.secret:
        headers[SIGNATURE_HEADER] = sign(body, policy.secret)
    http = session or guarded_session(policy)
    tries = 0
    last_status: int | None = None

    def attempt() -> requests.Response:
        nonlocal tries, last_status
        tries += 1
        response = http.post(url, data=body, timeout=timeout, allow_redirects=False, headers=headers)
        last_status = response.status_code
        response.close()
        if response.status_code == 429 or response.status_code >= 500:
            raise _Retryable(response.status_code)
        return response

    retrying = Retrying(stop=stop_after_attempt(attempts), wait=wait_exponential(multiplier=backoff, max=30),
                        retry=retry_if_exception_type(_TRANSIENT), reraise=True)
    try:
        response = retrying(attempt)
    except _RefusedPeer as exc:
        return WebhookResult(False, None, tries, f"refused: {exc}")
    except _TRANSIENT as exc:
        return WebhookResult(False, last_status, tries, _describe(exc))
    except (requests.RequestException, RetryError) as exc:  # an invalid URL, too many redirects, ...
        return WebhookResult(False, last_status, tries, _describe(exc))
    finally:
        if session is None:
            http.close()
    if 200 <= response.status_code < 300:
        return WebhookResult(True, response.status_code, tries)
    return WebhookResult(False, response.status_code, tries, f"HTTP {response.status_code}")


def _describe(exc: BaseException) -> str:
    """The kind of failure, without the URL's secrets or the hook's words."""
    if isinstance(exc, _Retryable):
        return str(exc)
    if isinstance(exc, requests.Timeout):
        return "Timeout: the webhook did not answer in time"
    if isinstance(exc, requests.ConnectionError):
        return "ConnectionError: the webhook could not be reached"
    return type(exc).__name__
