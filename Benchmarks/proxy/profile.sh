#!/usr/bin/env bash
# Where hlschaos's CPU goes per request, by part of the data plane: a perf profile of every thread
# of a release build serving one benchmark file through `hlschaos serve` (no rule) under wrk, read
# by profile-classify.py into µs per request for libcurl, the hand-over from the curl thread to
# the event loops, response writes, request parsing, the grammar, rules and sessions, records,
# playlist work, the Swift concurrency runtime and the kernel's sends, receives and wake-ups.
#
#   Benchmarks/proxy/profile.sh [path] [seconds]     (default bench/seg-64k.ts, 7 s)
#   BENCH_BUILD=.build-rel Benchmarks/proxy/profile.sh bench/playlist.m3u8
#   BENCH_BINARY=/tmp/hlschaos-before Benchmarks/proxy/profile.sh …   that binary, nothing built
#   BENCH_PART="request grammar (Addressing)" Benchmarks/proxy/profile.sh …   that part by function
#                                     (default: "proxy request handling, other")
#
# Paths: bench/seg-64k.ts, bench/seg-1m.ts, bench/playlist.m3u8, bench/live.m3u8,
# bench/live-fresh.m3u8 (see shared.sh). Needs perf.
set -euo pipefail
cd "$(dirname "$0")/../.."
path=${1:-bench/seg-64k.ts}
seconds=${2:-7}
build=${BENCH_BUILD:-.build}
command -v perf >/dev/null || { echo "perf is missing (apt-get install linux-perf)" >&2; exit 2; }
scripts/install-deps.sh bench >/dev/null
binary=${BENCH_BINARY:-}
if [ -z "$binary" ]; then
  Benchmarks/release-build.sh "$build"
  binary=$build/release/hlschaos
fi
origin=18191 chaos=18193
source Benchmarks/proxy/shared.sh
scratch_with_origin "$origin"
"$binary" serve --upstream "http://127.0.0.1:$origin" --host 127.0.0.1 --port $chaos --log-level warning &
pid=$!
wait_for "http://127.0.0.1:$chaos/$path"
wrk -t2 -c16 -d3s "http://127.0.0.1:$chaos/$path" >/dev/null  # warm up
wrk -t2 -c16 -d"$((seconds + 2))s" "http://127.0.0.1:$chaos/$path" > "$work/wrk.txt" &
load=$!
sleep 1
perf record -F 1999 -g -p "$pid" -o "$work/perf.data" -- sleep "$seconds" 2>/dev/null
wait "$load"
rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")
echo "$path: $rps req/s under wrk -t2 -c16; profile of ${seconds} s at 1999 Hz"
python3 Benchmarks/proxy/profile-classify.py "$work/perf.data" "$rps" "$seconds" 1999 "${BENCH_PART:-}"
