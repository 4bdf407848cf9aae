"""Artifact fetching: mvn first, HTTPS from a Maven repository otherwise, always checked by sha256."""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest

from backends.opensearch.artifacts import Artifact, ArtifactError, fetch, maven_mirror_from_settings
from backends.opensearch.java import JavaNotFoundError, find_java_home

SMALL = Artifact("org.ow2.asm:asm-tree:9.7:jar", "62f4b3bc436045c1acb5c3ba2d8ec556ec3369093d7f5d06c747eb04b56d52b1")


@pytest.fixture(scope="module")
def small_jar(tmp_path_factory) -> Path:
    if not shutil.which("mvn"):
        pytest.fail("these tests need Maven ('apt-get install maven'); .ci/run installs it")
    return fetch(SMALL, tmp_path_factory.mktemp("mvn"))


def test_mvn_fetch_is_verified_and_cached(small_jar: Path) -> None:
    assert small_jar.name == "asm-tree-9.7.jar" and small_jar.stat().st_size > 10_000
    mtime = small_jar.stat().st_mtime_ns
    assert fetch(SMALL, small_jar.parent) == small_jar
    assert small_jar.stat().st_mtime_ns == mtime, "a verified cached copy is not fetched again"


def test_checksum_mismatch_is_refused(tmp_path: Path) -> None:
    wrong = Artifact(SMALL.coordinates, "0" * 64)
    with pytest.raises(ArtifactError, match="checksum mismatch"):
        fetch(wrong, tmp_path)
    assert not (tmp_path / SMALL.filename).exists(), "a file that failed its check is not kept"


@pytest.fixture
def maven_repository(tmp_path: Path, small_jar: Path):
    """A real HTTP server on loopback serving a Maven repository layout."""
    root = tmp_path / "repo"
    target = root / SMALL.relative_url()
    target.parent.mkdir(parents=True)
    shutil.copy(small_jar, target)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_https_fallback_without_mvn(tmp_path: Path, maven_repository: str) -> None:
    path = fetch(SMALL, tmp_path / "cache", repository_url=maven_repository, mvn="")
    assert path.read_bytes()[:2] == b"PK"
    missing = Artifact("org.example:nothing:1.0:jar", "0" * 64)
    with pytest.raises(ArtifactError, match="HTTP 404"):
        fetch(missing, tmp_path / "cache", repository_url=maven_repository, mvn="")


def test_no_mvn_and_no_repository_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(ArtifactError, match="RATIO_MAVEN_REPOSITORY"):
        fetch(SMALL, tmp_path, repository_url=None, mvn="")


def test_mirror_is_read_from_maven_settings(tmp_path: Path) -> None:
    settings = tmp_path / "settings.xml"
    settings.write_text('<settings xmlns="http://maven.apache.org/SETTINGS/1.0.0"><mirrors><mirror>'
                        "<id>m</id><url>http://127.0.0.1:1/maven</url></mirror></mirrors></settings>")
    assert maven_mirror_from_settings(settings) == "http://127.0.0.1:1/maven"
    assert maven_mirror_from_settings(tmp_path / "absent.xml") is None


def test_java_in_range_is_found_and_out_of_range_is_refused() -> None:
    home, major = find_java_home(11, 23)
    assert 11 <= major <= 23 and (home / "bin" / "java").is_file()
    with pytest.raises(JavaNotFoundError, match=r"no Java 5\.\.6"):
        find_java_home(5, 6)
