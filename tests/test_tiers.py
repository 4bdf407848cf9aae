"""The tiers say what a test costs: the conftest marks a failover test that starts or kills nodes ``cluster``
(no module carries the marker by hand), and leaves the failover tests that start nothing in the daily loop,
``pytest -m "not llm and not cluster"``.

The failover tests are collected (not run) in a subprocess with ``tests/tier_dump.py``, which reads what each
test does to nodes from the code, apart from the markers it got.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FAILOVER = REPO / "tests" / "failover"


def _collected(tmp_path: Path, *args: str) -> list[dict]:
    dump = tmp_path / "items.json"
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "-p", "tests.tier_dump", *args], cwd=REPO, env={**os.environ, "RATIO_TIER_DUMP": str(dump)},
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, f"collection failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return json.loads(dump.read_text())


def test_every_failover_test_that_starts_or_kills_a_node_is_in_the_cluster_tier(tmp_path: Path) -> None:
    items = _collected(tmp_path, str(FAILOVER.relative_to(REPO)))
    costly = {row["nodeid"]: row["starts_nodes"] + row["kills_or_restarts"] for row in items
              if row["starts_nodes"] or row["kills_or_restarts"]}
    marked = {row["nodeid"] for row in items if "cluster" in row["markers"]}
    assert costly, "no failover test starts a node: the reading of the code is broken"
    assert set(costly) - marked == set(), "start or kill nodes without the cluster marker (add the fixture to " \
        f"FIXTURE_TIERS in tests/conftest.py): {sorted(set(costly) - marked)}"
    assert marked - set(costly) == set(), f"marked cluster, yet start and kill nothing: {sorted(marked - set(costly))}"
    assert {row["nodeid"] for row in items} - marked, "the daily loop keeps the failover tests that start no node"
    assert all("opensearch" in row["markers"] for row in items if row["nodeid"] in marked)


def test_the_cluster_marker_comes_from_the_conftest_not_by_hand() -> None:
    by_hand = [path.name for path in FAILOVER.glob("*.py") if "mark.cluster" in path.read_text()]
    assert by_hand == [], f"the conftest marks the cluster tier by fixture (FIXTURE_TIERS): remove it from {by_hand}"


def test_every_test_module_has_a_basename_of_its_own() -> None:
    """The suite imports test modules by basename (rootdir-relative, no package for each folder): two files named
    alike stop the whole collection with "import file mismatch", which a run of one folder never shows."""
    seen: dict[str, list[str]] = {}
    for path in sorted((REPO / "tests").rglob("test_*.py")):
        seen.setdefault(path.name, []).append(str(path.relative_to(REPO)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}
