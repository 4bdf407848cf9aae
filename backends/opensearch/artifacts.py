"""Fetching Maven artifacts for the local node, verified by sha256.

``mvn dependency:copy`` is the first choice: it uses the user's Maven settings (mirrors, proxies,
credentials) and local repository. Where no ``mvn`` exists, the same coordinates are downloaded over
HTTPS from a Maven repository base URL the caller names (the ``repository_url`` argument; the CLI
reads ``RATIO_MAVEN_REPOSITORY`` or the first mirror in ``~/.m2/settings.xml``). Every file is checked
against the sha256 pinned in ``distribution.json`` before it is used, and kept in a cache directory so a
second install downloads nothing. Registries can answer 429 under load, so both paths retry with
exponential backoff.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import requests
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_exponential

from backends.files import sha256_of


class ArtifactError(RuntimeError):
    """An artifact could not be fetched or did not match its pinned checksum."""


@dataclass(frozen=True)
class Artifact:
    """One Maven artifact: ``group:artifact:version:type`` plus the sha256 of its bytes."""

    coordinates: str
    sha256: str

    @property
    def parts(self) -> tuple[str, str, str, str]:
        group, artifact, version, kind = self.coordinates.split(":")
        return group, artifact, version, kind

    @property
    def filename(self) -> str:
        _, artifact, version, kind = self.parts
        return f"{artifact}-{version}.{kind}"

    def relative_url(self) -> str:
        group, artifact, version, _ = self.parts
        return f"{group.replace('.', '/')}/{artifact}/{version}/{self.filename}"


def maven_mirror_from_settings(settings: Path) -> str | None:
    """The first ``<mirror><url>`` in a Maven ``settings.xml``, if any."""
    if not settings.is_file():
        return None
    try:
        root = ET.parse(settings).getroot()
    except ET.ParseError:
        return None
    for element in root.iter():
        if element.tag.endswith("mirror"):
            for child in element:
                if child.tag.endswith("url") and child.text:
                    return child.text.strip()
    return None


class _Retryable(Exception):
    """A transient failure (429, 5xx, connection reset) worth another try."""


_with_backoff = retry(
    retry=retry_if_exception_type(_Retryable),
    wait=wait_exponential(multiplier=2, min=2, max=60),
    stop=stop_after_attempt(6),
    reraise=True,
)


@_with_backoff
def _mvn_copy(artifact: Artifact, directory: Path, mvn: str) -> Path:
    command = [
        mvn, "-q", "-B", "dependency:copy", f"-Dartifact={artifact.coordinates}",
        f"-DoutputDirectory={directory}", "-Dmdep.useBaseVersion=true", "-Dmdep.overWriteReleases=true",
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    target = directory / artifact.filename
    if result.returncode == 0 and target.is_file():
        return target
    output = (result.stdout + result.stderr)[-2000:]
    if "429" in output or "Too Many Requests" in output or "timed out" in output.lower():
        raise _Retryable(output)
    raise ArtifactError(f"mvn could not fetch {artifact.coordinates}:\n{output}")


@_with_backoff
def _http_copy(artifact: Artifact, directory: Path, repository_url: str) -> Path:
    url = f"{repository_url.rstrip('/')}/{artifact.relative_url()}"
    target = directory / artifact.filename
    try:
        with requests.get(url, stream=True, timeout=(15, 120)) as response:
            if response.status_code == 429 or response.status_code >= 500:
                raise _Retryable(f"HTTP {response.status_code} for {url}")
            if response.status_code != 200:
                raise ArtifactError(f"HTTP {response.status_code} for {url}")
            with tempfile.NamedTemporaryFile(dir=directory, delete=False) as handle:
                for block in response.iter_content(1 << 20):
                    handle.write(block)
            Path(handle.name).replace(target)
    except requests.ConnectionError as exc:
        raise _Retryable(str(exc)) from exc
    return target


def fetch(
    artifact: Artifact,
    cache_dir: Path,
    *,
    repository_url: str | None = None,
    mvn: str | None = None,
) -> Path:
    """Return a verified local copy of ``artifact``, downloading it into ``cache_dir`` if needed."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    cached = cache_dir / artifact.filename
    if cached.is_file() and sha256_of(cached) == artifact.sha256:
        return cached
    mvn = mvn if mvn is not None else shutil.which("mvn")
    if mvn:
        path = _mvn_copy(artifact, cache_dir, mvn)
    elif repository_url:
        path = _http_copy(artifact, cache_dir, repository_url)
    else:
        raise ArtifactError(
            f"cannot fetch {artifact.coordinates}: no 'mvn' on PATH and no Maven repository URL "
            "(install Maven, or set RATIO_MAVEN_REPOSITORY to a Maven repository base URL)"
        )
    actual = sha256_of(path)
    if actual != artifact.sha256:
        path.unlink(missing_ok=True)
        raise ArtifactError(
            f"checksum mismatch for {artifact.coordinates}: expected sha256 {artifact.sha256}, got {actual}"
        )
    return path
