"""Webhook deliveries against real HTTP servers on loopback: the address policy (at save and at connect
time), signatures, and what a failed delivery may say. No OpenSearch is needed."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from backends.webhooks import (
    SIGNATURE_HEADER,
    UnsafeWebhookError,
    WebhookPolicy,
    check_url,
    guarded_session,
    mask_url,
    post_json,
    sign,
)

PUBLIC_ONLY = WebhookPolicy()
LOOPBACK = WebhookPolicy.from_entries(["127.0.0.0/8"], secret="hook-secret")
SECRET_BODY = "internal: db password is hunter2"


class _Hook(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[dict[str, str], bytes]]] = []
    status: ClassVar[int] = 204

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((dict(self.headers), body))
        self.send_response(self.status)
        payload = SECRET_BODY.encode() if self.status >= 400 else b""
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


def _serve(status: int) -> Iterator[tuple[str, list]]:
    handler = type("Hook", (_Hook,), {"received": [], "status": status})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler.received
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def hook() -> Iterator[tuple[str, list]]:
    yield from _serve(204)


@pytest.fixture
def failing_hook() -> Iterator[tuple[str, list]]:
    yield from _serve(500)


@pytest.mark.parametrize("url, reason", [
    ("http://169.254.169.254/latest/meta-data/", "link-local"),
    ("http://10.1.2.3/hook", "private"),
    ("http://192.168.0.10/hook", "private"),
    ("http://localhost:9200/_cat/indices", "loopback"),
    ("http://127.0.0.1:9200/", "loopback"),
    ("http://0x7f000001/", "loopback"),
    ("http://2130706433/", "loopback"),
    ("http://0177.0.0.1/", "loopback"),
    ("http://[::1]/", "loopback"),
    ("http://[::ffff:127.0.0.1]/", "loopback"),
    ("http://[::ffff:a9fe:a9fe]/", "link-local"),
    ("http://0.0.0.0/", "unspecified"),
    ("http://224.0.0.1/", "multicast"),
    ("http://100.100.100.200/", "non-public"),
    ("http://[fd00:ec2::254]/", "private"),
    ("http://user:pass@example.org/hook", "credentials"),
    ("ftp://example.org/hook", "http"),
    ("http:///nohost", "http"),
])
def test_non_public_targets_and_credentials_are_refused(url: str, reason: str) -> None:
    with pytest.raises(UnsafeWebhookError, match=reason):
        check_url(url, PUBLIC_ONLY)


def test_public_addresses_pass_and_the_allow_list_opens_internal_ones() -> None:
    assert check_url(" http://8.8.8.8/hook ", PUBLIC_ONLY) == "http://8.8.8.8/hook"
    assert check_url("http://127.0.0.1:9/x", LOOPBACK) == "http://127.0.0.1:9/x"
    assert check_url("http://localhost:9/x", WebhookPolicy.from_entries(["localhost"])) == "http://localhost:9/x"
    with pytest.raises(UnsafeWebhookError, match="private"):
        check_url("http://10.0.0.1/", LOOPBACK)  # allowing loopback allows nothing else


def test_masking_hides_credentials() -> None:
    assert mask_url("https://bob:pw@hooks.example/x?y=1") == "https://***@hooks.example/x?y=1"
    assert mask_url("https://hooks.example/x") == "https://hooks.example/x"


def test_a_refused_hook_gets_nothing(hook) -> None:
    url, received = hook
    result = post_json(url, {"a": 1}, policy=PUBLIC_ONLY, attempts=1)
    assert not result.ok and result.attempts == 0 and "loopback" in result.error
    assert received == []


def test_the_address_is_checked_again_when_connecting(hook) -> None:
    """DNS rebinding: a name that passed the check may resolve to a private address at send time. The
    session checks the peer of every connection, so a loopback peer is refused whatever the URL said."""
    url, received = hook
    with guarded_session(PUBLIC_ONLY) as session, pytest.raises(Exception, match="refused to connect"):
        session.post(url, data=b"{}", timeout=5)
    assert received == []
    with guarded_session(LOOPBACK) as session:
        assert session.post(url, data=b"{}", timeout=5).status_code == 204
    assert len(received) == 1


def test_payloads_are_signed_with_the_secret(hook) -> None:
    url, received = hook
    result = post_json(f"{url}/x", {"event": "test", "n": 1}, policy=LOOPBACK, attempts=1)
    assert result.ok and result.status == 204
    ((headers, body),) = received
    assert json.loads(body) == {"event": "test", "n": 1}
    assert headers[SIGNATURE_HEADER] == sign(body, "hook-secret")
    assert headers[SIGNATURE_HEADER].startswith("sha256=") and len(headers[SIGNATURE_HEADER]) == 7 + 64
    unsigned = WebhookPolicy.from_entries(["127.0.0.1"])
    assert post_json(url, {"n": 2}, policy=unsigned, attempts=1).ok
    assert SIGNATURE_HEADER not in received[1][0]


def test_a_failed_delivery_does_not_echo_the_hooks_answer(failing_hook) -> None:
    url, received = failing_hook
    result = post_json(url, {"n": 1}, policy=LOOPBACK, attempts=2, backoff=0.01)
    assert not result.ok and result.status == 500 and result.attempts == 2 and len(received) == 2
    assert result.error == "HTTP 500"
    assert "hunter2" not in repr(result)
