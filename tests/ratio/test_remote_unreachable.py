"""``RemoteClient`` against a server that is not there or never answers: the Ratio error that says so, for
plain calls and for the answer stream alike (real sockets on loopback, no server process needed)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

import ratio
from ratio.remote import RemoteClient


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:  # bound and closed again: nothing listens there
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog) and never answers them."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


def test_no_server_is_server_unavailable(closed_port: int) -> None:
    client = RemoteClient(f"http://127.0.0.1:{closed_port}", timeout=2)
    for call in (lambda: client.search("murder"), lambda: client.ask("What is culpable homicide?")):
        with pytest.raises(ratio.UnavailableError, match=rf"no Ratio server answers at .*:{closed_port}") as err:
            call()
        assert err.value.code == "server_unavailable"


def test_a_silent_server_is_a_timeout(silent_port: int) -> None:
    client = RemoteClient(f"http://127.0.0.1:{silent_port}", timeout=0.5)
    with pytest.raises(ratio.UnavailableError, match=r"did not answer within 0.5 s") as err:
        client.search("murder")
    assert err.value.code == "timeout"
    with pytest.raises(ratio.UnavailableError, match=r"sent nothing for 0.5 s") as err:
        client.ask("What is culpable homicide?", timeout=0.5)
    assert err.value.code == "timeout"
