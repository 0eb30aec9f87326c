#!/usr/bin/env bash
# Builds the hlschaos binary in release mode for a benchmark, quietly: on failure it prints the
# compiler's errors and where the whole log is, and exits 1. The binary is SCRATCH/release/hlschaos.
#
#   Benchmarks/release-build.sh SCRATCH [more swift build arguments]
#
# A benchmark that must not share its build with the tests or another benchmark gives a scratch
# path of its own (the soak: .build-h3; records-cost.sh: a second build with other flags).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n 2,8p "$0" >&2; exit 2; }
scratch=$1; shift
mkdir -p "$scratch"
if ! swift build -c release --scratch-path "$scratch" --product hlschaos "$@" >"$scratch/build.log" 2>&1; then
  grep -E 'error:' "$scratch/build.log" | sort -u | head -20 >&2
  echo "the release build in $scratch failed (above; the whole log is $scratch/build.log)" >&2
  exit 1
fi
