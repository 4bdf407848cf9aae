"""A multi-node OpenSearch cluster on loopback, from the one installation the local node uses.

Each member is a :class:`~backends.opensearch.node.LocalNode` with its own home (``node-1/``, ``node-2/``,
...: config, data, logs), its own HTTP and transport ports and its own name; discovery is seeded with the
members' transport addresses on 127.0.0.1 and the first election is bootstrapped from their names
(``cluster.initial_cluster_manager_nodes``), so every member is cluster-manager eligible and holds data,
as in ``docker/compose.yml``. The cluster's shape (members, ports, heap) is written to ``cluster.json`` when
it is first started and reused afterwards, so a member restarted alone rejoins on the same ports.

This is for testing failure and recovery on one machine (a node killed, a rolling restart), not for
spreading load: the members share the machine's cores and disk.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import requests

from backends.opensearch.install import Manifest
from backends.opensearch.node import LocalNode, NodeError, claim_port, port_is_free

SPEC_FILE = "cluster.json"
DEFAULT_HTTP_PORT = 9201  # beside a single local node on 9200
DEFAULT_TRANSPORT_PORT = 9301
DEFAULT_HEAP_MB = 512


@dataclass(frozen=True)
class ClusterSpec:
    """The shape of a loopback cluster: member ``i`` (from 1) listens on ``http_port + i - 1`` and
    ``transport_port + i - 1``."""

    nodes: int = 3
    http_port: int = DEFAULT_HTTP_PORT
    transport_port: int = DEFAULT_TRANSPORT_PORT
    heap_mb: int = DEFAULT_HEAP_MB
    name: str = "ratio-cluster"

    def __post_init__(self) -> None:
        if not 1 <= self.nodes <= 9:
            raise ValueError(f"a loopback cluster has 1 to 9 nodes, not {self.nodes}")
        if self.heap_mb < 256:
            raise ValueError(f"a node needs a heap of at least 256 MB, not {self.heap_mb}")
        http = set(range(self.http_port, self.http_port + self.nodes))
        transport = set(range(self.transport_port, self.transport_port + self.nodes))
        if http & transport or min(http | transport) < 1024 or max(http | transport) > 65535:
            raise ValueError("HTTP and transport port ranges must not overlap and must lie in 1024-65535")

    def node_name(self, number: int) -> str:
        return f"{self.name}-{number}"

    def ports(self, number: int) -> tuple[int, int]:
        return self.http_port + number - 1, self.transport_port + number - 1


def free_port_ranges(nodes: int, http_port: int, transport_port: int) -> tuple[int, int]:
    """The first pair of port ranges, from the defaults upwards in steps of ``nodes``, that are all free."""
    for step in range(0, 200 * nodes, nodes):
        ports = [p + step + i for p in (http_port, transport_port) for i in range(nodes)]
        if all(port_is_free(port) for port in ports):
            return http_port + step, transport_port + step
    raise NodeError(f"no {nodes} free consecutive HTTP and transport ports above {http_port} and {transport_port}")


class LocalCluster:
    """Start, stop, restart and inspect the members of one loopback cluster kept under ``home``."""

    def __init__(self, home: Path, cache_dir: Path, install_home: Path, *, java_home: str | None = None,
                 repository_url: str | None = None, manifest: Manifest | None = None) -> None:
        self.home = home
        self.cache_dir = cache_dir
        self.install_home = install_home
        self.java_home = java_home
        self.repository_url = repository_url
        self.manifest = manifest or Manifest.load()

    # ------------------------------------------------------------------ shape
    @property
    def spec_path(self) -> Path:
        return self.home / SPEC_FILE

    def spec(self) -> ClusterSpec | None:
        """The recorded shape, or None if this cluster was never started."""
        try:
            return ClusterSpec(**json.loads(self.spec_path.read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def create(self, nodes: int | None = None, *, http_port: int | None = None, transport_port: int | None = None,
               heap_mb: int | None = None) -> ClusterSpec:
        """Record the cluster's shape, or check that the recorded one agrees with what is asked.

        ``nodes`` left out is the recorded number, or 3. Ports left out are the defaults (9201... and 9301...),
        or the next free ranges when those are taken; a port given is used as is (and :meth:`start` fails
        clearly if it is taken).
        """
        recorded = self.spec()
        if recorded:
            asked = {"nodes": nodes, "http_port": http_port, "transport_port": transport_port, "heap_mb": heap_mb}
            differ = {k: v for k, v in asked.items() if v is not None and v != getattr(recorded, k)}
            if differ:
                raise NodeError(f"the cluster in {self.home} was created with {asdict(recorded)}; it differs in "
                                f"{differ}. Stop it and delete {self.home} to create another shape.")
            return recorded
        nodes = nodes or 3
        if http_port is None and transport_port is None:
            http_port, transport_port = free_port_ranges(nodes, DEFAULT_HTTP_PORT, DEFAULT_TRANSPORT_PORT)
        spec = ClusterSpec(nodes=nodes, http_port=http_port or DEFAULT_HTTP_PORT,
                           transport_port=transport_port or DEFAULT_TRANSPORT_PORT,
                           heap_mb=heap_mb or DEFAULT_HEAP_MB)
        self.home.mkdir(parents=True, exist_ok=True)
        self.spec_path.write_text(json.dumps(asdict(spec), indent=2))
        return spec

    def _spec(self) -> ClusterSpec:
        spec = self.spec()
        if spec is None:
            raise NodeError(f"no cluster in {self.home}: start one with 'ratio opensearch cluster start'")
        return spec

    def member(self, number: int) -> LocalNode:
        """Member ``number`` (from 1) as a node with its own home, ports and name."""
        spec = self._spec()
        if not 1 <= number <= spec.nodes:
            raise NodeError(f"the cluster has nodes 1 to {spec.nodes}, not {number}")
        http_port, transport_port = spec.ports(number)
        seeds = tuple(f"127.0.0.1:{spec.ports(i)[1]}" for i in range(1, spec.nodes + 1))
        names = tuple(spec.node_name(i) for i in range(1, spec.nodes + 1))
        return LocalNode(home=self.home / f"node-{number}", cache_dir=self.cache_dir, port=http_port,
                         transport_port=transport_port, heap_mb=spec.heap_mb, java_home=self.java_home,
                         repository_url=self.repository_url, install_home=self.install_home, manifest=self.manifest,
                         cluster_name=spec.name, node_name=spec.node_name(number),
                         seed_hosts=seeds if spec.nodes > 1 else (), initial_cluster_managers=names)

    def members(self) -> list[LocalNode]:
        spec = self.spec()
        return [self.member(i) for i in range(1, spec.nodes + 1)] if spec else []

    @property
    def urls(self) -> list[str]:
        """Every member's HTTP URL, running or not (a client given all of them fails over between them)."""
        spec = self.spec()
        return [f"http://127.0.0.1:{spec.ports(i)[0]}" for i in range(1, spec.nodes + 1)] if spec else []

    def running_urls(self) -> list[str]:
        return [state["url"] for node in self.members() if (state := node.state())]

    # ------------------------------------------------------------------ life cycle
    def start(self, nodes: int | None = None, *, http_port: int | None = None, transport_port: int | None = None,
              heap_mb: int | None = None, timeout: float = 300.0, progress: Any = None) -> dict[str, Any]:
        """Start every member that is not running and wait until all have joined and health is green or yellow.

        Returns the status (:meth:`status`) with ``started`` (the members launched now) and ``form_seconds``,
        the time from their launch until all members were in the cluster.
        """
        self.create(nodes, http_port=http_port, transport_port=transport_port, heap_mb=heap_mb)
        members = self.members()
        for node in members:  # a taken port fails at once, before any download or launch
            if node.state() is None:
                claim_port(node.port, f"{node.node_name}'s HTTP")
                claim_port(node.transport_port, f"{node.node_name}'s transport")
        members[0].install(progress=progress)
        started = time.monotonic()
        launched = [(node, node.launch()[0]) for node in members if node.state() is None]
        try:
            for node, _ in launched or [(members[0], None)]:
                self.wait(len(members), timeout=timeout, launched=launched, url=f"http://127.0.0.1:{node.port}")
        except NodeError:
            for node, _ in launched:
                node.stop()
            raise
        info = self.status()
        info["started"] = [node.node_name for node, _ in launched]
        info["form_seconds"] = round(time.monotonic() - started, 2)
        return info

    def start_node(self, number: int, *, timeout: float = 300.0) -> float:
        """Start one stopped member and wait until it has joined; the seconds it took."""
        node = self.member(number)
        started = time.monotonic()
        if node.state() is None:
            self.wait(self._spec().nodes, timeout=timeout, launched=[(node, node.launch()[0])],
                      url=f"http://127.0.0.1:{node.port}")
        return round(time.monotonic() - started, 2)

    def stop_node(self, number: int) -> bool:
        """Stop one member gracefully; True if it was running."""
        return self.member(number).stop()

    def stop(self) -> list[str]:
        """Stop every member; the names of those that were running."""
        return [node.node_name for node in self.members() if node.stop()]

    def wait(self, nodes: int, *, status: tuple[str, ...] = ("green", "yellow"), timeout: float = 300.0,
             launched: list[tuple[LocalNode, Any]] = (), url: str | None = None) -> dict[str, Any]:
        """Wait until the cluster counts exactly ``nodes`` members and its health is in ``status``, as seen from
        ``url`` (a member that has just started only sees the others once it has joined), else from any
        member. A launched member that exits meanwhile fails the wait with its log."""
        deadline = time.monotonic() + timeout
        while True:
            for node, process in launched:
                node.check_launched(process)
            health = self.health(url)
            if health and health["number_of_nodes"] == nodes and health["status"] in status:
                return health
            if time.monotonic() > deadline:
                why = self.unassigned_reason(url) if health and health["unassigned_shards"] else None
                raise NodeError(f"the cluster did not reach {nodes} nodes and {'/'.join(status)} within "
                                f"{timeout:.0f}s (last health: {health})" + (f"; {why}" if why else "")
                                + f"; logs are in {self.home}/node-*/logs")
            time.sleep(0.5)

    def rolling_restart(self, *, timeout: float = 300.0, between: Any = None,
                        while_away: Any = None) -> list[dict[str, Any]]:
        """Restart the members one at a time, the way a cluster is upgraded without downtime.

        Before a member stops, replica allocation is limited to primaries (so the cluster does not start
        copying the leaving member's shards elsewhere) and its indices are flushed; after it has rejoined,
        allocation is restored and the cluster waits for green before the next member. ``while_away(number)``
        is called once the others see a member gone, before it starts again (a check, or work that must meet
        its absence); ``between(number)`` after each member is back. Returns, per member, the seconds it was
        away and the seconds to green.

        It starts from green only: in a yellow cluster a shard may have one copy, and the member holding it
        would take it away (red, failed searches).
        """
        spec = self._spec()
        self.wait(spec.nodes, status=("green",), timeout=timeout)
        rows = []
        for number in range(1, spec.nodes + 1):
            url = self._other_url(number)
            _put_allocation(url, "primaries")
            with contextlib.suppress(requests.RequestException):
                requests.post(f"{url}/_flush", timeout=60)
            started = time.monotonic()
            try:
                self.stop_node(number)
                self.wait(spec.nodes - 1, status=("green", "yellow"), timeout=timeout, url=url)
                if while_away:
                    while_away(number)
                self.start_node(number, timeout=timeout)
            finally:  # never leave the cluster unable to place replicas
                _put_allocation(self._other_url(number), None)
            away = round(time.monotonic() - started, 2)
            self.wait(spec.nodes, status=("green",), timeout=timeout)
            rows.append({"node": spec.node_name(number), "away_seconds": away,
                         "green_seconds": round(time.monotonic() - started, 2)})
            if between:
                between(number)
        return rows

    def _other_url(self, number: int) -> str:
        spec = self._spec()
        for i in range(1, spec.nodes + 1):
            if i != number and self.member(i).state():
                return f"http://127.0.0.1:{spec.ports(i)[0]}"
        raise NodeError("no other member of the cluster is running")

    # ------------------------------------------------------------------ inspection
    def health(self, url: str | None = None) -> dict[str, Any] | None:
        """``_cluster/health`` from ``url``, else from the first member that answers it; None if none does."""
        for base in [url] if url else self.running_urls():
            with contextlib.suppress(requests.RequestException, ValueError):
                response = requests.get(f"{base}/_cluster/health", timeout=5)
                if response.ok:
                    return response.json()
        return None

    def unassigned_reason(self, url: str | None = None) -> str | None:
        """Why OpenSearch leaves a shard unassigned, in its own words (``_cluster/allocation/explain`` for the
        first unassigned shard: a disk watermark, allocation disabled, a copy with nowhere else to go...)."""
        for base in [url] if url else self.running_urls():
            with contextlib.suppress(requests.RequestException, ValueError):
                response = requests.get(f"{base}/_cluster/allocation/explain", timeout=10)
                if not response.ok:
                    continue
                explain = response.json()
                copy = "primary" if explain.get("primary") else "replica"
                shard = f"{explain.get('index')}[{explain.get('shard')}] ({copy})"
                reasons = sorted({decider["explanation"] for node in explain.get("node_allocation_decisions", [])
                                  for decider in node.get("deciders", []) if decider.get("decision") == "NO"})
                said = explain.get("allocate_explanation") or explain.get("unassigned_info", {}).get("reason", "")
                return f"{shard} is unassigned: {said} " + " | ".join(reasons)[:1500]
        return None

    def status(self) -> dict[str, Any]:
        """The shape, each member (running?, pid, URL), and the cluster's health and elected manager."""
        spec = self.spec()
        info: dict[str, Any] = {"home": str(self.home), "version": self.manifest.version,
                                "created": spec is not None}
        if spec is None:
            return info
        info.update(asdict(spec))
        rows = []
        for number, node in enumerate(self.members(), start=1):
            state = node.state()
            http_port, transport_port = spec.ports(number)
            rows.append({"node": node.node_name, "running": bool(state), "pid": state["pid"] if state else None,
                         "url": f"http://127.0.0.1:{http_port}", "transport_port": transport_port})
        info["members"] = rows
        info["urls"] = self.urls
        health = self.health()
        info["health"] = health["status"] if health else None
        info["nodes_joined"] = health["number_of_nodes"] if health else 0
        info["cluster_manager"] = self._elected()
        return info

    def _elected(self) -> str | None:
        for url in self.running_urls():
            with contextlib.suppress(requests.RequestException, ValueError, IndexError, KeyError):
                response = requests.get(f"{url}/_cat/cluster_manager?format=json", timeout=5)
                if response.ok:
                    return response.json()[0]["node"]
        return None


def _put_allocation(url: str, value: str | None) -> None:
    response = requests.put(f"{url}/_cluster/settings", timeout=30,
                            json={"persistent": {"cluster.routing.allocation.enable": value}})
    if not response.ok:
        raise NodeError(f"could not set shard allocation to {value}: {response.status_code} {response.text[:300]}")
