"""Assembling the local OpenSearch installation from verified Maven artifacts.

The result is ``<home>/opensearch-<version>`` with the modules of ``distribution.json`` in ``modules/``
and the plugins installed by ``opensearch-plugin install --batch``. The build happens in a staging
folder that is renamed into place only when complete, and a marker file records the manifest it was
built from, so a second install (or an interrupted one) is safe.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from backends.opensearch.artifacts import Artifact, fetch

MARKER = ".ratio-install.json"


class InstallError(RuntimeError):
    """The node could not be assembled."""


@dataclass(frozen=True)
class Manifest:
    """The parsed ``distribution.json``: what a local node is made of."""

    version: str
    docker_image: str
    java_min: int
    java_max: int
    distribution: Artifact
    root: str
    modules: tuple[dict[str, Any], ...]
    plugins: tuple[tuple[str, Artifact], ...]
    digest: str

    @classmethod
    def load(cls) -> Manifest:
        raw = resources.files("backends.opensearch").joinpath("distribution.json").read_text(encoding="utf-8")
        data = json.loads(raw)
        dist = data["distribution"]
        return cls(
            version=data["version"],
            docker_image=data["docker_image"],
            java_min=data["java"]["min"],
            java_max=data["java"]["max"],
            distribution=Artifact(dist["coordinates"], dist["sha256"]),
            root=dist["root"],
            modules=tuple(data["modules"]),
            plugins=tuple((p["name"], Artifact(p["coordinates"], p["sha256"])) for p in data["plugins"]),
            digest=hashlib.sha256(raw.encode()).hexdigest(),
        )

    @property
    def plugin_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.plugins)


def installed_digest(install_dir: Path) -> str | None:
    """The manifest digest recorded by a completed install, or None."""
    marker = install_dir / MARKER
    if not marker.is_file():
        return None
    try:
        return json.loads(marker.read_text())["manifest_sha256"]
    except (ValueError, KeyError):
        return None


def _descriptor(module: dict[str, Any], version: str) -> str:
    lines = {
        "description": module["description"],
        "version": version,
        "name": module["name"],
        "classname": module["classname"],
        "java.version": "11",
        "opensearch.version": version,
        "custom.foldername": "",
        "extended.plugins": ",".join(module["extended_plugins"]),
        "has.native.controller": "false",
    }
    return "".join(f"{key}={value}\n" for key, value in lines.items())


def _add_module(root: Path, module: dict[str, Any], version: str, cache_dir: Path, **fetch_args: Any) -> None:
    target = root / "modules" / module["name"]
    if target.exists():  # a future distribution that ships the module itself wins
        return
    target.mkdir(parents=True)
    for jar in module["jars"]:
        source = fetch(Artifact(jar["coordinates"], jar["sha256"]), cache_dir, **fetch_args)
        shutil.copy2(source, target / source.name)
    (target / "plugin-descriptor.properties").write_text(_descriptor(module, version))
    if module.get("policy"):
        policy = resources.files("backends.opensearch").joinpath(module["policy"]).read_text()
        (target / "plugin-security.policy").write_text(policy)


def install(
    home: Path,
    cache_dir: Path,
    java_home: Path,
    *,
    manifest: Manifest | None = None,
    repository_url: str | None = None,
    progress: Any = None,
) -> Path:
    """Install the pinned node under ``home`` (idempotent) and return its installation directory."""
    manifest = manifest or Manifest.load()
    install_dir = home / manifest.root
    if installed_digest(install_dir) == manifest.digest:
        return install_dir
    say = progress or (lambda message: None)
    fetch_args = {"repository_url": repository_url}
    home.mkdir(parents=True, exist_ok=True)
    staging = home / f".staging-{manifest.root}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    say(f"fetching {manifest.distribution.coordinates}")
    archive = fetch(manifest.distribution, cache_dir, **fetch_args)
    with zipfile.ZipFile(archive) as zipped:
        zipped.extractall(staging)
    root = staging / manifest.root
    for executable in (root / "bin").iterdir():
        executable.chmod(0o755)
    for module in manifest.modules:
        say(f"assembling module {module['name']}")
        _add_module(root, module, manifest.version, cache_dir, **fetch_args)
    env = {**os.environ, "JAVA_HOME": str(java_home), "OPENSEARCH_JAVA_OPTS": "-Xms128m -Xmx256m"}
    for name, artifact in manifest.plugins:
        say(f"installing plugin {name}")
        plugin_zip = fetch(artifact, cache_dir, **fetch_args)
        result = subprocess.run(
            [str(root / "bin" / "opensearch-plugin"), "install", "--batch", plugin_zip.resolve().as_uri()],
            capture_output=True, text=True, env=env, check=False,
        )
        if result.returncode != 0:
            raise InstallError(f"opensearch-plugin install {name} failed:\n{(result.stdout + result.stderr)[-2000:]}")
    marker = {"manifest_sha256": manifest.digest, "version": manifest.version, "plugins": manifest.plugin_names}
    (root / MARKER).write_text(json.dumps(marker, indent=2))
    if install_dir.exists():
        shutil.rmtree(install_dir)
    root.rename(install_dir)
    shutil.rmtree(staging, ignore_errors=True)
    return install_dir
