#!/usr/bin/env bash
# Heap allocations (malloc calls) per request, for each binary given: the same requests on one
# keep-alive connection through `hlschaos serve` (no rule), counted by a perf probe on glibc's
# malloc in the serving process. Unlike time, the count does not move with the machine: it says
# what a change did to the request path when ab.sh's scatter hides it. With BENCH_SITES=1, the
# allocating functions of each binary's hlschaos code (libcurl's own, on the curl thread, show as
# unknown: it has no frame pointers).
#
#   Benchmarks/proxy/allocations.sh BINARY [BINARY…]          bench/seg-64k.ts, 2,000 requests
#   BENCH_PATH=bench/playlist.m3u8 BENCH_REQUESTS=500 Benchmarks/proxy/allocations.sh …
#
# Needs perf and root (the probe: perf probe -x libc.so.6 malloc).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { sed -n 2,13p "$0" >&2; exit 2; }
path=${BENCH_PATH:-bench/seg-64k.ts}
requests=${BENCH_REQUESTS:-2000}
command -v perf >/dev/null || { echo "perf is missing (apt-get install linux-perf)" >&2; exit 2; }
scripts/install-deps.sh bench >/dev/null
libc=$(ldconfig -p | awk '/libc\.so\.6 .*x86-64|libc\.so\.6 .*aarch64/ {print $NF; exit}')
perf probe -l 2>/dev/null | grep -q 'probe_libc:malloc ' || perf probe -q -x "$libc" malloc >/dev/null
origin=18181 chaos=18193
source Benchmarks/proxy/shared.sh
scratch_with_origin "$origin"
for _ in $(seq $requests); do printf 'url = "http://127.0.0.1:%s/%s"\noutput = "/dev/null"\n' $chaos "$path"; done > "$work/requests.cfg"
echo "$path, $requests requests on one connection, malloc calls in the serving process"
for binary in "$@"; do
  "$binary" serve --upstream "http://127.0.0.1:$origin" --host 127.0.0.1 --port $chaos --log-level warning > "$work/serve.log" 2>&1 &
  pid=$!
  wait_for "http://127.0.0.1:$chaos/$path"
  curl -s -K "$work/requests.cfg" > /dev/null  # warm up: pools, caches, the connection's task
  perf stat -e probe_libc:malloc -x, -o "$work/count" -p "$pid" &
  watchers=$!
  if [ "${BENCH_SITES:-0}" = 1 ]; then
    perf record -q -e probe_libc:malloc -g -p "$pid" -o "$work/sites.data" 2>/dev/null &
    watchers="$watchers $!"
  fi
  sleep 1
  statuses=$(curl -s -K "$work/requests.cfg" -w '%{http_code}\n' | sort | uniq -c | tr -s ' ' | tr '\n' ' ')
  sleep 0.5
  kill -INT $watchers
  for watcher in $watchers; do wait "$watcher" 2>/dev/null || true; done
  count=$(awk -F, '/probe_libc:malloc/ {print $1}' "$work/count")
  printf '%-40s %8.1f per request   (statuses:%s)\n' "$binary" "$(echo "$count / $requests" | bc -l)" "$statuses"
  if [ "${BENCH_SITES:-0}" = 1 ]; then
    sleep 0.5
    perf script -i "$work/sites.data" 2>/dev/null | swift demangle --simplified |
      python3 Benchmarks/proxy/allocation-sites.py "$requests" | head -25
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
done
