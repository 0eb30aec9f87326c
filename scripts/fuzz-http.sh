#!/bin/sh
# Fuzzes the proxy's HTTP/1.1 front end (scripts/fuzz-http.py) against a release build, forward mode
# (CONNECT, absolute-form, Proxy-Authorization) included; --no-forward leaves it out.
# Usage: scripts/fuzz-http.sh [seconds] [more fuzz-http.py options, e.g. --seed 42 --workers 16]
#   default 1800 s; findings (finding-NNN.json + .bin) and proxy logs go to .build-fuzz-http/
#   replay one: python3 scripts/fuzz-http.py --binary "$(swift build -c release --show-bin-path)/hlschaos" \
#                 --replay .build-fuzz-http/finding-001.json
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-1800}
[ $# -gt 0 ] && shift
command -v python3 >/dev/null || { echo "fuzz-http.sh: python3 is needed" >&2; exit 2; }
swift build -c release --product hlschaos
binary="$(swift build -c release --show-bin-path)/hlschaos"
exec python3 scripts/fuzz-http.py --binary "$binary" --seconds "$seconds" --out .build-fuzz-http "$@"
