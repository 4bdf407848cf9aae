"""Choosing a JAVA_HOME the pinned OpenSearch runs on.

OpenSearch 2.19 needs Java 11 or newer and installs a Security Manager, which Java 24 and later
removed, so a machine with several JDKs (here Java 17 and 25 side by side) must pick one in range.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')


class JavaNotFoundError(RuntimeError):
    """No JDK in the supported range could be found."""


def java_major_version(java_home: Path) -> int | None:
    """The major version of ``java_home/bin/java``, or None if it does not run."""
    java = java_home / "bin" / "java"
    if not java.is_file():
        return None
    try:
        result = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSION.search(result.stderr + result.stdout)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major  # "1.8.0" style


def _candidates(preferred: str | None) -> list[Path]:
    seen: list[Path] = []
    if preferred:
        seen.append(Path(preferred))
    jvm_dir = Path("/usr/lib/jvm")
    if jvm_dir.is_dir():
        seen.extend(sorted(p for p in jvm_dir.iterdir() if p.is_dir() and not p.is_symlink()))
    for java in ("/usr/bin/java",):
        path = Path(java)
        if path.exists():
            seen.append(path.resolve().parent.parent)
    unique: list[Path] = []
    for path in seen:
        if path not in unique:
            unique.append(path)
    return unique


def find_java_home(minimum: int, maximum: int, preferred: str | None = None) -> tuple[Path, int]:
    """The first JDK in ``minimum..maximum``: ``preferred`` (the caller passes ``$JAVA_HOME`` or a choice),
    else the newest of ``/usr/lib/jvm/*`` and the one behind ``/usr/bin/java``.
    """
    explicit = [Path(preferred)] if preferred else []
    found: list[tuple[Path, int]] = []
    for home in _candidates(preferred):
        major = java_major_version(home)
        if major is None or not minimum <= major <= maximum:
            continue
        if home in explicit:
            return home, major
        found.append((home, major))
    if not found:
        raise JavaNotFoundError(
            f"no Java {minimum}..{maximum} found (looked at the given JAVA_HOME and /usr/lib/jvm); "
            f"install e.g. OpenJDK 17 ('apt-get install openjdk-17-jdk-headless') or pass --java-home"
        )
    return max(found, key=lambda item: item[1])
