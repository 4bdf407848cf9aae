"""Secrets (issue 29, item 3): no key in addresses or in the access log, the key out of ``ps``, random
sessions that expire and that ``/logout`` revokes (on every worker), and a backoff on wrong keys per client.

The apps are the real app over the real node (an index prefix that holds nothing: signing in needs no
corpus); ``/api/v1/openapi.json`` is the guarded route each test opens, since it asks nothing of the node.
The access-log test runs the real ``ratio serve`` in a subprocess and reads its log.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from ratio.web import create_app
from ratio.web.sessions import SessionStore
from tests.waiting import stop_group, wait_for

KEY = "k3y-" + "x7Qp" * 6
GUARDED = "/api/v1/openapi.json"
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def bare_client(opensearch_settings):
    from ratio.client import Client

    return Client(opensearch_settings.url, prefix="ratio-test-secrets-none", llm=None)


def _app(bare_client, sessions: SessionStore | None = None):
    return create_app(bare_client, api_key=KEY, sessions=sessions)


def _sign_in(web: TestClient, key: str = KEY):
    return web.post("/login", data={"key": key, "next": "/explore"})


def test_sign_in_is_a_post_and_a_key_in_the_address_is_refused(bare_client) -> None:
    with TestClient(_app(bare_client), follow_redirects=False) as web:
        form = web.get("/login", params={"next": "/explore"})
        assert form.status_code == 200 and 'method="post"' in form.text and 'name="key"' in form.text
        linked = web.get("/login", params={"key": KEY, "next": "/explore"})
        assert linked.status_code == 400 and "not accepted" in linked.text and KEY not in linked.text
        assert "set-cookie" not in linked.headers and not web.cookies
        assert web.get(GUARDED).status_code == 401
        first = _sign_in(web)
        assert first.status_code == 303 and first.headers["location"] == "/explore"
        cookie = first.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Max-Age=43200" in cookie
        token = web.cookies["ratio_session"]
        assert len(token) >= 40 and KEY not in token
        assert web.get(GUARDED).status_code == 200
        web.cookies.clear()
        assert _sign_in(web).status_code == 303
        assert web.cookies["ratio_session"] != token, "each sign-in is a new random session"


def test_logout_revokes_the_session(bare_client) -> None:
    with TestClient(_app(bare_client), follow_redirects=False) as web:
        assert _sign_in(web).status_code == 303
        token = web.cookies["ratio_session"]
        assert web.get(GUARDED).status_code == 200
        out = web.get("/logout")
        assert out.status_code == 303 and out.headers["location"] == "/login"
        web.cookies.clear()
        web.cookies.set("ratio_session", token)  # the old cookie, kept by hand
        assert web.get(GUARDED).status_code == 401
        assert web.get("/explore").status_code == 303, "a page sends the revoked session to /login"


def test_a_session_expires(bare_client) -> None:
    with TestClient(_app(bare_client, SessionStore(lifetime=2.0)), follow_redirects=False) as web:
        signed = _sign_in(web)
        assert signed.status_code == 303 and "Max-Age=2" in signed.headers["set-cookie"]
        token = web.cookies["ratio_session"]
        web.cookies.clear()  # the cookie sent by hand, so the server's clock decides, not the client's jar

        def opens() -> int:
            return web.get(GUARDED, headers={"Cookie": f"ratio_session={token}"}).status_code

        assert opens() == 200
        wait_for(lambda: opens() == 401, 15, "the two-second session to expire", interval=0.3)


def test_workers_share_sessions_revocations_and_failures_through_the_file(bare_client, tmp_path) -> None:
    """Two apps over one sessions file, as ``ratio serve --workers 2`` runs them."""
    path = tmp_path / "sessions.db"
    one, two = _app(bare_client, SessionStore(path)), _app(bare_client, SessionStore(path))
    with TestClient(one, follow_redirects=False) as first, TestClient(two, follow_redirects=False) as second:
        assert _sign_in(first).status_code == 303
        second.cookies.set("ratio_session", first.cookies["ratio_session"])
        assert second.get(GUARDED).status_code == 200, "a session made by one worker opens the other"
        assert second.get("/logout").status_code == 303
        assert first.get(GUARDED).status_code == 401, "a logout seen by one worker ends the session on all"
        assert [_sign_in(first, "wrong").status_code for _ in range(3)] == [401, 401, 429]
        refused = _sign_in(second)
        assert refused.status_code == 429, "the other worker knows the client's failures"


def test_wrong_keys_back_off_per_client_and_a_right_key_waits_too(bare_client) -> None:
    app = _app(bare_client)
    with TestClient(app, follow_redirects=False) as web, \
            TestClient(app, follow_redirects=False, client=("192.0.2.7", 50000)) as other:
        answers = [_sign_in(web, f"guess-{n}") for n in range(3)]
        assert [a.status_code for a in answers] == [401, 401, 429]
        assert answers[2].headers["retry-after"] == "2" and "too many wrong keys" in answers[2].text
        refused = _sign_in(web)
        assert refused.status_code == 429 and "set-cookie" not in refused.headers, "the right key waits too"
        assert 1 <= int(refused.headers["retry-after"]) <= 2
        header = web.get(GUARDED, headers={"X-API-Key": KEY})
        assert header.status_code == 429 and header.json()["error"]["code"] == "too_many_wrong_keys"
        assert _sign_in(other).status_code == 303, "another client is not held back"
        wait_for(lambda: _sign_in(web).status_code == 303, 15, "the wait after three wrong keys to pass",
                 interval=0.3)
        assert _sign_in(web, "wrong-again").status_code == 401, "a right key starts the count again"


def test_wrong_keys_in_the_header_count_too(bare_client) -> None:
    with TestClient(_app(bare_client), client=("198.51.100.9", 40000)) as web:
        codes = [web.get(GUARDED, headers={"X-API-Key": f"guess-{n}"}).status_code for n in range(4)]
        assert codes == [401, 401, 429, 429]
        bearer = web.get(GUARDED, headers={"Authorization": f"Bearer {KEY}"})
        assert bearer.status_code == 429 and bearer.headers["retry-after"]


# ---------------------------------------------------------------- the key file

@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read the key file"), ("", "is empty"), ("  \n\n", "is empty"),
    ("one\ntwo\n", "more than one line")])
def test_a_key_file_that_cannot_serve_is_a_clear_error(tmp_path, content, message) -> None:
    from ratio.cli import cli

    path = tmp_path / "key"
    if content is not None:
        path.write_text(content)
    result = CliRunner().invoke(cli, ["serve", "--api-key-file", str(path)], env={"RATIO_API_KEY": None})
    assert result.exit_code == 2 and message in result.output, result.output
    assert "Traceback" not in result.output


def test_the_key_once_only(tmp_path) -> None:
    from ratio.cli import cli

    path = tmp_path / "key"
    path.write_text(KEY + "\n")
    path.chmod(0o600)
    result = CliRunner().invoke(cli, ["serve", "--api-key-file", str(path)], env={"RATIO_API_KEY": "other"})
    assert result.exit_code == 2 and "the key is given twice" in result.output, result.output


# ---------------------------------------------------------------- the real server: ps and the access log

def _command_lines(group: int) -> dict[int, bytes]:
    """The command line of every process in the process group ``group``, as ``ps`` shows them to anyone."""
    lines = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[2]) == group:
                lines[int(entry.name)] = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue  # a process that ended meanwhile
    return lines


def test_ratio_serve_keeps_the_key_out_of_ps_and_its_access_log(opensearch_settings, tmp_path) -> None:
    """The real command with two workers (each logs its own requests, through the filter its app put on the
    access log; both share the sessions file)."""
    import requests

    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n")
    key_file.chmod(0o600)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("RATIO_SERVE_CONFIG", "RATIO_API_KEY")}
    env.update(PYTHONPATH=str(REPO), RATIO_LLM="none")
    log_path = tmp_path / "serve.log"
    log = log_path.open("w")
    server = subprocess.Popen([sys.executable, "-m", "ratio.cli", "--url", opensearch_settings.url, "--prefix",
                               "ratio-test-secrets-none", "serve", "--port", str(port), "--workers", "2",
                               "--api-key-file", str(key_file)], cwd=REPO, env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        assert server.poll() is None, f"ratio serve exited with {server.returncode}: {log_path.read_text()[-2000:]}"
        try:
            return requests.get(f"{base}/api/v1/health", timeout=5).status_code in (200, 503)
        except requests.ConnectionError:
            return False

    try:
        wait_for(healthy, 180, "ratio serve to answer /api/v1/health", interval=0.3)
        command_lines = _command_lines(server.pid)
        assert len(command_lines) >= 3, "ratio serve and its two workers"  # (and any child they start)
        assert b"--api-key-file" in command_lines[server.pid]
        assert not [pid for pid, line in command_lines.items() if KEY.encode() in line], "the key shows in ps"
        web = requests.Session()
        linked = web.get(f"{base}/login", params={"key": KEY, "next": "/explore"}, allow_redirects=False)
        assert linked.status_code == 400 and "ratio_session" not in web.cookies
        assert web.get(f"{base}{GUARDED}", params={"api_key": KEY}).status_code == 401
        assert web.post(f"{base}/login", data={"key": "wrong"}, allow_redirects=False).status_code == 401
        signed = web.post(f"{base}/login", data={"key": KEY, "next": "/explore"}, allow_redirects=False)
        assert signed.status_code == 303 and web.cookies.get("ratio_session")
        token = web.cookies["ratio_session"]
        assert web.get(f"{base}{GUARDED}").status_code == 200
        assert web.get(f"{base}/logout", allow_redirects=False).status_code == 303
        assert requests.get(f"{base}{GUARDED}", cookies={"ratio_session": token}).status_code == 401
        # X-Forwarded-For is not trusted (no --forwarded-allow-ips): a guesser cannot be a new client each time
        # (each on a connection of its own, which either worker may take: the count is shared)
        guesses = [requests.post(f"{base}/login", data={"key": f"guess-{n}"}, allow_redirects=False,
                                 headers={"X-Forwarded-For": f"203.0.113.{n}"}).status_code for n in range(3)]
        assert guesses == [401, 401, 429]
        assert requests.post(f"{base}/login", data={"key": KEY}, allow_redirects=False,
                             headers={"X-Forwarded-For": "203.0.113.99"}).status_code == 429
    finally:
        stop_group(server)
        log.close()
    output = log_path.read_text()
    assert '"GET /login?[redacted] HTTP/1.1" 400' in output, output[-3000:]
    assert f'"GET {GUARDED}?api_key=[redacted] HTTP/1.1" 401' in output, output[-3000:]
    assert '"POST /login HTTP/1.1" 303' in output
    assert output.count("Started server process") == 2, output[-3000:]
    assert KEY not in output, "the key is in the server's log"
