#!/usr/bin/env bash
# Shaping accuracy and CPU with many shaped sessions (issue 36): `hlschaos demo` (release build),
# N sessions each given its own link through the control API (capacities spread from 300 kbit/s to
# 1.5 Mbit/s), one client per session fetching the top variant's segments one after another for
# SECONDS; then, per session, the rate its client received over the middle of the run against its
# capacity, and the proxy's CPU per second.
# Usage: Benchmarks/link/run.sh [sessions, default 200] [seconds, default 30]
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh build >/dev/null
Benchmarks/release-build.sh .build-rel
log=$(mktemp)
.build-rel/release/hlschaos demo --host 127.0.0.1 --port 0 --control 127.0.0.1:0 --log-level warning >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q "Control API:" "$log" && break; sleep 0.1; done
port=$(sed -n 's/.*proxy on port \([0-9]*\).*/\1/p' "$log" | head -1)
control=$(sed -n 's/.*Control API: *\(http:[^ ]*\).*/\1/p' "$log" | head -1)
python3 Benchmarks/link/shaped.py "$port" "$control" "$pid" "${1:-200}" "${2:-30}"
echo "machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) cores, $(uname -r), commit $(git rev-parse --short HEAD)"
