#!/usr/bin/env bash
# What request records cost (issue 12's budget: at most 5 % fewer 64 KB requests/s). Builds this
# tree twice in release mode, as it is and with -DHLSCHAOS_WITHOUT_RECORDS (which compiles out the
# end of each request that turns the draft into a record and emits it to the ring, the metrics, the
# subscribers and recordings; the draft the request's steps fill in stays), then runs ab.sh on the
# pair, once per run, the build without records as A.
#
#   Benchmarks/proxy/records-cost.sh [runs, default 3] [path] [rounds] [seconds] [rounds per start]
#                                    (default bench/seg-64k.ts, 24 rounds of 3 s, both restarted every round)
#
# Every round on freshly started processes: one process of a binary can run 4 % faster or slower
# than the next for as long as it lives (see ab.sh), so each round is a new draw of that, and the
# median over 24 of them is what the code costs rather than where two processes' buffers sat.
#
# The first build without records compiles every package again (the flag applies to all of them):
# about six minutes on two cores; later ones are incremental. Read the "B/A per round" line: B is
# the build with records.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
path=${2:-bench/seg-64k.ts}
rounds=${3:-24}
seconds=${4:-3}
per_start=${5:-1}
Benchmarks/release-build.sh .build-rel
Benchmarks/release-build.sh .build-rel-norecords -Xswiftc -DHLSCHAOS_WITHOUT_RECORDS
echo "commit $(git describe --always --dirty), $(nproc) cores of $(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo), Linux $(uname -r)"
for run in $(seq "$runs"); do
  echo "run $run of $runs, $(date -u +%H:%M) UTC"
  Benchmarks/proxy/ab.sh .build-rel-norecords/release/hlschaos .build-rel/release/hlschaos "$path" "$rounds" "$seconds" "$per_start"
done
