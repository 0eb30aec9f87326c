#!/usr/bin/env bash
# Soak test of hlschaos: simulated live players (1,000 by default) on the demo origin's live
# stream, a quarter of them with the presets stale-live-freeze and live-lag, for an hour by default.
# Every minute: the proxy's RSS, open descriptors, threads and CPU, the requests done, p50/p99 time
# to the full response and the errors of that minute. At the end: the verdict on the targets (RSS
# growth < 10 MB after minute 5, descriptors flat, no unexpected error). Loopback only.
#
#   Benchmarks/soak/run.sh [duration, default 60m] [sessions, default 1000] [soak.py options…]
#
# Durations: 60m, 1h, 360s. Writes Benchmarks/soak/results/soak-<UTC time>.csv, .json and
# .proxy.log (the proxy's own output, log level warning). Exit status 0 when every target is met.
# HLSCHAOS_BIN=path skips the build and runs that binary. See Benchmarks/soak/README.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration=${1:-60m}
sessions=${2:-1000}
shift $(( $# < 2 ? $# : 2 ))

work=$(mktemp -d)
proxy_pid=""
cleanup() {
  if [ -n "$proxy_pid" ] && kill -0 "$proxy_pid" 2>/dev/null; then
    kill -TERM "$proxy_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$proxy_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$proxy_pid" 2>/dev/null || true
  fi
  kill $(jobs -p) 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "${HLSCHAOS_BIN:-}" ]; then
  # A scratch path of its own: other builds (tests, the other benchmarks) use .build.
  Benchmarks/release-build.sh .build-h3 || { echo "HLSCHAOS_BIN=path runs a binary built elsewhere" >&2; exit 1; }
  HLSCHAOS_BIN=.build-h3/release/hlschaos
  built="commit $(git describe --always --dirty 2>/dev/null || echo unknown)"
else
  built="binary $HLSCHAOS_BIN (not built by this run; the tree is at commit $(git describe --always --dirty 2>/dev/null || echo unknown))"
fi

# 1,000 client connections plus the proxy's own: raise the descriptor limit as far as allowed.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# The proxy runs in a session of its own: with the kernel's autogroup scheduling
# (/proc/sys/kernel/sched_autogroup_enabled) each session gets an equal share of the CPU, so the
# load generator's CPU does not come out of the proxy's share. (A background job of a script is no
# process-group leader, so setsid execs in place and $! is the proxy's pid.)
setsid "$HLSCHAOS_BIN" demo --host 127.0.0.1 --port 0 --presets rules --log-level warning >"$work/proxy.log" 2>&1 &
proxy_pid=$!
port="" origin_port=""
for _ in $(seq 300); do
  port=$(sed -n 's/.*proxy on port \([0-9][0-9]*\).*/\1/p' "$work/proxy.log" | head -1)
  [ -n "$port" ] && break
  kill -0 "$proxy_pid" 2>/dev/null || { echo "hlschaos demo exited:" >&2; cat "$work/proxy.log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { echo "hlschaos demo did not print its port within 30 s" >&2; cat "$work/proxy.log" >&2; exit 1; }
origin_port=$(sed -n 's/.*origin http:\/\/127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$work/proxy.log" | head -1)
curl -sf -o /dev/null "http://127.0.0.1:$port/live/ts/master.m3u8" || { echo "the proxy does not answer on port $port" >&2; exit 1; }

# The same code measures differently on another machine: name it, and the commit.
cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo)
machine="$(nproc) cores of ${cpu:-an unknown CPU}, Linux $(uname -r), Python $(python3 -c 'import platform; print(platform.python_version())'), $built"
results=Benchmarks/soak/results
name=soak-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$results"
status=0
python3 Benchmarks/soak/soak.py --port "$port" --origin-port "${origin_port:-0}" --pid "$proxy_pid" \
  --duration "$duration" --sessions "$sessions" --out "$results" --name "$name" --machine "$machine" "$@" || status=$?
# The proxy's own output (its banner, then warnings and errors only) next to the run's CSV and JSON.
cp "$work/proxy.log" "$results/$name.proxy.log"
echo "proxy log: $(awk 'seen {n++} /^Stop with Ctrl-C/ {seen = 1} END {print n + 0}' "$work/proxy.log") lines after the banner, in $results/$name.proxy.log"
kill -0 "$proxy_pid" 2>/dev/null || { echo "the proxy is no longer running" >&2; status=1; }
exit $status
