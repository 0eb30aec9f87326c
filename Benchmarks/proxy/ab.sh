#!/usr/bin/env bash
# Two hlschaos binaries side by side in the same minutes, for telling whether a change helps: on a
# shared machine figures from different runs of run.sh differ by ±20 %, so a before/after
# comparison needs both binaries measured in alternation.
#
#   Benchmarks/proxy/ab.sh BINARY_A BINARY_B [path] [rounds] [seconds] [rounds per start]
#                          (default bench/seg-64k.ts, 8 rounds of 3 s, both restarted every 2 rounds)
#
#   BENCH_SESSIONS=200 Benchmarks/proxy/ab.sh …   requests spread over 200 sessions in turn
#                          (/s/dev0/PATH … /s/dev199/PATH): what sessions share, or do not
#
# e.g. cp .build/release/hlschaos /tmp/before; (change, swift build -c release)
#      Benchmarks/proxy/ab.sh /tmp/before .build/release/hlschaos
#
# Per binary, the medians over the rounds of: requests/s (wrk -t2 -c16), CPU µs per request (all
# threads, from /proc/<pid>/task/*/schedstat) and the busiest thread's CPU µs per request. Then B
# against A as the median of the rounds' own ratios, each round measuring both binaries within
# seconds of each other.
#
# Both binaries are started afresh every few rounds (and given a second of load before they are
# measured): two processes of one and the same binary, measured in alternation, differed here by
# 4 % in CPU per 64 KB request for as long as they ran
# (most of the difference in the kernel's and memmove's copies of the bodies, whose speed depends
# on where buffers sit), so one process against another measures that as much as the code. Over
# several starts it averages out: the same binary against itself, 16 rounds restarted every 2,
# gave a median ratio of 1.001 (middle half 0.976–1.015).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { sed -n 2,20p "$0" >&2; exit 2; }
binaries=("$1" "$2")
for binary in "${binaries[@]}"; do [ -x "$binary" ] || { echo "not an executable: $binary" >&2; exit 2; }; done
path=${3:-bench/seg-64k.ts}
rounds=${4:-8}
seconds=${5:-3}
per_start=${6:-2}
scripts/install-deps.sh bench >/dev/null

work=$(mktemp -d)
chmod 755 "$work"  # nginx workers run as an unprivileged user
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
origin=18181 ports=(18183 18184) control_ports=(18185 18186)
source Benchmarks/proxy/shared.sh
write_origin "$work" "$origin"
load=()  # wrk's extra arguments
if [ -n "${BENCH_SESSIONS:-}" ]; then
  # Each wrk thread runs its own copy of the script: its requests go round the sessions.
  cat > "$work/sessions.lua" <<LUA
counter = 0
request = function()
  counter = counter + 1
  return wrk.format(nil, "/s/dev" .. (counter % $BENCH_SESSIONS) .. "/$path")
end
LUA
  load=(-s "$work/sessions.lua")
fi
nginx -g "daemon off;" -c "$work/origin.conf" &

pids=()
start_both() {
  pids=()
  for i in 0 1; do
    # Each binary runs as users run it by default: a build with the control API gets its own port
    # for it (left to the default, only the first to start would have one, with its metrics).
    # The help is read whole first: with pipefail, `grep -q` closing the pipe early made the binary
    # die of SIGPIPE now and then, and that binary then ran without its own control port.
    local control=() help
    help=$("${binaries[$i]}" serve --help 2>/dev/null || true)
    if [[ $help == *"--control "* ]]; then control=(--control "127.0.0.1:${control_ports[$i]}"); fi
    "${binaries[$i]}" serve --upstream "http://127.0.0.1:$origin" --host 127.0.0.1 --port "${ports[$i]}" --log-level warning "${control[@]}" >/dev/null &
    pids+=($!)
  done
  for port in "${ports[@]}"; do wait_for "http://127.0.0.1:$port/$path"; done
  # One second of the same load on each before it is measured: origin connections opened, caches
  # and allocator arenas warm, as in a proxy that has been running.
  for port in "${ports[@]}"; do wrk -t2 -c16 -d1s "${load[@]}" "http://127.0.0.1:$port/$path" >/dev/null; done
}
stop_both() {
  ((${#pids[@]})) || return 0
  kill "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
}

# Nanoseconds on CPU per thread, "tid ns" lines.
threads() { for task in /proc/$1/task/*; do echo "${task##*/} $(cut -d' ' -f1 "$task/schedstat")"; done | sort; }
for round in $(seq "$rounds"); do
  if (( (round - 1) % per_start == 0 )); then
    stop_both
    start_both
  fi
  for i in 0 1; do
    # Alternate which binary goes first, so that neither always follows the other.
    (( round % 2 )) || i=$((1 - i))
    threads "${pids[$i]}" > "$work/before"
    r=$(wrk -t2 -c16 -d"${seconds}s" "${load[@]}" "http://127.0.0.1:${ports[$i]}/$path" | awk '/Requests\/sec/ {print $2}')
    threads "${pids[$i]}" > "$work/after"
    join "$work/before" "$work/after" | awk -v r="$r" -v s="$seconds" '
      { d = $3 - $2; total += d; if (d > busiest) busiest = d }
      END { n = r * s; printf "%s %.1f %.1f\n", r, total / 1000 / n, busiest / 1000 / n }' >> "$work/rounds.$i"
  done
done
stop_both
echo "$path${BENCH_SESSIONS:+ over $BENCH_SESSIONS sessions}, $rounds rounds of ${seconds}s, both binaries restarted every $per_start, medians"
for i in 0 1; do
  printf '%-40s %8s req/s  %6s µs CPU/request  %6s µs busiest thread/request\n' "${binaries[$i]}" \
    "$(cut -d' ' -f1 "$work/rounds.$i" | median)" "$(cut -d' ' -f2 "$work/rounds.$i" | median)" \
    "$(cut -d' ' -f3 "$work/rounds.$i" | median)"
done
# Per-round ratios B/A: the median, and the middle half of them (how much a single round varies).
paste -d' ' "$work/rounds.0" "$work/rounds.1" | awk '{printf "%.4f %.4f\n", $4 / $1, $5 / $2}' > "$work/ratios"
spread() { sort -g | awk '{v[NR] = $1} END {printf "%.3f (middle half %.3f–%.3f)", v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)]}'; }
echo "B/A per round, median: req/s ×$(cut -d' ' -f1 "$work/ratios" | spread), CPU per request ×$(cut -d' ' -f2 "$work/ratios" | spread)"
