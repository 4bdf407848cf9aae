"""The production compose file: pinned to the local node's version, three nodes, Dashboards and its import.

No Docker engine runs on the development machines; where a Compose client exists, it validates the
file too (``docker compose config`` needs no engine).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import yaml

from backends.opensearch.install import Manifest
from tests.conftest import REPO

COMPOSE = REPO / "docker" / "compose.yml"


def test_compose_pins_the_local_version_and_runs_three_nodes() -> None:
    data = yaml.safe_load(COMPOSE.read_text())
    services = data["services"]
    nodes = {name: svc for name, svc in services.items() if svc["image"].startswith("opensearchproject/opensearch:")}
    assert len(nodes) == 3
    manifest = Manifest.load()
    assert {svc["image"] for svc in nodes.values()} == {manifest.docker_image}
    assert services["dashboards"]["image"] == f"opensearchproject/opensearch-dashboards:{manifest.version}"
    names = {svc["environment"]["node.name"] for svc in nodes.values()}
    for svc in nodes.values():
        env = svc["environment"]
        assert set(env["discovery.seed_hosts"].split(",")) == names
        assert set(env["cluster.initial_cluster_manager_nodes"].split(",")) == names
        assert env["DISABLE_SECURITY_PLUGIN"] == "true"
        assert svc["volumes"][0].endswith(":/usr/share/opensearch/data")
    assert any("9200:9200" in svc.get("ports", []) for svc in nodes.values())


def test_dashboards_talk_to_the_nodes_with_security_off_like_them() -> None:
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    dashboards = services["dashboards"]
    hosts = json.loads(dashboards["environment"]["OPENSEARCH_HOSTS"])
    assert {host.removeprefix("http://").split(":")[0] for host in hosts} <= set(services)
    assert all(host.endswith(":9200") for host in hosts)
    assert dashboards["environment"]["DISABLE_SECURITY_DASHBOARDS_PLUGIN"] == "true"
    assert dashboards["networks"] == ["ratio"]


def test_the_one_shot_import_posts_the_committed_saved_objects() -> None:
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    job = services["dashboards-import"]
    image, _, tag = job["image"].partition(":")
    assert image and tag and tag != "latest", "pin the importer image"
    assert job["restart"] == "no" and "dashboards" in job["depends_on"]
    (volume,) = job["volumes"]
    source, target = volume.split(":")[:2]
    assert (COMPOSE.parent / source).resolve() == COMPOSE.parent / "dashboards" / "ratio.ndjson"
    assert (COMPOSE.parent / source).is_file()
    script = "\n".join(job["command"])
    assert f"file=@{target}" in script
    assert "http://dashboards:5601/api/saved_objects/_import?overwrite=true" in script
    assert '-H "osd-xsrf: true"' in script
    # Compose interpolates a single "$": shell variables in the script must be written "$$".
    assert "$" not in script.replace("$$", "")


def test_compose_client_accepts_the_file() -> None:
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        command = ["docker", "compose", "-f", str(COMPOSE), "config", "-q"]
    elif shutil.which("docker-compose"):
        command = ["docker-compose", "-f", str(COMPOSE), "config", "-q"]
    else:
        command = None
    if command is None:
        pytest.skip("no Compose client here (.ci/run installs docker-compose); the structure test above ran")
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
