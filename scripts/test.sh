#!/usr/bin/env bash
# The whole suite, as `make test` and CI run it: the cluster tier beside everything else, in two pytest sessions.
#
# Why two: the cluster tier (tests/failover's nodes and 3-node cluster, started, killed and restarted) spends its
# five minutes mostly waiting on JVMs booting, elections and shard recoveries, while the rest keeps about one core
# of two busy. Run one after the other they add up; side by side the wait is spent on the other's work. Nothing is
# left out: `pytest` alone still runs every test in one session. Extra arguments go to both sessions.
#
# The one thing both sessions would otherwise race for is the OpenSearch installation (the cluster tier's nodes
# run from it, the rest starts the local node from it), so it is made first, once. The cluster tier has its own
# temporary folder and no test cache; its output is printed, whole, after the rest's.
set -uo pipefail
cd "$(dirname "$0")/.."

.venv/bin/ratio opensearch install >/dev/null || exit 1
work=$(mktemp -d)
.venv/bin/pytest -m cluster -p no:cacheprovider --basetemp "$work/tmp" "$@" >"$work/cluster.log" 2>&1 &
cluster=$!
trap 'kill "$cluster" 2>/dev/null; wait "$cluster" 2>/dev/null; rm -rf "$work"' EXIT
.venv/bin/pytest -m "not cluster" "$@"
rest=$?
wait "$cluster"
tier=$?
echo
echo "==================== the cluster tier (run beside the rest above) ===================="
cat "$work/cluster.log"
# 5 is pytest's "no tests collected": fine for one session (arguments naming only one tier's tests), not both
ok() { [ "$1" -eq 0 ] || [ "$1" -eq 5 ]; }
ok "$rest" && ok "$tier" && ! { [ "$rest" -eq 5 ] && [ "$tier" -eq 5 ]; }
