#!/usr/bin/env bash
# Two hlschaos binaries side by side in the same minutes, for telling whether a change helps: on a
# shared machine figures from different runs of run.sh differ by ±20 %, so a before/after
# comparison needs both binaries measured in alternation.
#
#   Benchmarks/proxy/ab.sh BINARY_A BINARY_B [path] [rounds] [seconds]
#                          (default bench/seg-64k.ts, 8 rounds of 3 s; paths as in run.sh)
#
# e.g. cp .build/release/hlschaos /tmp/before; (change, swift build -c release)
#      Benchmarks/proxy/ab.sh /tmp/before .build/release/hlschaos
#
# Per binary, the medians over the rounds of: requests/s (wrk -t2 -c16), CPU µs per request (all
# threads, from /proc/<pid>/task/*/schedstat) and the busiest thread's CPU µs per request.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { sed -n 2,13p "$0" >&2; exit 2; }
binaries=("$1" "$2")
for binary in "${binaries[@]}"; do [ -x "$binary" ] || { echo "not an executable: $binary" >&2; exit 2; }; done
path=${3:-bench/seg-64k.ts}
rounds=${4:-8}
seconds=${5:-3}
scripts/install-deps.sh bench >/dev/null

work=$(mktemp -d)
chmod 755 "$work"  # nginx workers run as an unprivileged user
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
origin=18181 ports=(18183 18184)
source Benchmarks/proxy/shared.sh
write_origin "$work" "$origin"
nginx -g "daemon off;" -c "$work/origin.conf" &
pids=()
for i in 0 1; do
  "${binaries[$i]}" serve --upstream "http://127.0.0.1:$origin" --host 127.0.0.1 --port "${ports[$i]}" --log-level warning &
  pids+=($!)
done
for port in "${ports[@]}"; do wait_for "http://127.0.0.1:$port/$path"; done

# Nanoseconds on CPU per thread, "tid ns" lines.
threads() { for task in /proc/$1/task/*; do echo "${task##*/} $(cut -d' ' -f1 "$task/schedstat")"; done | sort; }
for round in $(seq "$rounds"); do
  for i in 0 1; do
    # Alternate which binary goes first, so that neither always follows the other.
    (( round % 2 )) || i=$((1 - i))
    threads "${pids[$i]}" > "$work/before"
    r=$(wrk -t2 -c16 -d"${seconds}s" "http://127.0.0.1:${ports[$i]}/$path" | awk '/Requests\/sec/ {print $2}')
    threads "${pids[$i]}" > "$work/after"
    join "$work/before" "$work/after" | awk -v r="$r" -v s="$seconds" '
      { d = $3 - $2; total += d; if (d > busiest) busiest = d }
      END { n = r * s; printf "%s %.1f %.1f\n", r, total / 1000 / n, busiest / 1000 / n }' >> "$work/rounds.$i"
  done
done
echo "$path, $rounds rounds of ${seconds}s, medians"
for i in 0 1; do
  printf '%-40s %8s req/s  %6s µs CPU/request  %6s µs busiest thread/request\n' "${binaries[$i]}" \
    "$(cut -d' ' -f1 "$work/rounds.$i" | median)" "$(cut -d' ' -f2 "$work/rounds.$i" | median)" \
    "$(cut -d' ' -f3 "$work/rounds.$i" | median)"
done
