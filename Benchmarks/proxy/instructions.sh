#!/usr/bin/env bash
# Instructions per request of hlschaos, counted by valgrind's callgrind: the same figure for the same
# binary and request whatever else the machine is doing (no timing), so a change of the request path
# can be weighed on a busy or shared machine. Every thread is counted (event loops, the curl thread).
#
#   Benchmarks/proxy/instructions.sh BINARY_A [BINARY_B] [path] [requests]
#                  (default bench/seg-64k.ts, 400 requests; paths as in shared.sh)
#
# Each binary serves the path from the nginx benchmark origin twice, once for `requests` requests and
# once for 5× as many, one after another on one keep-alive connection (curl); instructions per request
# are the difference of the two totals over the difference of the counts, so start-up, warm-up and
# shutdown cancel out. With BENCH_FUNCTIONS=N, the N functions with the most inclusive instructions
# per request in the larger run are listed too. With two binaries, B against A.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { sed -n 2,12p "$0" >&2; exit 2; }
binaries=("$1")
shift
if [ $# -ge 1 ] && [ -x "$1" ]; then binaries+=("$1"); shift; fi
path=${1:-bench/seg-64k.ts}
requests=${2:-400}
command -v valgrind >/dev/null || { echo "valgrind is missing (apt-get install valgrind)" >&2; exit 2; }
for binary in "${binaries[@]}"; do [ -x "$binary" ] || { echo "not an executable: $binary" >&2; exit 2; }; done
scripts/install-deps.sh bench >/dev/null

work=$(mktemp -d)
chmod 755 "$work"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
origin=18291 chaos=18293
source Benchmarks/proxy/shared.sh
write_origin "$work" "$origin"
nginx -g "daemon off;" -c "$work/origin.conf" &
wait_for "http://127.0.0.1:$origin/$path"

# total_instructions BINARY COUNT OUTFILE: runs BINARY under callgrind for COUNT requests, prints Ir.
# valgrind 3.19 cannot read the DWARF 5 of a Swift 6 release build ("possibly corrupted debuginfo"):
# a copy without it is run, whose symbols still name every function.
total_instructions() {
  local binary=$work/$(basename "$1").$4 count=$2 out=$3
  [ -x "$binary" ] || strip --strip-debug -o "$binary" "$1"
  valgrind --tool=callgrind --callgrind-out-file="$out" --dump-instr=no \
    "$binary" serve --upstream "http://127.0.0.1:$origin" --host 127.0.0.1 --port $chaos --log-level warning \
    2>"$out.log" &
  local pid=$!
  for _ in $(seq 300); do curl -sf "http://127.0.0.1:$chaos/$path" -o /dev/null && break; sleep 0.2; done
  for _ in $(seq "$count"); do printf 'url = "http://127.0.0.1:%s/%s"\noutput = "/dev/null"\n' "$chaos" "$path"; done > "$work/urls"
  curl -s --fail-early -K "$work/urls"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  awk '/^(summary|totals):/ {print $2; exit}' "$out"
}

declare -a per_request
for index in "${!binaries[@]}"; do
  binary=${binaries[$index]}
  small=$(total_instructions "$binary" "$requests" "$work/cg.$index.small" "$index")
  large=$(total_instructions "$binary" $((requests * 5)) "$work/cg.$index.large" "$index")
  per_request[$index]=$(( (large - small) / (requests * 4) ))
  printf '%s: %s instructions per request of %s (%s and %s in all)\n' "$binary" "${per_request[$index]}" "$path" "$small" "$large"
  if [ -n "${BENCH_FUNCTIONS:-}" ]; then
    callgrind_annotate --inclusive=yes "$work/cg.$index.large" 2>/dev/null \
      | awk -v n="$((requests * 5))" -v top="$BENCH_FUNCTIONS" '
          /^-+$/ { rule++; next }
          rule >= 3 && $1 ~ /^[0-9,]+$/ && shown < top {
            gsub(",", "", $1); printf "  %9.0f  %s\n", $1 / n, substr($0, index($0, $2)); shown++ }'
  fi
done
if [ "${#binaries[@]}" -eq 2 ]; then
  awk -v a="${per_request[0]}" -v b="${per_request[1]}" 'BEGIN { printf "B against A: ×%.3f instructions per request\n", b / a }'
fi
