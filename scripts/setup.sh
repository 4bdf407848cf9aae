#!/usr/bin/env bash
# Set up Ratio on a fresh machine: system packages (a JDK for the local OpenSearch node, Maven to fetch
# it), a virtual environment in .venv, and the project with the extras named in $1 (default: embed).
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-embed}"

need=()
java_ok=0
for home in ${JAVA_HOME:-} /usr/lib/jvm/*; do
  [ -x "$home/bin/java" ] || continue
  major=$("$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
  if [ -n "$major" ] && [ "$major" -ge 11 ] && [ "$major" -le 23 ]; then java_ok=1; fi
done
[ "$java_ok" = 1 ] || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || need+=(maven)
if [[ "$extras" == *llm* ]] && ! command -v g++ >/dev/null; then
  need+=(g++ make)         # llama-cpp-python builds llama.cpp from source (cmake itself comes from PyPI)
fi
if [[ "$extras" == *dev* ]] && ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
  need+=(chromium)         # the browser tests drive Debian's Chromium with Playwright (no browser download)
fi
if [[ "$extras" == *dev* ]] && ! command -v docker-compose >/dev/null; then
  need+=(docker-compose)   # only to validate docker/compose.yml; it needs no Docker engine
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing system packages: ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "please install these system packages first: ${need[*]}" >&2
    [[ " ${need[*]} " == *" docker-compose "* && ${#need[@]} -eq 1 ]] || exit 1
  fi
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# A portable llama.cpp build (no -march=native), so pip's cached wheel works on any x86-64 CPU; ~12 min once.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
# ...on every core: cmake builds one file at a time otherwise (8 CPU-minutes, so about 4 on two cores).
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
.venv/bin/python -m pip install -q -e ".[$extras]"
