#!/usr/bin/env bash
# Session creation cost with many sessions alive (issue 11, item 5): a request that creates a
# session against one that reuses a session, over one keep-alive connection, through `hlschaos demo`.
# Usage: Benchmarks/sessions/run.sh [alive sessions, default 23000] [samples, default 500]
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh build >/dev/null
Benchmarks/release-build.sh .build
log=$(mktemp)
.build/release/hlschaos demo --host 127.0.0.1 --port 0 --log-level warning >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q "proxy on port" "$log" && break; sleep 0.1; done
port=$(sed -n 's/.*proxy on port \([0-9]*\).*/\1/p' "$log" | head -1)
python3 Benchmarks/sessions/sessions.py "$port" "${1:-23000}" "${2:-500}"
echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores, $(uname -r), commit $(git rev-parse --short HEAD)"
