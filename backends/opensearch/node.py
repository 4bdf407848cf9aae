"""The life cycle of the local OpenSearch node: install, start, stop, status, logs.

A node's home folder holds ``config/``, ``data/``, ``logs/`` and ``node.json`` (pid, ports and URL of
the running node); the installation (``opensearch-<version>/``) lives under ``install_home``, which
defaults to the node's home and may be shared by several nodes (tests start a second node that way, and
:mod:`backends.opensearch.cluster` starts several members of one cluster). OpenSearch refuses to run as
root, so when this process is root the node runs as a dedicated system user (created on first use) that
owns ``config/``, ``data/`` and ``logs/``.

Ports: a port the caller names is used or the start fails, saying what holds it; only a node started
without a port may move from 9200 to a free one. Whether a port is free is asked the way the node itself
binds (``SO_REUSEADDR``, which OpenSearch's Netty sets on its listening sockets): connections left in
TIME-WAIT by a node that just stopped do not make its port look taken.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from backends.opensearch.install import Manifest, install, installed_digest
from backends.opensearch.java import find_java_home

NODE_USER = "ratio-opensearch"
STATE_FILE = "node.json"
# Disk watermarks as free space, not OpenSearch's percentages (85 / 90 / 95 % used). A node Ratio starts shares
# its disk with everything else on the machine, and OpenSearch counts used space as total minus available, so a
# large shared disk passes 85 % with tens of GB still free: replicas then stay unassigned (a loopback cluster
# never turns green, and losing a member turns it red) and past 90 % index creation is blocked. Absolute values
# keep the protection (writes stop before the disk is really full) without that.
DISK_WATERMARKS = {
    "cluster.routing.allocation.disk.watermark.low": "2gb",
    "cluster.routing.allocation.disk.watermark.high": "1gb",
    "cluster.routing.allocation.disk.watermark.flood_stage": "512mb",
}


class NodeError(RuntimeError):
    """The local node could not be started or reached; the message says why and where the log is."""


def default_heap_mb(total_bytes: int | None = None) -> int:
    """An eighth of physical memory, between 512 MB and 8 GB (leaves room for models and the OS)."""
    if total_bytes is None:
        total_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return int(min(max(total_bytes // 8 // (1 << 20), 512), 8192))


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether a listening socket could bind ``host:port`` now, with the node's own ``SO_REUSEADDR``.

    Without ``SO_REUSEADDR`` Linux refuses the bind while any connection on the port sits in TIME-WAIT (for a
    minute after a node stops), although the node would bind it fine; with it, only a socket that is really
    listening there (or bound to it without the option) makes the port taken.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def free_port(preferred: int | None = None) -> int:
    """``preferred`` if it is free on 127.0.0.1, otherwise any free port."""
    if preferred and port_is_free(preferred):
        return preferred
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", 0))
        except OSError as exc:
            raise NodeError(f"no free TCP port on 127.0.0.1: {exc}") from exc
        return sock.getsockname()[1]


def claim_port(port: int, what: str) -> int:
    """``port`` if it is free, else a :class:`NodeError` that says so (a named port is never swapped for another)."""
    if not port_is_free(port):
        raise NodeError(f"{what} port {port} on 127.0.0.1 is taken by another program (or another node); "
                        f"free it or choose another port")
    return port


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):  # a zombie child still answers kill(0)
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1]
        if state == "Z":
            return False
    return True


@dataclass
class LocalNode:
    """An OpenSearch node on 127.0.0.1, managed by Ratio: a single-node cluster unless ``seed_hosts`` is given.

    ``port`` and ``transport_port``, when given, are used or the start fails (:func:`claim_port`); left out,
    HTTP takes 9200 and transport 9300, or free ports when those are taken. ``seed_hosts`` (``host:port`` of
    the other members' transport) and ``initial_cluster_managers`` (node names) make the node a member of a
    multi-node cluster instead (see :mod:`backends.opensearch.cluster`).
    """

    home: Path
    cache_dir: Path
    port: int | None = None
    heap_mb: int | None = None
    java_home: str | None = None
    repository_url: str | None = None
    install_home: Path | None = None
    manifest: Manifest = field(default_factory=Manifest.load)
    transport_port: int | None = None
    cluster_name: str = "ratio-local"
    node_name: str = "ratio-local-1"
    seed_hosts: tuple[str, ...] = ()
    initial_cluster_managers: tuple[str, ...] = ()

    @property
    def install_dir(self) -> Path:
        return (self.install_home or self.home) / self.manifest.root

    @property
    def config_dir(self) -> Path:
        return self.home / "config"

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"

    @property
    def state_path(self) -> Path:
        return self.home / STATE_FILE

    def is_installed(self) -> bool:
        return installed_digest(self.install_dir) == self.manifest.digest

    def _java(self) -> tuple[Path, int]:
        return find_java_home(self.manifest.java_min, self.manifest.java_max, self.java_home)

    def install(self, progress: Any = None) -> Path:
        """Fetch, verify and assemble the node; a no-op when it is already installed."""
        if self.is_installed():
            return self.install_dir
        java_home, _ = self._java()
        return install(self.install_home or self.home, self.cache_dir, java_home, manifest=self.manifest,
                       repository_url=self.repository_url, progress=progress)

    def state(self) -> dict[str, Any] | None:
        """The recorded state of a running node, or None if none is running."""
        try:
            state = json.loads(self.state_path.read_text())
        except (OSError, ValueError):
            return None
        pid = int(state.get("pid", 0))
        if not _alive(pid):
            return None
        with contextlib.suppress(OSError):  # a recycled pid of another program is not our node
            if b"opensearch" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                return None
        return state

    @property
    def url(self) -> str | None:
        state = self.state()
        return state["url"] if state else None

    def _run_as_user(self) -> str | None:
        if os.geteuid() != 0:
            return None
        try:
            pwd.getpwnam(NODE_USER)
        except KeyError:
            subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", NODE_USER],
                           check=True, capture_output=True)
        return NODE_USER

    def _discovery(self) -> dict[str, Any]:
        if not self.seed_hosts:
            return {"discovery.type": "single-node"}
        return {"discovery.seed_hosts": list(self.seed_hosts),
                "cluster.initial_cluster_manager_nodes": list(self.initial_cluster_managers)}

    def _ports(self) -> tuple[int, int]:
        """The HTTP and transport ports for this start: the named ones (or an error), else the defaults."""
        http_port = claim_port(self.port, "HTTP") if self.port else free_port(9200)
        if self.transport_port:
            return http_port, claim_port(self.transport_port, "transport")
        return http_port, free_port(9300 if http_port == 9200 else None)

    def _write_config(self, http_port: int, transport_port: int) -> None:
        config = {
            "cluster.name": self.cluster_name,
            "node.name": self.node_name,
            "network.host": "127.0.0.1",
            "http.port": http_port,
            "transport.port": transport_port,
            **self._discovery(),
            "path.data": str(self.data_dir),
            "path.logs": str(self.log_dir),
            "action.auto_create_index": False,
            "plugins.ml_commons.only_run_on_ml_node": False,
            **DISK_WATERMARKS,
        }
        self.config_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy2(self.install_dir / "config" / "log4j2.properties", self.config_dir / "log4j2.properties")
        # The launcher runs from the installation, so relative GC-log and heap-dump paths would land there.
        jvm_options = (self.install_dir / "config" / "jvm.options").read_text()
        jvm_options = jvm_options.replace("=logs/", f"={self.log_dir}/").replace("HeapDumpPath=data",
                                                                               f"HeapDumpPath={self.data_dir}")
        (self.config_dir / "jvm.options").write_text(jvm_options)
        (self.config_dir / "jvm.options.d").mkdir(exist_ok=True)
        text = "# Written by Ratio at every start; edit the LocalNode settings instead.\n"
        text += "".join(f"{key}: {json.dumps(value)}\n" for key, value in config.items())
        (self.config_dir / "opensearch.yml").write_text(text)

    def start(self, timeout: float = 180.0, progress: Any = None) -> dict[str, Any]:
        """Start the node (installing it first if needed) and wait for yellow or green health."""
        running = self.state()
        if running:
            return running
        process, state = self.launch(progress=progress)
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            self.check_launched(process)
            if _health(state["url"]) in ("green", "yellow"):
                state["start_seconds"] = round(time.time() - state["started_at"], 2)
                self.state_path.write_text(json.dumps(state, indent=2))
                return state
            time.sleep(0.5)
        self.stop()
        raise NodeError(f"OpenSearch did not become healthy within {timeout:.0f}s; see {self.log_dir}")

    def launch(self, progress: Any = None) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
        """Spawn the node process and record its state, without waiting for it to answer.

        A member of a multi-node cluster reports no health until enough members have joined, so the cluster
        launches every member first and then waits for all of them (:meth:`start` does both for one node).
        """
        http_port, transport_port = self._ports()  # first: a taken port fails at once, before any download
        self.install(progress=progress)
        java_home, java_version = self._java()
        heap = self.heap_mb or default_heap_mb()
        for folder in (self.data_dir, self.log_dir):
            folder.mkdir(parents=True, exist_ok=True)
        self._write_config(http_port, transport_port)
        user = self._run_as_user()
        if user:
            for path in (self.data_dir, self.log_dir, self.config_dir):
                path.mkdir(exist_ok=True)
                shutil.chown(path, user)
                for child in path.rglob("*"):
                    shutil.chown(child, user)
            self.home.chmod(self.home.stat().st_mode | 0o055)
        env = {**os.environ, "JAVA_HOME": str(java_home), "OPENSEARCH_PATH_CONF": str(self.config_dir),
               "OPENSEARCH_JAVA_OPTS": f"-Xms{heap}m -Xmx{heap}m"}
        console = self.log_dir / "console.log"
        with console.open("ab") as out:
            process = subprocess.Popen(
                [str(self.install_dir / "bin" / "opensearch")], cwd=self.home, env=env,
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, user=user,
            )
        state = {"pid": process.pid, "url": f"http://127.0.0.1:{http_port}", "http_port": http_port,
                 "transport_port": transport_port, "node_name": self.node_name, "cluster_name": self.cluster_name,
                 "heap_mb": heap, "java_home": str(java_home), "java_version": java_version,
                 "version": self.manifest.version, "started_at": time.time()}
        self.state_path.write_text(json.dumps(state, indent=2))
        return process, state

    def check_launched(self, process: subprocess.Popen[bytes]) -> None:
        """Raise :class:`NodeError` with the log's tail if ``process`` exited while starting."""
        if process.poll() is not None:
            self.state_path.unlink(missing_ok=True)
            raise NodeError(f"OpenSearch node {self.node_name} exited with code {process.returncode} while "
                            f"starting; last log lines:\n{self.logs(30)}")

    def stop(self, timeout: float = 60.0) -> bool:
        """Stop the node; True if one was running."""
        state = self.state()
        if not state:
            self.state_path.unlink(missing_ok=True)
            return False
        pid = int(state["pid"])
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while _alive(pid) and time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            time.sleep(0.2)
        if _alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        self.state_path.unlink(missing_ok=True)
        return True

    def status(self) -> dict[str, Any]:
        """Installed?, running?, URL, health and the plugins the node reports."""
        state = self.state()
        info: dict[str, Any] = {"home": str(self.home), "version": self.manifest.version,
                                "installed": self.is_installed(), "running": bool(state)}
        if state:
            info.update({k: state.get(k) for k in ("pid", "url", "heap_mb", "java_home", "java_version")})
            info["health"] = _health(state["url"])
        return info

    def logs(self, lines: int = 50) -> str:
        """The last ``lines`` lines of the node's log (the server log, else the console)."""
        for name in (f"{self.cluster_name}.log", "console.log"):
            path = self.log_dir / name
            if path.is_file():
                with path.open("rb") as handle:
                    handle.seek(0, os.SEEK_END)
                    handle.seek(max(0, handle.tell() - 200_000))
                    tail = handle.read().decode("utf-8", "replace").splitlines()
                return "\n".join(tail[-lines:])
        return ""


def _health(url: str) -> str | None:
    try:
        response = requests.get(f"{url}/_cluster/health", timeout=5)
        return response.json().get("status") if response.ok else None
    except (requests.RequestException, ValueError):
        return None
